package inplace

import (
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
// turns DRADeviceBindingConditions and DRAExtendedResource on, 1.35 keeps
// them off, 1.37 on.
var gatesOffChanges = [][2]int{{36, 35}, {36, 37}}

// gatedChange is one change in place of a whole control plane, each
// release with its default gates.
type gatedChange struct {
	From, To string
	// FromFlags and ToFlags are the flags each control plane ran with.
	FromFlags, ToFlags string
	// Claims, Slices and Classes are as From serves them. The Pod of each
	// name holds claim ready, whose device the test's driver attached, and
	// claim waiting, whose device it did not (binding conditions); Pod ext
	// holds the claim the scheduler made for the extended resource it
	// requests.
	Claims, Slices, Classes []map[string]interface{}
	// Nodes are where To bound the Pods ("": nowhere): ready, waiting, and
	// those created on To: new, with claim new of a device with binding
	// conditions; new-ext, which requests the extended resource; and
	// new-ext-claim, with claim new-ext-claim of the extended resource's
	// class.
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
// with gates off that the first release had on: binding conditions and
// extended resources. The first release's kube-apiserver, kube-scheduler
// and kube-controller-manager allocate on two Nodes: a device of node-1's
// slice to each of two claims, which the test's driver attaches for one
// (its Pod is bound) and not the other (its Pod waits), and a device of
// node-2 to a Pod that requests the extended resource example.com/gpu.
// Then all three are replaced by the second release's on the same etcd,
// and new Pods want a device with binding conditions, the extended
// resource, and a claim of its class.
//
// A claim check warns of is one whose waiting Pod the target binds
// before its device is ready, and only that; the new Pod gets no device
// exactly where check warns of the slice; the extended resource is given
// exactly where check does not warn of its class; and no device is given
// twice.
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
			if len(c.Claims) != 3 || len(c.Slices) != 2 || len(c.Classes) != 2 {
				t.Fatalf("1.%d holds %d claims, %d slices and %d classes, want 3, 2 and 2: run `make record`", p[0], len(c.Claims), len(c.Slices), len(c.Classes))
			}
			checkBinding(t, c, p, target)
			var said []string
			for _, class := range c.Classes {
				said = append(said, warned(judge.Stored(class, target, api.KindDeviceClass, p[0], p[1]), "gives no Pod example.com/gpu")...)
			}
			if placed := c.Nodes["new-ext"] != ""; placed == (len(said) > 0) {
				t.Errorf("1.%d placed Pod new-ext, which requests example.com/gpu: %t; check says %q", p[1], placed, said)
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

// checkBinding holds check's verdicts on binding conditions against what
// release p[1] did with the Pods of claims ready and waiting, and new.
func checkBinding(t *testing.T, c gatedChange, p [2]int, target api.Cluster) {
	for _, claim := range c.Claims {
		name := heldOf(claim, http.StatusOK).Claim
		said := warned(judge.Stored(claim, target, api.KindClaim, p[0], p[1]), "does not wait for them")
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
	var said []string
	for _, slice := range c.Slices {
		said = append(said, warned(judge.Stored(slice, target, api.KindResourceSlice, p[0], p[1]), "allocates no device with binding conditions")...)
	}
	i := slices.IndexFunc(c.Served, func(h held) bool { return h.Claim == "new" })
	if allocated := i >= 0 && len(c.Served[i].Devices) > 0; allocated == (len(said) > 0) {
		t.Errorf("1.%d allocated a device with binding conditions to claim new: %t; check says %q", p[1], allocated, said)
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
		if err := post(cp.api, sc.version, gatedClaim(sc, "new", "fabric.example.com"), pod(p[1], "new", "new"), extPod("new-ext"),
			gatedClaim(sc, "new-ext-claim", "ext.example.com"), pod(p[1], "new-ext-claim", "new-ext-claim")); err != nil {
			cp.stop()
			t.Fatalf("1.%d: %v", p[1], err)
		}
		c.Nodes, _ = waitPods(cp.api, []string{"ready", "waiting", "ext", "new", "new-ext", "new-ext-claim"}, false, 30*time.Second)
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

// gatedClaim is a claim of one device of class.
func gatedClaim(sc *scenario, name, class string) map[string]interface{} {
	return sc.resource(api.KindClaim, name, "ns", `"spec":{"devices":{"requests":[{"name":"gpu","exactly":{"deviceClassName":"`+class+`"}}]}}`)
}

// extPod is a Pod that requests one example.com/gpu, an extended resource
// no Node advertises.
func extPod(name string) map[string]interface{} {
	return object(`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"%s","namespace":"default"},"spec":{"automountServiceAccountToken":false,"terminationGracePeriodSeconds":0,
		"containers":[{"name":"c","image":"registry.k8s.io/pause:3.10","resources":{"requests":{"example.com/gpu":"1"},"limits":{"example.com/gpu":"1"}}}]}}`, name)
}

// gatedAllocate creates, on s, node-1's slice of fabric.example.com, whose
// devices are attached to a node on demand, with Pods ready and waiting,
// each with a claim of its name; and node-2's slice of ext.example.com,
// whose class offers the extended resource example.com/gpu, with Pod ext,
// which requests it. As the driver, it attaches the device of claim ready
// once allocated, and waits until the scheduler has bound Pods ready and
// ext and reserved claim waiting.
func gatedAllocate(s *apiserver, sc *scenario) error {
	if err := addNodes(s); err != nil {
		return err
	}
	slice := func(node, driver, devices string) map[string]interface{} {
		return sc.resource(api.KindResourceSlice, node+"-"+strings.Split(driver, ".")[0], "",
			fmt.Sprintf(`"spec":{"driver":"%s","pool":{"name":"%s","resourceSliceCount":1},"nodeName":"%s","devices":[%s]}`, driver, node, node, devices))
	}
	if err := post(s, sc.version,
		sc.resource(api.KindDeviceClass, "fabric.example.com", "", `"spec":{"selectors":[{"cel":{"expression":"device.driver == \"fabric.example.com\""}}]}`),
		slice("node-1", "fabric.example.com", devices(`{"name":"fab-%d","bindingConditions":["attached"],"bindingFailureConditions":["failed"]}`)),
		sc.resource(api.KindDeviceClass, "ext.example.com", "", `"spec":{"extendedResourceName":"example.com/gpu","selectors":[{"cel":{"expression":"device.driver == \"ext.example.com\""}}]}`),
		slice("node-2", "ext.example.com", devices(`{"name":"ext-%d"}`)),
		gatedClaim(sc, "ready", "fabric.example.com"), gatedClaim(sc, "waiting", "fabric.example.com"),
		pod(sc.minor, "ready", "ready"), pod(sc.minor, "waiting", "waiting"), extPod("ext")); err != nil {
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
		if nodes, _ := waitPods(s, []string{"ready", "ext"}, true, 0); len(nodes) == 2 && slices.Equal(w.Pods, []string{"waiting"}) {
			return nil
		}
	}
	return fmt.Errorf("the scheduler did not bind Pods ready and ext and reserve claim waiting in 2 minutes")
}
