package manifest

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// stepReader gives data at most step bytes a Read, and fails with
// errStepReader once failAt bytes were given (a negative failAt: never),
// with the last of them when together is set; or ends with io.EOF, with the
// last bytes when together is set.
type stepReader struct {
	data         []byte
	step, failAt int
	together     bool
}

var errStepReader = errors.New("read failed")

func (r *stepReader) Read(p []byte) (int, error) {
	switch {
	case r.failAt == 0:
		return 0, errStepReader
	case len(r.data) == 0:
		return 0, io.EOF
	}
	n := min(len(p), r.step, len(r.data))
	if r.failAt > 0 {
		n = min(n, r.failAt)
		r.failAt -= n
	}
	copy(p, r.data[:n])
	r.data = r.data[n:]
	switch {
	case r.together && r.failAt == 0:
		return n, errStepReader
	case r.together && len(r.data) == 0:
		return n, io.EOF
	}
	return n, nil
}

// checkReadSized checks that readSized gives what io.ReadAll gives of the
// same reader: the bytes and the error.
func checkReadSized(t *testing.T, data []byte, size int64, step, failAt int, together bool) {
	t.Helper()
	step = max(step, 1)
	want, wantErr := io.ReadAll(&stepReader{data: data, step: step, failAt: failAt, together: together})
	got, err := readSized(&stepReader{data: data, step: step, failAt: failAt, together: together}, size)
	if !bytes.Equal(got, want) || err != wantErr {
		t.Fatalf("readSized(size %d, step %d, failAt %d, together %t): %d bytes, error %v; io.ReadAll: %d bytes, error %v", size, step, failAt, together, len(got), err, len(want), wantErr)
	}
}

// readSizedCases: sizes smaller than, equal to and larger than the input,
// reads of one byte and of all, errors before, at and after the end, with
// the last bytes and alone.
var readSizedCases = []struct {
	name         string
	data         string
	size         int64
	step, failAt int
	together     bool
}{
	{"empty", "", 0, 1, -1, false},
	{"empty, room for more", "", 10, 1, -1, false},
	{"the size", "abcdef", 6, 100, -1, false},
	{"the size, EOF with the bytes", "abcdef", 6, 100, -1, true},
	{"smaller than the input", "abcdefghijklmnop", 3, 100, -1, false},
	{"smaller, byte by byte", "abcdefghijklmnop", 3, 1, -1, true},
	{"larger than the input", "abc", 1000, 2, -1, false},
	{"an error at once", "abc", 3, 100, 0, false},
	{"an error after two bytes", "abcdef", 6, 100, 2, false},
	{"an error with the last bytes", "abcdef", 6, 4, 6, true},
	{"an error after the size", "abcdefgh", 4, 3, 7, true},
}

// TestReadSized: readSized reads as io.ReadAll reads.
func TestReadSized(t *testing.T) {
	for _, c := range readSizedCases {
		t.Run(c.name, func(t *testing.T) {
			checkReadSized(t, []byte(c.data), c.size, c.step, c.failAt, c.together)
		})
	}
}

// FuzzReadSized: whatever the reader gives, readSized gives what
// io.ReadAll gives.
func FuzzReadSized(f *testing.F) {
	for _, c := range readSizedCases {
		f.Add([]byte(c.data), uint16(c.size), uint16(c.step), int16(c.failAt), c.together)
	}
	f.Fuzz(func(t *testing.T, data []byte, size, step uint16, failAt int16, together bool) {
		checkReadSized(t, data, int64(size), int(step), int(failAt), together)
	})
}

// TestReadSourceHoldsAFileOnce: a regular file, named or as standard input,
// is read into one buffer of its size: io.ReadAll built pieces and then
// copied them into one slice, allocating (and holding at the end) twice the
// file, which doubled the collector's goal while a large export was read.
// What is read is still the file, and one larger than the limit is refused.
func TestReadSourceHoldsAFileOnce(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "export.yaml")
	data := []byte(strings.Repeat("# a line of the export, 32 bytes\n", 256<<10)) // 8 MiB
	if err := os.WriteFile(file, data, 0o600); err != nil {
		t.Fatal(err)
	}
	stdin, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	for _, name := range []string{file, Stdin} {
		t.Run(name, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			got, err := readSource(name, stdin)
			runtime.ReadMemStats(&after)
			if err != nil || !bytes.Equal(got, data) {
				t.Fatalf("%d bytes, error %v; want the file's %d", len(got), err, len(data))
			}
			if allocated := after.TotalAlloc - before.TotalAlloc; allocated > uint64(len(data)+len(data)/16) {
				t.Errorf("reading %d bytes allocated %d bytes, want at most %d", len(data), allocated, len(data)+len(data)/16)
			}
		})
	}
}
