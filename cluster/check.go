package cluster

import (
	"bytes"
	"cmp"
	"compress/gzip"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/pager"

	"github.com/claimbridge/claimbridge/api"
)

// DRAObjects gives visit every object of the DRA kinds Export reads, and of
// the ResourceSlices that stay through an upgrade, in
// the version Export reads each kind. It only reads.
func (c *Cluster) DRAObjects(ctx context.Context, visit func(map[string]interface{}) error) error {
	resources, err := c.draResources(append(slices.Clip(draKinds), api.KindResourceSlice))
	if err != nil {
		return err
	}
	for _, r := range resources {
		if err := c.each(ctx, r, metav1.ListOptions{}, visit); err != nil {
			return err
		}
	}
	return nil
}

// each lists r in every namespace, 500 objects a request.
func (c *Cluster) each(ctx context.Context, r schema.GroupVersionResource, opts metav1.ListOptions, visit func(map[string]interface{}) error) error {
	p := pager.New(func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
		return c.dynamic.Resource(r).List(ctx, opts)
	})
	p.PageBufferSize = 1 // one page read ahead: more would hold more objects decoded
	err := p.EachListItem(ctx, opts, func(obj runtime.Object) error {
		u, ok := obj.(*unstructured.Unstructured)
		if !ok {
			return fmt.Errorf("a list item of %T", obj)
		}
		return visit(u.Object)
	})
	if err != nil {
		return fmt.Errorf("listing %s: %w", r.GroupResource(), err)
	}
	return nil
}

// A HelmRelease is the deployed revision of an installed Helm release.
type HelmRelease struct {
	Namespace, Name string
	Revision        int
	Chart           string // name-version
	Manifest        string // the YAML stream Helm applied (hooks and crds/ are not in it)
}

// String names the release as `helm status` would find it:
// "NAMESPACE/NAME@REVISION (chart NAME-VERSION)".
func (h HelmRelease) String() string {
	return fmt.Sprintf("%s/%s@%d (chart %s)", h.Namespace, h.Name, h.Revision, h.Chart)
}

// helmRecord holds the fields read of Helm's release.v1 record, the JSON
// of helm.sh/helm/v4/pkg/release/v1.Release (Helm 3's is the same).
type helmRecord struct {
	Name      string `json:"name"`
	Namespace string `json:"namespace"`
	Version   int    `json:"version"`
	Manifest  string `json:"manifest"`
	Info      struct {
		Status string `json:"status"`
	} `json:"info"`
	Chart struct {
		Metadata struct {
			Name    string `json:"name"`
			Version string `json:"version"`
		} `json:"metadata"`
	} `json:"chart"`
}

// DecodeHelmRelease decodes data.release of a release record as Helm 3
// and Helm 4 write it (pkg/storage/driver's encodeRelease): base64 of the
// gzipped JSON of the release (gzip is optional, as Helm reads it). It
// returns the release and its status ("deployed", "superseded", …).
func DecodeHelmRelease(data string) (HelmRelease, string, error) {
	b, err := base64.StdEncoding.DecodeString(data)
	if err != nil {
		return HelmRelease{}, "", err
	}
	if len(b) > 3 && bytes.Equal(b[:3], []byte{0x1f, 0x8b, 0x08}) {
		z, err := gzip.NewReader(bytes.NewReader(b))
		if err != nil {
			return HelmRelease{}, "", err
		}
		if b, err = io.ReadAll(z); err != nil {
			return HelmRelease{}, "", err
		}
	}
	var rec helmRecord
	if err := json.Unmarshal(b, &rec); err != nil {
		return HelmRelease{}, "", err
	}
	chart := rec.Chart.Metadata.Name + "-" + rec.Chart.Metadata.Version
	return HelmRelease{rec.Namespace, rec.Name, rec.Version, chart, rec.Manifest}, rec.Info.Status, nil
}

// HelmReleases reads the deployed revision of every Helm release of the
// cluster, from Helm's storage: Secrets of type helm.sh/release.v1 (the
// default driver of Helm 3 and 4) and ConfigMaps (the configmap driver),
// both labelled owner=helm, status=deployed. Of a release with more than
// one deployed revision, the newest is kept. They are sorted by namespace
// and name.
func (c *Cluster) HelmReleases(ctx context.Context) ([]HelmRelease, error) {
	latest := map[[2]string]HelmRelease{} // by storage namespace and release name
	for _, store := range []struct {
		resource, fieldSelector string
		data                    func(string) (string, error) // the record of data.release
	}{
		{"secrets", "type=helm.sh/release.v1", func(s string) (string, error) { b, err := base64.StdEncoding.DecodeString(s); return string(b), err }},
		{"configmaps", "", func(s string) (string, error) { return s, nil }},
	} {
		opts := metav1.ListOptions{LabelSelector: "owner=helm,status=deployed", FieldSelector: store.fieldSelector}
		err := c.each(ctx, schema.GroupVersionResource{Version: "v1", Resource: store.resource}, opts, func(obj map[string]interface{}) error {
			u := unstructured.Unstructured{Object: obj}
			raw, _, _ := unstructured.NestedString(obj, "data", "release")
			data, err := store.data(raw)
			var h HelmRelease
			var status string
			if err == nil {
				h, status, err = DecodeHelmRelease(data)
			}
			if err != nil {
				return fmt.Errorf("%s %s/%s: not a Helm release record: %w", store.resource, u.GetNamespace(), u.GetName(), err)
			}
			key := [2]string{u.GetNamespace(), h.Name}
			if old, ok := latest[key]; status == "deployed" && (!ok || h.Revision > old.Revision) {
				latest[key] = h
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("reading Helm's releases: %w", err)
		}
	}
	out := slices.Collect(maps.Values(latest))
	slices.SortFunc(out, func(a, b HelmRelease) int {
		return cmp.Or(cmp.Compare(a.Namespace, b.Namespace), cmp.Compare(a.Name, b.Name))
	})
	return out, nil
}
