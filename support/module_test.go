package support

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/tools/txtar"
)

// fixture unpacks the driver repository testdata/name.txtar: Go sources
// kept as test data, not as the project's own code.
func fixture(t testing.TB, name string) string {
	t.Helper()
	a, err := txtar.ParseFile(filepath.Join("testdata", name+".txtar"))
	if err != nil {
		t.Fatal(err)
	}
	fsys, err := txtar.FS(a)
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	if err := os.CopyFS(out, fsys); err != nil {
		t.Fatal(err)
	}
	return out
}

// withFile is fixture name with file holding text: a file that does not
// parse cannot be kept in the tree (gofmt checks it).
func withFile(t *testing.T, name, file, text string) string {
	t.Helper()
	out := fixture(t, name)
	if err := os.WriteFile(filepath.Join(out, file), []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return out
}

const brokenGo = "package main\n\nfunc broken( {\n\tcs.ResourceV1beta2().DeviceClasses().List(nil, nil)\n}\n"

func TestReadBinaries(t *testing.T) {
	scenarios := map[string]struct {
		dir       string
		want      []Binary
		wantNotes []string
	}{
		"library-v0.33": {
			dir:  fixture(t, "lib033"),
			want: []Binary{{Path: ".", Name: "gpu-driver", Library: 33}},
		},
		"library-v0.37-pseudo-version-and-replace": {
			// Tests, vendor/ and hidden directories are not read.
			dir: fixture(t, "lib037"),
			want: []Binary{{Path: ".", Name: "gpu-driver", Library: 37, Calls: []Call{
				{Version: "v1", Kind: "ResourceSlice", Position: "driver/informers.go:8", Expr: "Resource().V1().ResourceSlices"},
				{Version: "v1beta1", Kind: "ResourceClaim", Position: "driver/unprepare.go:13", Expr: "ResourceV1beta1().ResourceClaims"},
			}}},
		},
		"no-library-and-a-file-that-does-not-parse": {
			dir: withFile(t, "nolib", "broken.go", brokenGo),
			want: []Binary{{Path: ".", Name: "controller", Calls: []Call{
				{Version: "v1", Kind: "ResourceClaim", Position: "claims.go:6", Expr: "ResourceV1().ResourceClaims"},
			}}},
			wantNotes: []string{"broken.go:3: does not parse: expected ')', found '{' (its other calls are read)"},
		},
		"two-binaries-a-test-helper-a-windows-file-and-a-nested-module": {
			// The e2e framework and gpu_windows.go are in no linux binary;
			// gaudi/ is a module of its own, on its own library line; the
			// library's pseudo-version of no release is on the line of its
			// commit's day; a status write whose error is only logged.
			dir: fixture(t, "monorepo"),
			want: []Binary{
				{Path: "cmd/gpu-plugin", Name: "gpu-plugin", Library: 35, Calls: []Call{
					{Version: "v1", Kind: "ResourceClaim", Position: "pkg/gpu/gpu.go:15", Expr: "ResourceV1().ResourceClaims"},
				}},
				{Path: "cmd/qat-plugin", Name: "qat-plugin", Library: 35, Calls: []Call{
					{Version: "v1beta1", Kind: "ResourceClaim", Position: "pkg/qat/qat.go:17", Expr: "ResourceV1beta1().ResourceClaims"},
					{Version: "v1beta2", Kind: "ResourceClaim", Position: "pkg/qat/qat.go:26", Expr: "ResourceV1beta2().ResourceClaims", Logged: "updateStatus"},
				}},
				{Path: "gaudi/cmd/gaudi-plugin", Name: "gaudi-plugin", Library: 33},
			},
		},
		"calls-behind-flags": {
			// In an if on a flag off by default (flag.BoolVar), in a
			// function named only in such an if (cli.BoolFlag with no
			// Value): the flag turns them on. A flag on by default, and a
			// function named outside such an if too, turn nothing off.
			dir: fixture(t, "flags"),
			want: []Binary{{Path: ".", Name: "flag-driver", Calls: []Call{
				{Version: "v1alpha3", Kind: "DeviceTaintRule", Position: "controller.go:18", Expr: "ResourceV1alpha3().DeviceTaintRules", Flag: "device-taints"},
				{Version: "v1beta2", Kind: "ResourceClaim", Position: "controller.go:35", Expr: "ResourceV1beta2().ResourceClaims", Flag: "health-monitoring"},
				{Version: "v1beta1", Kind: "ResourceClaim", Position: "controller.go:42", Expr: "ResourceV1beta1().ResourceClaims"},
				{Version: "v1beta1", Kind: "ResourceSlice", Position: "controller.go:49", Expr: "ResourceV1beta1().ResourceSlices"},
			}}},
		},
	}
	for name, s := range scenarios {
		t.Run(name, func(t *testing.T) {
			got, notes, err := ReadBinaries(s.dir)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(s.want, got); diff != "" {
				t.Errorf("(-want +got)\n%s", diff)
			}
			if diff := cmp.Diff(s.wantNotes, notes); diff != "" {
				t.Errorf("notes (-want +got)\n%s", diff)
			}
		})
	}
}

// TestReadBinariesNestedGoModDoesNotParse: a nested go.mod that does not
// parse is a note; its packages are not the parent's, and the rest is
// judged.
func TestReadBinariesNestedGoModDoesNotParse(t *testing.T) {
	dir := withFile(t, "monorepo", "gaudi/go.mod", "module example.com/drivers/gaudi\n\nrequire (\n")
	got, notes, err := ReadBinaries(dir)
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, b := range got {
		paths = append(paths, b.Path)
	}
	want := []string{"gaudi/go.mod:4: syntax error (unterminated block started at gaudi/go.mod:3:1) (its packages are not judged)"}
	if diff := cmp.Diff(want, notes); diff != "" || !slices.Equal(paths, []string{"cmd/gpu-plugin", "cmd/qat-plugin"}) {
		t.Errorf("binaries %q, notes (-want +got)\n%s", paths, diff)
	}
}

func TestReadBinariesReplacedByDirectory(t *testing.T) {
	dir := withFile(t, "lib033", "go.mod", "module example.com/d\n\nrequire k8s.io/dynamic-resource-allocation v0.34.1\n\nreplace k8s.io/dynamic-resource-allocation => ../dra\n")
	got, notes, err := ReadBinaries(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"go.mod replaces k8s.io/dynamic-resource-allocation by the directory ../dra: its release is taken from the requirement"}
	if diff := cmp.Diff(want, notes); diff != "" || got[0].Library != 34 {
		t.Errorf("library v0.%d, notes (-want +got)\n%s", got[0].Library, diff)
	}
}

// TestLineOf: a version's Kubernetes line, a pseudo-version of no release
// by the day of its commit.
func TestLineOf(t *testing.T) {
	for version, want := range map[string]int{
		"v0.34.2":                               34,
		"v0.35.0-20250101000000-abcdef012345":   35,
		"v0.33.1-0.20250512000000-abcdef012345": 33,
		"v0.0.0-20250312101010-abcdef012345":    33, // before v0.34.0-alpha.0, of 2025-04-09
		"v0.0.0-20250410000000-abcdef012345":    34,
		"v0.0.0-20260901000000-abcdef012345":    38,
		"v0.0.0-20200101000000-abcdef012345":    0,
		"v0.0.0":                                0,
	} {
		if got := lineOf(version); got != want {
			t.Errorf("lineOf(%s) = %d, want %d", version, got, want)
		}
	}
}
