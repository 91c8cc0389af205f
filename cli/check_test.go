package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/cluster"
	"github.com/claimbridge/claimbridge/judge"
	"github.com/claimbridge/claimbridge/report"
	"github.com/claimbridge/claimbridge/validation"
)

const checkClaimV1beta1 = `{"apiVersion":"resource.k8s.io/v1beta1","kind":"ResourceClaim","metadata":{"name":"gpu","namespace":"team-a"},` +
	`"spec":{"devices":{"requests":[{"name":"gpu","deviceClassName":"gpu.example.com"}]}}}`

// TestCheckSources: each finding names where the object comes from — the
// Helm release with its revision and chart, the live object, what kubectl
// apply last sent — and live objects are judged without what the server
// set, in the target's version.
func TestCheckSources(t *testing.T) {
	o := &checkOptions{from: 37, storedAs: 37, validateOptions: validateOptions{cel: validation.NewCELCache(), Options: report.Options{Format: "json"}}}
	if err := o.setTarget("1.38"); err != nil {
		t.Fatal(err)
	}
	r := o.newReport()
	r.Command, r.Release = "check", o.target()
	h := cluster.HelmRelease{Namespace: "team-a", Name: "gpu", Revision: 2, Chart: "gpu-0.1.0",
		Manifest: "---\n# Source: gpu/templates/cm.yaml\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n" +
			"---\n# Source: gpu/templates/claim.yaml\n" + strings.Replace(checkClaimV1beta1, `,"namespace":"team-a"`, "", 1) + "\n"} // in team-a, as helm -n puts it
	if err := o.judgeStream(r, "helm:"+h.String(), h.Manifest, h.Namespace); err != nil {
		t.Fatal(err)
	}
	var live map[string]interface{}
	if err := json.Unmarshal([]byte(`{"apiVersion":"resource.k8s.io/v1beta2","kind":"ResourceClaim",`+
		`"metadata":{"name":"gpu","namespace":"team-a","uid":"1","resourceVersion":"7","managedFields":[{"manager":"kubectl"}],`+
		`"annotations":{"kubectl.kubernetes.io/last-applied-configuration":`+jsonString(checkClaimV1beta1)+`}},`+
		`"spec":{"devices":{"requests":[{"name":"gpu","exactly":{"deviceClassName":"gpu.example.com","allocationMode":"ExactCount","count":1}}]}},`+
		`"status":{"reservedFor":[{"resource":"pods","name":"p","uid":"2"}]}}`), &live); err != nil {
		t.Fatal(err)
	}
	if err := o.judgeLive(r, live); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := r.Write(&out, nil); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Command, Release string
		Summary          map[string]int
		Findings         []struct{ File, Severity, Kind, Object, Message string }
	}
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	notServed := "apiVersion: Kubernetes 1.38 no longer serves resource.k8s.io/v1beta1 ResourceClaim: its apiserver rejects this object"
	type finding struct{ File, Severity, Object, Message string }
	want := []finding{
		{"helm:team-a/gpu@2 (chart gpu-0.1.0)", "error", "team-a/gpu", notServed},
		{"last-applied:ResourceClaim team-a/gpu", "error", "team-a/gpu", notServed},
	}
	var fs []finding
	for _, f := range got.Findings {
		fs = append(fs, finding{f.File, f.Severity, f.Object, f.Message})
	}
	if d := cmp.Diff(want, fs); d != "" || got.Command != "check" || got.Release != "1.38" {
		t.Errorf("command %q, release %q; findings (-want +got):\n%s", got.Command, got.Release, d)
	}
	// The live claim, stored by 1.37 in v1: 1.38 keeps it as it is.
	if d := cmp.Diff(map[string]int{"read": 3, "kept": 1, "invalid": 2, "warned": 0}, got.Summary); d != "" {
		t.Errorf("summary (-want +got):\n%s", d)
	}
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// TestCheckFlagErrors: what check (or upgrade) cannot use exits 2 before
// it reads.
func TestCheckFlagErrors(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "kubeconfig")
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"check", "--to", "1.99"}, `Error: --to "1.99": not a release claimbridge can judge by (1.26 … 1.38, and 1.39 by`},
		{[]string{"check", "--report", "xml"}, `Error: --report "xml": unsupported format`},
		{[]string{"upgrade", "--to", "1.33", "--report", "xml"}, `Error: --report "xml": unsupported format`},
		{[]string{"check", "--kubeconfig", missing}, "Error: stat " + missing + ": no such file or directory"},
		{[]string{"check", "prod"}, `Error: unknown command "prod" for "claimbridge check"`},
		{[]string{"check", "-f", "claims.yaml"}, "Error: unknown shorthand flag: 'f' in -f (check reads a cluster; to judge manifests: claimbridge validate --to " + api.Newest().String() + " -f FILE)\n"},
	} {
		code, stdout, stderr := run(t, "", tt.args...)
		if code != ExitBadInput || stdout != "" || !strings.HasPrefix(stderr, tt.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 and %q", tt.args, code, stdout, stderr, tt.want)
		}
	}
}

// TestCheckOffline: given only a kind or kubeadm file, check needs no
// cluster. The default target is the release after the file's (mid-upgrade,
// the binary's own); every setting the target's kube-apiserver refuses to
// start with is an error in its words, with the mend (exit 1); kind's gates
// reach the other components too.
func TestCheckOffline(t *testing.T) {
	kind := func(image, gates, runtime string) string {
		return "kind: Cluster\napiVersion: kind.x-k8s.io/v1alpha4\nfeatureGates: {" + gates + "}\nruntimeConfig: {" + runtime + "}\nnodes:\n- role: control-plane\n  image: kindest/node:" + image + "\n"
	}
	const components = "kube-apiserver 1.%s: kind gives its featureGates to kube-controller-manager, kube-scheduler and every kubelet too: each refuses them the same way\n"
	for name, tc := range map[string]struct {
		config         string
		args           []string
		code           int
		stderr, stdout string
	}{
		"release-after": {kind("v1.36.2", "DRAConsumableCapacity: true", ""), nil, 0,
			"target: Kubernetes 1.37, the release after the cluster's 1.36\ntarget: Kubernetes 1.37 with --feature-gates=DRAConsumableCapacity=true\n", ""},
		"1.30-to-1.31": {kind("v1.30.4", "DynamicResourceAllocation: true", `"resource.k8s.io/v1alpha2": "true"`), []string{"--to", "1.31"}, 1,
			"target: Kubernetes 1.31 with --feature-gates=DynamicResourceAllocation=true --runtime-config=resource.k8s.io/v1alpha3=true\n" + fmt.Sprintf(components, "31") +
				"NODE                KUBELET  READS CLAIMS THROUGH  VERDICT\nkind-control-plane  v1.30.4  v1alpha2              blocking\n\nSteps, in order:\n" +
				"  1. Make sure every DRA driver serves DRA gRPC v1alpha4, which kubelet 1.31 speaks (it drops v1alpha2, v1alpha3): drivers built with k8s.io/dynamic-resource-allocation v0.31 do.\n" +
				"  2. Upgrade the control plane to 1.31: kube-apiserver first, then kube-controller-manager and kube-scheduler, with kube-apiserver's flags changed as named above.\n" +
				"  3. Then upgrade the kubelets of kind-control-plane to 1.31 at once: until then their Pods with claims stay in ContainerCreating.\n",
			"kube-apiserver 1.31: --runtime-config=resource.k8s.io/v1alpha2=true: group version resource.k8s.io/v1alpha2 that has not been registered; " +
				"drop it: Kubernetes 1.31 no longer has resource.k8s.io/v1alpha2; its DRA version is resource.k8s.io/v1alpha3 (--runtime-config=resource.k8s.io/v1alpha3=true)\n" +
				"kube-apiserver 1.31: --feature-gates=DynamicResourceAllocation=true --runtime-config=resource.k8s.io/v1alpha3=true: " +
				"Kubernetes 1.31 serves no resource.k8s.io without these flags: its DRA objects would be out of reach; start it with them\n" +
				"node:kind-control-plane: kubelet 1.30 reads ResourceClaims through resource.k8s.io/v1alpha2, which Kubernetes 1.31 no longer serves (removed in 1.31): " +
				"its Pods with claims stay in ContainerCreating (failed to fetch ResourceClaim)\n"},
		"emulated": {"kind: ClusterConfiguration\napiVersion: kubeadm.k8s.io/v1beta4\nkubernetesVersion: v1.37.1\napiServer:\n  extraArgs:\n  - name: emulated-version\n    value: \"1.36\"\n", nil, 0,
			"target: Kubernetes 1.37, the release after the cluster's 1.36\n", ""},
		"locked": {kind("v1.36.2", "DRAPrioritizedList: false", ""), nil, 1,
			"target: Kubernetes 1.37, the release after the cluster's 1.36\n" + fmt.Sprintf(components, "37") +
				"NODE                KUBELET  READS CLAIMS THROUGH  VERDICT\nkind-control-plane  v1.36.2  v1                    ok\n\nSteps, in order:\n" +
				"  1. Upgrade the control plane to 1.37: kube-apiserver first, then kube-controller-manager and kube-scheduler, with kube-apiserver's flags changed as named above.\n" +
				"  2. Then upgrade the kubelets of kind-control-plane to 1.37, none newer than kube-apiserver.\n",
			"kube-apiserver 1.37: --feature-gates=DRAPrioritizedList=false: cannot set feature gate DRAPrioritizedList to false, feature is locked to true; drop it: Kubernetes 1.37 has it GA and always on\n"},
	} {
		t.Run(name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "cluster.yaml")
			if err := os.WriteFile(file, []byte(tc.config), 0o600); err != nil {
				t.Fatal(err)
			}
			code, stdout, stderr := run(t, "", append([]string{"check", "--cluster-config", file}, tc.args...)...)
			if stderr, want := stderr, tc.stderr+"claimbridge check: 0 objects read: 0 valid, 0 invalid, 0 skipped, 0 warned\n"; code != tc.code || stderr != want || stdout != tc.stdout {
				t.Errorf("exit %d (want %d)\nstdout (-want +got):\n%s\nstderr (-want +got):\n%s", code, tc.code, cmp.Diff(tc.stdout, stdout), cmp.Diff(want, stderr))
			}
		})
	}
}

// TestCheckBeyondRemoves: judged for the release after the newest, a
// v1beta2 manifest is rejected (upstream stops serving it in 1.39) and a v1
// one is not.
func TestCheckBeyondRemoves(t *testing.T) {
	o := &checkOptions{validateOptions: validateOptions{cel: validation.NewCELCache()}}
	if err := o.setTarget("1.39"); err != nil {
		t.Fatal(err)
	}
	r := o.newReport()
	class := "apiVersion: resource.k8s.io/%s\nkind: DeviceClass\nmetadata: {name: gpu.example.com}\nspec:\n  selectors:\n  - cel: {expression: 'device.driver == \"gpu.example.com\"'}\n"
	for _, v := range []string{"v1beta2", "v1"} {
		if err := o.judgeStream(r, "helm:gpu/gpu@1 (chart gpu-0.1.0)", fmt.Sprintf(class, v), "gpu"); err != nil {
			t.Fatal(err)
		}
	}
	var out, errOut bytes.Buffer
	if err := r.Write(&errOut, &out); err != nil {
		t.Fatal(err)
	}
	want := "helm:gpu/gpu@1 (chart gpu-0.1.0): document 1 (line 1): DeviceClass gpu.example.com: apiVersion: Kubernetes 1.39 no longer serves resource.k8s.io/v1beta2 DeviceClass: its apiserver rejects this object\n"
	if !strings.Contains(out.String(), want) || strings.Count(out.String(), "no longer serves") != 1 {
		t.Errorf("stdout:\n%s\nwant a line:\n%s", out.String(), want)
	}
}

// TestValidateBeyondNewest: validate takes a release known from its
// pre-release, and the one after, as check does, for CI ahead of an
// upgrade: a v1beta1 manifest is rejected by 1.38, a v1 one is valid, the
// target is named as known, and the release after the next is refused,
// naming what claimbridge can judge by.
func TestValidateBeyondNewest(t *testing.T) {
	stream := strings.Replace(checkClaimV1beta1, "gpu", "old", 1) + "\n---\n" + strings.Replace(strings.Replace(checkClaimV1beta1, "v1beta1", "v1", 1),
		`{"name":"gpu","deviceClassName":"gpu.example.com"}`, `{"name":"gpu","exactly":{"deviceClassName":"gpu.example.com"}}`, 1)
	code, stdout, stderr := run(t, stream, "validate", "--to", "v1.38.1", "-f", "-")
	wantOut := "<stdin>: document 1 (line 1): ResourceClaim team-a/old: apiVersion: Kubernetes 1.38 no longer serves resource.k8s.io/v1beta1 ResourceClaim: its apiserver rejects this object\n"
	wantErr := "target: Kubernetes 1.38 (v1.38.0-beta.0), as its pre-release's sources tell\n"
	if code != ExitInvalid || stdout != wantOut || stderr != wantErr {
		t.Errorf("exit %d\nstdout:\n%s\nwant:\n%s\nstderr:\n%s\nwant:\n%s", code, stdout, wantOut, stderr, wantErr)
	}
	code, _, stderr = run(t, stream, "validate", "--to", "1.38", "--report", "json", "-f", "-")
	var got struct{ Release string }
	if err := json.Unmarshal([]byte(stderr), &got); err != nil || code != ExitInvalid || got.Release != "1.38" {
		t.Errorf("json: exit %d, release %q (%v):\n%s", code, got.Release, err, stderr)
	}
	// A version an earlier release stopped serving is rejected once, as
	// the newest rejects it; an alpha claim in the target's name.
	old := "apiVersion: resource.k8s.io/v1alpha3\nkind: DeviceClass\nmetadata: {name: gpu.example.com}\n---\n" +
		"apiVersion: resource.k8s.io/v1alpha2\nkind: ResourceClaim\nmetadata: {name: c, namespace: ns}\nspec: {resourceClassName: gpu}\n"
	code, stdout, _ = run(t, old, "validate", "-q", "--to", "1.38", "-f", "-")
	wantOut = "<stdin>: document 1 (line 1): DeviceClass gpu.example.com: apiVersion: Kubernetes 1.38 serves resource.k8s.io/v1, not v1alpha3: its apiserver rejects this object\n" +
		"<stdin>: document 2 (line 5): ResourceClaim ns/c: apiVersion: Kubernetes 1.38 serves resource.k8s.io/v1, not v1alpha2: its apiserver rejects this object\n"
	if code != ExitInvalid || stdout != wantOut {
		t.Errorf("older versions: exit %d\nstdout:\n%s\nwant:\n%s", code, stdout, wantOut)
	}
	code, _, stderr = run(t, stream, "validate", "--to", "1.39", "-f", "-")
	wantErr = "target: Kubernetes 1.39 (by the rules and gates of 1.38 (v1.38.0-beta.0), the newest claimbridge knows, and the versions upstream stops serving in 1.39)\n"
	if code != ExitInvalid || stderr != wantErr {
		t.Errorf("--to 1.39: exit %d, stderr %q, want %q", code, stderr, wantErr)
	}
	code, _, stderr = run(t, stream, "validate", "--to", "1.40", "-f", "-")
	want := `Error: --to "1.40": not a release claimbridge can judge by (1.26 … 1.38, and 1.39 by the rules of 1.38 and upstream's announced removals)`
	if code != ExitBadInput || !strings.Contains(stderr, want) {
		t.Errorf("--to 1.40: exit %d, stderr %q, want %q", code, stderr, want)
	}
}

// TestCheckStored: a stored object is judged as the target's apiserver
// treats etcd after an upgrade or a rollback in place: kept, unreadable (the
// target's scheme no longer has the version it is stored in: LIST fails for
// every client), or out of reach (the target does not serve its kind).
func TestCheckStored(t *testing.T) {
	const list = ", the scheduler and kubelet too, until it is deleted"
	for name, tc := range map[string]struct {
		from, to int
		storedAs int // as from, unless --min-compatibility-version is older
		kind     string
		want     string // the error; "" for kept
	}{
		"1.30-to-1.31-claim": {30, 31, 0, api.KindClaim, "stored in resource.k8s.io/v1alpha2, which Kubernetes 1.31 cannot read: there GET and UPDATE of it fail, and LIST of resourceclaims fails for every client" + list},
		"1.30-to-1.31-slice": {30, 31, 0, api.KindResourceSlice, "stored in resource.k8s.io/v1alpha2, which Kubernetes 1.31 cannot read: there GET and UPDATE of it fail, and LIST of resourceslices fails for every client" + list},
		"1.31-to-1.32-claim": {31, 32, 0, api.KindClaim, "note: Kubernetes 1.32's kube-scheduler and kubelet read it only with the flags it lacks (kube-apiserver 1.32, above)"}, // 1.32 serves v1alpha3; its scheduler reads v1beta1
		"1.32-to-1.31-class": {32, 31, 0, api.KindDeviceClass, "stored in resource.k8s.io/v1beta1, which Kubernetes 1.31 cannot read: there GET and UPDATE of it fail, and LIST of deviceclasses fails for every client" + list},
		"1.33-to-1.32-claim": {33, 32, 0, api.KindClaim, ""},
		"1.34-to-1.33-claim": {34, 33, 0, api.KindClaim, "note: Kubernetes 1.33 serves it only with the flags it lacks (kube-apiserver 1.33, above)"},
		"1.34-to-1.32-claim": {34, 32, 0, api.KindClaim, "stored in resource.k8s.io/v1beta2, which Kubernetes 1.32 cannot read: there GET and UPDATE of it fail, and LIST of resourceclaims fails for every client" + list},
		// --min-compatibility-version=1.32: 1.34 stores what 1.33 would, v1beta1.
		"1.34-compatible-1.32-to-1.32-claim": {34, 32, 33, api.KindClaim, "note: Kubernetes 1.32 serves it only with the flags it lacks (kube-apiserver 1.32, above)"},
		"1.35-to-1.34-slice":                 {35, 34, 0, api.KindResourceSlice, ""},
		"1.36-to-1.37-taints":                {36, 37, 0, api.KindDeviceTaintRule, ""},
		"1.33-to-1.32-taints":                {33, 32, 0, api.KindDeviceTaintRule, "Kubernetes 1.32 has no DeviceTaintRule: it stays in etcd, unread"},
		"1.37-to-1.36-taints":                {37, 36, 0, api.KindDeviceTaintRule, "Kubernetes 1.36 serves no DeviceTaintRule with these flags: it stays in etcd, out of reach"},
		"1.37-to-1.38-class":                 {37, 38, 0, api.KindDeviceClass, ""},
		// 1.38 refuses a constraint attribute with two slashes: the template
		// stays, the claims made from it do not (and 1.37 takes them).
		"1.37-to-1.38-template-slashes": {37, 38, 0, api.KindTemplate, "invalid: spec.spec.devices.constraints[0].matchAttribute: " +
			`Invalid value: "gpu.example.com/a/b": must not contain more than one slash (Kubernetes 1.38 keeps the template, but refuses each claim ` +
			"made from it: its Pods stay pending, and its next update of the template fails)"},
		"1.36-to-1.37-template-slashes": {36, 37, 0, api.KindTemplate, ""},
		"1.34-to-1.33-capacity": {34, 33, 0, api.KindClaim, "warning: spec.devices.requests[0].exactly.capacity: " +
			"Kubernetes 1.33 does not have it: it reads the stored object without it, and drops it at its next write"},
		// 1.32 reads the slice without its counters: a GPU goes to two claims.
		"1.33-to-1.32-partitions": {33, 32, 0, api.KindResourceSlice, "invalid: spec.devices[0].consumesCounters: Kubernetes 1.32 has no counters: it reads the slice without them, " +
			"and its scheduler allocates each device that consumes counters (1 in this slice) as a whole device, so devices that share a counter are allocated to two claims at once"},
		// Allocated by 1.34's scheduler: 1.33's drops what it consumed.
		"1.34-to-1.33-consumed": {34, 33, 0, api.KindClaim, "warning: status.allocation.devices.results[0].consumedCapacity: " +
			"Kubernetes 1.33 does not have it (1.34+): it reads the claim without it, and its scheduler and controllers drop it at their next write of the status"},
	} {
		t.Run(name, func(t *testing.T) {
			o := &checkOptions{from: tc.from, storedAs: tc.storedAs}
			if o.storedAs == 0 {
				o.storedAs = tc.from
			}
			if err := o.setTarget(fmt.Sprintf("1.%d", tc.to)); err != nil {
				t.Fatal(err)
			}
			from := api.Bare(tc.from) // a DRA cluster: its release's sketch, as flags
			if sketch := strings.Fields(api.Defaults(tc.from).Sketch()); len(sketch) == 2 {
				if err := from.Set(strings.TrimPrefix(sketch[0], "--feature-gates="), strings.TrimPrefix(sketch[1], "--runtime-config=")); err != nil {
					t.Fatal(err)
				}
			}
			var refusals []api.Refusal
			o.cluster, refusals = from.Upgrade(o.cluster.Minor)
			o.lacks = api.LacksNote(refusals, o.target())
			obj := map[string]interface{}{"apiVersion": "resource.k8s.io/v1", "kind": tc.kind, "metadata": map[string]interface{}{"name": "x", "namespace": "ns"}}
			if strings.Contains(name, "slashes") {
				obj["spec"] = map[string]interface{}{"spec": map[string]interface{}{"devices": map[string]interface{}{
					"requests":    []interface{}{map[string]interface{}{"name": "gpu", "exactly": map[string]interface{}{"deviceClassName": "gpu.example.com"}}},
					"constraints": []interface{}{map[string]interface{}{"matchAttribute": "gpu.example.com/a/b"}}}}}
			}
			if strings.Contains(name, "consumed") {
				obj["status"] = map[string]interface{}{"allocation": map[string]interface{}{"devices": map[string]interface{}{"results": []interface{}{
					map[string]interface{}{"request": "gpu", "driver": "gpu.example.com", "pool": "node-1", "device": "gpu-0", "consumedCapacity": map[string]interface{}{"memory": "1Gi"}},
					map[string]interface{}{"request": "gpu", "driver": "gpu.example.com", "pool": "node-1", "device": "gpu-1", "consumedCapacity": map[string]interface{}{"memory": "1Gi"}}}}}}
			}
			if strings.Contains(name, "partitions") {
				obj["spec"] = map[string]interface{}{"driver": "gpu.example.com", "nodeName": "node-1", "pool": map[string]interface{}{"name": "node-1", "resourceSliceCount": 1},
					"sharedCounters": []interface{}{map[string]interface{}{"name": "gpu-mem", "counters": map[string]interface{}{"memory": map[string]interface{}{"value": "40Gi"}}}},
					"devices": []interface{}{map[string]interface{}{"name": "whole", "consumesCounters": []interface{}{
						map[string]interface{}{"counterSet": "gpu-mem", "counters": map[string]interface{}{"memory": map[string]interface{}{"value": "40Gi"}}}}}}}
			}
			if strings.Contains(name, "capacity") {
				obj["spec"] = map[string]interface{}{"devices": map[string]interface{}{"requests": []interface{}{map[string]interface{}{"name": "gpu",
					"exactly": map[string]interface{}{"deviceClassName": "gpu.example.com", "capacity": map[string]interface{}{"requests": map[string]interface{}{"memory": "1Gi"}}}}}}}
			}
			v := o.stored(obj)
			var want report.Verdict
			switch path, msg, warned := strings.Cut(strings.TrimPrefix(tc.want, "warning: "), ": "); {
			case tc.want == "":
				want = report.Verdict{Outcome: report.Kept}
			case strings.HasPrefix(tc.want, "warning: ") && warned: // after the note of the flags 1.33 lacks
				want = report.Verdict{Outcome: report.Kept, Findings: []report.Finding{
					{Severity: report.Note, Kind: tc.kind, Object: "ns/x", Message: "Kubernetes 1.33 serves it only with the flags it lacks (kube-apiserver 1.33, above)"},
					{Severity: report.Warning, Kind: tc.kind, Object: "ns/x", Path: path, Message: msg}}}
			case strings.HasPrefix(tc.want, "invalid: "):
				path, msg, _ := strings.Cut(strings.TrimPrefix(tc.want, "invalid: "), ": ")
				want = report.Verdict{Outcome: report.Invalid, Findings: []report.Finding{{Severity: report.Error, Kind: tc.kind, Object: "ns/x", Path: path, Message: msg}}}
			case strings.HasPrefix(tc.want, "note: "):
				want = report.Verdict{Outcome: report.Kept, Findings: []report.Finding{{Severity: report.Note, Kind: tc.kind, Object: "ns/x", Message: strings.TrimPrefix(tc.want, "note: ")}}}
			default:
				want = report.Verdict{Outcome: report.Unreachable, Findings: []report.Finding{{Severity: report.Error, Kind: tc.kind, Object: "ns/x", Message: tc.want}}}
			}
			if diff := cmp.Diff(want, v); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestCheckKubelets: given a kind file, check judges each node's kubelet
// (its image) under the target's kube-apiserver: the skew policy, and the
// version its release reads claims through against what the target serves
// with its flags; the steps say which nodes move before the control plane.
func TestCheckKubelets(t *testing.T) {
	kind := func(runtime string, images ...string) string {
		out := "kind: Cluster\napiVersion: kind.x-k8s.io/v1alpha4\n"
		if runtime != "" {
			out += "featureGates: {DynamicResourceAllocation: true}\nruntimeConfig: {" + runtime + "}\n"
		}
		out += "nodes:\n- role: control-plane\n  image: kindest/node:" + images[0] + "\n"
		for _, image := range images[1:] {
			out += "- role: worker\n  image: kindest/node:" + image + "\n"
		}
		return out
	}
	const v1beta1 = `"resource.k8s.io/v1beta1": "true"`
	for name, tc := range map[string]struct {
		config string
		args   []string
		code   int
		want   []string // lines of standard output and error
		absent []string
	}{
		"1.33-worker-under-1.34": {kind("", "v1.34.1", "v1.33.4"), nil, 1, []string{
			"node:kind-worker: kubelet 1.33 reads ResourceClaims through resource.k8s.io/v1beta1, which Kubernetes 1.35 serves only with --runtime-config=resource.k8s.io/v1beta1=true: its Pods with claims stay in ContainerCreating (failed to fetch ResourceClaim)",
			"  1. Upgrade the kubelets of kind-worker to 1.34 or newer, before the control plane.",
			"  2. Upgrade the control plane to 1.35: kube-apiserver first, then kube-controller-manager and kube-scheduler.",
			"  3. Then upgrade the kubelets of kind-control-plane, kind-worker to 1.35, none newer than kube-apiserver.",
		}, []string{"node:kind-control-plane"}},
		"1.33-keeps-v1beta1": {kind(v1beta1, "v1.33.4", "v1.33.4"), []string{"--to", "1.34"}, 0, nil, []string{"node:", "Steps"}},
		"1.33-drops-v1beta1": {kind(v1beta1, "v1.33.4", "v1.33.4"), []string{"--to", "1.34", "--runtime-config", "resource.k8s.io/v1beta1=false"}, 1, []string{
			"node:kind-worker: kubelet 1.33 reads ResourceClaims through resource.k8s.io/v1beta1, which Kubernetes 1.34 serves only with --runtime-config=resource.k8s.io/v1beta1=true: its Pods with claims stay in ContainerCreating (failed to fetch ResourceClaim)",
			"  2. Upgrade the control plane to 1.34: kube-apiserver first, then kube-controller-manager and kube-scheduler, keeping --runtime-config=resource.k8s.io/v1beta1=true until those nodes are upgraded.",
			"  3. Then upgrade the kubelets of kind-control-plane, kind-worker to 1.34, none newer than kube-apiserver.",
		}, nil},
		"1.33-worker-under-1.37-to-1.38": {kind("", "v1.37.0", "v1.33.4"), []string{"--to", "1.38"}, 1, []string{
			"node:kind-worker: kubelet 1.33 is 5 minors older than kube-apiserver 1.38: the version skew policy allows 3 (kubelets 1.35–1.38)",
			"  1. Upgrade the kubelets of kind-worker to 1.35 or newer, before the control plane.",
		}, []string{"node:kind-control-plane"}},
		"rollback-newer-kubelet": {kind("", "v1.37.0", "v1.37.0"), []string{"--to", "1.36"}, 1, []string{
			"node:kind-worker: kubelet 1.37 is newer than kube-apiserver 1.36: the version skew policy forbids it",
			"  1. Roll back the kubelets of kind-control-plane, kind-worker to 1.36 or older, before the control plane.",
			"  2. Roll back the control plane to 1.36: kube-apiserver first, then kube-controller-manager and kube-scheduler.",
		}, nil},
		"1.32-with-v1beta1-to-1.33": {kind(v1beta1, "v1.32.3", "v1.32.3"), []string{"--to", "1.33"}, 0, nil, []string{"kube-apiserver 1.33", "node:", "Steps"}},
		"unknown-kubelet": {kind("", "v1.37.0", "latest"), []string{"--to", "1.38"}, 0, []string{
			`node:kind-worker: warning: kubelet version "latest" is not a Kubernetes release: the node is not judged`,
		}, nil},
	} {
		t.Run(name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "kind.yaml")
			if err := os.WriteFile(file, []byte(tc.config), 0o600); err != nil {
				t.Fatal(err)
			}
			code, stdout, stderr := run(t, "", append([]string{"check", "--cluster-config", file}, tc.args...)...)
			lines := strings.Split(stdout+stderr, "\n")
			for _, want := range tc.want {
				if !slices.Contains(lines, want) {
					t.Errorf("no line %q", want)
				}
			}
			for _, absent := range tc.absent {
				if strings.Contains(stdout+stderr, absent) {
					t.Errorf("%q said", absent)
				}
			}
			if code != tc.code || t.Failed() {
				t.Errorf("exit %d (want %d):\n%s%s", code, tc.code, stdout, stderr)
			}
		})
	}
}

// TestCheckHeldClaims: a stored claim's reservations are judged by the
// limit of the target's patch (32 until 1.32.0, 256 from 1.32.1), and the
// Pods that hold a claim the target cannot keep are named, in its finding
// and in the runbook.
func TestCheckHeldClaims(t *testing.T) {
	claim := func(pods int) map[string]interface{} {
		var reserved []interface{}
		for i := range pods {
			reserved = append(reserved, map[string]interface{}{"resource": "pods", "name": fmt.Sprintf("worker-%d", i), "uid": fmt.Sprint(i)})
		}
		return map[string]interface{}{"apiVersion": "resource.k8s.io/v1beta1", "kind": api.KindClaim, "metadata": map[string]interface{}{"name": "shared", "namespace": "ml"},
			"spec":   map[string]interface{}{"devices": map[string]interface{}{"requests": []interface{}{map[string]interface{}{"name": "ic", "deviceClassName": "ic.example.com"}}}},
			"status": map[string]interface{}{"allocation": map[string]interface{}{}, "reservedFor": reserved}}
	}
	holders := "Pod ml/worker-0 holds claim ml/shared; Pod ml/worker-1 holds claim ml/shared; Pod ml/worker-2 holds claim ml/shared; " +
		"Pod ml/worker-3 holds claim ml/shared; Pod ml/worker-4 holds claim ml/shared; and 35 more Pods"
	for name, tc := range map[string]struct {
		from    int
		to      string
		pods    int
		want    []report.Finding
		outcome string
		runbook string
	}{
		"1.33-to-1.32.0": {33, "v1.32.0", 40, []report.Finding{{Severity: report.Error, Kind: api.KindClaim, Object: "ml/shared", Path: "status.reservedFor",
			Message: "it holds 40 reservations, and Kubernetes 1.32 allows 32: each update of its status fails, so no Pod's reservation is released and no new Pod can use it (" + holders + ")"}}, report.Invalid, ""},
		"1.33-to-1.32": {33, "1.32", 40, []report.Finding{{Severity: report.Warning, Kind: api.KindClaim, Object: "ml/shared", Path: "status.reservedFor",
			Message: "it holds 40 reservations: Kubernetes 1.32.0 allows 32, 1.32.1 and later 256; name the patch the change lands on (--to v1.32.1), else on 1.32.0 each update of its status fails, so no Pod's reservation is released and no new Pod can use it (" + holders + ")"}}, report.Kept, ""},
		"1.33-to-1.32.1":        {33, "v1.32.1", 40, nil, report.Kept, ""},
		"1.33-to-1.32.0-within": {33, "v1.32.0", 32, nil, report.Kept, ""},
		"1.32-to-1.31": {32, "1.31", 2, []report.Finding{{Severity: report.Error, Kind: api.KindClaim, Object: "ml/shared",
			Message: "stored in resource.k8s.io/v1beta1, which Kubernetes 1.31 cannot read: there GET and UPDATE of it fail, and LIST of resourceclaims fails for every client, " +
				"the scheduler and kubelet too, until it is deleted (Pod ml/worker-0 holds claim ml/shared; Pod ml/worker-1 holds claim ml/shared)"}}, report.Unreachable,
			"Kubernetes 1.31 cannot read the objects stored by 1.32 (resourceclaims: 1), and lists none of their kinds while one is stored: before the change, " +
				"save them with `claimbridge upgrade --to 1.31 --save dra.yaml`, which deletes them once saved (the drivers publish their ResourceSlices again), change the release, " +
				"then run it again on 1.31: it re-creates them. Deleting the claims stops what runs: " +
				"Pod ml/worker-0 holds claim ml/shared; Pod ml/worker-1 holds claim ml/shared. A claim a Pod holds stays Terminating until the Pod ends " +
				"(its delete-protection finalizer): stop these Pods first, and start them again once the claims are re-created"},
		// Re-created on 1.31 as the runbook says: 32 of its 40 Pods hold it.
		"1.32-to-1.31-over-the-limit": {32, "1.31", 40, []report.Finding{{Severity: report.Error, Kind: api.KindClaim, Object: "ml/shared",
			Message: "stored in resource.k8s.io/v1beta1, which Kubernetes 1.31 cannot read: there GET and UPDATE of it fail, and LIST of resourceclaims fails for every client, " +
				"the scheduler and kubelet too, until it is deleted (" + holders + ")"}, {Severity: report.Error, Kind: api.KindClaim, Object: "ml/shared", Path: "status.reservedFor",
			Message: "it holds 40 reservations, and Kubernetes 1.31 allows 32: re-created there, as the runbook says, it is held by 32 of its Pods, and the other 8 stay pending (" + holders + ")"}},
			report.Unreachable, "Kubernetes 1.31 cannot read the objects stored by 1.32 (resourceclaims: 1), and lists none of their kinds while one is stored: before the change, " +
				"save them with `claimbridge upgrade --to 1.31 --save dra.yaml`, which deletes them once saved (the drivers publish their ResourceSlices again), change the release, " +
				"then run it again on 1.31: it re-creates them. Deleting the claims stops what runs: " + holders +
				". A claim a Pod holds stays Terminating until the Pod ends (its delete-protection finalizer): stop these Pods first, and start them again once the claims are re-created"},
	} {
		t.Run(name, func(t *testing.T) {
			o := &checkOptions{from: tc.from, storedAs: tc.from, patch: api.ParsePatch(tc.to)}
			if err := o.setTarget(tc.to); err != nil {
				t.Fatal(err)
			}
			o.cluster, _ = api.Defaults(tc.from).Upgrade(o.cluster.Minor)
			v := o.stored(claim(tc.pods))
			var pods []string // every Pod, beyond the five a message names
			for i := range tc.pods {
				pods = append(pods, fmt.Sprintf("ml/worker-%d", i))
			}
			for i := range tc.want {
				tc.want[i].Pods = pods
			}
			if d := cmp.Diff(report.Verdict{Outcome: tc.outcome, Findings: tc.want}, v); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
			if got := ""; len(o.lost) > 0 {
				got = judge.Runbook(o.from, o.cluster.Minor, o.lost, o.held)
				if got != tc.runbook {
					t.Errorf("runbook:\n%s\nwant:\n%s", got, tc.runbook)
				}
			}
		})
	}
}
