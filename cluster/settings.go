package cluster

import (
	"bytes"
	"context"
	"fmt"
	"strings"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/claimbridge/claimbridge/api"
)

// MetricsRule is the RBAC rule that lets claimbridge read a cluster's
// feature gates.
const MetricsRule = `nonResourceURLs: ["/metrics"], verbs: ["get"]`

// Live is a cluster as it runs.
type Live struct {
	// Cluster is the release it runs as (the one it emulates, mid-upgrade),
	// with the flags its feature gates and served versions must have been
	// set by.
	api.Cluster
	// Binary is the release of its kube-apiserver's binary: Minor, or the
	// newer one that emulates Minor.
	Binary int
	// Compatible is the oldest release it keeps what it stores readable by:
	// the one before Minor, or an older --min-compatibility-version. It
	// stores each kind as the release after Compatible would (api.StoredIn).
	Compatible int
	// GatesRead is false when /metrics is forbidden or has no gates: the
	// gates are the release's defaults.
	GatesRead bool
	// Requested are the deprecated versions of resource.k8s.io requested
	// since its kube-apiserver started (/metrics).
	Requested []Requested
}

// Settings reads the cluster as it runs: its release, the one it emulates
// and the oldest it stays compatible with (/version), feature gates (/metrics) and resource.k8s.io
// versions (discovery).
func (cl *Cluster) Settings(ctx context.Context) (Live, error) {
	info, err := cl.discovery.ServerVersion()
	if err != nil {
		return Live{}, fmt.Errorf("asking the cluster its version: %w", err)
	}
	binary, _ := api.ParseMinor(info.Major + "." + strings.TrimRight(info.Minor, "+"))
	live := Live{Binary: binary, Cluster: api.Bare(binary), Compatible: binary - 1}
	if emulated, ok := api.ParseMinor(info.EmulationMajor + "." + info.EmulationMinor); ok {
		live.Cluster, live.Compatible = api.Bare(emulated), emulated-1
	}
	if compatible, ok := api.ParseMinor(info.MinCompatibilityMajor + "." + info.MinCompatibilityMinor); ok {
		live.Compatible = compatible
	}
	data, err := cl.discovery.RESTClient().Get().AbsPath("/metrics").DoRaw(ctx)
	switch {
	case apierrors.IsForbidden(err) || apierrors.IsUnauthorized(err) || apierrors.IsNotFound(err):
	case err != nil:
		return live, fmt.Errorf("reading the cluster's feature gates (GET /metrics): %w", err)
	default:
		enabled := FeatureGates(data)
		live.SetEnabled(enabled)
		live.GatesRead = len(enabled) > 0
		live.Requested = DeprecatedRequests(data)
	}
	groups, err := cl.discovery.ServerGroups()
	if err != nil {
		return live, fmt.Errorf("asking the cluster its API groups: %w", err)
	}
	var served []string
	for _, g := range groups.Groups {
		for _, v := range g.Versions {
			if g.Name == api.UpstreamGroup {
				served = append(served, v.Version)
			}
		}
	}
	live.SetServed(served)
	return live, nil
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
