package manifest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// kindsIn reads dir with EachIn and returns each object as "path:kind",
// the path relative to dir.
func kindsIn(t *testing.T, dir string, recursive bool) ([]string, error) {
	t.Helper()
	var got []string
	err := EachIn([]string{dir}, recursive, nil, func(d Document) error {
		rel, _ := filepath.Rel(dir, d.Source)
		got = append(got, filepath.ToSlash(rel)+":"+d.Object["kind"].(string))
		return nil
	})
	return got, err
}

// TestEachRecursive: -R reads the manifests of a tree in the order of their
// paths, hidden directories too, other files not, and does not follow a
// symlink to a directory (which could loop).
func TestEachRecursive(t *testing.T) {
	dir := t.TempDir()
	for name, kind := range map[string]string{
		"b.yaml":           "B",
		"a/z.yml":          "AZ",
		"a/deeper/x.json":  "ADX",
		"a-b.yaml":         "AB",
		".hidden/h.yaml":   "H",
		"sub.yaml/in.yaml": "In",
		"a/notes.txt":      "",
		"a/README.md":      "",
		"empty/also.txt":   "",
	} {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte("apiVersion: v1\nkind: "+kind+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("..", filepath.Join(dir, "a", "loop")); err != nil {
		t.Fatal(err)
	}
	want := []string{".hidden/h.yaml:H", "a-b.yaml:AB", "a/deeper/x.json:ADX", "a/z.yml:AZ", "b.yaml:B", "sub.yaml/in.yaml:In"}
	for range 2 { // the same order every time
		got, err := kindsIn(t, dir, true)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("-R (-want +got):\n%s", diff)
		}
	}
	// Without -R only the directory's own files, as before.
	got, err := kindsIn(t, dir, false)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"a-b.yaml:AB", "b.yaml:B"}, got); diff != "" {
		t.Errorf("without -R (-want +got):\n%s", diff)
	}
}

// TestEachRecursiveNoManifest: a tree without a manifest is an error naming
// the directory, with -R as without.
func TestEachRecursiveNoManifest(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "x", "y"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "x", "y", "notes.txt"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for recursive, want := range map[bool]string{
		false: dir + ": no .yaml, .yml or .json file in the directory",
		true:  dir + ": no .yaml, .yml or .json file in the directory or its subdirectories",
	} {
		if _, err := kindsIn(t, dir, recursive); err == nil || err.Error() != want {
			t.Errorf("recursive %v: %v, want %q", recursive, err, want)
		}
	}
	// A file source is read whatever its name, -R or not.
	file := filepath.Join(dir, "x", "y", "notes.txt")
	if err := os.WriteFile(file, []byte("apiVersion: v1\nkind: Note\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := EachIn([]string{file}, true, nil, func(Document) error { n++; return nil }); err != nil || n != 1 {
		t.Errorf("file with -R: %d objects, %v", n, err)
	}
}
