package manifest

import (
	"fmt"
	"strings"
	"testing"
)

// TestJSONStreamLinesAreCountedOnce: the line of each value of a JSON stream
// (what jq '.items[]' prints of an export: one value per object) is counted
// on from the value before, so that every byte is looked at once. Counted
// from the start of the stream for every value, reading a stream of n values
// looked at n²/2 values' bytes: 30,000 objects in 56 MB, within the 64 MiB
// a source may hold, took 93 s, nearly all in counting lines.
func TestJSONStreamLinesAreCountedOnce(t *testing.T) {
	for _, n := range []int{1, 10, 1000} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			// Values of 1 to 3 lines, some after a blank line, two on one line.
			var b strings.Builder
			var wantLines []int
			line := 1
			for i := 0; i < n; i++ {
				switch i % 4 {
				case 0:
					fmt.Fprintf(&b, "{\"apiVersion\": \"v1\", \"kind\": \"K\", \"n\": %d}\n", i)
					wantLines = append(wantLines, line)
					line++
				case 1:
					fmt.Fprintf(&b, "\n{\n  \"apiVersion\": \"v1\",\n  \"kind\": \"K\", \"n\": %d}\n", i)
					wantLines = append(wantLines, line+1)
					line += 4
				case 2:
					fmt.Fprintf(&b, "{\"apiVersion\": \"v1\", \"kind\": \"K\", \"n\": %d} ", i)
					wantLines = append(wantLines, line)
				case 3:
					fmt.Fprintf(&b, "{\"apiVersion\": \"v1\",\n\"kind\": \"K\", \"n\": %d}\n", i)
					wantLines = append(wantLines, line)
					line += 2
				}
			}
			data := []byte(b.String())
			scanned := 0
			saved := countLines
			countLines = func(p []byte) int { scanned += len(p); return saved(p) }
			defer func() { countLines = saved }()

			docs, err := Parse("f.json", data)
			if err != nil {
				t.Fatal(err)
			}
			if len(docs) != n {
				t.Fatalf("%d documents, want %d", len(docs), n)
			}
			for i, d := range docs {
				if d.Index != i+1 || d.Line != wantLines[i] || d.Object["n"].(fmt.Stringer).String() != fmt.Sprint(i) {
					t.Errorf("value %d: document %d, line %d, n %v; want document %d, line %d", i, d.Index, d.Line, d.Object["n"], i+1, wantLines[i])
				}
			}
			if scanned > len(data) {
				t.Errorf("%d values in %d bytes: %d bytes looked at to count their lines, want at most %d", n, len(data), scanned, len(data))
			}
		})
	}
}
