package inplace

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/cli"
)

// scenario is what TestScheduling asks a release's control plane to
// allocate, in the versions that release creates objects in.
type scenario struct {
	minor   int
	version string // of resource.k8s.io
	shared  int    // Pods that share claim "shared"
}

func newScenario(minor int, pinned string) *scenario {
	sc := &scenario{minor: minor, version: api.CreatedIn(api.KindClaim, minor), shared: 2}
	if limit, _ := api.ReservedForLimit(minor, api.ParsePatch(pinned)); limit >= sharedPods {
		sc.shared = sharedPods
	}
	return sc
}

// object is JSON text as an object.
func object(format string, args ...any) map[string]interface{} {
	var o map[string]interface{}
	if err := json.Unmarshal([]byte(fmt.Sprintf(format, args...)), &o); err != nil {
		panic(fmt.Sprintf("%v: %s", err, fmt.Sprintf(format, args...)))
	}
	return o
}

// request is a claim's devices, in sc's version: one device of class, or
// (capacity "many") a request whose first subrequest cannot be met.
func (sc *scenario) request(class, capacity string) string {
	switch {
	case sc.version == api.V1alpha2:
		return `"resourceClassName":"gpu.example.com"`
	case capacity == "many":
		return `"devices":{"requests":[{"name":"gpu","firstAvailable":[{"name":"many","deviceClassName":"gpu.example.com","allocationMode":"ExactCount","count":5},{"name":"one","deviceClassName":"gpu.example.com"}]}]}`
	case sc.version == api.V1alpha3 || sc.version == api.V1beta1:
		return `"devices":{"requests":[{"name":"gpu","deviceClassName":"` + class + `"}]}`
	case capacity != "":
		return `"devices":{"requests":[{"name":"gpu","exactly":{"deviceClassName":"` + class + `","capacity":{"requests":{"memory":"` + capacity + `"}}}}]}`
	}
	return `"devices":{"requests":[{"name":"gpu","exactly":{"deviceClassName":"` + class + `"}}]}`
}

// resource is a resource.k8s.io object of sc's release.
func (sc *scenario) resource(kind, name, namespaced, body string) map[string]interface{} {
	ns := ""
	if namespaced != "" {
		ns = `,"namespace":"default"`
	}
	return object(`{"apiVersion":"%s/%s","kind":"%s","metadata":{"name":"%s"%s},%s}`, api.UpstreamGroup, sc.version, kind, name, ns, body)
}

// objects are the scenario's classes, slices, templates and claims.
func (sc *scenario) objects() []map[string]interface{} {
	if sc.version == api.V1alpha2 {
		out := []map[string]interface{}{
			sc.resource(api.KindResourceClass, "gpu.example.com", "", `"driverName":"gpu.example.com","structuredParameters":true`),
			sc.resource(api.KindTemplate, "one-gpu", "ns", `"spec":{"spec":{`+sc.request("", "")+`}}`),
		}
		for _, node := range []string{"node-1", "node-2"} {
			out = append(out, sc.resource(api.KindResourceSlice, node+"-gpu", "", fmt.Sprintf(`"nodeName":"%s","driverName":"gpu.example.com","namedResources":{"instances":[%s]}`, node, devices(`{"name":"gpu-%d"}`))))
		}
		return append(out, sc.resource(api.KindClaim, "direct", "ns", `"spec":{`+sc.request("", "")+`}`), sc.resource(api.KindClaim, "shared", "ns", `"spec":{`+sc.request("", "")+`}`))
	}
	class := func(driver string) map[string]interface{} {
		return sc.resource(api.KindDeviceClass, driver, "", `"spec":{"selectors":[{"cel":{"expression":"device.driver == \"`+driver+`\""}}]}`)
	}
	device := `{"name":"gpu-%d"}`
	if sc.version == api.V1alpha3 || sc.version == api.V1beta1 {
		device = `{"name":"gpu-%d","basic":{}}`
	}
	slice := func(node, driver, devices string) map[string]interface{} {
		return sc.resource(api.KindResourceSlice, node+"-"+strings.Split(driver, ".")[0], "", fmt.Sprintf(`"spec":{"driver":"%s","pool":{"name":"%s","resourceSliceCount":1},"nodeName":"%s","devices":[%s]}`, driver, node, node, devices))
	}
	out := []map[string]interface{}{
		class("gpu.example.com"),
		slice("node-1", "gpu.example.com", devices(device)),
		slice("node-2", "gpu.example.com", devices(device)),
		sc.resource(api.KindTemplate, "one-gpu", "ns", `"spec":{"spec":{`+sc.request("gpu.example.com", "")+`}}`),
		sc.resource(api.KindClaim, "direct", "ns", `"spec":{`+sc.request("gpu.example.com", "")+`}`),
		sc.resource(api.KindClaim, "shared", "ns", `"spec":{`+sc.request("gpu.example.com", "")+`}`),
	}
	if sc.minor >= 33 {
		out = append(out, sc.resource(api.KindClaim, "prioritized", "ns", `"spec":{`+sc.request("gpu.example.com", "many")+`}`),
			class("part.example.com"),
			sc.resource(api.KindDeviceClass, "part-whole.example.com", "", `"spec":{"selectors":[{"cel":{"expression":"device.driver == \"part.example.com\" && device.attributes[\"part.example.com\"].size == \"whole\""}}]}`),
			sc.resource(api.KindTemplate, "one-part", "ns", `"spec":{"spec":{`+sc.request("part.example.com", "")+`}}`),
			sc.resource(api.KindClaim, "part-whole", "ns", `"spec":{`+sc.request("part-whole.example.com", "")+`}`))
		out = append(out, sc.partitions()...)
	}
	if sc.minor >= 34 {
		out = append(out, class("vgpu.example.com"),
			slice("node-2", "vgpu.example.com", `{"name":"vgpu-0","allowMultipleAllocations":true,"capacity":{"memory":{"value":"40Gi","requestPolicy":{"default":"10Gi","validRange":{"min":"1Gi"}}}}}`),
			sc.resource(api.KindTemplate, "vgpu-25", "ns", `"spec":{"spec":{`+sc.request("vgpu.example.com", "25Gi")+`}}`),
			sc.resource(api.KindClaim, "vgpu-a", "ns", `"spec":{`+sc.request("vgpu.example.com", "10Gi")+`}`),
			sc.resource(api.KindClaim, "vgpu-b", "ns", `"spec":{`+sc.request("vgpu.example.com", "10Gi")+`}`))
	}
	return out
}

// partitions are node-1's slices of driver part.example.com: a GPU of
// 40Gi, whole or in two halves, that share its memory (a counter set).
// From 1.35 the counters are in a slice of their own.
func (sc *scenario) partitions() []map[string]interface{} {
	const counters = `"sharedCounters":[{"name":"gpu-mem","counters":{"memory":{"value":"40Gi"}}}]`
	device := func(name, size, memory string) string {
		return fmt.Sprintf(`{"name":"%s","attributes":{"size":{"string":"%s"}},"consumesCounters":[{"counterSet":"gpu-mem","counters":{"memory":{"value":"%s"}}}]}`, name, size, memory)
	}
	devices := `"devices":[` + device("whole", "whole", "40Gi") + "," + device("half-0", "half", "20Gi") + "," + device("half-1", "half", "20Gi") + "]"
	slice := func(name string, count int, fields string) map[string]interface{} {
		return sc.resource(api.KindResourceSlice, name, "", fmt.Sprintf(`"spec":{"driver":"part.example.com","pool":{"name":"node-1","resourceSliceCount":%d},"nodeName":"node-1",%s}`, count, fields))
	}
	if sc.minor < 35 {
		return []map[string]interface{}{slice("node-1-part", 1, counters+","+devices)}
	}
	return []map[string]interface{}{slice("node-1-part-counters", 2, counters), slice("node-1-part", 2, devices)}
}

// devices are gpusPerNode devices of format.
func devices(format string) string {
	var ds []string
	for i := range gpusPerNode {
		ds = append(ds, fmt.Sprintf(format, i))
	}
	return strings.Join(ds, ",")
}

// pod is a Pod of release minor with one claim: a claim's name, or
// "template:NAME".
func pod(minor int, name, claim string) map[string]interface{} {
	ref := `"resourceClaimName":"` + claim + `"`
	if t, ok := strings.CutPrefix(claim, "template:"); ok {
		ref = `"resourceClaimTemplateName":"` + t + `"`
	}
	if minor <= 30 {
		ref = `"source":{` + ref + `}`
	}
	return object(`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"%s","namespace":"default"},"spec":{"automountServiceAccountToken":false,"terminationGracePeriodSeconds":0,
		"containers":[{"name":"c","image":"registry.k8s.io/pause:3.10","resources":{"claims":[{"name":"gpu"}]}}],"resourceClaims":[{"name":"gpu",%s}]}}`, name, ref)
}

// pods are the scenario's Pods on its own release.
func (sc *scenario) pods() []map[string]interface{} {
	out := []map[string]interface{}{pod(sc.minor, "tmpl-0", "template:one-gpu"), pod(sc.minor, "tmpl-1", "template:one-gpu"), pod(sc.minor, "direct", "direct")}
	for i := range sc.shared {
		out = append(out, pod(sc.minor, fmt.Sprintf("shared-%d", i), "shared"))
	}
	if sc.minor >= 33 {
		out = append(out, pod(sc.minor, "prioritized", "prioritized"), pod(sc.minor, "part-whole", "part-whole"))
	}
	if sc.minor >= 34 {
		out = append(out, pod(sc.minor, "vgpu-a", "vgpu-a"), pod(sc.minor, "vgpu-b", "vgpu-b"))
	}
	return out
}

// allocate creates the Nodes and the scenario's objects on s, and waits
// until the scheduler has bound every Pod.
func (sc *scenario) allocate(s *apiserver) error {
	if err := addNodes(s); err != nil {
		return err
	}
	for _, obj := range sc.objects() {
		if _, err := s.do(http.MethodPost, path(obj, sc.version, create), obj, nil); err != nil {
			return err
		}
	}
	pods := sc.pods()
	for _, p := range pods {
		if _, err := s.do(http.MethodPost, "/api/v1/namespaces/default/pods", p, nil); err != nil {
			return err
		}
	}
	placed, _ := waitPods(s, podNames(pods), true, 2*time.Minute)
	if len(placed) < len(pods) {
		var list map[string]interface{}
		s.do(http.MethodGet, "/api/v1/namespaces/default/pods", nil, &list)
		return fmt.Errorf("the scheduler bound %d of %d Pods: %v", len(placed), len(pods), list)
	}
	return nil
}

// addNodes creates Nodes node-1 and node-2 on s, ready as a kubelet
// reports them, and the default namespace's ServiceAccount.
func addNodes(s *apiserver) error {
	if _, err := s.do(http.MethodPost, "/api/v1/namespaces/default/serviceaccounts", object(`{"metadata":{"name":"default"}}`), nil); err != nil {
		return err
	}
	for _, name := range []string{"node-1", "node-2"} {
		node := object(`{"apiVersion":"v1","kind":"Node","metadata":{"name":"%s","labels":{"kubernetes.io/hostname":"%[1]s"}}}`, name)
		if _, err := s.do(http.MethodPost, "/api/v1/nodes", node, &node); err != nil {
			return err
		}
		resources := object(`{"cpu":"8","memory":"32Gi","pods":"110"}`)
		node["spec"] = map[string]interface{}{} // no not-ready taint: the Node is as its kubelet reports it ready
		if _, err := s.do(http.MethodPut, "/api/v1/nodes/"+name, node, &node); err != nil {
			return err
		}
		node["status"] = map[string]interface{}{"capacity": resources, "allocatable": resources,
			"conditions": []interface{}{object(`{"type":"Ready","status":"True","reason":"KubeletReady"}`)}}
		if _, err := s.do(http.MethodPut, "/api/v1/nodes/"+name+"/status", node, nil); err != nil {
			return err
		}
	}
	return nil
}

func podNames(pods []map[string]interface{}) []string {
	var names []string
	for _, p := range pods {
		names = append(names, fmt.Sprint(api.Metadata(p)["name"]))
	}
	return names
}

// waitPods waits until the scheduler has bound each Pod named, or (unless
// bound) found it unschedulable, then five seconds more, for wait at the
// most; it returns the nodes of those bound, and the name of each one's
// first claim.
func waitPods(s *apiserver, names []string, bound bool, wait time.Duration) (nodes, claims map[string]string) {
	deadline, settled := time.Now().Add(wait), false
	for {
		var list struct {
			Items []struct {
				Metadata struct{ Name string }
				Spec     struct{ NodeName string }
				Status   struct {
					Conditions            []struct{ Type, Status string }
					ResourceClaimStatuses []struct{ ResourceClaimName string }
				}
			}
		}
		nodes, claims = map[string]string{}, map[string]string{}
		decided := 0
		if _, err := s.do(http.MethodGet, "/api/v1/namespaces/default/pods", nil, &list); err == nil {
			for _, p := range list.Items {
				if !slices.Contains(names, p.Metadata.Name) {
					continue
				}
				if len(p.Status.ResourceClaimStatuses) > 0 {
					claims[p.Metadata.Name] = p.Status.ResourceClaimStatuses[0].ResourceClaimName
				}
				if p.Spec.NodeName != "" {
					nodes[p.Metadata.Name] = p.Spec.NodeName
					decided++
				} else if !bound && slices.ContainsFunc(p.Status.Conditions, func(c struct{ Type, Status string }) bool { return c.Type == "PodScheduled" && c.Status == "False" }) {
					decided++
				}
			}
		}
		if settled || time.Now().After(deadline) {
			return nodes, claims
		}
		if decided == len(names) {
			settled = true
			time.Sleep(5 * time.Second)
			continue
		}
		time.Sleep(time.Second)
	}
}

// stored are the scenario's objects of kind as s serves them, by name.
func (sc *scenario) stored(s *apiserver, kind string) []map[string]interface{} {
	var served struct{ Items []map[string]interface{} }
	s.do(http.MethodGet, path(map[string]interface{}{"kind": kind, "metadata": map[string]interface{}{}}, sc.version, list), nil, &served)
	for _, c := range served.Items {
		c["apiVersion"], c["kind"] = api.UpstreamGroup+"/"+sc.version, kind
		delete(api.Metadata(c), "managedFields") // check judges what is stored, not who wrote it
	}
	slices.SortFunc(served.Items, func(a, b map[string]interface{}) int {
		return strings.Compare(fmt.Sprint(api.Metadata(a)["name"]), fmt.Sprint(api.Metadata(b)["name"]))
	})
	return served.Items
}

// carryOn is what release minor's control plane on s does next: new Pods
// want one device each, one more than the claims leave free (and, from
// 1.34, more of the shared device's capacity than is left), then two Pods
// go.
func (sc *scenario) carryOn(s *apiserver, minor int, claims []map[string]interface{}) ([]placed, error) {
	gpus := map[string]bool{}
	for _, c := range claims {
		for _, d := range heldOf(c, http.StatusOK).Devices {
			gpus[d] = strings.HasPrefix(d, "gpu.example.com/")
		}
	}
	var pods []map[string]interface{}
	for i := range freeGPUs(gpus) + 1 {
		pods = append(pods, pod(minor, fmt.Sprintf("new-gpu-%d", i), "template:one-gpu"))
	}
	if sc.minor >= 33 {
		pods = append(pods, pod(minor, "new-part", "template:one-part"))
	}
	if sc.minor >= 34 {
		pods = append(pods, pod(minor, "new-vgpu", "template:vgpu-25"))
	}
	for _, p := range pods {
		if _, err := s.do(http.MethodPost, "/api/v1/namespaces/default/pods", p, nil); err != nil {
			return nil, err
		}
	}
	version := claimVersion(s)
	nodes, names := waitPods(s, podNames(pods), false, 30*time.Second)
	var out []placed
	for _, name := range podNames(pods) {
		p := placed{Pod: name, Node: nodes[name]}
		if claim, ok := names[name]; ok && p.Node != "" {
			p.Devices = sc.served(s, claim).Devices
		}
		out = append(out, p)
	}
	for _, name := range []string{deletedPod, deletedShare} {
		if _, err := s.do(http.MethodDelete, "/api/v1/namespaces/default/pods/"+name+"?gracePeriodSeconds=0", nil, nil); err != nil {
			return nil, err
		}
	}
	// The controller-manager releases what the two Pods held: wait until
	// no claim names them, or a claim cannot be read.
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(time.Second) {
		var list struct{ Items []map[string]interface{} }
		if code, _ := s.do(http.MethodGet, "/apis/"+api.UpstreamGroup+"/"+version+"/namespaces/default/resourceclaims", nil, &list); code != http.StatusOK {
			break
		}
		if !slices.ContainsFunc(list.Items, func(c map[string]interface{}) bool {
			pods := heldOf(c, http.StatusOK).Pods
			return slices.Contains(pods, deletedPod) || slices.Contains(pods, deletedShare)
		}) {
			break
		}
	}
	return out, nil
}

// freeGPUs is how many of the gpus of the two Nodes are not among taken.
func freeGPUs(taken map[string]bool) int {
	free := 2 * gpusPerNode
	for _, gpu := range taken {
		if gpu {
			free--
		}
	}
	return free
}

// rewrite writes each of the scenario's DRA objects again as s serves
// it (a PUT of what GET gave): kube-apiserver stores it anew, as it does
// for `claimbridge upgrade`'s empty patch.
func (sc *scenario) rewrite(s *apiserver) error {
	for _, kind := range []string{api.KindDeviceClass, api.KindResourceSlice, api.KindTemplate, api.KindClaim} {
		for _, obj := range sc.stored(s, kind) {
			if _, err := s.do(http.MethodPut, path(obj, sc.version, item), obj, nil); err != nil {
				return err
			}
		}
	}
	return nil
}

// exportAndDelete saves the DRA objects and the Pods that use them as
// check's runbook says (claimbridge export), deletes every Pod and DRA
// object, and waits until the claims are gone: the controller-manager
// releases each once its Pods are.
func (sc *scenario) exportAndDelete(t *testing.T, cp *controlPlane) string {
	var out, errOut bytes.Buffer
	if code := cli.Main([]string{"export", "--kubeconfig", cp.kubeconfig}, nil, &out, &errOut); code != cli.ExitOK {
		t.Fatalf("1.%d: export: exit %d: %s", sc.minor, code, errOut.String())
	}
	file := filepath.Join(t.TempDir(), "dra.yaml")
	if err := os.WriteFile(file, out.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	class := api.KindDeviceClass
	if sc.version == api.V1alpha2 {
		class = api.KindResourceClass
	}
	collections := []string{"/api/v1/namespaces/default/pods?gracePeriodSeconds=0"}
	for _, kind := range []string{api.KindClaim, api.KindTemplate, class, api.KindResourceSlice} {
		meta := map[string]interface{}{}
		if kind == api.KindClaim || kind == api.KindTemplate {
			meta["namespace"] = "default"
		}
		collections = append(collections, path(map[string]interface{}{"kind": kind, "metadata": meta}, sc.version, create))
	}
	for _, c := range collections {
		if _, err := cp.api.do(http.MethodDelete, c, nil, nil); err != nil {
			t.Fatalf("1.%d: %v", sc.minor, err)
		}
	}
	for deadline := time.Now().Add(time.Minute); len(sc.stored(cp.api, api.KindClaim)) > 0; time.Sleep(time.Second) {
		if time.Now().After(deadline) {
			t.Fatalf("1.%d: the claims are not gone a minute after their Pods:\n%s", sc.minor, cp.logs())
		}
	}
	return file
}

// recreate is what follows an export on the next release, as check's
// runbook says: the drivers publish their slices again (those of b), and
// claimbridge migrate --apply re-creates what was exported; it returns
// migrate's exit code and where the scheduler placed each Pod.
func (sc *scenario) recreate(cp *controlPlane, b *scenario, exported string) (int, []placed, error) {
	for _, obj := range b.objects() {
		if obj["kind"] == api.KindResourceSlice {
			if _, err := cp.api.do(http.MethodPost, path(obj, b.version, create), obj, nil); err != nil {
				return 0, nil, err
			}
		}
	}
	var errOut bytes.Buffer
	code := cli.Main([]string{"migrate", "-f", exported, "--target-kubeconfig", cp.kubeconfig, "--apply"}, nil, io.Discard, &errOut)
	pods := sc.pods()
	nodes, claims := waitPods(cp.api, podNames(pods), true, 2*time.Minute)
	var out []placed
	for _, p := range pods {
		name := fmt.Sprint(api.Metadata(p)["name"])
		n := placed{Pod: name, Node: nodes[name], Claim: cmp.Or(claims[name], directClaim(p))}
		n.Devices = sc.served(cp.api, n.Claim).Devices
		out = append(out, n)
	}
	return code, out, nil
}

// directClaim is the claim a Pod names, if it names one (not a template).
func directClaim(pod map[string]interface{}) string {
	ref := asMap(asList(asMap(pod["spec"])["resourceClaims"])[0])
	if source, ok := ref["source"]; ok { // 1.30
		ref = asMap(source)
	}
	name, _ := ref["resourceClaimName"].(string)
	return name
}

// claimVersion is the first resource.k8s.io version s serves claims in.
func claimVersion(s *apiserver) string {
	var group struct{ Versions []struct{ Version string } }
	s.do(http.MethodGet, "/apis/"+api.UpstreamGroup, nil, &group)
	for _, v := range group.Versions {
		var resources struct{ Resources []struct{ Name string } }
		s.do(http.MethodGet, "/apis/"+api.UpstreamGroup+"/"+v.Version, nil, &resources)
		if slices.ContainsFunc(resources.Resources, func(r struct{ Name string }) bool { return r.Name == "resourceclaims" }) {
			return v.Version
		}
	}
	return "none"
}

// served is claim name as s serves it.
func (sc *scenario) served(s *apiserver, name string) held {
	var c map[string]interface{}
	code, _ := s.do(http.MethodGet, "/apis/"+api.UpstreamGroup+"/"+claimVersion(s)+"/namespaces/default/resourceclaims/"+name, nil, &c)
	if code != http.StatusOK {
		return held{Claim: name, Code: code}
	}
	return heldOf(c, code)
}
