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

const bindingRecording = "testdata/binding.json"

// bindingChanges are changes in place between releases' defaults: 1.36
// turns DRADeviceBindingConditions on, 1.35 keeps it off, 1.37 on.
var bindingChanges = [][2]int{{36, 35}, {36, 37}}

// boundChange is one change in place of a whole control plane, each
// release with its default gates, where a driver's devices are attached
// on demand (binding conditions).
type boundChange struct {
	From, To string
	// FromFlags and ToFlags are the flags each control plane ran with.
	FromFlags, ToFlags string
	// Claims and Slices are as From serves them: claim ready, whose device
	// the test's driver attached, and claim waiting, whose device it did
	// not; the Pod of each name holds it.
	Claims, Slices []map[string]interface{}
	// Nodes are where To bound Pods ready, waiting and new ("": nowhere).
	Nodes map[string]string
	// New is claim new of Pod new, created on To, as To serves it.
	New held
}

type bindingBook struct {
	KubeAPIServer map[string]string
	Changes       []boundChange
}

// TestBindingConditions proves what `claimbridge check` says of binding
// conditions where the target has DRADeviceBindingConditions off. The
// first release's kube-apiserver, kube-scheduler and
// kube-controller-manager allocate a device of node-1's slice to each of
// two claims; the test's driver attaches one, so its Pod is bound, and
// not the other, so its Pod waits. Then all three are replaced by the
// second release's on the same etcd, and a new Pod wants a device.
//
// A claim check warns of is one whose waiting Pod the target binds
// before its device is ready, and only that; the new Pod gets no device
// exactly where check warns of the slice.
func TestBindingConditions(t *testing.T) {
	book := replay(t, bindingRecording, func(pinned map[string]string) bindingBook {
		return recordBinding(t, pinned)
	}, func(b bindingBook) map[string]string { return b.KubeAPIServer })
	if len(book.Changes) != len(bindingChanges) {
		t.Fatalf("%s has %d changes, want %d: run `make record`", bindingRecording, len(book.Changes), len(bindingChanges))
	}
	for i, c := range book.Changes {
		p := bindingChanges[i]
		t.Run(c.From+"-to-"+c.To, func(t *testing.T) {
			from, target := defaultsChange(p)
			if want := (boundChange{From: fmt.Sprintf("1.%d", p[0]), To: fmt.Sprintf("1.%d", p[1]), FromFlags: flagLine(flagsOf(from)), ToFlags: flagLine(flagsOf(target))}); c.From != want.From ||
				c.To != want.To || c.FromFlags != want.FromFlags || c.ToFlags != want.ToFlags {
				t.Fatalf("recorded %s (%s) to %s (%s); the test runs %s (%s) to %s (%s): run `make record`", c.From, c.FromFlags, c.To, c.ToFlags, want.From, want.FromFlags, want.To, want.ToFlags)
			}
			if len(c.Claims) != 2 || len(c.Slices) != 1 {
				t.Fatalf("1.%d allocated %d claims from %d slices, want 2 from 1: run `make record`", p[0], len(c.Claims), len(c.Slices))
			}
			for _, claim := range c.Claims {
				name := heldOf(claim, http.StatusOK).Claim
				var said []string
				for _, w := range judge.Stored(claim, target, api.KindClaim, p[0], p[1]).Warnings {
					if strings.Contains(w, "does not wait for them") {
						said = append(said, w)
					}
				}
				if bound := c.Nodes[name] != "" && name == "waiting"; bound != (len(said) > 0) {
					t.Errorf("claim %s: 1.%d bound its Pod before the device was attached: %t; check says %q", name, p[1], bound, said)
				}
				if len(said) > 0 && !strings.Contains(said[0], "Pod default/"+name+" holds claim default/"+name) {
					t.Errorf("claim %s: check does not name the Pod that holds it: %q", name, said)
				}
				if name == "ready" && c.Nodes[name] == "" {
					t.Errorf("1.%d unbound Pod ready, whose device was attached", p[1])
				}
			}
			var heldBack []string
			for _, w := range judge.Stored(c.Slices[0], target, api.KindResourceSlice, p[0], p[1]).Warnings {
				if strings.Contains(w, "allocates no device with binding conditions") {
					heldBack = append(heldBack, w)
				}
			}
			if allocated := len(c.New.Devices) > 0; allocated == (len(heldBack) > 0) {
				t.Errorf("1.%d allocated %v to the new Pod's claim; check says %q", p[1], c.New.Devices, heldBack)
			}
		})
	}
}

// defaultsChange is release p[0] with its defaults, and p[1] as check has
// it after the change.
func defaultsChange(p [2]int) (from, target api.Cluster) {
	from = api.Defaults(p[0])
	target, _ = from.Upgrade(p[1])
	return from, target
}

// recordBinding runs each change with whole control planes.
func recordBinding(t *testing.T, pinned map[string]string) bindingBook {
	key, tokens := credentials(t)
	book := bindingBook{KubeAPIServer: pinned}
	for _, p := range bindingChanges {
		assetsA, assetsB, etcd := startPair(t, p)
		from, target := defaultsChange(p)
		c := boundChange{From: fmt.Sprintf("1.%d", p[0]), To: fmt.Sprintf("1.%d", p[1]), FromFlags: flagLine(flagsOf(from)), ToFlags: flagLine(flagsOf(target))}
		prefix := fmt.Sprintf("/binding-%d", time.Now().UnixNano())
		gates, runtime := flagsOf(from)
		cp := startControlPlane(t, assetsA, etcd.URL.String(), prefix, key, tokens, gates, runtime)
		sc := &scenario{minor: p[0], version: api.CreatedIn(api.KindClaim, p[0])}
		if err := attach(cp.api, sc); err != nil {
			cp.stop()
			t.Fatalf("1.%d: %v\n%s", p[0], err, cp.logs())
		}
		c.Claims, c.Slices = sc.stored(cp.api, api.KindClaim), sc.stored(cp.api, api.KindResourceSlice)
		cp.stop()
		gates, runtime = flagsOf(target)
		cp = startControlPlane(t, assetsB, etcd.URL.String(), prefix, key, tokens, gates, runtime)
		if err := post(cp.api, sc.version, fabricClaim(sc, "new"), pod(p[1], "new", "new")); err != nil {
			cp.stop()
			t.Fatalf("1.%d: %v", p[1], err)
		}
		c.Nodes, _ = waitPods(cp.api, []string{"ready", "waiting", "new"}, false, 30*time.Second)
		c.New = sc.served(cp.api, "new")
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

// fabricClaim is a claim of one device of fabric.example.com.
func fabricClaim(sc *scenario, name string) map[string]interface{} {
	return sc.resource(api.KindClaim, name, "ns", `"spec":{"devices":{"requests":[{"name":"gpu","exactly":{"deviceClassName":"fabric.example.com"}}]}}`)
}

// attach creates, on s, node-1's slice of fabric.example.com, whose
// devices are attached to a node on demand, and Pods ready and waiting,
// each with a claim of its name. As the driver, it attaches the device of
// claim ready once allocated, and waits until the scheduler has bound Pod
// ready and reserved claim waiting.
func attach(s *apiserver, sc *scenario) error {
	if err := addNodes(s); err != nil {
		return err
	}
	objs := []map[string]interface{}{
		sc.resource(api.KindDeviceClass, "fabric.example.com", "", `"spec":{"selectors":[{"cel":{"expression":"device.driver == \"fabric.example.com\""}}]}`),
		sc.resource(api.KindResourceSlice, "node-1-fabric", "", `"spec":{"driver":"fabric.example.com","pool":{"name":"node-1","resourceSliceCount":1},"nodeName":"node-1","devices":[`+
			devices(`{"name":"fab-%d","bindingConditions":["attached"],"bindingFailureConditions":["failed"]}`)+`]}`),
		fabricClaim(sc, "ready"), fabricClaim(sc, "waiting"),
		pod(sc.minor, "ready", "ready"), pod(sc.minor, "waiting", "waiting"),
	}
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
		if nodes, _ := waitPods(s, []string{"ready"}, true, 0); nodes["ready"] != "" && slices.Equal(w.Pods, []string{"waiting"}) {
			return nil
		}
	}
	return fmt.Errorf("the scheduler did not bind Pod ready and reserve claim waiting in 2 minutes")
}
