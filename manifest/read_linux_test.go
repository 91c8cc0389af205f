package manifest

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"syscall"
	"testing"
)

// TestReadAllRefusesAPipeReadTwice: standard input given again under
// another name (/dev/stdin, /dev/fd/N) would read empty; it is refused, not
// silently empty. A regular file may be given twice.
func TestReadAllRefusesAPipeReadTwice(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if _, err := w.WriteString("apiVersion: v1\nkind: A\n"); err != nil {
		t.Fatal(err)
	}
	w.Close()
	again := fmt.Sprintf("/dev/fd/%d", r.Fd())
	_, err = ReadAll([]string{Stdin, again}, r)
	var e *Error
	if !errors.As(err, &e) || e.Source != again || !errors.Is(err, ErrStreamTwice) {
		t.Fatalf("error %v, want %v for %s", err, ErrStreamTwice, again)
	}

	file := t.TempDir() + "/a.yaml"
	if err := os.WriteFile(file, []byte("apiVersion: v1\nkind: A\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	docs, err := ReadAll([]string{file, file}, nil)
	if err != nil || len(docs) != 2 {
		t.Fatalf("a regular file twice: %d documents, error %v; want 2, none", len(docs), err)
	}
}

// TestReadAllRefusesAFIFOInADirectory: a FIFO named like a manifest in a
// directory would block the read forever; it is refused, named (found by
// a security review).
func TestReadAllRefusesAFIFOInADirectory(t *testing.T) {
	dir := t.TempDir()
	if err := syscall.Mkfifo(dir+"/a.yaml", 0o600); err != nil {
		t.Fatalf("mkfifo: %v", err)
	}
	_, err := ReadAll([]string{dir}, nil)
	if err == nil || !strings.Contains(err.Error(), dir+"/a.yaml: not a regular file") {
		t.Fatalf("error %v, want the FIFO named", err)
	}
}
