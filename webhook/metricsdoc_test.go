package webhook

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestDocsListEveryReason: where the docs enumerate the reason label values
// of a metric, they list exactly those the server exports, so that an
// operator reading a reason on a dashboard finds it explained.
func TestDocsListEveryReason(t *testing.T) {
	for _, tc := range []struct {
		doc string
		// from starts the enumeration, which ends at the first occurrence
		// of to after it.
		from, to string
		want     []string
	}{
		{"server.md", "`claimbridge_webhook_shed_total{endpoint,reason}` (reason", ")", shedReasons},
		{"operations.md", "Its `reason` says why:", "Sustained sheds", shedReasons},
		{"operations.md", "| `claimbridge_webhook_tls_handshake_errors_total` | `reason` |", "\n", handshakeReasons},
	} {
		t.Run(tc.doc+" "+tc.from, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("..", "docs", tc.doc))
			if err != nil {
				t.Fatal(err)
			}
			_, rest, ok := strings.Cut(string(data), tc.from)
			if !ok {
				t.Fatalf("docs/%s has no %q", tc.doc, tc.from)
			}
			list, _, _ := strings.Cut(rest, tc.to)
			var got []string
			for _, m := range regexp.MustCompile("`([a-z_]+)`").FindAllStringSubmatch(list, -1) {
				got = append(got, m[1])
			}
			want := slices.Clone(tc.want)
			slices.Sort(got)
			slices.Sort(want)
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("docs/%s after %q lists reasons (-exported +listed):\n%s", tc.doc, tc.from, d)
			}
		})
	}
}
