package cluster

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/claimbridge/claimbridge/api"
)

// MetricsRule is the RBAC rule that lets claimbridge read a cluster's
// feature gates.
const MetricsRule = `nonResourceURLs: ["/metrics"], verbs: ["get"]`

// Settings reads what the cluster runs with onto c, a cluster of its
// release: the feature gates from the apiserver's kubernetes_feature_enabled
// metric (/metrics) and the resource.k8s.io versions it serves from
// discovery. gatesRead is false when /metrics is forbidden or has no
// gates (c keeps the release's defaults); any other failure is the error.
func (cl *Cluster) Settings(ctx context.Context, c *api.Cluster) (gatesRead bool, err error) {
	groups, err := cl.discovery.ServerGroups()
	if err != nil {
		return false, fmt.Errorf("asking the cluster its API groups: %w", err)
	}
	var served []string
	for _, g := range groups.Groups {
		if g.Name == api.UpstreamGroup {
			for _, v := range g.Versions {
				served = append(served, v.Version)
			}
		}
	}
	c.SetServed(served)
	data, err := cl.discovery.RESTClient().Get().AbsPath("/metrics").DoRaw(ctx)
	if apierrors.IsForbidden(err) || apierrors.IsUnauthorized(err) || apierrors.IsNotFound(err) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("reading the cluster's feature gates (GET /metrics): %w", err)
	}
	enabled := FeatureGates(data)
	c.SetEnabled(enabled)
	return len(enabled) > 0, nil
}

// FeatureGates reads the kubernetes_feature_enabled metric of a
// Prometheus text exposition: each gate's name and whether it is on.
func FeatureGates(metrics []byte) map[string]bool {
	out := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(metrics))
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	for sc.Scan() {
		labels, ok := strings.CutPrefix(sc.Text(), "kubernetes_feature_enabled{")
		if !ok {
			continue
		}
		labels, value, ok := strings.Cut(labels, "} ")
		if !ok {
			continue
		}
		for _, l := range strings.Split(labels, ",") {
			if name, ok := strings.CutPrefix(l, `name="`); ok {
				out[strings.TrimSuffix(name, `"`)] = strings.TrimSpace(value) == "1"
			}
		}
	}
	return out
}
