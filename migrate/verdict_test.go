package migrate

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/claimbridge/claimbridge/report"
)

// TestReportSaysEachLineOnce: a report line repeated (one warning for each
// of the two comparisons a 1.30 "<=" became) is said once.
func TestReportSaysEachLineOnce(t *testing.T) {
	obj := map[string]interface{}{"kind": "ResourceClaim", "metadata": map[string]interface{}{"namespace": "ns", "name": "c"}}
	var v report.Verdict
	addReport(&v, obj, changes{
		Dropped:  []string{"metadata.uid", "metadata.uid"},
		Warnings: []string{"w: quantity", "w: quantity", "other"},
	})
	want := []report.Finding{
		{Severity: report.Note, Kind: "ResourceClaim", Object: "ns/c", Message: "dropped metadata.uid"},
		{Severity: report.Warning, Kind: "ResourceClaim", Object: "ns/c", Message: "w: quantity"},
		{Severity: report.Warning, Kind: "ResourceClaim", Object: "ns/c", Message: "other"},
	}
	if d := cmp.Diff(want, v.Findings); d != "" {
		t.Errorf("findings (-want +got):\n%s", d)
	}
}
