package cluster

import (
	"cmp"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/pflag"
	"sigs.k8s.io/yaml"

	"github.com/claimbridge/claimbridge/api"
)

// GateFlags are the flags that tell the target cluster's feature gates and the
// resource.k8s.io versions it serves, in kube-apiserver's words or from the
// file that starts the cluster. They win over what a live cluster says.
type GateFlags struct {
	featureGates, runtimeConfig, clusterConfig, emulatedVersion string
}

func (g *GateFlags) AddFlags(fs *pflag.FlagSet) {
	fs.StringVar(&g.featureGates, "feature-gates", "", "the target's kube-apiserver --feature-gates: judge by them instead of the release's defaults (DRADeviceTaints=true,DRAConsumableCapacity=false,AllAlpha=true)")
	fs.StringVar(&g.runtimeConfig, "runtime-config", "", "the target's kube-apiserver --runtime-config: the resource.k8s.io versions it serves besides the release's defaults (resource.k8s.io/v1beta1=true, api/all=true)")
	fs.StringVar(&g.clusterConfig, "cluster-config", "", "a kind Cluster or kubeadm ClusterConfiguration file: its apiserver's feature gates, runtime-config and emulated version, and its release when --to is not given")
	fs.StringVar(&g.emulatedVersion, "emulated-version", "", "the kube-apiserver --emulated-version, mid-upgrade: judge as the release it emulates (1.36)")
}

// Release is the release the cluster config file names (a kind node's
// image, kubeadm's kubernetesVersion), and the one its apiserver emulates
// (--emulated-version, or the file's); "" when they name none.
func (g *GateFlags) Release() (release, emulated string, err error) {
	var cfg clusterConfig
	if g.clusterConfig != "" {
		cfg, err = readClusterConfig(g.clusterConfig)
	}
	return cfg.release, cmp.Or(g.emulatedVersion, cfg.emulatedVersion), err
}

// Components names the components that a kind file gives its feature
// gates to besides kube-apiserver; "" for any other source.
func (g *GateFlags) Components() string {
	if cfg, _ := readClusterConfig(g.clusterConfig); cfg.kind && cfg.featureGates != "" {
		return "kind gives its featureGates to kube-controller-manager, kube-scheduler and every kubelet too: each refuses them the same way"
	}
	return ""
}

// Apply sets on c what the flags tell: the cluster config's settings (its
// flags are then known: c is Bare), then --feature-gates and
// --runtime-config.
func (g *GateFlags) Apply(c *api.Cluster) error {
	if g.clusterConfig != "" {
		cfg, err := readClusterConfig(g.clusterConfig)
		if err != nil {
			return err
		}
		*c = api.Bare(c.Minor)
		if err := c.Set(cfg.featureGates, cfg.runtimeConfig); err != nil {
			return fmt.Errorf("%s: %w", g.clusterConfig, err)
		}
	}
	return c.Set(g.featureGates, g.runtimeConfig)
}

// Told reports whether any flag is set.
func (g *GateFlags) Told() bool { return *g != (GateFlags{}) }

// clusterConfig is what a kind or kubeadm file says of the apiserver.
type clusterConfig struct {
	featureGates, runtimeConfig, release, emulatedVersion string
	kind                                                  bool
	// kubelets are a kind cluster's nodes' kubelet versions (their
	// images' tags), by the name kind gives each node.
	kubelets map[string]string
}

// readClusterConfig reads a kind Cluster (featureGates, runtimeConfig, the
// first node's image, and apiServer.extraArgs of its kubeadmConfigPatches,
// which replace the others as kind applies them) or a kubeadm
// ClusterConfiguration (apiServer.extraArgs, kubernetesVersion; the other
// documents of the file are skipped).
func readClusterConfig(path string) (clusterConfig, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return clusterConfig{}, err
	}
	cfg, found, err := parseClusterConfig(string(data))
	if err == nil && !found {
		err = errors.New("neither a kind Cluster nor a kubeadm ClusterConfiguration")
	}
	if err != nil {
		return clusterConfig{}, fmt.Errorf("%s: %w", path, err)
	}
	return cfg, nil
}

// parseClusterConfig reads the documents of a kind or kubeadm file, or of a
// kubeadm patch (found is then false).
func parseClusterConfig(data string) (cfg clusterConfig, found bool, err error) {
	for _, doc := range strings.Split(data, "\n---") {
		var obj struct {
			Kind                        string
			FeatureGates, RuntimeConfig map[string]interface{}
			Name                        string
			Nodes                       []struct{ Role, Image string }
			KubeadmConfigPatches        []string
			KubernetesVersion           string
			APIServer                   struct{ ExtraArgs interface{} }
		}
		if err := yaml.Unmarshal([]byte(doc), &obj); err != nil {
			return cfg, found, err
		}
		args := extraArgs(obj.APIServer.ExtraArgs)
		cfg.featureGates = cmp.Or(args["feature-gates"], api.JoinSettings(obj.FeatureGates), cfg.featureGates)
		cfg.runtimeConfig = cmp.Or(args["runtime-config"], api.JoinSettings(obj.RuntimeConfig), cfg.runtimeConfig)
		cfg.emulatedVersion = cmp.Or(args["emulated-version"], cfg.emulatedVersion)
		cfg.release = cmp.Or(obj.KubernetesVersion, cfg.release)
		if len(obj.Nodes) > 0 {
			_, cfg.release, _ = strings.Cut(strings.SplitN(obj.Nodes[0].Image, "@", 2)[0], ":")
			cfg.kubelets = kindNodes(cmp.Or(obj.Name, "kind"), obj.Nodes)
		}
		for _, patch := range obj.KubeadmConfigPatches {
			p, _, err := parseClusterConfig(patch)
			if err != nil {
				return cfg, found, fmt.Errorf("kubeadmConfigPatches: %w", err)
			}
			cfg.featureGates, cfg.runtimeConfig = cmp.Or(p.featureGates, cfg.featureGates), cmp.Or(p.runtimeConfig, cfg.runtimeConfig)
			cfg.emulatedVersion = cmp.Or(p.emulatedVersion, cfg.emulatedVersion)
		}
		cfg.kind = cfg.kind || obj.Kind == "Cluster"
		found = found || obj.Kind == "Cluster" || obj.Kind == "ClusterConfiguration"
	}
	return cfg, found, nil
}

// kindNodes are the kubelet versions of a kind cluster's nodes (their
// images' tags; "" without an image), named as kind names them:
// NAME-control-plane, NAME-control-plane2, …, NAME-worker, NAME-worker2, ….
func kindNodes(cluster string, nodes []struct{ Role, Image string }) map[string]string {
	out, seen := map[string]string{}, map[string]int{}
	for _, n := range nodes {
		role := cmp.Or(n.Role, "control-plane")
		seen[role]++
		name := cluster + "-" + role
		if seen[role] > 1 {
			name += fmt.Sprint(seen[role])
		}
		_, out[name], _ = strings.Cut(strings.SplitN(n.Image, "@", 2)[0], ":")
	}
	return out
}

// Kubelets are the kubelet versions of the nodes of a kind file, by node
// name; nil for any other source.
func (g *GateFlags) Kubelets() map[string]string {
	cfg, _ := readClusterConfig(g.clusterConfig) // none read: no kubelets
	return cfg.kubelets
}

// extraArgs reads kubeadm's apiServer.extraArgs: a map in v1beta3, a list
// of {name, value} from v1beta4.
func extraArgs(v interface{}) map[string]string {
	out := map[string]string{}
	switch v := v.(type) {
	case map[string]interface{}:
		for k, val := range v {
			out[k] = fmt.Sprint(val)
		}
	case []interface{}:
		for _, item := range v {
			if m, ok := item.(map[string]interface{}); ok {
				out[fmt.Sprint(m["name"])] = fmt.Sprint(m["value"])
			}
		}
	}
	return out
}
