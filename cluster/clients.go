package cluster

import (
	"bytes"
	"context"
	"errors"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/claimbridge/claimbridge/api"
)

// NodesRule is the RBAC rule that lets claimbridge read the kubelets'
// versions.
const NodesRule = `resources: ["nodes"], verbs: ["list"]`

// ErrNodesForbidden is Kubelets' error when the nodes cannot be listed.
var ErrNodesForbidden = errors.New("the nodes cannot be listed (forbidden): their kubelets are not judged; to judge them, give claimbridge the RBAC rule " + NodesRule)

// Kubelets reads the version of each node's kubelet
// (status.nodeInfo.kubeletVersion), by node name; "" when a node does not
// say.
func (c *Cluster) Kubelets(ctx context.Context) (map[string]string, error) {
	out := map[string]string{}
	err := c.each(ctx, schema.GroupVersionResource{Version: "v1", Resource: "nodes"}, metav1.ListOptions{}, func(obj map[string]interface{}) error {
		name, _, _ := unstructured.NestedString(obj, "metadata", "name")
		out[name], _, _ = unstructured.NestedString(obj, "status", "nodeInfo", "kubeletVersion")
		return nil
	})
	if apierrors.IsForbidden(err) || apierrors.IsUnauthorized(err) {
		return nil, ErrNodesForbidden
	}
	return out, err
}

// A Requested is a deprecated version of resource.k8s.io that clients
// requested since kube-apiserver started: a series of its
// apiserver_requested_deprecated_apis metric.
type Requested struct{ Version, Resource, Removed string }

// DeprecatedRequests reads the apiserver_requested_deprecated_apis series
// of resource.k8s.io of a Prometheus text exposition.
func DeprecatedRequests(metrics []byte) []Requested {
	var out []Requested
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, _ := parser.TextToMetricFamilies(bytes.NewReader(metrics)) // what parses before an error
	for _, m := range families["apiserver_requested_deprecated_apis"].GetMetric() {
		labels := map[string]string{}
		for _, l := range m.GetLabel() {
			labels[l.GetName()] = l.GetValue()
		}
		if labels["group"] == api.UpstreamGroup && m.GetGauge().GetValue() == 1 {
			out = append(out, Requested{labels["version"], labels["resource"], labels["removed_release"]})
		}
	}
	return out
}
