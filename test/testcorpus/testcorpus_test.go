package testcorpus

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// fatalRecorder is a testing.TB whose Fatal records the message and ends
// the goroutine, as testing.T's does.
type fatalRecorder struct {
	testing.TB
	msg string
}

func (r *fatalRecorder) Helper() {}
func (r *fatalRecorder) Fatal(args ...any) {
	r.msg = fmt.Sprint(args...)
	runtime.Goexit()
}
func (r *fatalRecorder) Fatalf(format string, args ...any) {
	r.msg = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

// files runs Files with a recorder: the files, or the fatal message.
func files(t *testing.T) ([]string, string) {
	r := &fatalRecorder{TB: t}
	var got []string
	done := make(chan struct{})
	go func() {
		defer close(done)
		got = Files(r)
	}()
	<-done
	return got, r.msg
}

// TestFiles: Files fails (never skips) without a corpus, and otherwise gives
// the *.yaml files of <owner>__<repo>/<ref>/, sorted, a relative directory
// being taken from the module root.
func TestFiles(t *testing.T) {
	t.Setenv(EnvVar, "")
	if got, msg := files(t); got != nil || !strings.HasPrefix(msg, "CLAIMBRIDGE_CORPUS is not set: ") {
		t.Errorf("unset: %v, fatal %q", got, msg)
	}

	dir := t.TempDir()
	t.Setenv(EnvVar, dir)
	if got, msg := files(t); got != nil || !strings.Contains(msg, "holds no manifest") {
		t.Errorf("empty: %v, fatal %q", got, msg)
	}
	t.Setenv(EnvVar, filepath.Join(dir, "missing"))
	if got, msg := files(t); got != nil || msg == "" {
		t.Errorf("missing: %v, fatal %q", got, msg)
	}

	want := []string{
		filepath.Join(dir, "a__b", "v1", "x.yaml"),
		filepath.Join(dir, "a__b", "v2", "x.yaml"),
		filepath.Join(dir, "c__d", "0123abc", "y.yaml"),
	}
	for _, f := range append([]string{filepath.Join(dir, "a__b", "v1", "notes.md"), filepath.Join(dir, "top.yaml")}, want...) {
		if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(f, []byte("kind: X\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv(EnvVar, dir)
	if got, msg := files(t); fmt.Sprint(got) != fmt.Sprint(want) || msg != "" {
		t.Errorf("got %v (fatal %q), want %v", got, msg, want)
	}
	if got := Name(want[2]); got != "c__d/0123abc/y.yaml" {
		t.Errorf("Name: %q", got)
	}

	// Relative: from the module root, two directories up from here.
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	rel, err := filepath.Rel(root, dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(EnvVar, rel)
	if got, msg := files(t); fmt.Sprint(got) != fmt.Sprint(want) || msg != "" {
		t.Errorf("relative %s: got %v (fatal %q), want %v", rel, got, msg, want)
	}
}
