// Package cluster connects claimbridge to live clusters: Export reads a
// cluster's DRA objects and the workloads that use them, Target finds
// what a cluster serves, Verify asks it for its answer to each object in a
// server-side dry run, and Apply applies objects with server-side apply.
package cluster

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/version"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/migrate"
)

// Cluster is a client of one cluster.
type Cluster struct {
	dynamic   dynamic.Interface
	discovery discovery.DiscoveryInterface
	mapper    meta.RESTMapper
	// namespace is the context's namespace, for objects without one.
	namespace string
	warnings  *warnings
}

// Connect loads a kubeconfig as kubectl does: kubeconfig, else $KUBECONFIG,
// else ~/.kube/config, with context, else its current context.
func Connect(kubeconfig, context string) (*Cluster, error) {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	rules.ExplicitPath = kubeconfig
	loader := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{CurrentContext: context})
	cfg, err := loader.ClientConfig()
	if err != nil {
		return nil, err
	}
	namespace, _, err := loader.Namespace()
	if err != nil {
		return nil, err
	}
	return New(cfg, namespace)
}

// New is a client of the cluster of cfg; namespace is for objects without
// one. Requests are limited to 50 a second (bursts of 100) unless cfg says
// otherwise.
func New(cfg *rest.Config, namespace string) (*Cluster, error) {
	cfg = rest.CopyConfig(cfg)
	if cfg.QPS == 0 {
		cfg.QPS, cfg.Burst = 50, 100
	}
	c := &Cluster{namespace: namespace, warnings: &warnings{}}
	cfg.WarningHandler = c.warnings
	var err error
	if c.discovery, err = discovery.NewDiscoveryClientForConfig(cfg); err != nil {
		return nil, err
	}
	if c.dynamic, err = dynamic.NewForConfig(cfg); err != nil {
		return nil, err
	}
	c.mapper = restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(c.discovery))
	return c, nil
}

// warnings keeps the warnings of the cluster's answers until taken.
type warnings struct {
	mu   sync.Mutex
	list []string
}

func (w *warnings) HandleWarningHeader(_ int, _ string, text string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.list = append(w.list, text)
}

func (w *warnings) take() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	list := w.list
	w.list = nil
	return list
}

// Target is what a cluster serves, as a target of convert and migrate.
type Target struct {
	// Release is its Kubernetes release ("1.34"), from /version.
	Release string
	// Version is the newest version of resource.k8s.io it serves that
	// claimbridge converts to ("v1").
	Version string
}

// Target asks the cluster for its release and the versions of
// resource.k8s.io it serves.
func (c *Cluster) Target() (Target, error) {
	info, err := c.discovery.ServerVersion()
	if err != nil {
		return Target{}, fmt.Errorf("asking the cluster its version: %w", err)
	}
	// Some providers report the minor version as "27+".
	release := info.Major + "." + strings.TrimRight(info.Minor, "+")
	groups, err := c.discovery.ServerGroups()
	if err != nil {
		return Target{}, fmt.Errorf("asking the cluster its API groups: %w", err)
	}
	t := Target{Release: release}
	for _, g := range groups.Groups {
		if g.Name != api.UpstreamGroup {
			continue
		}
		for _, v := range g.Versions {
			_, known := migrate.Targets[v.Version]
			if known && (t.Version == "" || version.CompareKubeAwareVersionStrings(v.Version, t.Version) > 0) {
				t.Version = v.Version
			}
		}
	}
	if t.Version == "" {
		return Target{}, fmt.Errorf("the cluster (Kubernetes %s) serves no version of %s that claimbridge converts to (%s): is DynamicResourceAllocation enabled?",
			release, api.UpstreamGroup, strings.Join(slices.Sorted(maps.Keys(migrate.Targets)), ", "))
	}
	return t, nil
}
