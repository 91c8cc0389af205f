package manifest

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

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
