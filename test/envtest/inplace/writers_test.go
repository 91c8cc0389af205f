package inplace

import (
	"fmt"
	"io"
	"maps"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/cluster"
	"github.com/claimbridge/claimbridge/judge"
)

const writersRecording = "testdata/writers.json"

// writersBook is the recording: the version of each release's
// kube-apiserver asked, and its answers.
type writersBook struct {
	KubeAPIServer map[string]string
	Releases      []writes
}

// writes is what a kube-apiserver recorded of a client that created a
// ResourceSlice through one version: the managedFields of the slice, and,
// once every version was written, its deprecated-API metric.
type writes struct {
	Release string
	// ManagedFields are the slice's entries by version written through.
	ManagedFields map[string][]map[string]interface{}
	// Deprecated are the apiserver_requested_deprecated_apis series of
	// resource.k8s.io.
	Deprecated []cluster.Requested
	// Reads are, for each set of flags (draFlags "on" and "off"), the
	// answer to a read of ResourceClaims through each version it
	// registers, as a kubelet reads them: 200, or 404 when not served.
	Reads map[string]map[string]int
}

// TestWriters proves what `claimbridge check` reads of a cluster's clients
// against the real kube-apiservers 1.30–1.37, each started with every DRA
// gate on and every version served: a client that writes a ResourceSlice
// through a version shows in its managedFields as that version (judge's
// Writes), and each deprecated version requested shows in the metric with
// the release that removes it, as claimbridge's lifecycle table has it.
// And, started with those flags and with only the versions a DRA cluster
// of the release serves (from 1.34 no beta), each kubelet release the skew
// policy allows reads claims there exactly when check says it does.
//
// Under `make record` the apiservers answer and testdata/writers.json is
// written; otherwise the recording is replayed.
func TestWriters(t *testing.T) {
	book := replay(t, writersRecording, func(pinned map[string]string) writersBook { return recordWriters(t, pinned) },
		func(b writersBook) map[string]string { return b.KubeAPIServer })
	if len(book.Releases) != 8 {
		t.Fatalf("%s has %d releases, want 1.30–1.37: run `make record`", writersRecording, len(book.Releases))
	}
	for _, w := range book.Releases {
		t.Run(w.Release, func(t *testing.T) {
			minor, _ := api.ParseMinor(w.Release)
			var c judge.Clients
			for _, version := range slices.Sorted(maps.Keys(w.ManagedFields)) {
				entries := make([]interface{}, len(w.ManagedFields[version]))
				for i, e := range w.ManagedFields[version] {
					entries[i] = e
				}
				c.AddWrites(map[string]interface{}{"metadata": map[string]interface{}{"managedFields": entries}}, api.KindResourceSlice)
			}
			want := map[judge.Writer]map[string]int{}
			var deprecated []cluster.Requested
			for _, v := range api.ConversionVersions {
				if !api.Bare(minor).Has(v, api.KindResourceSlice) {
					continue
				}
				want[judge.Writer{Manager: "writer-" + v, Version: v}] = map[string]int{api.KindResourceSlice: 1}
				if dep, removed := api.Lifecycle(v, api.KindResourceSlice); dep != 0 && dep <= minor {
					deprecated = append(deprecated, cluster.Requested{Version: v, Resource: "resourceslices", Removed: fmt.Sprintf("1.%d", removed)})
				}
			}
			for _, set := range []string{"on", "off"} {
				target := api.Bare(minor)
				if err := target.Set(draFlags(minor, set)); err != nil {
					t.Fatal(err)
				}
				for k := oldestKubelet(minor); k <= minor; k++ {
					v := api.Reads(k, api.Kubelet, api.KindClaim)
					if got, answered := target.Serves(v, api.KindClaim), w.Reads[set][v] == http.StatusOK; got != answered {
						t.Errorf("gates %s: kubelet 1.%d reads claims through %s: check says served %t, kube-apiserver %s answered %d", set, k, v, got, w.Release, w.Reads[set][v])
					}
				}
			}
			if d := cmp.Diff(want, c.Writes); d != "" {
				t.Errorf("writers (-claimbridge +kube-apiserver %s):\n%s", w.Release, d)
			}
			got := slices.DeleteFunc(slices.Clone(w.Deprecated), func(r cluster.Requested) bool { return r.Resource != "resourceslices" })
			if d := cmp.Diff(deprecated, got, cmp.Transformer("sorted", func(in []cluster.Requested) []cluster.Requested {
				out := slices.Clone(in)
				slices.SortFunc(out, func(a, b cluster.Requested) int { return strings.Compare(a.Version, b.Version) })
				return out
			})); d != "" {
				t.Errorf("deprecated versions requested (-claimbridge's lifecycle +kube-apiserver %s):\n%s", w.Release, d)
			}
		})
	}
}

// slice is a ResourceSlice named for version, in its shape.
func slice(version string) map[string]interface{} {
	obj := map[string]interface{}{"apiVersion": api.UpstreamGroup + "/" + version, "kind": api.KindResourceSlice, "metadata": map[string]interface{}{"name": "writer-" + version}}
	device := map[string]interface{}{"name": "gpu-0"}
	switch version {
	case api.V1alpha2:
		obj["nodeName"], obj["driverName"] = "node-1", "gpu.example.com"
		obj["namedResources"] = map[string]interface{}{"instances": []interface{}{device}}
		return obj
	case api.V1alpha3, api.V1beta1:
		device["basic"] = map[string]interface{}{}
	}
	obj["spec"] = map[string]interface{}{"driver": "gpu.example.com", "nodeName": "node-1",
		"pool": map[string]interface{}{"name": "node-1-" + version, "resourceSliceCount": 1}, "devices": []interface{}{device}}
	return obj
}

// recordWriters asks each release's kube-apiserver.
func recordWriters(t *testing.T, pinned map[string]string) writersBook {
	key, tokens := credentials(t)
	book := writersBook{KubeAPIServer: pinned}
	for minor := 30; minor <= 37; minor++ {
		assets, err := assetsOf(minor)
		if err != nil {
			t.Fatal(err)
		}
		etcd := &envtest.Etcd{Path: filepath.Join(assets, "etcd")}
		if err := etcd.Start(); err != nil {
			t.Fatal(err)
		}
		w := writes{Release: fmt.Sprintf("1.%d", minor), ManagedFields: map[string][]map[string]interface{}{}, Reads: map[string]map[string]int{}}
		for _, set := range []string{"on", "off"} {
			gates, runtime := draFlags(minor, set)
			s, refused, err := launch(filepath.Join(assets, "kube-apiserver"), etcd.URL.String(), fmt.Sprintf("/writers-%d", time.Now().UnixNano()), key, tokens, gates, runtime)
			if s == nil {
				t.Fatalf("1.%d: %s %v", minor, refused, err)
			}
			w.Reads[set] = map[string]int{}
			for _, v := range api.ConversionVersions {
				if api.Registered(v, minor) {
					w.Reads[set][v], _ = s.do(http.MethodGet, "/apis/"+api.UpstreamGroup+"/"+v+"/namespaces/default/resourceclaims", nil, nil)
				}
			}
			if set == "on" {
				err = writeThroughEach(s, minor, &w)
			}
			s.stop()
			if err != nil {
				t.Fatalf("1.%d: %v", minor, err)
			}
		}
		if err := etcd.Stop(); err != nil {
			t.Fatal(err)
		}
		book.Releases = append(book.Releases, w)
	}
	return book
}

// writeThroughEach creates a ResourceSlice through each version release
// minor has, as manager writer-VERSION, and records its managedFields and
// then the deprecated-API metric in w.
func writeThroughEach(s *apiserver, minor int, w *writes) error {
	for _, v := range api.ConversionVersions {
		if !api.Bare(minor).Has(v, api.KindResourceSlice) {
			continue
		}
		obj := slice(v)
		if _, err := s.do(http.MethodPost, path(obj, v, create)+"?fieldManager=writer-"+v, obj, nil); err != nil {
			return err
		}
		var live map[string]interface{}
		if _, err := s.do(http.MethodGet, path(obj, v, item), nil, &live); err != nil {
			return err
		}
		for _, e := range api.Metadata(live)["managedFields"].([]interface{}) {
			entry := e.(map[string]interface{})
			delete(entry, "fieldsV1")
			w.ManagedFields[v] = append(w.ManagedFields[v], entry)
		}
	}
	metrics, err := s.raw("/metrics")
	w.Deprecated = cluster.DeprecatedRequests(metrics)
	return err
}

// raw is the body of a GET of path.
func (s *apiserver) raw(path string) ([]byte, error) {
	req, err := http.NewRequest(http.MethodGet, fmt.Sprintf("https://127.0.0.1:%d%s", s.port, path), nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := s.client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	return io.ReadAll(resp.Body)
}
