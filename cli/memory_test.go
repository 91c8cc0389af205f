package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/claimbridge/claimbridge/test/exportgen"
)

// writeJSONExport writes the export writeExport writes as YAML as kubectl
// -o json prints it (four-space indentation), and returns its path and size.
func writeJSONExport(tb testing.TB, n int) (string, int) {
	tb.Helper()
	data, err := json.MarshalIndent(exportgen.Export(exportgen.Options{Items: n}), "", "    ")
	if err != nil {
		tb.Fatal(err)
	}
	file := filepath.Join(tb.TempDir(), "export.json")
	if err := os.WriteFile(file, append(data, '\n'), 0o644); err != nil {
		tb.Fatal(err)
	}
	return file, len(data) + 1
}

// liveHeap is the heap that survives a full collection: what the program
// holds, whatever the collector's pace.
func liveHeap() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// TestLargeExportHeldMemory: convert, validate and migrate hold a bounded
// multiple of their input's bytes while they work through a large export,
// not every object decoded (a decoded object is about 5 times its YAML and
// 2.3 times its JSON, and convert held a converted copy of each besides).
// The live heap (after a full collection, so that the measure does not
// depend on when the collector runs) is sampled after every 40th document
// through documentDone, and its peak above what was live before the command
// compared with the size of the input. Between documents only: what reading
// a source holds for a moment (its buffer, the pieces of the JSON splitter)
// is bounded by manifest's TestReadSourceHoldsAFileOnce and
// TestSplitJSONCutsPiecesOfTheSource.
func TestLargeExportHeldMemory(t *testing.T) {
	const items = 1000
	yamlFile, yamlSize := writeExport(t, items)
	jsonFile, jsonSize := writeJSONExport(t, items)
	for _, tc := range []struct {
		format string
		file   string
		size   int
		limit  float64 // the peak held, in bytes of input
	}{
		{"yaml", yamlFile, yamlSize, 4},
		// JSON: 2.4 when a List was decoded whole (its tree live at the
		// start), 1.1–1.8 read item by item (its bytes held instead).
		{"json", jsonFile, jsonSize, 2.0},
	} {
		for _, args := range append(benchmarkCommands(), []string{"convert", "--to", "v1", "-o", "json"}) {
			name := tc.format + " " + strings.Join(args, " ")
			t.Run(name, func(t *testing.T) {
				var peak uint64
				documents := 0
				defer func(done func()) { documentDone = done }(documentDone)
				documentDone = func() {
					if documents++; documents%40 == 0 {
						peak = max(peak, liveHeap())
					}
				}
				var out, errOut bytes.Buffer
				base := liveHeap()
				// convert exits 1 for the 1.30 classes the target rejects, written all the same.
				if code := Main(append(args, "-f", tc.file), nil, &out, &errOut); code != ExitOK && !(args[0] == "convert" && code == ExitInvalid) {
					t.Fatalf("exit %d: %.2000s", code, errOut.String())
				}
				if documents < items/4 {
					t.Fatalf("documentDone called %d times for about %d objects", documents, items)
				}
				held := float64(peak-min(peak, base)) / float64(tc.size)
				t.Logf("%d documents: %.2f MB held at the peak for %.2f MB of input: %.2f×", documents, float64(peak-min(peak, base))/1e6, float64(tc.size)/1e6, held)
				if held > tc.limit {
					t.Errorf("held %.2f times the input's %d bytes at the peak, want at most %.1f", held, tc.size, tc.limit)
				}
			})
		}
	}
}
