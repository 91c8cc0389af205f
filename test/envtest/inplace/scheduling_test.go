package inplace

import (
	"fmt"
	"maps"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/judge"
	"github.com/claimbridge/claimbridge/report"
	"github.com/claimbridge/claimbridge/test/envtest/harness"
	"github.com/claimbridge/claimbridge/test/recorded"
)

const schedulingRecording = "testdata/scheduling.json"

// scheduled is one change in place of a whole control plane: what release
// From's scheduler and controller-manager allocated, and what To's did
// with it.
type scheduled struct {
	From, To string
	// Runbook is what was done before the change, as check's runbook
	// says: "rewrite", From's kube-apiserver wrote every object again with
	// --min-compatibility-version of To; "export", claimbridge export,
	// then every Pod and DRA object deleted, and after the change the
	// slices published again and claimbridge migrate --apply.
	Runbook string `json:",omitempty"`
	// Migrated is the exit code of claimbridge migrate --apply.
	Migrated int `json:",omitempty"`
	// Claims are the claims From's control plane allocated and reserved,
	// as From serves them.
	Claims []map[string]interface{}
	// Slices are the slices the claims were allocated from, as From
	// serves them.
	Slices []map[string]interface{}
	// Kept is each of Claims as To serves it, once To's scheduler has
	// placed the new Pods and its controller-manager has seen the deleted
	// ones go.
	Kept []held
	// New are the Pods created on To, each wanting one device of what is
	// free, and one more; after an export, the Pods migrate re-created.
	New []placed
}

// held is a claim as a release serves it.
type held struct {
	Claim   string
	Code    int      // of its GET
	Devices []string `json:",omitempty"` // driver/pool/device[/shareID] allocated
	Pods    []string `json:",omitempty"` // reservedFor
}

// placed is a Pod created on the second release, and the devices of its
// claim.
type placed struct {
	Pod, Node string
	Claim     string   `json:",omitempty"`
	Devices   []string `json:",omitempty"`
}

type schedulingBook struct {
	KubeAPIServer map[string]string
	Changes       []scheduled
}

// Shapes of the scheduling scenario.
const (
	gpusPerNode  = 4
	sharedPods   = 34 // more than the 32 reservations a release before 1.32.1 allows
	deletedPod   = "tmpl-0"
	deletedShare = "shared-0"
)

// TestScheduling proves what `claimbridge check` says of allocated claims
// and the Pods that hold them. For each change (schedulingChanges) the
// first release's kube-apiserver, kube-scheduler and
// kube-controller-manager (every DRA gate on) allocate and reserve, on two
// Nodes (objects, no kubelet) with slices of test drivers: claims made
// from a template, a direct claim, a claim 34 Pods share (where the
// release allows more than 32), and from 1.33 a request with subrequests
// and the whole of a partitioned GPU (counters), from 1.34 two shares of a
// device's capacity. Then all three are replaced by the second release's
// on the same etcd, with the flags check gives it. There new Pods want one
// device each, one more than are free, half of the partitioned GPU and more
// of the shared device than is left; two Pods are deleted.
//
// A claim check keeps must stay allocated to the same devices and reserved
// by the same Pods, less the deleted ones, whose reservations To's
// controller-manager releases; a claim check calls broken must not. A
// claim that survives gets no finding, but for each field To reads it
// without (survivorFindings). The new
// Pods get exactly what is free where every claim is kept, and nothing
// taken; a GPU is given twice exactly where check calls its slice broken.
// Check names every Pod that holds a broken claim, and its runbook rewrites
// in place where the recording did, else names the Pods whose claims it
// deletes. After the runbook's rewrite every claim is kept; after its
// export, delete and migrate --apply every Pod is placed again with its
// claim allocated.
//
// Under `make record` the control planes answer and
// testdata/scheduling.json is written; otherwise it is replayed.
func TestScheduling(t *testing.T) {
	changes := schedulingChanges()
	book := replay(t, schedulingRecording, func(pinned map[string]string) schedulingBook {
		all := maps.Clone(pinned)
		all[patched] = pinnedPatch(t)
		return recordScheduling(t, changes, all)
	}, func(b schedulingBook) map[string]string {
		pinned := maps.Clone(b.KubeAPIServer)
		delete(pinned, patched)
		return pinned
	})
	if pin := pinnedPatch(t); book.KubeAPIServer[patched] != pin {
		t.Fatalf("%s was recorded with kube-apiserver %s, and hack/tools pins %s: run `make record`", schedulingRecording, book.KubeAPIServer[patched], pin)
	}
	if len(book.Changes) != len(changes) {
		t.Fatalf("%s has %d changes, want %d: run `make record`", schedulingRecording, len(book.Changes), len(changes))
	}
	for i, c := range book.Changes {
		ch := changes[i]
		t.Run(strings.TrimSuffix(c.From+"-to-"+c.To+"-"+c.Runbook, "-"), func(t *testing.T) {
			if c.From != fmt.Sprintf("1.%d", ch.p[0]) || c.To != ch.to || c.Runbook != ch.runbook {
				t.Fatalf("the recording is of another change (%s→%s): run `make record`", c.From, c.To)
			}
			if len(c.Claims) == 0 || len(c.Kept) != len(c.Claims) {
				t.Fatalf("%s allocated %d claims, %s was asked of %d: run `make record`", c.From, len(c.Claims), c.To, len(c.Kept))
			}
			checkScheduling(t, c, ch.p, api.ParsePatch(book.KubeAPIServer[c.To]))
		})
	}
}

// patched is the one release asked at a patch other than hack/tools pins
// for its minor: 1.32.0, the last that allows 32 reservations, not 256.
const patched = "1.32.0"

// pinnedPatch is the kube-apiserver hack/tools pins for patched.
func pinnedPatch(t *testing.T) string {
	root, err := harness.RepoRoot()
	if err == nil {
		var v string
		if v, err = recorded.Pinned(filepath.Join(root, "hack", "tools", "kube-apiserver-"+patched, "go.mod")); err == nil {
			return v
		}
	}
	t.Fatal(err)
	return ""
}

// patchAssets is the assets directory of patched.
func patchAssets(t *testing.T) string {
	dir, err := harness.AssetsDirFrom("ENVTEST_ASSETS_"+strings.ReplaceAll(patched, ".", "_"), "--print-assets-dir="+patched)
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// change is a change in place from release p[0] to p[1], whose
// kube-apiserver is to: "1.<minor>", the patch hack/tools pins, or 1.32.0.
type change struct {
	p       [2]int
	to      string
	runbook string // scheduled.Runbook
}

// schedulingChanges are every change 1.30↔1.31 … 1.36↔1.37, the
// rollback from 1.33 to 1.32.0, the patch before the limit of
// reservations grew, and changes after check's runbook: the rollback from
// 1.35 to 1.33 rewritten in place, the upgrade from 1.30 to 1.31 and the
// rollback from 1.32 to 1.31 exported and re-created.
func schedulingChanges() []change {
	var out []change
	for minor := 30; minor < 37; minor++ {
		out = append(out, change{p: [2]int{minor, minor + 1}, to: fmt.Sprintf("1.%d", minor+1)}, change{p: [2]int{minor + 1, minor}, to: fmt.Sprintf("1.%d", minor)})
	}
	return append(out, change{p: [2]int{33, 32}, to: patched}, change{p: [2]int{35, 33}, to: "1.33", runbook: "rewrite"},
		change{p: [2]int{30, 31}, to: "1.31", runbook: "export"}, change{p: [2]int{32, 31}, to: "1.31", runbook: "export"})
}

// checkScheduling holds check's verdict on each claim of c against what
// the second release did.
func checkScheduling(t *testing.T, c scheduled, p [2]int, patch int) {
	target, storedAs := upgraded(t, p[0], p[1]), p[0]
	checkRunbook(t, c, p, target)
	switch c.Runbook {
	case "rewrite":
		storedAs = p[1] + 1 // --min-compatibility-version=1.<p[1]>
	case "export":
		checkRecreated(t, c, p, patch)
		return
	}
	taken, gpus := map[string]string{}, map[string]bool{}
	allKept := true
	for i, claim := range c.Claims {
		before, after := heldOf(claim, http.StatusOK), c.Kept[i]
		v := judge.Stored(claim, target, api.KindClaim, storedAs, p[1])
		severity, _ := judge.Reservations(claim, p[1], patch, false)
		broken := v.Unreached != "" || len(v.Errors) > 0 || severity == report.Error
		want := before
		want.Pods = slices.DeleteFunc(slices.Clone(before.Pods), func(pod string) bool { return pod == deletedPod || pod == deletedShare })
		if len(want.Pods) == 0 {
			want = held{Claim: before.Claim, Code: http.StatusNotFound}
			if !strings.HasPrefix(before.Claim, deletedPod) { // a direct claim stays, released
				want.Code = http.StatusOK
			}
		}
		// A release without shares reads the claim without its shareID:
		// a warning, the device is the same.
		kept := after.Code == want.Code && slices.Equal(unshared(after.Devices), unshared(want.Devices)) && slices.Equal(after.Pods, want.Pods)
		if kept == broken {
			t.Errorf("claim %s: check says broken: %t (%s %v %q); 1.%d allocated %v to %v, 1.%d serves it as %+v, want %+v",
				before.Claim, broken, v.Unreached, v.Errors, severity, p[0], before.Devices, before.Pods, p[1], after, want)
		}
		allKept = allKept && !broken
		if !broken {
			var got []string
			for _, w := range v.Warnings {
				path, _, _ := strings.Cut(w, ": ")
				got = append(got, path)
			}
			if severity != "" {
				got = append(got, "status.reservedFor")
			}
			if want := survivorFindings[c.From+"-to-"+c.To+"/"+before.Claim]; !slices.Equal(got, want) {
				t.Errorf("claim %s survives, and check says of it %q; want findings at %q only", before.Claim, append(v.Warnings, severity), want)
			}
		}
		for _, pod := range before.Pods {
			if broken && !slices.Contains(judge.Holders(claim), fmt.Sprintf("Pod default/%s holds claim default/%s", pod, before.Claim)) {
				t.Errorf("claim %s is broken, and check does not name Pod %s that holds it: %v", before.Claim, pod, judge.Holders(claim))
			}
		}
		for _, d := range before.Devices {
			gpus[d] = strings.HasPrefix(d, "gpu.example.com/")
			if !broken {
				taken[d] = before.Claim
			}
		}
	}
	free := freeGPUs(gpus)
	placedOn := 0
	for _, n := range c.New {
		if n.Node != "" && strings.HasPrefix(n.Pod, "new-gpu") {
			placedOn++
		}
		for _, d := range n.Devices {
			if claim, ok := taken[d]; ok && !strings.Contains(d, "/share-") {
				t.Errorf("1.%d gave device %s, which claim %s holds and check keeps, to Pod %s", p[1], d, claim, n.Pod)
			}
			taken[d] = n.Pod
		}
	}
	if n := slices.IndexFunc(c.New, func(n placed) bool { return n.Pod == "new-vgpu" && n.Node != "" }); n >= 0 && sharesKept(taken) == 2 {
		t.Errorf("1.%d gave Pod new-vgpu 25Gi of device vgpu-0's 40Gi, of which claims vgpu-a and vgpu-b hold 10Gi each: %v", p[1], c.New[n].Devices)
	}
	// A half of the GPU whose whole a claim holds is the GPU given twice:
	// check must have called a slice of it broken, and only then.
	if _, whole := taken["part.example.com/node-1/whole"]; whole {
		n := slices.IndexFunc(c.New, func(n placed) bool { return n.Pod == "new-part" && n.Node != "" })
		var errs []string
		for _, slice := range c.Slices {
			errs = append(errs, judge.Stored(slice, target, api.KindResourceSlice, storedAs, p[1]).Errors...)
		}
		if doubled := n >= 0; doubled != (len(errs) > 0) {
			t.Errorf("1.%d gave a half of the GPU claim part-whole holds: %t (%v); check says: %q", p[1], doubled, c.New, errs)
		}
	}
	if allKept && placedOn != free {
		t.Errorf("1.%d keeps every claim, and placed %d new Pods on %d free devices: %+v", p[1], placedOn, free, c.New)
	}
}

// survivorFindings are the paths of check's findings on the claims that
// survive a change, by change and claim: each a field the second release
// reads the claim without. Every other surviving claim gets no finding.
var survivorFindings = map[string][]string{
	"1.33-to-1.32/prioritized":   {"spec.devices.requests[0].firstAvailable"},
	"1.33-to-1.32.0/prioritized": {"spec.devices.requests[0].firstAvailable"},
	"1.34-to-1.33/vgpu-a":        shareFields,
	"1.34-to-1.33/vgpu-b":        shareFields,
	"1.35-to-1.33/vgpu-a":        shareFields,
	"1.35-to-1.33/vgpu-b":        shareFields,
}

// shareFields are those of a share of a device's capacity, which 1.33
// does not have.
var shareFields = []string{"status.allocation.devices.results[0].consumedCapacity", "status.allocation.devices.results[0].shareID", "spec.devices.requests[0].exactly.capacity"}

// checkRecreated holds what follows an export, a delete and migrate
// --apply on release p[1]: every Pod re-created and placed with its claim
// allocated, but those check says stay pending (a claim held by more Pods
// than p[1] allows), and no device given to two claims.
func checkRecreated(t *testing.T, c scheduled, p [2]int, patch int) {
	if c.Migrated != 0 {
		t.Errorf("claimbridge migrate --apply to 1.%d: exit %d", p[1], c.Migrated)
	}
	pending := map[string]int{} // by claim, as check says
	for _, claim := range c.Claims {
		_, msg := judge.Reservations(claim, p[1], patch, true)
		if m := regexp.MustCompile(`the other (\d+) stay pending`).FindStringSubmatch(msg); m != nil {
			pending[heldOf(claim, http.StatusOK).Claim], _ = strconv.Atoi(m[1])
		}
	}
	given := map[string]string{}
	for _, n := range c.New {
		if n.Node == "" && pending[n.Claim] > 0 {
			pending[n.Claim]--
			continue
		}
		if n.Node == "" || len(n.Devices) == 0 {
			t.Errorf("1.%d did not place Pod %s again with its claim %q allocated: %+v", p[1], n.Pod, n.Claim, n)
		}
		for _, d := range n.Devices {
			if claim, ok := given[d]; ok && claim != n.Claim {
				t.Errorf("1.%d gave device %s to claims %s and %s", p[1], d, claim, n.Claim)
			}
			given[d] = n.Claim
		}
	}
	for claim, n := range pending {
		if n > 0 {
			t.Errorf("check says %d more Pods of claim %s stay pending on 1.%d; they were placed", n, claim, p[1])
		}
	}
}

// checkRunbook holds the runbook for the claims of c that release p[1]
// cannot read as p[0] stores them: it rewrites them in place when the
// recording did (and kept them), else it names each Pod that holds one.
func checkRunbook(t *testing.T, c scheduled, p [2]int, target api.Cluster) {
	lost, held := map[string]int{}, []string(nil)
	for _, claim := range c.Claims {
		if v := judge.Stored(claim, target, api.KindClaim, p[0], p[1]); v.Lost != "" {
			lost[v.Lost]++
			held = append(held, judge.Holders(claim)...)
		}
	}
	if len(lost) == 0 {
		return
	}
	runbook := judge.Runbook(p[0], p[1], lost, held)
	if rewrites := strings.Contains(runbook, fmt.Sprintf("--min-compatibility-version=1.%d", p[1])); rewrites != (c.Runbook == "rewrite") {
		t.Errorf("the runbook rewrites in place: %t, the recording: %q: %s", rewrites, c.Runbook, runbook)
	}
	if c.Runbook == "rewrite" {
		return
	}
	for i, h := range held { // five, then how many more
		if i < 5 && !strings.Contains(runbook, h) || i == 5 && !strings.Contains(runbook, fmt.Sprintf("and %d more Pods", len(held)-5)) {
			t.Errorf("the runbook deletes claims and does not name %q, or count it: %s", h, runbook)
		}
	}
}

// unshared are devices without their shares.
func unshared(devices []string) []string {
	out := make([]string, len(devices))
	for i, d := range devices {
		out[i], _, _ = strings.Cut(d, "/share-")
	}
	return out
}

// sharesKept counts the shares of device vgpu-0 that claims check keeps
// hold.
func sharesKept(taken map[string]string) int {
	n := 0
	for d := range taken {
		if strings.HasPrefix(d, "vgpu.example.com/node-2/vgpu-0") {
			n++
		}
	}
	return n
}

// heldOf is a claim's allocation and reservations, as served with code.
func heldOf(claim map[string]interface{}, code int) held {
	meta := api.Metadata(claim)
	h := held{Claim: fmt.Sprint(meta["name"]), Code: code}
	status, _ := claim["status"].(map[string]interface{})
	allocation, _ := status["allocation"].(map[string]interface{})
	for _, r := range asList(asMap(allocation["devices"])["results"]) {
		r := asMap(r)
		d := fmt.Sprintf("%v/%v/%v", r["driver"], r["pool"], r["device"])
		if share, ok := r["shareID"]; ok {
			d += "/share-" + fmt.Sprint(share)
		}
		h.Devices = append(h.Devices, d)
	}
	for _, handle := range asList(allocation["resourceHandles"]) { // 1.30's structured parameters
		data := asMap(asMap(handle)["structuredData"])
		for _, r := range asList(data["results"]) {
			h.Devices = append(h.Devices, fmt.Sprintf("%v/%v/%v", asMap(handle)["driverName"], data["nodeName"], asMap(asMap(r)["namedResources"])["name"]))
		}
	}
	for _, r := range asList(status["reservedFor"]) {
		h.Pods = append(h.Pods, fmt.Sprint(asMap(r)["name"]))
	}
	slices.Sort(h.Devices)
	slices.Sort(h.Pods)
	return h
}

func asMap(v interface{}) map[string]interface{} { m, _ := v.(map[string]interface{}); return m }
func asList(v interface{}) []interface{}         { l, _ := v.([]interface{}); return l }

// recordScheduling runs each change with whole control planes.
func recordScheduling(t *testing.T, changes []change, pinned map[string]string) schedulingBook {
	key, tokens := credentials(t)
	book := schedulingBook{KubeAPIServer: pinned}
	for _, ch := range changes {
		p := ch.p
		assetsA, assetsB, etcd := startPair(t, p)
		if ch.to != fmt.Sprintf("1.%d", p[1]) {
			assetsB = patchAssets(t)
		}
		prefix := fmt.Sprintf("/scheduling-%d", time.Now().UnixNano())
		c := scheduled{From: fmt.Sprintf("1.%d", p[0]), To: ch.to}
		gates, runtime := draFlags(p[0], "on")
		cp := startControlPlane(t, assetsA, etcd.URL.String(), prefix, key, tokens, gates, runtime)
		sc := newScenario(p[0], pinned[c.From])
		if err := sc.allocate(cp.api); err != nil {
			cp.stop()
			t.Fatalf("1.%d: %v\n%s", p[0], err, cp.logs())
		}
		c.Claims, c.Slices = sc.stored(cp.api, api.KindClaim), sc.stored(cp.api, api.KindResourceSlice)
		var exported string
		if c.Runbook = ch.runbook; ch.runbook == "export" {
			exported = sc.exportAndDelete(t, cp)
		}
		cp.stop()
		if ch.runbook == "rewrite" {
			s, refused, err := launch(filepath.Join(assetsA, "kube-apiserver"), etcd.URL.String(), prefix, key, tokens, gates, runtime, fmt.Sprintf("--min-compatibility-version=1.%d", p[1]))
			if s == nil {
				t.Fatalf("1.%d: %s %v", p[0], refused, err)
			}
			err = sc.rewrite(s)
			s.stop()
			if err != nil {
				t.Fatal(err)
			}
		}
		bGates, bRuntime := flagsOf(upgraded(t, p[0], p[1]))
		cp = startControlPlane(t, assetsB, etcd.URL.String(), prefix, key, tokens, bGates, bRuntime)
		var err error
		if exported != "" {
			c.Migrated, c.New, err = sc.recreate(cp, newScenario(p[1], pinned[c.To]), exported)
		} else {
			c.New, err = sc.carryOn(cp.api, p[1], c.Claims)
		}
		if err != nil {
			cp.stop()
			t.Fatalf("1.%d: %v\n%s", p[1], err, cp.logs())
		}
		for _, claim := range c.Claims {
			c.Kept = append(c.Kept, sc.served(cp.api, fmt.Sprint(api.Metadata(claim)["name"])))
		}
		cp.stop()
		if err := etcd.Stop(); err != nil {
			t.Fatal(err)
		}
		book.Changes = append(book.Changes, c)
	}
	return book
}

// controlPlane is a running kube-apiserver, kube-scheduler and
// kube-controller-manager.
type controlPlane struct {
	api        *apiserver
	kubeconfig string
	components []*exec.Cmd
	out        []*strings.Builder
	dir        string
}

// startControlPlane starts the three of an assets directory on etcd.
func startControlPlane(t *testing.T, assets, etcdURL, prefix, key, tokens, gates, runtime string) *controlPlane {
	s, refused, err := launch(filepath.Join(assets, "kube-apiserver"), etcdURL, prefix, key, tokens, gates, runtime)
	if s == nil {
		t.Fatalf("%s with %s %s: %s %v", assets, gates, runtime, refused, err)
	}
	cp := &controlPlane{api: s, dir: t.TempDir()}
	kubeconfig := filepath.Join(cp.dir, "kubeconfig")
	cp.kubeconfig = kubeconfig
	if err := os.WriteFile(kubeconfig, []byte(fmt.Sprintf(`apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://127.0.0.1:%d", insecure-skip-tls-verify: true}}]
users: [{name: u, user: {token: %s}}]
contexts: [{name: c, context: {cluster: c, user: u}}]
current-context: c
`, s.port, token)), 0o600); err != nil {
		t.Fatal(err)
	}
	common := []string{"--kubeconfig=" + kubeconfig, "--leader-elect=false", "--secure-port=0", "--feature-gates=" + gates}
	for _, c := range [][]string{
		append([]string{filepath.Join(assets, "kube-scheduler")}, common...),
		append([]string{filepath.Join(assets, "kube-controller-manager"), "--controllers=resourceclaim-controller,garbage-collector-controller"}, common...),
	} {
		cmd, out := exec.Command(c[0], c[1:]...), &strings.Builder{}
		cmd.Stdout, cmd.Stderr = out, out
		if err := cmd.Start(); err != nil {
			cp.stop()
			t.Fatal(err)
		}
		cp.components, cp.out = append(cp.components, cmd), append(cp.out, out)
	}
	return cp
}

// logs are the last lines of the scheduler's and the controller-manager's
// output.
func (cp *controlPlane) logs() string {
	var b strings.Builder
	for i, out := range cp.out {
		lines := strings.Split(out.String(), "\n")
		fmt.Fprintf(&b, "--- %s:\n%s\n", filepath.Base(cp.components[i].Path), strings.Join(lines[max(0, len(lines)-30):], "\n"))
	}
	return b.String()
}

func (cp *controlPlane) stop() {
	for _, c := range cp.components {
		_ = c.Process.Kill()
		_ = c.Wait()
	}
	cp.api.stop()
}
