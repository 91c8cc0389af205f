// Package cluster connects claimbridge to live clusters: Export reads a
// cluster's DRA objects and the workloads that use them, Target finds
// what a cluster serves, Verify asks it for its answer to each object in a
// server-side dry run, and Apply applies objects with server-side apply.
package cluster

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/version"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/claimbridge/claimbridge/api"
)

// Cluster is a client of one cluster.
type Cluster struct {
	dynamic dynamic.Interface
	// rewriter sends Rewrite's writes, at the rate of kube-controller-manager's
	// storage version migrator: 400 a second (bursts of 1000).
	rewriter  dynamic.Interface
	discovery discovery.DiscoveryInterface
	mapper    meta.RESTMapper
	// namespace is the context's namespace, for objects without one.
	namespace string
}

// Connect loads a kubeconfig as kubectl does: kubeconfig, else $KUBECONFIG,
// else ~/.kube/config, with context, else its current context. The
// cluster's warnings are written to warnings as kubectl writes them.
func Connect(kubeconfig, context string, warnings io.Writer) (*Cluster, error) {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	rules.ExplicitPath = kubeconfig
	loader := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{CurrentContext: context})
	cfg, err := loader.ClientConfig()
	if clientcmd.IsEmptyConfig(err) { // client-go's message names a variable nothing reads any more
		return nil, errors.New("no kubeconfig: none in $KUBECONFIG or ~/.kube/config, and not in a pod; name one with a kubeconfig flag")
	}
	if err != nil {
		return nil, err
	}
	namespace, _, err := loader.Namespace()
	if err != nil {
		return nil, err
	}
	cfg.WarningHandler = rest.NewWarningWriter(warnings, rest.WarningWriterOptions{Deduplicate: true})
	c, err := ForConfig(cfg)
	if err != nil {
		return nil, err
	}
	c.namespace = namespace
	return c, nil
}

// ForConfig is a client of the cluster of cfg: 50 requests a second
// (bursts of 100), unless cfg says.
func ForConfig(cfg *rest.Config) (*Cluster, error) {
	cfg = rest.CopyConfig(cfg)
	if cfg.QPS == 0 {
		cfg.QPS, cfg.Burst = 50, 100
	}
	c := &Cluster{}
	var err error
	if c.discovery, err = discovery.NewDiscoveryClientForConfig(cfg); err != nil {
		return nil, err
	}
	if c.dynamic, err = dynamic.NewForConfig(cfg); err != nil {
		return nil, err
	}
	rewriter := rest.CopyConfig(cfg)
	rewriter.QPS, rewriter.Burst = 400, 1000
	if c.rewriter, err = dynamic.NewForConfig(rewriter); err != nil {
		return nil, err
	}
	c.mapper = restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(c.discovery))
	return c, nil
}

// Target is what a cluster serves, as a target of convert and migrate: its
// release ("1.34", from /version) and the newest version of resource.k8s.io
// it serves that claimbridge converts to ("v1").
type Target struct{ Release, Version string }

// Release asks the cluster for its release: "1.34"; of a kube-apiserver
// that emulates an older release (--emulated-version), that release.
func (c *Cluster) Release() (string, error) {
	info, err := c.discovery.ServerVersion()
	if err != nil {
		return "", fmt.Errorf("asking the cluster its version: %w", err)
	}
	if info.EmulationMinor != "" {
		return info.EmulationMajor + "." + info.EmulationMinor, nil
	}
	// Some providers report the minor version as "27+".
	return info.Major + "." + strings.TrimRight(info.Minor, "+"), nil
}

// Target asks the cluster for its release and the versions of
// resource.k8s.io it serves.
func (c *Cluster) Target() (Target, error) {
	release, err := c.Release()
	if err != nil {
		return Target{}, err
	}
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
			if slices.Contains(api.ConversionVersions, v.Version) && (t.Version == "" || version.CompareKubeAwareVersionStrings(v.Version, t.Version) > 0) {
				t.Version = v.Version
			}
		}
	}
	if t.Version == "" {
		return Target{}, fmt.Errorf("the cluster (Kubernetes %s) serves no version of %s that claimbridge converts to: is DynamicResourceAllocation enabled?", release, api.UpstreamGroup)
	}
	return t, nil
}
