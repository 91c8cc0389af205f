//go:build envtest

package envtest_test

import (
	"testing"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/support"
	"github.com/claimbridge/claimbridge/test/envtest/harness"
)

// TestSupportAtDefaults: each fixture chart's DRA objects, rendered as
// `claimbridge support` renders them for 1.37 at its defaults, are created
// (server-side dry run) by the suite's kube-apiserver 1.37, started with
// its defaults, exactly when support says the chart works there.
func TestSupportAtDefaults(t *testing.T) {
	for _, chart := range harness.SupportCharts {
		t.Run(chart, func(t *testing.T) {
			verdict, refused, err := harness.SupportOnServer(t.Context(), env.Dynamic, chart, api.Defaults(37), support.Defaults)
			if err != nil {
				t.Fatal(err)
			}
			if (verdict == support.Works) != (len(refused) == 0) {
				t.Errorf("support says %s at the defaults of 1.37; kube-apiserver 1.37 refused %q", verdict, refused)
			}
		})
	}
}
