package inplace

// TestInPlace proves what `claimbridge check` says of stored objects: for
// every change 1.30↔1.31 … 1.36↔1.37, the first release's kube-apiserver
// (every DRA gate on, every version served) creates a class, a claim, a
// template, a slice and, from 1.33, a taint rule; it is stopped, and the
// second release's is started on the same etcd with the flags check says
// it starts with (the first's, less those it refuses, plus those it lacks
// to serve DRA). There each object is read (GET), updated (a label) and its
// resource listed. An object check keeps must survive all three; one it
// calls unreadable must fail GET and LIST; one whose kind the target does
// not serve must be not found.
//
// Under `make record` the apiservers answer and testdata/inplace.json is
// written, with the flags each was started with; otherwise the recording is
// replayed, and flags other than those the test would start them with now
// mean it is out of date.

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/test/recorded"
)

const inplaceRecording = "testdata/inplace.json"

// answer is what the second apiserver answered for one stored object, and
// the flags each apiserver was started with.
type answer struct {
	From, To, Kind     string
	FromFlags, ToFlags string
	Get, Update, List  int // HTTP status codes
}

func TestInPlace(t *testing.T) {
	var pairs [][2]int
	for minor := 30; minor < 37; minor++ {
		pairs = append(pairs, [2]int{minor, minor + 1}, [2]int{minor + 1, minor})
	}
	var answers []answer
	if recorded.Recording {
		answers = recordInPlace(t, pairs)
	} else {
		data, err := os.ReadFile(inplaceRecording)
		if err != nil {
			t.Fatalf("%v: run `make record`", err)
		}
		if err := json.Unmarshal(data, &answers); err != nil {
			t.Fatal(err)
		}
	}
	want := 0
	for _, p := range pairs {
		want += len(storedObjects(p[0]))
	}
	if len(answers) != want {
		t.Fatalf("%s has %d answers, want %d: run `make record`", inplaceRecording, len(answers), want)
	}
	for _, a := range answers {
		t.Run(a.From+"-to-"+a.To+"-"+a.Kind, func(t *testing.T) {
			from, _ := api.ParseMinor(a.From)
			to, _ := api.ParseMinor(a.To)
			target := upgraded(t, from, to)
			if want := [2]string{flagLine(draFlags(from, "on")), flagLine(flagsOf(target))}; [2]string{a.FromFlags, a.ToFlags} != want {
				t.Fatalf("%s was recorded with the flags %q, %q; the test starts the apiservers with %q, %q: run `make record`",
					inplaceRecording, a.FromFlags, a.ToFlags, want[0], want[1])
			}
			stored, readable, served := target.Keeps(a.Kind, from, to)
			switch {
			case !served && a.Get != http.StatusNotFound:
				t.Errorf("check: 1.%d serves no %s; kube-apiserver 1.%d answered GET %d, UPDATE %d, LIST %d", to, a.Kind, to, a.Get, a.Update, a.List)
			case served && !readable && (a.Get == http.StatusOK || a.List == http.StatusOK):
				t.Errorf("check: 1.%d cannot read %s stored in %s; kube-apiserver 1.%d answered GET %d, UPDATE %d, LIST %d", to, a.Kind, stored, to, a.Get, a.Update, a.List)
			case served && readable && (a.Get != http.StatusOK || a.Update != http.StatusOK || a.List != http.StatusOK):
				t.Errorf("check: 1.%d keeps %s stored in %s; kube-apiserver 1.%d answered GET %d, UPDATE %d, LIST %d", to, a.Kind, stored, to, a.Get, a.Update, a.List)
			}
		})
	}
}

// upgraded is release to with the flags check says it starts with after
// release from with every DRA gate on.
func upgraded(t *testing.T, from, to int) api.Cluster {
	c := api.Bare(from)
	if err := c.Set(draFlags(from, "on")); err != nil {
		t.Fatal(err)
	}
	target, _ := c.Upgrade(to)
	return target
}

// storedObjects are the DRA objects a cluster of release minor holds, in
// the versions it creates them in: a class, a claim, a template, a slice
// and, from 1.33, a taint rule.
func storedObjects(minor int) []map[string]interface{} {
	obj := func(kind, version string, fields string) map[string]interface{} {
		var o map[string]interface{}
		meta := `{"name":"gpu.example.com"}`
		if kind == api.KindClaim || kind == api.KindTemplate {
			meta = `{"name":"gpu","namespace":"default"}`
		}
		if err := json.Unmarshal([]byte(fmt.Sprintf(`{"apiVersion":"%s/%s","kind":"%s","metadata":%s,%s}`, api.UpstreamGroup, version, kind, meta, fields)), &o); err != nil {
			panic(err)
		}
		return o
	}
	v := api.CreatedIn(api.KindClaim, minor)
	if minor <= 30 {
		return []map[string]interface{}{
			obj(api.KindResourceClass, v, `"driverName":"gpu.example.com"`),
			obj(api.KindClaim, v, `"spec":{"resourceClassName":"gpu.example.com"}`),
			obj(api.KindTemplate, v, `"spec":{"spec":{"resourceClassName":"gpu.example.com"}}`),
			obj(api.KindResourceSlice, v, `"nodeName":"node-1","driverName":"gpu.example.com","namedResources":{"instances":[{"name":"gpu-0"}]}`),
		}
	}
	request, device := `{"name":"gpu","exactly":{"deviceClassName":"gpu.example.com"}}`, `{"name":"gpu-0"}`
	if v == api.V1alpha3 || v == api.V1beta1 {
		request, device = `{"name":"gpu","deviceClassName":"gpu.example.com"}`, `{"name":"gpu-0","basic":{}}`
	}
	out := []map[string]interface{}{
		obj(api.KindDeviceClass, v, `"spec":{}`),
		obj(api.KindClaim, v, `"spec":{"devices":{"requests":[`+request+`]}}`),
		obj(api.KindTemplate, v, `"spec":{"spec":{"devices":{"requests":[`+request+`]}}}`),
		obj(api.KindResourceSlice, v, `"spec":{"driver":"gpu.example.com","pool":{"name":"node-1","resourceSliceCount":1},"nodeName":"node-1","devices":[`+device+`]}`),
	}
	if minor >= 33 {
		out = append(out, obj(api.KindDeviceTaintRule, api.CreatedIn(api.KindDeviceTaintRule, minor),
			`"spec":{"deviceSelector":{"driver":"gpu.example.com"},"taint":{"key":"example.com/maintenance","effect":"NoSchedule"}}`))
	}
	return out
}

// The REST paths of an object: itself, its collection in its namespace
// (where it is created), its collection in every namespace (listed).
const (
	item = iota
	create
	list
)

// path is obj's REST path of the kind given, in version.
func path(obj map[string]interface{}, version string, of int) string {
	kind, _ := obj["kind"].(string)
	meta := api.Metadata(obj)
	p := "/apis/" + api.UpstreamGroup + "/" + version
	if ns, _ := meta["namespace"].(string); ns != "" && of != list {
		p += "/namespaces/" + ns
	}
	p += "/" + api.Resource(kind)
	if of == item {
		p += "/" + fmt.Sprint(meta["name"])
	}
	return p
}

// recordInPlace upgrades and rolls back real apiservers in place, pair by
// pair, and writes the recording.
func recordInPlace(t *testing.T, pairs [][2]int) []answer {
	key, tokens := credentials(t)
	var answers []answer
	for _, p := range pairs {
		assetsA, assetsB, etcd := startPair(t, p)
		prefix := fmt.Sprintf("/inplace-%d", time.Now().UnixNano())
		gates, runtime := draFlags(p[0], "on")
		a, refused, err := launch(filepath.Join(assetsA, "kube-apiserver"), etcd.URL.String(), prefix, key, tokens, gates, runtime)
		if a == nil {
			t.Fatalf("1.%d: %s %v", p[0], refused, err)
		}
		objects := storedObjects(p[0])
		for _, obj := range objects {
			version := strings.TrimPrefix(fmt.Sprint(obj["apiVersion"]), api.UpstreamGroup+"/")
			if _, err := a.do(http.MethodPost, path(obj, version, create), obj, nil); err != nil {
				a.stop()
				t.Fatalf("1.%d: %v", p[0], err)
			}
		}
		a.stop()
		target := upgraded(t, p[0], p[1])
		bGates, bRuntime := flagsOf(target)
		b, refused, err := launch(filepath.Join(assetsB, "kube-apiserver"), etcd.URL.String(), prefix, key, tokens, bGates, bRuntime)
		if b == nil {
			t.Fatalf("1.%d with %s %s: %s %v", p[1], bGates, bRuntime, refused, err)
		}
		for _, obj := range objects {
			a := ask(b, obj, p)
			a.FromFlags, a.ToFlags = flagLine(gates, runtime), flagLine(bGates, bRuntime)
			answers = append(answers, a)
		}
		b.stop()
		if err := etcd.Stop(); err != nil {
			t.Fatal(err)
		}
	}
	data, err := json.MarshalIndent(answers, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(inplaceRecording, append(data, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	return answers
}

// startPair starts the etcd of a change from p[0] to p[1], and returns it
// with the assets directory of each release.
func startPair(t *testing.T, p [2]int) (assetsA, assetsB string, etcd *envtest.Etcd) {
	var err error
	if assetsA, err = assetsOf(p[0]); err != nil {
		t.Fatal(err)
	}
	if assetsB, err = assetsOf(p[1]); err != nil {
		t.Fatal(err)
	}
	etcd = &envtest.Etcd{Path: filepath.Join(assetsOf2(assetsA, assetsB), "etcd")}
	if err := etcd.Start(); err != nil {
		t.Fatal(err)
	}
	return assetsA, assetsB, etcd
}

// assetsOf2 is the assets directory whose etcd serves both releases: the
// newer's.
func assetsOf2(a, b string) string {
	if a > b {
		return a
	}
	return b
}

// flagLine is an apiserver's DRA flags, as the recording keeps them.
func flagLine(gates, runtime string) string {
	return "--feature-gates=" + gates + " --runtime-config=" + runtime
}

// flagsOf are c's --feature-gates and --runtime-config values.
func flagsOf(c api.Cluster) (gates, runtime string) {
	for _, f := range strings.Fields(c.SettingsString()) {
		if v, ok := strings.CutPrefix(f, "--feature-gates="); ok {
			gates = v
		}
		if v, ok := strings.CutPrefix(f, "--runtime-config="); ok {
			runtime = v
		}
	}
	return gates, runtime
}

// ask reads obj at s in the first version s serves its kind in, updates
// it with a label, and lists its resource.
func ask(s *apiserver, obj map[string]interface{}, p [2]int) answer {
	kind, _ := obj["kind"].(string)
	a := answer{From: fmt.Sprintf("1.%d", p[0]), To: fmt.Sprintf("1.%d", p[1]), Kind: kind, Get: http.StatusNotFound, Update: http.StatusNotFound, List: http.StatusNotFound}
	var group struct{ Versions []struct{ Version string } }
	s.do(http.MethodGet, "/apis/"+api.UpstreamGroup, nil, &group)
	for _, v := range group.Versions {
		var resources struct{ Resources []struct{ Name string } }
		s.do(http.MethodGet, "/apis/"+api.UpstreamGroup+"/"+v.Version, nil, &resources)
		for _, r := range resources.Resources {
			if r.Name != api.Resource(kind) {
				continue
			}
			var live map[string]interface{}
			a.Get, _ = s.do(http.MethodGet, path(obj, v.Version, item), nil, &live)
			a.Update = a.Get
			if a.Get == http.StatusOK {
				api.Metadata(live)["labels"] = map[string]interface{}{"inplace": "updated"}
				a.Update, _ = s.do(http.MethodPut, path(obj, v.Version, item), live, nil)
			}
			a.List, _ = s.do(http.MethodGet, path(obj, v.Version, list), nil, nil)
			return a
		}
	}
	return a
}
