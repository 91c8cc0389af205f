package support

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/claimbridge/claimbridge/api"
)

// TestSelect: the binaries judged are those named, else those the
// install's containers run, else all; the note says which.
func TestSelect(t *testing.T) {
	bins, _, err := ReadBinaries(fixture(t, "monorepo"))
	if err != nil {
		t.Fatal(err)
	}
	install, err := ReadManifests([]string{filepath.Join(fixture(t, "monorepo"), "deployments")}, false)
	if err != nil {
		t.Fatal(err)
	}
	scenarios := map[string]struct {
		named    []string
		install  bool
		want     []string
		wantNote string
		wantErr  string
	}{
		"named": {
			named: []string{"gaudi/cmd/gaudi-plugin/"}, want: []string{"gaudi/cmd/gaudi-plugin"},
			wantNote: "judged the binaries gaudi/cmd/gaudi-plugin (named by --binary)",
		},
		"run-by-the-install": {
			install: true, want: []string{"cmd/gpu-plugin"},
			wantNote: "judged the binaries cmd/gpu-plugin (run by the install's containers)",
		},
		"every-binary": {
			want:     []string{"cmd/gpu-plugin", "cmd/qat-plugin", "gaudi/cmd/gaudi-plugin"},
			wantNote: "judged every binary: cmd/gpu-plugin, cmd/qat-plugin, gaudi/cmd/gaudi-plugin (--binary narrows them)",
		},
		"not-a-binary": {
			named:   []string{"pkg/gpu"},
			wantErr: "--binary pkg/gpu: not a binary of the driver (its binaries: cmd/gpu-plugin, cmd/qat-plugin, gaudi/cmd/gaudi-plugin)",
		},
	}
	for name, s := range scenarios {
		t.Run(name, func(t *testing.T) {
			docs := install
			if !s.install {
				docs = nil
			}
			judged, note, err := Select(bins, s.named, docs)
			if errString(err) != s.wantErr {
				t.Fatalf("error %q, want %q", errString(err), s.wantErr)
			}
			var got []string
			for _, b := range judged {
				got = append(got, b.Path)
			}
			if diff := cmp.Diff(s.want, got); diff != "" || note != s.wantNote {
				t.Errorf("note %q, want %q; binaries (-want +got)\n%s", note, s.wantNote, diff)
			}
		})
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// TestMonorepoCells: one binary's calls do not move another's verdict, a
// call whose error is only logged is a warning with the flag that restores
// it, and a test helper's call is judged nowhere.
func TestMonorepoCells(t *testing.T) {
	bins, _, err := ReadBinaries(fixture(t, "monorepo"))
	if err != nil {
		t.Fatal(err)
	}
	gpu, _, _ := Select(bins, []string{"cmd/gpu-plugin"}, nil)
	qat, _, _ := Select(bins, []string{"cmd/qat-plugin"}, nil)
	scenarios := map[string]struct {
		bins  []Binary
		minor int
		want  []Cell
	}{
		"gpu-on-1.38": {bins: gpu, minor: 38, want: []Cell{{Release: "1.38", Setting: Defaults, Verdict: Works, GRPC: FromSources}}},
		"qat-on-1.36": {bins: qat, minor: 36, want: []Cell{
			{Release: "1.36", Setting: Defaults, Verdict: NeedsFlags, Flags: v1beta1Flag, GRPC: FromRun, Reasons: []string{
				"pkg/qat/qat.go:17 ResourceV1beta1().ResourceClaims: kube-apiserver 1.36 serves resource.k8s.io/v1beta1 resourceclaims only with " + v1beta1Flag,
			}},
			{Release: "1.36", Setting: v1beta1Flag, Verdict: Works, Flags: v1beta1Flag, GRPC: FromRun, Reasons: []string{
				"pkg/qat/qat.go:26 ResourceV1beta2().ResourceClaims: kube-apiserver 1.36 serves resource.k8s.io/v1beta2 resourceclaims only with --runtime-config=resource.k8s.io/v1beta2=true, " +
					"which updateStatus needs; its error is only logged: without them, the rest of the driver runs",
			}},
		}},
		"both-on-1.38": {bins: append(gpu, qat...), minor: 38, want: []Cell{{Release: "1.38", Setting: Defaults, Verdict: Cannot, GRPC: FromSources, Reasons: []string{
			"cmd/qat-plugin: pkg/qat/qat.go:17 ResourceV1beta1().ResourceClaims: resource.k8s.io/v1beta1 resourceclaims, which Kubernetes 1.38 no longer serves (removed in 1.38)",
		}}}},
	}
	for name, s := range scenarios {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(s.want, Driver{Binaries: s.bins}.Cells(s.minor)); diff != "" {
				t.Errorf("(-want +got)\n%s", diff)
			}
		})
	}
}

// TestFlagCells: a call behind a flag off by default is a warning naming
// the flag, until the install's containers pass it.
func TestFlagCells(t *testing.T) {
	bins, _, err := ReadBinaries(fixture(t, "flags"))
	if err != nil {
		t.Fatal(err)
	}
	install, err := ReadManifests([]string{filepath.Join(fixture(t, "flags"), "deployments")}, false)
	if err != nil {
		t.Fatal(err)
	}
	off, _, _ := Select(bins, nil, nil)
	on, _, _ := Select(bins, nil, install)
	const both = "--runtime-config=resource.k8s.io/v1beta1=true,resource.k8s.io/v1beta2=true"
	hardNeeds := func(minor int, flags string) []string {
		return []string{
			fmt.Sprintf("controller.go:42 ResourceV1beta1().ResourceClaims: kube-apiserver 1.%d serves resource.k8s.io/v1beta1 resourceclaims only with %s", minor, flags),
			fmt.Sprintf("controller.go:49 ResourceV1beta1().ResourceSlices: kube-apiserver 1.%d serves resource.k8s.io/v1beta1 resourceslices only with %s", minor, flags),
		}
	}
	scenarios := map[string]struct {
		bins  []Binary
		minor int
		want  []Cell
	}{
		"off-by-default-on-1.34": {bins: off, minor: 34, want: []Cell{
			{Release: "1.34", Setting: Defaults, Verdict: NeedsFlags, Flags: v1beta1Flag, Reasons: hardNeeds(34, v1beta1Flag)},
			{Release: "1.34", Setting: v1beta1Flag, Verdict: Works, Flags: v1beta1Flag, Reasons: []string{
				"controller.go:18 ResourceV1alpha3().DeviceTaintRules: kube-apiserver 1.34 serves resource.k8s.io/v1alpha3 devicetaintrules only with --feature-gates=DRADeviceTaints=true --runtime-config=resource.k8s.io/v1alpha3=true, " +
					"needed only with --device-taints, which is off by default: without them, the rest of the driver runs",
				"controller.go:35 ResourceV1beta2().ResourceClaims: kube-apiserver 1.34 serves resource.k8s.io/v1beta2 resourceclaims only with --runtime-config=resource.k8s.io/v1beta2=true, " +
					"needed only with --health-monitoring, which is off by default: without them, the rest of the driver runs",
			}},
		}},
		"off-by-default-on-1.32": {bins: off, minor: 32, want: []Cell{
			{Release: "1.32", Setting: Defaults, Verdict: NeedsFlags, Flags: draFlags, Reasons: append([]string{
				"Kubernetes 1.32 runs no DRA at its defaults: the DynamicResourceAllocation feature gate goes on kube-apiserver, kube-scheduler, kube-controller-manager and every kubelet, and kube-apiserver serves resource.k8s.io only with --runtime-config",
			}, hardNeeds(32, draFlags)...)},
			{Release: "1.32", Setting: draFlags, Verdict: Works, Flags: draFlags, Reasons: []string{
				"controller.go:18 ResourceV1alpha3().DeviceTaintRules: resource.k8s.io/v1alpha3 devicetaintrules, which Kubernetes 1.32 does not have (it came in 1.33), " +
					"needed only with --device-taints, which is off by default: the rest of the driver runs",
				"controller.go:35 ResourceV1beta2().ResourceClaims: resource.k8s.io/v1beta2 resourceclaims, which Kubernetes 1.32 does not have (it came in 1.33), " +
					"needed only with --health-monitoring, which is off by default: the rest of the driver runs",
			}},
		}},
		"passed-by-the-install-on-1.34": {bins: on, minor: 34, want: []Cell{
			{Release: "1.34", Setting: Defaults, Verdict: NeedsFlags, Flags: both, Reasons: []string{
				"controller.go:35 ResourceV1beta2().ResourceClaims: kube-apiserver 1.34 serves resource.k8s.io/v1beta2 resourceclaims only with --runtime-config=resource.k8s.io/v1beta2=true",
				hardNeeds(34, v1beta1Flag)[0], hardNeeds(34, v1beta1Flag)[1],
			}},
			{Release: "1.34", Setting: both, Verdict: Works, Flags: both, Reasons: []string{
				"controller.go:18 ResourceV1alpha3().DeviceTaintRules: kube-apiserver 1.34 serves resource.k8s.io/v1alpha3 devicetaintrules only with --feature-gates=DRADeviceTaints=true --runtime-config=resource.k8s.io/v1alpha3=true, " +
					"needed only with --device-taints, which is off by default: without them, the rest of the driver runs",
			}},
		}},
		"passed-by-the-install-on-1.32": {bins: on, minor: 32, want: []Cell{{Release: "1.32", Setting: Defaults, Verdict: Cannot, Reasons: []string{
			"controller.go:35 ResourceV1beta2().ResourceClaims: resource.k8s.io/v1beta2 resourceclaims, which Kubernetes 1.32 does not have (it came in 1.33)",
			hardNeeds(32, draFlags)[0], hardNeeds(32, draFlags)[1],
		}}}},
	}
	for name, s := range scenarios {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(s.want, Driver{Binaries: s.bins}.Cells(s.minor)); diff != "" {
				t.Errorf("(-want +got)\n%s", diff)
			}
		})
	}
	if bins[0].Calls[1].Flag != "health-monitoring" {
		t.Errorf("Select changed the calls it was given: %+v", bins[0].Calls[1])
	}
}

// TestKustomization: a kustomization is built as kustomize builds it.
func TestKustomization(t *testing.T) {
	docs, err := ReadManifests([]string{"testdata/kustomize"}, false)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range docs {
		got = append(got, api.Describe(d.Object)+" "+d.Source)
	}
	if diff := cmp.Diff([]string{"DeviceClass dra-cpu.example.com testdata/kustomize/kustomization.yaml"}, got); diff != "" {
		t.Errorf("(-want +got)\n%s", diff)
	}
}

func TestUpdate(t *testing.T) {
	table := "| Kubernetes |\n"
	scenarios := map[string]struct{ text, want string }{
		"no-markers": {"# Driver\n", "# Driver\n\n" + BeginTable + "\n" + table + EndTable + "\n"},
		"markers": {
			"# Driver\n" + BeginTable + "\n| old |\n" + EndTable + "\nMore.\n",
			"# Driver\n" + BeginTable + "\n" + table + EndTable + "\nMore.\n",
		},
	}
	for name, s := range scenarios {
		t.Run(name, func(t *testing.T) {
			got, marked := Update(s.text, table)
			if got != s.want || marked != (name == "markers") {
				t.Errorf("Update = %q, %t; want %q", got, marked, s.want)
			}
		})
	}
}
