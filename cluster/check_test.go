package cluster

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/json"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	clienttesting "k8s.io/client-go/testing"
)

// helmData is data.release as Helm 3 and 4 write it: base64 of the gzipped
// JSON of the release (helm's pkg/storage/driver encodeRelease).
func helmData(t *testing.T, name, ns string, revision int, status, manifest string) string {
	t.Helper()
	b, err := json.Marshal(map[string]interface{}{
		"name": name, "namespace": ns, "version": revision, "manifest": manifest,
		"info":   map[string]interface{}{"status": status, "description": "Install complete"},
		"chart":  map[string]interface{}{"metadata": map[string]interface{}{"name": "gpu", "version": "0.1.0", "apiVersion": "v2"}},
		"config": map[string]interface{}{},
	})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	z, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if _, err := z.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := z.Close(); err != nil {
		t.Fatal(err)
	}
	return base64.StdEncoding.EncodeToString(buf.Bytes())
}

func TestDecodeHelmRelease(t *testing.T) {
	const manifest = "---\n# Source: gpu/templates/class.yaml\napiVersion: resource.k8s.io/v1beta1\nkind: DeviceClass\n"
	h, status, err := DecodeHelmRelease(helmData(t, "gpu", "team-a", 3, "deployed", manifest))
	if err != nil {
		t.Fatal(err)
	}
	want := HelmRelease{Namespace: "team-a", Name: "gpu", Revision: 3, Chart: "gpu-0.1.0", Manifest: manifest}
	if d := cmp.Diff(want, h); d != "" || status != "deployed" {
		t.Errorf("status %q (-want +got):\n%s", status, d)
	}
	if got := h.String(); got != "team-a/gpu@3 (chart gpu-0.1.0)" {
		t.Errorf("String() = %q", got)
	}
	// Records written before Helm compressed them are plain JSON.
	if h, _, err := DecodeHelmRelease(base64.StdEncoding.EncodeToString([]byte(`{"name":"old","version":1}`))); err != nil || h.Name != "old" {
		t.Errorf("uncompressed record: %+v, %v", h, err)
	}
	for _, bad := range []string{"not base64!", base64.StdEncoding.EncodeToString([]byte{0x1f, 0x8b, 0x08, 0})} {
		if _, _, err := DecodeHelmRelease(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

// TestHelmReleases: of each release, the newest deployed revision, from
// Secrets (whose data the API gives in base64 once more) and ConfigMaps.
func TestHelmReleases(t *testing.T) {
	record := func(kind, ns, name string, revision int, status, data string) runtime.Object {
		obj := map[string]interface{}{
			"apiVersion": "v1", "kind": kind,
			"metadata": map[string]interface{}{
				"namespace": ns, "name": "sh.helm.release.v1." + name + ".v" + string(rune('0'+revision)),
				"labels": map[string]interface{}{"owner": "helm", "name": name, "status": status, "version": string(rune('0' + revision))},
			},
			"data": map[string]interface{}{"release": data},
		}
		if kind == "Secret" {
			obj["type"] = "helm.sh/release.v1"
			obj["data"] = map[string]interface{}{"release": base64.StdEncoding.EncodeToString([]byte(data))}
		}
		return &unstructured.Unstructured{Object: obj}
	}
	d := func(name, ns string, revision int, status string) string {
		return helmData(t, name, ns, revision, status, "# "+name+" "+status+"\n")
	}
	c := &Cluster{dynamic: dynamicfake.NewSimpleDynamicClient(runtime.NewScheme(),
		record("Secret", "team-a", "gpu", 1, "superseded", d("gpu", "team-a", 1, "superseded")),
		record("Secret", "team-a", "gpu", 2, "deployed", d("gpu", "team-a", 2, "deployed")),
		record("Secret", "team-a", "gpu", 3, "failed", d("gpu", "team-a", 3, "failed")),
		record("ConfigMap", "kube-system", "nic", 4, "deployed", d("nic", "infra", 4, "deployed")),
	)}
	got, err := c.HelmReleases(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	want := []HelmRelease{
		{Namespace: "infra", Name: "nic", Revision: 4, Chart: "gpu-0.1.0", Manifest: "# nic deployed\n"},
		{Namespace: "team-a", Name: "gpu", Revision: 2, Chart: "gpu-0.1.0", Manifest: "# gpu deployed\n"},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}

// TestKubelets: each node's kubelet version by name ("" when it reports
// none); a forbidden list is ErrNodesForbidden, said once by the caller.
func TestKubelets(t *testing.T) {
	node := func(name, kubelet string) runtime.Object {
		obj := map[string]interface{}{"apiVersion": "v1", "kind": "Node", "metadata": map[string]interface{}{"name": name}}
		if kubelet != "" {
			obj["status"] = map[string]interface{}{"nodeInfo": map[string]interface{}{"kubeletVersion": kubelet}}
		}
		return &unstructured.Unstructured{Object: obj}
	}
	c := &Cluster{dynamic: dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(),
		map[schema.GroupVersionResource]string{{Version: "v1", Resource: "nodes"}: "NodeList"},
		node("gpu-1", "v1.37.1"), node("gpu-2", ""))}
	got, err := c.Kubelets(t.Context())
	if d := cmp.Diff(map[string]string{"gpu-1": "v1.37.1", "gpu-2": ""}, got); err != nil || d != "" {
		t.Errorf("%v (-want +got):\n%s", err, d)
	}
	forbidden := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), map[schema.GroupVersionResource]string{{Version: "v1", Resource: "nodes"}: "NodeList"})
	forbidden.PrependReactor("list", "nodes", func(clienttesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewForbidden(schema.GroupResource{Resource: "nodes"}, "", errors.New("no"))
	})
	if _, err := (&Cluster{dynamic: forbidden}).Kubelets(t.Context()); !errors.Is(err, ErrNodesForbidden) {
		t.Errorf("forbidden: %v, want ErrNodesForbidden", err)
	}
}
