package cluster

import (
	"bytes"
	"context"
	"fmt"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/claimbridge/claimbridge/api"
)

// MetricsRule is the RBAC rule that lets claimbridge read a cluster's
// feature gates.
const MetricsRule = `nonResourceURLs: ["/metrics"], verbs: ["get"]`

// Settings is the cluster as it runs: its release (/version), feature gates
// (/metrics) and resource.k8s.io versions (discovery). gatesRead is false
// when /metrics is forbidden or has no gates: c has the release's defaults.
func (cl *Cluster) Settings(ctx context.Context) (c api.Cluster, gatesRead bool, err error) {
	release, err := cl.Release()
	if err != nil {
		return c, false, err
	}
	minor, _ := api.ParseMinor(release)
	c = api.Defaults(minor)
	groups, err := cl.discovery.ServerGroups()
	if err != nil {
		return c, false, fmt.Errorf("asking the cluster its API groups: %w", err)
	}
	var served []string
	for _, g := range groups.Groups {
		for _, v := range g.Versions {
			if g.Name == api.UpstreamGroup {
				served = append(served, v.Version)
			}
		}
	}
	c.SetServed(served)
	data, err := cl.discovery.RESTClient().Get().AbsPath("/metrics").DoRaw(ctx)
	if apierrors.IsForbidden(err) || apierrors.IsUnauthorized(err) || apierrors.IsNotFound(err) {
		return c, false, nil
	}
	if err != nil {
		return c, false, fmt.Errorf("reading the cluster's feature gates (GET /metrics): %w", err)
	}
	enabled := FeatureGates(data)
	c.SetEnabled(enabled)
	return c, len(enabled) > 0, nil
}

// FeatureGates reads the kubernetes_feature_enabled metric of a
// Prometheus text exposition: each gate's name and whether it is on.
func FeatureGates(metrics []byte) map[string]bool {
	out := map[string]bool{}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, _ := parser.TextToMetricFamilies(bytes.NewReader(metrics)) // what parses before an error
	for _, m := range families["kubernetes_feature_enabled"].GetMetric() {
		for _, l := range m.GetLabel() {
			if l.GetName() == "name" {
				out[l.GetValue()] = m.GetGauge().GetValue() == 1
			}
		}
	}
	return out
}
