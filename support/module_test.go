package support

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// withFile is a copy of the fixture dir with file name holding text: a
// file that does not parse cannot be kept in the tree (gofmt checks it).
func withFile(t *testing.T, dir, name, text string) string {
	t.Helper()
	out := t.TempDir()
	if err := os.CopyFS(out, os.DirFS(dir)); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(out, name), []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return out
}

const brokenGo = "package main\n\nfunc broken( {\n\tcs.ResourceV1beta2().DeviceClasses().List(nil, nil)\n}\n"

func TestReadModule(t *testing.T) {
	scenarios := map[string]struct {
		dir  string
		want Module
	}{
		"library-v0.33": {
			dir:  "testdata/lib033",
			want: Module{Minors: map[string]int{LibraryModule: 33, ClientGoModule: 33, APIModule: 33}, Imports: map[string]string{}},
		},
		"library-v0.37-pseudo-version-and-replace": {
			// Tests, vendor/ and hidden directories are not read.
			dir: "testdata/lib037",
			want: Module{
				Minors: map[string]int{LibraryModule: 37, ClientGoModule: 37, APIModule: 37},
				Calls: []Call{
					{Version: "v1", Kind: "ResourceSlice", Position: "driver/informers.go:8", Expr: "Resource().V1().ResourceSlices"},
					{Version: "v1beta1", Kind: "ResourceClaim", Position: "driver/unprepare.go:13", Expr: "ResourceV1beta1().ResourceClaims"},
				},
				Imports: map[string]string{"v1beta1": "driver/unprepare.go:6"},
			},
		},
		"device-taint-rules-through-v1alpha3": {
			dir: "testdata/taints",
			want: Module{
				Minors:  map[string]int{LibraryModule: 35, ClientGoModule: 35},
				Calls:   []Call{{Version: "v1alpha3", Kind: "DeviceTaintRule", Position: "taints.go:13", Expr: "ResourceV1alpha3().DeviceTaintRules"}},
				Imports: map[string]string{"v1alpha3": "taints.go:6"},
			},
		},
		"no-library-and-a-file-that-does-not-parse": {
			dir: withFile(t, "testdata/nolib", "broken.go", brokenGo),
			want: Module{
				Minors:  map[string]int{ClientGoModule: 36},
				Calls:   []Call{{Version: "v1", Kind: "ResourceClaim", Position: "claims.go:6", Expr: "ResourceV1().ResourceClaims"}},
				Imports: map[string]string{},
				Notes:   []string{"broken.go:3: does not parse: expected ')', found '{' (its other calls are read)"},
			},
		},
	}
	for name, s := range scenarios {
		t.Run(name, func(t *testing.T) {
			got, err := ReadModule(s.dir)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(&s.want, got); diff != "" {
				t.Errorf("(-want +got)\n%s", diff)
			}
		})
	}
}

func TestReadModuleReplacedByDirectory(t *testing.T) {
	dir := withFile(t, "testdata/lib033", "go.mod", "module example.com/d\n\nrequire k8s.io/dynamic-resource-allocation v0.34.1\n\nreplace k8s.io/dynamic-resource-allocation => ../dra\n")
	got, err := ReadModule(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"go.mod replaces k8s.io/dynamic-resource-allocation by the directory ../dra: its release is taken from the requirement"}
	if diff := cmp.Diff(want, got.Notes); diff != "" || got.Library() != 34 {
		t.Errorf("library v0.%d, notes (-want +got)\n%s", got.Library(), diff)
	}
}
