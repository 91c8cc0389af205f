//go:build envtest

package monitoring

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// promtool is the promtool binary make test builds (PROMTOOL; `make
// envtest-assets` builds promtool). A missing one is an error.
func promtool(t *testing.T) string {
	t.Helper()
	bin := os.Getenv("PROMTOOL")
	if bin == "" {
		t.Fatal("PROMTOOL is not set: run `make envtest-assets` and set the variables of `hack/envtest-assets.sh --env` (`make test-envtest` does both)")
	}
	if !filepath.IsAbs(bin) && strings.ContainsRune(bin, filepath.Separator) {
		bin = filepath.Join("..", "..", bin)
	}
	return bin
}

// TestAlertRulesWithPromtool checks the alert rules as Prometheus reads
// them (`promtool check rules`: expressions, durations, templates) and runs
// their unit tests (testdata/alerts_test.yaml: each alert fires on the
// series that should fire it, when it should, with its labels and rendered
// annotations, and not on those it leaves out).
func TestAlertRulesWithPromtool(t *testing.T) {
	bin := promtool(t)
	for _, args := range [][]string{
		{"check", "rules", filepath.Join("..", "..", "charts", "claimbridge", "files", "alerts.yaml")},
		{"test", "rules", filepath.Join("testdata", "alerts_test.yaml")},
	} {
		out, err := exec.Command(bin, args...).CombinedOutput()
		if err != nil {
			t.Errorf("promtool %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
}
