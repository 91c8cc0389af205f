package support

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/claimbridge/claimbridge/api"
)

// TestSelect: the binaries judged are those named, else those the
// install's containers run, else all; the note says which.
func TestSelect(t *testing.T) {
	bins, _, err := ReadBinaries("testdata/monorepo")
	if err != nil {
		t.Fatal(err)
	}
	install, err := ReadManifests([]string{"testdata/monorepo/deployments"}, false)
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
	bins, _, err := ReadBinaries("testdata/monorepo")
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
					"which updateStatus needs; without them, its error is only logged and the rest of the driver runs",
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
