package support

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

var minors = []int{31, 32, 33, 34, 35, 36, 37, 38}

// summary is each cell as "RELEASE SETTING: VERDICT".
func summary(cells []Cell) []string {
	var out []string
	for _, c := range cells {
		out = append(out, c.Release+" "+c.Setting+": "+c.Verdict)
	}
	return out
}

const v1beta1Flag = "--runtime-config=resource.k8s.io/v1beta1=true"

// draFlags turns DRA on before 1.34, where it is off by default.
const draFlags = "--feature-gates=DynamicResourceAllocation=true " + v1beta1Flag

// needsDRA are the cells of 1.32 and 1.33 for a driver that needs v1beta1.
var needsDRA = []string{
	"1.32 defaults: needs-flags", "1.32 " + draFlags + ": works",
	"1.33 defaults: needs-flags", "1.33 " + draFlags + ": works",
}

// needsV1beta1 are the cells of 1.34–1.37 for a driver that needs v1beta1.
var needsV1beta1 = []string{
	"1.34 defaults: needs-flags", "1.34 " + v1beta1Flag + ": works",
	"1.35 defaults: needs-flags", "1.35 " + v1beta1Flag + ": works",
	"1.36 defaults: needs-flags", "1.36 " + v1beta1Flag + ": works",
	"1.37 defaults: needs-flags", "1.37 " + v1beta1Flag + ": works",
}

func TestModuleCells(t *testing.T) {
	taintFlags := func(minor int, gates string) []string {
		flags := "--runtime-config=resource.k8s.io/v1alpha3=true"
		if gates != "" {
			flags = "--feature-gates=" + gates + " " + flags
		}
		r := fmt.Sprintf("1.%d", minor)
		return []string{r + " defaults: needs-flags", r + " " + flags + ": works"}
	}
	scenarios := map[string]struct {
		dir  string
		want []string
	}{
		"library-v0.33": {
			// v0.33 speaks gRPC v1beta1 (1.32+) and writes through v1beta1 only.
			dir:  fixture(t, "lib033"),
			want: slices.Concat([]string{"1.31 defaults: cannot"}, needsDRA, needsV1beta1, []string{"1.38 defaults: cannot"}),
		},
		"library-v0.37-with-a-stray-v1beta1-call": {
			// Its v1 informer needs 1.34+; its v1beta1 Get, the flag until 1.37.
			dir:  fixture(t, "lib037"),
			want: append(append([]string{"1.31 defaults: cannot", "1.32 defaults: cannot", "1.33 defaults: cannot"}, needsV1beta1...), "1.38 defaults: cannot"),
		},
		"device-taint-rules-through-v1alpha3": {
			dir: fixture(t, "taints"),
			want: slices.Concat(
				[]string{"1.31 defaults: cannot", "1.32 defaults: cannot"},
				[]string{"1.33 defaults: needs-flags", "1.33 --feature-gates=DRADeviceTaints=true,DynamicResourceAllocation=true --runtime-config=resource.k8s.io/v1alpha3=true,resource.k8s.io/v1beta2=true: works"},
				taintFlags(34, "DRADeviceTaints=true"),
				taintFlags(35, "DRADeviceTaintRules=true,DRADeviceTaints=true"), taintFlags(36, "DRADeviceTaintRules=true"),
				taintFlags(37, ""), taintFlags(38, "")),
		},
		"calls-behind-flags-off-by-default": {
			// Their versions move no verdict: only the v1beta1 calls do.
			dir:  fixture(t, "flags"),
			want: slices.Concat([]string{"1.31 defaults: cannot"}, needsDRA, needsV1beta1, []string{"1.38 defaults: cannot"}),
		},
		"no-library": {
			dir:  fixture(t, "nolib"),
			want: []string{"1.31 defaults: cannot", "1.32 defaults: cannot", "1.33 defaults: cannot", "1.34 defaults: works", "1.35 defaults: works", "1.36 defaults: works", "1.37 defaults: works", "1.38 defaults: works"},
		},
	}
	for name, s := range scenarios {
		t.Run(name, func(t *testing.T) {
			bins, _, err := ReadBinaries(s.dir)
			if err != nil {
				t.Fatal(err)
			}
			got := Support(Driver{Binaries: bins}, minors)
			if diff := cmp.Diff(s.want, summary(got.Cells)); diff != "" {
				t.Errorf("(-want +got)\n%s", diff)
			}
		})
	}
}

func TestModuleReasons(t *testing.T) {
	bins, _, err := ReadBinaries(fixture(t, "lib037"))
	if err != nil {
		t.Fatal(err)
	}
	scenarios := map[int][]Cell{
		31: {{Release: "1.31", Setting: Defaults, Verdict: Cannot, Reasons: []string{
			"the kubelet of 1.31 speaks DRA gRPC v1alpha4; the kubeletplugin of k8s.io/dynamic-resource-allocation v0.37 serves v1beta1, v1",
			"k8s.io/dynamic-resource-allocation v0.37 (resourceslices): Kubernetes 1.31 has no resourceslices in resource.k8s.io/v1beta1, v1beta2, v1",
			"k8s.io/dynamic-resource-allocation v0.37 (resourceclaims): Kubernetes 1.31 has no resourceclaims in resource.k8s.io/v1beta1, v1beta2, v1",
			"driver/informers.go:8 Resource().V1().ResourceSlices: resource.k8s.io/v1 resourceslices, which Kubernetes 1.31 does not have (it came in 1.34)",
			"driver/unprepare.go:13 ResourceV1beta1().ResourceClaims: resource.k8s.io/v1beta1 resourceclaims, which Kubernetes 1.31 does not have (it came in 1.32)",
		}, GRPC: FromRun}},
		34: {
			{Release: "1.34", Setting: Defaults, Verdict: NeedsFlags, Flags: v1beta1Flag, Reasons: []string{
				"driver/unprepare.go:13 ResourceV1beta1().ResourceClaims: kube-apiserver 1.34 serves resource.k8s.io/v1beta1 resourceclaims only with " + v1beta1Flag,
			}, GRPC: FromRun},
			{Release: "1.34", Setting: v1beta1Flag, Verdict: Works, Flags: v1beta1Flag, GRPC: FromRun},
		},
		38: {{Release: "1.38", Setting: Defaults, Verdict: Cannot, Reasons: []string{
			"driver/unprepare.go:13 ResourceV1beta1().ResourceClaims: resource.k8s.io/v1beta1 resourceclaims, which Kubernetes 1.38 no longer serves (removed in 1.38)",
		}, GRPC: FromSources}},
	}
	for minor, want := range scenarios {
		if diff := cmp.Diff(want, Driver{Binaries: bins}.Cells(minor)); diff != "" {
			t.Errorf("1.%d (-want +got)\n%s", minor, diff)
		}
	}
}

func TestDeclare(t *testing.T) {
	bins, _, err := ReadBinaries(fixture(t, "lib033"))
	if err != nil {
		t.Fatal(err)
	}
	got := Support(Driver{Binaries: bins}, minors)
	if err := got.Declare("--declared", ">=1.33 <1.39"); err != nil {
		t.Fatal(err)
	}
	want := &Matrix{
		APIVersion: "claimbridge.dev/support/v1", Kind: "Support",
		WithFlags: Span{"1.32", "1.37"},
		Notes: []string{"the DRA gRPC of the kubelet of 1.38 and the kubeletplugin of k8s.io/dynamic-resource-allocation v0.33 is judged by the versions their sources define; " +
			"only the kubelets of 1.31–1.37 and the kubeletplugins of v0.31–v0.37 have been run against each other"},
		Errors: []string{"--declared >=1.33 <1.39 admits Kubernetes 1.38, where the driver cannot run: " +
			"k8s.io/dynamic-resource-allocation v0.33 (resourceslices): resource.k8s.io/v1beta1 resourceslices, which Kubernetes 1.38 no longer serves (removed in 1.38)"},
	}
	want.Warnings = []string{"--declared >=1.33 <1.39 admits Kubernetes 1.33, where the driver runs only with " + draFlags}
	for minor := 34; minor <= 37; minor++ {
		want.Warnings = append(want.Warnings, fmt.Sprintf("--declared >=1.33 <1.39 admits Kubernetes 1.%d, where the driver runs only with %s", minor, v1beta1Flag))
	}
	got.Cells = nil
	if diff := cmp.Diff(want, got, cmpopts.IgnoreUnexported(Matrix{})); diff != "" {
		t.Errorf("(-want +got)\n%s", diff)
	}
	if err := got.Declare("--declared", ">=one"); err == nil {
		t.Error("--declared >=one: no error")
	}
}

// TestKubeletRegistration: a kubelet of 1.31 refuses the kubeletplugin of
// v0.32, though both speak v1alpha4; one of 1.32 calls that of v0.31.
func TestKubeletRegistration(t *testing.T) {
	cells := func(lib, minor int) []Cell {
		return Driver{Binaries: []Binary{{Path: ".", Library: lib}}}.Cells(minor)
	}
	want := []string{
		"the kubelet of 1.31 refuses the registration of the kubeletplugin of k8s.io/dynamic-resource-allocation v0.32: it reads a plugin's versions as semantic versions, and from v0.32 the kubeletplugin registers gRPC service names",
		"k8s.io/dynamic-resource-allocation v0.32 (resourceslices): resource.k8s.io/v1beta1 resourceslices, which Kubernetes 1.31 does not have (it came in 1.32)",
	}
	if diff := cmp.Diff(want, cells(32, 31)[0].Reasons); diff != "" {
		t.Errorf("v0.32 on 1.31 (-want +got)\n%s", diff)
	}
	for _, r := range cells(31, 32)[0].Reasons {
		if strings.HasPrefix(r, "the kubelet") {
			t.Errorf("v0.31 on 1.32: %s", r)
		}
	}
}
