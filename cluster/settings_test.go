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

// TestDeprecatedRequests reads the resource.k8s.io series of
// apiserver_requested_deprecated_apis, as kube-apiserver 1.37 writes them.
func TestDeprecatedRequests(t *testing.T) {
	metrics := `# HELP apiserver_requested_deprecated_apis [STABLE] Gauge of deprecated APIs that have been requested, broken out by API group, version, resource, subresource, and removed_release.
# TYPE apiserver_requested_deprecated_apis gauge
apiserver_requested_deprecated_apis{group="resource.k8s.io",removed_release="1.38",resource="resourceclaims",subresource="",version="v1beta1"} 1
apiserver_requested_deprecated_apis{group="resource.k8s.io",removed_release="1.39",resource="resourceslices",subresource="",version="v1beta2"} 1
apiserver_requested_deprecated_apis{group="flowcontrol.apiserver.k8s.io",removed_release="1.32",resource="flowschemas",subresource="",version="v1beta3"} 1
`
	want := []Requested{{"v1beta1", "resourceclaims", "1.38"}, {"v1beta2", "resourceslices", "1.39"}}
	if d := cmp.Diff(want, DeprecatedRequests([]byte(metrics))); d != "" {
		t.Error(d)
	}
	if got := DeprecatedRequests([]byte("not metrics {")); len(got) != 0 {
		t.Errorf("from garbage: %v", got)
	}
}
