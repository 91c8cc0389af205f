package cluster

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/migrate"
)

// draKinds are the kinds of resource.k8s.io that a re-creation carries:
// claims, templates, classes, taint rules and the parameters of 1.30. ResourceSlices
// and PodScheduling(Context)s are not read: they are the old cluster's
// state, which the new cluster's drivers and scheduler make for themselves.
var draKinds = []string{api.KindResourceClass, api.KindDeviceClass, api.KindClassParameters,
	api.KindClaimParameters, api.KindTemplate, api.KindClaim, api.KindDeviceTaintRule}

// workloads are the resources whose objects are read when they use claims
// (migrate.UsesClaims); every release from 1.26 on serves them.
var workloads = []schema.GroupVersionResource{
	{Version: "v1", Resource: "podtemplates"}, {Version: "v1", Resource: "replicationcontrollers"},
	{Group: "apps", Version: "v1", Resource: "deployments"}, {Group: "apps", Version: "v1", Resource: "replicasets"},
	{Group: "apps", Version: "v1", Resource: "statefulsets"}, {Group: "apps", Version: "v1", Resource: "daemonsets"},
	{Group: "batch", Version: "v1", Resource: "jobs"}, {Group: "batch", Version: "v1", Resource: "cronjobs"},
	{Version: "v1", Resource: "pods"},
}

// Export reads the cluster's objects that claimbridge migrate takes and
// gives each to visit, whole (migrate drops what a re-creation must not
// carry): those of resource.k8s.io's draKinds and of
// resource.claimbridge.dev, each kind in the first version that serves it
// (the preferred one first), then the Pods and workloads that use claims.
// Lists are read 500 objects a request; visit should keep what it needs of
// an object, not the object: a cluster may hold tens of thousands. A
// progress line goes to progress (a terminal) unless it is nil.
func (c *Cluster) Export(ctx context.Context, progress io.Writer, visit func(map[string]interface{}) error) error {
	resources, err := c.draResources(draKinds)
	if err != nil {
		return err
	}
	read, kept := 0, 0
	for _, r := range append(resources, workloads...) {
		workload := slices.Contains(workloads, r)
		err := c.each(ctx, r, metav1.ListOptions{}, func(obj map[string]interface{}) error {
			if read++; progress != nil && read%500 == 0 {
				fmt.Fprintf(progress, "\rexport: %d objects read, %d kept (%s)\x1b[K", read, kept, r.GroupResource())
			}
			if workload && !migrate.UsesClaims(obj) {
				return nil
			}
			kept++
			return visit(obj)
		})
		if err != nil {
			return err
		}
	}
	if progress != nil {
		fmt.Fprintf(progress, "\rexport: %d objects read, %d kept\x1b[K\n", read, kept)
	}
	return nil
}

// draResources are the resources of the DRA groups, from discovery: those
// of kinds in resource.k8s.io, and every one of resource.claimbridge.dev.
func (c *Cluster) draResources(kinds []string) ([]schema.GroupVersionResource, error) {
	groups, err := c.discovery.ServerGroups()
	if err != nil {
		return nil, fmt.Errorf("asking the cluster its API groups: %w", err)
	}
	var out []schema.GroupVersionResource
	for _, name := range []string{api.UpstreamGroup, api.Group} {
		i := slices.IndexFunc(groups.Groups, func(g metav1.APIGroup) bool { return g.Name == name })
		if i < 0 {
			continue
		}
		g := groups.Groups[i]
		seen := map[string]bool{}
		for _, v := range append([]metav1.GroupVersionForDiscovery{g.PreferredVersion}, g.Versions...) {
			list, err := c.discovery.ServerResourcesForGroupVersion(v.GroupVersion)
			if err != nil {
				return nil, fmt.Errorf("asking the cluster the resources of %s: %w", v.GroupVersion, err)
			}
			for _, r := range list.APIResources {
				if seen[r.Kind] || strings.Contains(r.Name, "/") || !slices.Contains(r.Verbs, "list") ||
					g.Name == api.UpstreamGroup && !slices.Contains(kinds, r.Kind) {
					continue
				}
				seen[r.Kind] = true
				out = append(out, schema.GroupVersionResource{Group: g.Name, Version: v.Version, Resource: r.Name})
			}
		}
	}
	return out, nil
}
