package cluster

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestFeatureGates reads the gates of an apiserver's /metrics.
func TestFeatureGates(t *testing.T) {
	metrics := `# HELP kubernetes_feature_enabled [BETA] This metric records the data about the stage and enablement of a k8s feature.
# TYPE kubernetes_feature_enabled gauge
kubernetes_feature_enabled{name="DRAPartitionableDevices",stage="BETA"} 0
kubernetes_feature_enabled{name="DynamicResourceAllocation",stage=""} 1
# HELP apiserver_request_total Counter of apiserver requests.
# TYPE apiserver_request_total counter
apiserver_request_total{code="200",verb="GET"} 12
`
	want := map[string]bool{"DRAPartitionableDevices": false, "DynamicResourceAllocation": true}
	if d := cmp.Diff(want, FeatureGates([]byte(metrics))); d != "" {
		t.Error(d)
	}
	if got := FeatureGates([]byte("not metrics {")); len(got) != 0 {
		t.Errorf("from garbage: %v", got)
	}
}
