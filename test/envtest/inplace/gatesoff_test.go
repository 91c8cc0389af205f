package inplace

import (
	"cmp"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/judge"
)

const gatesOffRecording = "testdata/gatesoff.json"

// gatesOffChanges are changes in place between releases' defaults: 1.36
// turns on five DRA gates that 1.35 keeps off (api/featuregates.tsv), 1.37
// keeps them on.
var gatesOffChanges = [][2]int{{36, 35}, {36, 37}}

// gatedChange is one change in place of a whole control plane, each
// release with its default gates.
type gatedChange struct {
	From, To string
	// FromFlags and ToFlags are the flags each control plane ran with.
	FromFlags, ToFlags string
	// Claims, Slices and Classes are as From serves them (gatedAllocate).
	Claims, Slices, Classes []map[string]interface{}
	// Nodes are where To bound the Pods ("": nowhere): those of From, and
	// those created on To (gatedPods).
	Nodes map[string]string
	// Served are the claims as To serves them, once its scheduler has
	// placed the new Pods.
	Served []held
}

type gatesOffBook struct {
	KubeAPIServer map[string]string
	Changes       []gatedChange
}

// TestGatesOff proves what `claimbridge check` says where the target runs
// with gates off that the first release had on: binding conditions,
// extended resources, device taints, partitions and shares of a device.
// The first release's kube-apiserver, kube-scheduler and
// kube-controller-manager allocate a device of each kind (gatedAllocate);
// the test's driver attaches the device of claim ready, and not that of
// claim waiting. Then all three are replaced by the second release's on the
// same etcd, and new Pods want one device of each kind (gatedPods).
//
// Check warns of a claim exactly where the target binds a Pod before its
// device is ready; of an object of each kind exactly where the target
// gives the new Pod of that kind what the first release would not, or
// withholds what it would give; and no device is given twice.
func TestGatesOff(t *testing.T) {
	book := replay(t, gatesOffRecording, func(pinned map[string]string) gatesOffBook {
		return recordGatesOff(t, pinned)
	}, func(b gatesOffBook) map[string]string { return b.KubeAPIServer })
	if len(book.Changes) != len(gatesOffChanges) {
		t.Fatalf("%s has %d changes, want %d: run `make record`", gatesOffRecording, len(book.Changes), len(gatesOffChanges))
	}
	for i, c := range book.Changes {
		p := gatesOffChanges[i]
		t.Run(c.From+"-to-"+c.To, func(t *testing.T) {
			from, target := defaultsChange(p)
			if want := newGatedChange(p, from, target); c.From != want.From || c.To != want.To || c.FromFlags != want.FromFlags || c.ToFlags != want.ToFlags {
				t.Fatalf("recorded %s (%s) to %s (%s); the test runs %s (%s) to %s (%s): run `make record`", c.From, c.FromFlags, c.To, c.ToFlags, want.From, want.FromFlags, want.To, want.ToFlags)
			}
			checkBinding(t, c, p, target)
			allocated := func(claim string) bool {
				i := slices.IndexFunc(c.Served, func(h held) bool { return h.Claim == claim })
				return i >= 0 && len(c.Served[i].Devices) > 0
			}
			for _, r := range []struct {
				kind, name, says string
				did              bool
				what             string
			}{
				{api.KindResourceSlice, "node-1-fabric", "allocates no device with binding conditions", !allocated("new"), "gave claim new no device with binding conditions"},
				{api.KindDeviceClass, "ext.example.com", "gives no Pod example.com/gpu", c.Nodes["new-ext"] == "", "left Pod new-ext, which requests example.com/gpu, pending"},
				{api.KindResourceSlice, "node-2-taint", "ignores device taints", allocated("new-tainted"), "allocated a device tainted NoSchedule to claim new-tainted"},
				{api.KindResourceSlice, "node-1-part", "allocates no device that consumes counters", !allocated("new-half"), "gave claim new-half no partition of the GPU"},
				{api.KindClaim, "share-a", "as wholly allocated", !allocated("new-share"), "gave claim new-share no share of the device"},
			} {
				objs := map[string][]map[string]interface{}{api.KindClaim: c.Claims, api.KindResourceSlice: c.Slices, api.KindDeviceClass: c.Classes}[r.kind]
				i := slices.IndexFunc(objs, func(o map[string]interface{}) bool { return api.Metadata(o)["name"] == r.name })
				if i < 0 {
					t.Fatalf("1.%d holds no %s %s: run `make record`", p[0], r.kind, r.name)
				}
				if said := warned(judge.Stored(objs[i], target, r.kind, p[0], p[1]), r.says); r.did != (len(said) > 0) {
					t.Errorf("1.%d %s: %t; check says of %s %s: %q", p[1], r.what, r.did, r.kind, r.name, said)
				}
			}
			if c.Nodes["new-ext-claim"] == "" {
				t.Errorf("1.%d did not place Pod new-ext-claim, with a device of the extended resource's class free", p[1])
			}
			given := map[string]string{}
			for _, h := range c.Served {
				for _, d := range h.Devices {
					if other, ok := given[d]; ok {
						t.Errorf("1.%d gave device %s to claims %s and %s", p[1], d, other, h.Claim)
					}
					given[d] = h.Claim
				}
			}
		})
	}
}

// checkBinding holds check's verdicts on the claims against what release
// p[1] did with the Pods of claims ready and waiting. Every other claim
// but share-a (a row of TestGatesOff) survives with no finding.
func checkBinding(t *testing.T, c gatedChange, p [2]int, target api.Cluster) {
	for _, claim := range c.Claims {
		name := heldOf(claim, http.StatusOK).Claim
		v := judge.Stored(claim, target, api.KindClaim, p[0], p[1])
		if name != "waiting" && name != "share-a" && (v.Unreached != "" || len(v.Errors)+len(v.Warnings) > 0) {
			t.Errorf("claim %s survives 1.%d, and check says %q %q %q", name, p[1], v.Unreached, v.Errors, v.Warnings)
		}
		said := warned(v, "does not wait for them")
		if bound := c.Nodes[name] != "" && name == "waiting"; bound != (len(said) > 0) {
			t.Errorf("claim %s: 1.%d bound its Pod before the device was attached: %t; check says %q", name, p[1], bound, said)
		}
		if len(said) > 0 && !strings.Contains(said[0], "Pod default/"+name+" holds claim default/"+name) {
			t.Errorf("claim %s: check does not name the Pod that holds it: %q", name, said)
		}
	}
	if c.Nodes["ready"] == "" {
		t.Errorf("1.%d unbound Pod ready, whose device was attached", p[1])
	}
}

// warned are v's warnings that contain s.
func warned(v judge.StoredVerdict, s string) []string {
	return slices.DeleteFunc(slices.Clone(v.Warnings), func(w string) bool { return !strings.Contains(w, s) })
}

// defaultsChange is release p[0] with its defaults, and p[1] as check has
// it after the change.
func defaultsChange(p [2]int) (from, target api.Cluster) {
	from = api.Defaults(p[0])
	target, _ = from.Upgrade(p[1])
	return from, target
}

func newGatedChange(p [2]int, from, target api.Cluster) gatedChange {
	return gatedChange{From: fmt.Sprintf("1.%d", p[0]), To: fmt.Sprintf("1.%d", p[1]), FromFlags: flagLine(flagsOf(from)), ToFlags: flagLine(flagsOf(target))}
}

// recordGatesOff runs each change with whole control planes.
func recordGatesOff(t *testing.T, pinned map[string]string) gatesOffBook {
	key, tokens := credentials(t)
	book := gatesOffBook{KubeAPIServer: pinned}
	for _, p := range gatesOffChanges {
		assetsA, assetsB, etcd := startPair(t, p)
		from, target := defaultsChange(p)
		c := newGatedChange(p, from, target)
		prefix := fmt.Sprintf("/gatesoff-%d", time.Now().UnixNano())
		gates, runtime := flagsOf(from)
		cp := startControlPlane(t, assetsA, etcd.URL.String(), prefix, key, tokens, gates, runtime)
		sc := &scenario{minor: p[0], version: api.CreatedIn(api.KindClaim, p[0])}
		if err := gatedAllocate(cp.api, sc); err != nil {
			cp.stop()
			t.Fatalf("1.%d: %v\n%s", p[0], err, cp.logs())
		}
		c.Claims, c.Slices, c.Classes = sc.stored(cp.api, api.KindClaim), sc.stored(cp.api, api.KindResourceSlice), sc.stored(cp.api, api.KindDeviceClass)
		cp.stop()
		gates, runtime = flagsOf(target)
		cp = startControlPlane(t, assetsB, etcd.URL.String(), prefix, key, tokens, gates, runtime)
		pods := gatedPods(sc, p[1])
		if err := post(cp.api, sc.version, pods...); err != nil {
			cp.stop()
			t.Fatalf("1.%d: %v", p[1], err)
		}
		c.Nodes, _ = waitPods(cp.api, append(podNames(pods), "ready", "waiting", "ext", "half", "share-a"), false, 30*time.Second)
		for _, claim := range sc.stored(cp.api, api.KindClaim) {
			c.Served = append(c.Served, heldOf(claim, http.StatusOK))
		}
		cp.stop()
		if err := etcd.Stop(); err != nil {
			t.Fatal(err)
		}
		book.Changes = append(book.Changes, c)
	}
	return book
}

// post creates objs on s: Pods, and resource.k8s.io objects in version.
func post(s *apiserver, version string, objs ...map[string]interface{}) error {
	for _, obj := range objs {
		at := "/api/v1/namespaces/default/pods"
		if obj["kind"] != "Pod" {
			at = path(obj, version, create)
		}
		if _, err := s.do(http.MethodPost, at, obj, nil); err != nil {
			return err
		}
	}
	return nil
}

// gatedClaim is a claim of one device of class (of capacity, if any).
func gatedClaim(sc *scenario, name, class, capacity string) map[string]interface{} {
	return sc.resource(api.KindClaim, name, "ns", `"spec":{`+sc.request(class, capacity)+`}`)
}

// gatedPods are the Pods created on release minor, and their claims: new,
// of a device with binding conditions; new-ext, which requests the
// extended resource; new-ext-claim, of a device of its class; new-tainted,
// of the tainted device; new-half, of a partition of the GPU; new-share,
// of a share of the device.
func gatedPods(sc *scenario, minor int) []map[string]interface{} {
	out := []map[string]interface{}{extPod("new-ext")}
	for name, class := range map[string]string{"new": "fabric.example.com", "new-ext-claim": "ext.example.com", "new-tainted": "taint.example.com", "new-half": "part-half.example.com", "new-share": "vgpu.example.com"} {
		capacity := ""
		if name == "new-share" {
			capacity = "10Gi"
		}
		out = append(out, gatedClaim(sc, name, class, capacity), pod(minor, name, name))
	}
	return out
}

// extPod is a Pod that requests one example.com/gpu, an extended resource
// no Node advertises.
func extPod(name string) map[string]interface{} {
	return object(`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"%s","namespace":"default"},"spec":{"automountServiceAccountToken":false,"terminationGracePeriodSeconds":0,
		"containers":[{"name":"c","image":"registry.k8s.io/pause:3.10","resources":{"requests":{"example.com/gpu":"1"},"limits":{"example.com/gpu":"1"}}}]}}`, name)
}

// gatedAllocate creates, on s, Nodes node-1 and node-2 and slices of test
// drivers with the classes of their devices: node-1's of fabric.example.com,
// whose devices are attached to a node on demand (binding conditions), with
// Pods ready and waiting, each with a claim of its name; node-2's of
// ext.example.com, whose class offers the extended resource
// example.com/gpu, with Pod ext, which requests it; node-2's of
// taint.example.com, whose one device is tainted NoSchedule; node-1's GPU
// of part.example.com, whole or in two halves (counters), with Pod half,
// whose claim wants a half; node-2's device of vgpu.example.com, of which
// claims get shares of its memory, with Pod share-a, whose claim has one.
// As the driver, it attaches the device of claim ready once allocated, and
// waits until the scheduler has bound Pods ready, ext, half and share-a and
// reserved claim waiting.
func gatedAllocate(s *apiserver, sc *scenario) error {
	if err := addNodes(s); err != nil {
		return err
	}
	class := func(name, expression, fields string) map[string]interface{} {
		e, _ := json.Marshal(cmp.Or(expression, `device.driver == "`+name+`"`))
		return sc.resource(api.KindDeviceClass, name, "", `"spec":{`+fields+`"selectors":[{"cel":{"expression":`+string(e)+`}}]}`)
	}
	slice := func(node, driver, devices string) map[string]interface{} {
		return sc.resource(api.KindResourceSlice, node+"-"+strings.Split(driver, ".")[0], "",
			fmt.Sprintf(`"spec":{"driver":"%s","pool":{"name":"%s","resourceSliceCount":1},"nodeName":"%s","devices":[%s]}`, driver, node, node, devices))
	}
	objs := append([]map[string]interface{}{
		class("fabric.example.com", "", ""),
		slice("node-1", "fabric.example.com", devices(`{"name":"fab-%d","bindingConditions":["attached"],"bindingFailureConditions":["failed"]}`)),
		class("ext.example.com", "", `"extendedResourceName":"example.com/gpu",`),
		slice("node-2", "ext.example.com", devices(`{"name":"ext-%d"}`)),
		class("taint.example.com", "", ""),
		slice("node-2", "taint.example.com", `{"name":"bad-0","taints":[{"key":"example.com/unhealthy","value":"true","effect":"NoSchedule"}]}`),
		class("part-half.example.com", `device.driver == "part.example.com" && device.attributes["part.example.com"].size == "half"`, ""),
		class("vgpu.example.com", "", ""),
		slice("node-2", "vgpu.example.com", `{"name":"vgpu-0","allowMultipleAllocations":true,"capacity":{"memory":{"value":"40Gi","requestPolicy":{"default":"10Gi","validRange":{"min":"1Gi"}}}}}`),
		gatedClaim(sc, "ready", "fabric.example.com", ""), gatedClaim(sc, "waiting", "fabric.example.com", ""),
		gatedClaim(sc, "half", "part-half.example.com", ""), gatedClaim(sc, "share-a", "vgpu.example.com", "10Gi"),
		pod(sc.minor, "ready", "ready"), pod(sc.minor, "waiting", "waiting"), extPod("ext"), pod(sc.minor, "half", "half"), pod(sc.minor, "share-a", "share-a"),
	}, sc.partitions()...)
	if err := post(s, sc.version, objs...); err != nil {
		return err
	}
	claimPath := "/apis/" + api.UpstreamGroup + "/" + sc.version + "/namespaces/default/resourceclaims/"
	for deadline := time.Now().Add(2 * time.Minute); time.Now().Before(deadline); time.Sleep(time.Second) {
		var ready, waiting map[string]interface{}
		s.do(http.MethodGet, claimPath+"ready", nil, &ready)
		s.do(http.MethodGet, claimPath+"waiting", nil, &waiting)
		r, w := heldOf(ready, http.StatusOK), heldOf(waiting, http.StatusOK)
		if len(r.Pods) == 1 && asMap(ready["status"])["devices"] == nil {
			d := strings.Split(r.Devices[0], "/") // driver/pool/device
			asMap(ready["status"])["devices"] = []interface{}{object(`{"driver":"%s","pool":"%s","device":"%s","conditions":[{"type":"attached","status":"True","reason":"Attached","message":"","lastTransitionTime":"%s"}]}`,
				d[0], d[1], d[2], time.Now().UTC().Format(time.RFC3339))}
			if _, err := s.do(http.MethodPut, claimPath+"ready/status", ready, nil); err != nil {
				return err
			}
		}
		if nodes, _ := waitPods(s, []string{"ready", "ext", "half", "share-a"}, true, 0); len(nodes) == 4 && slices.Equal(w.Pods, []string{"waiting"}) {
			return nil
		}
	}
	return fmt.Errorf("the scheduler did not bind Pods ready, ext, half and share-a and reserve claim waiting in 2 minutes")
}
