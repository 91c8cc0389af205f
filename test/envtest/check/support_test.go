//go:build envtest

package check

import (
	"testing"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/support"
	"github.com/claimbridge/claimbridge/test/envtest/harness"
	"k8s.io/client-go/dynamic"
)

// TestSupportWithFlags: each fixture chart's DRA objects, rendered as
// `claimbridge support` renders them for 1.37 with
// --runtime-config=resource.k8s.io/v1beta1=true, are created (server-side
// dry run) by the suite's kube-apiserver 1.37, which serves v1beta1 and
// v1beta2, exactly when support says the chart works with that flag.
func TestSupportWithFlags(t *testing.T) {
	d, err := dynamic.NewForConfig(config)
	if err != nil {
		t.Fatal(err)
	}
	c := api.Defaults(37)
	if err := c.Set(gates, "resource.k8s.io/v1beta1=true,resource.k8s.io/v1beta2=true"); err != nil {
		t.Fatal(err)
	}
	for _, chart := range harness.SupportCharts {
		t.Run(chart, func(t *testing.T) {
			verdict, refused, err := harness.SupportOnServer(t.Context(), d, chart, c, "--runtime-config=resource.k8s.io/v1beta1=true")
			if err != nil {
				t.Fatal(err)
			}
			if verdict == "" || (verdict == support.Works) != (len(refused) == 0) {
				t.Errorf("support says %q with --runtime-config=resource.k8s.io/v1beta1=true on 1.37; kube-apiserver 1.37 refused %q", verdict, refused)
			}
		})
	}
}
