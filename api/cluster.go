package api

import (
	_ "embed"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// A Cluster is what every verdict depends on: a release, the feature gates
// its kube-apiserver runs with and the resource.k8s.io versions it serves;
// without settings, the release's defaults. Settings are parsed once at the
// edge (Set, SetEnabled, SetServed); rules read Enabled and Serves.
type Cluster struct {
	// Minor is the release: 35 for Kubernetes 1.35 (for a cluster that
	// emulates an older release, the release it emulates).
	Minor int
	// gates are the gates set, runtime the --runtime-config settings by key
	// ("api/all", "resource.k8s.io/v1beta1/deviceclasses"): the flags.
	gates, runtime map[string]bool
	// bare is a cluster whose flags are known (a live cluster, a kind or
	// kubeadm file): before 1.34, DRA is then on only as they set it.
	bare bool
}

// DynamicResourceAllocation is the gate that turns DRA on, before 1.34.
const DynamicResourceAllocation = "DynamicResourceAllocation"

// Defaults is release minor as claimbridge takes it without settings: at
// its defaults, and before 1.34 (when DRA is off by default) as its users
// turn DRA on: the DynamicResourceAllocation gate on and its claims'
// version and the betas beside it served (Sketch names these flags).
func Defaults(minor int) Cluster { return Cluster{Minor: minor} }

// Bare is release minor as its kube-apiserver starts with no flags.
func Bare(minor int) Cluster { return Cluster{Minor: minor, bare: true} }

// Sketch names the flags Defaults takes a release before 1.34 to run with
// ("--feature-gates=DynamicResourceAllocation=true
// --runtime-config=resource.k8s.io/v1beta1=true,…"); "" from 1.34 or for a
// cluster whose flags are known.
func (c Cluster) Sketch() string {
	if c.bare {
		return ""
	}
	gates, versions := Bare(c.Minor).lacks(Defaults(c.Minor).servesVersion)
	if gates == "" {
		return ""
	}
	return "--feature-gates=" + gates + " --runtime-config=" + versions
}

// The gates that set every gate of a stage not set otherwise.
const (
	AllAlpha = "AllAlpha"
	AllBeta  = "AllBeta"
)

// A GateSpec is a feature gate as one release has it.
type GateSpec struct {
	Stage   string // ALPHA, BETA, GA or DEPRECATED
	Default bool
	Locked  bool
	// Deps are the gates it cannot be on without (from 1.35).
	Deps []string
}

//go:embed featuregates.tsv
var featureGatesTSV string

// featureGates are the gates of each release's kube-apiserver by minor and
// name, from featuregates.tsv (hack/featuregates).
var featureGates = sync.OnceValue(func() map[int]map[string]GateSpec {
	out := map[int]map[string]GateSpec{}
	for _, f := range tsvRows(featureGatesTSV, 6) {
		minor, _ := ParseMinor(f[0])
		if out[minor] == nil {
			out[minor] = map[string]GateSpec{}
		}
		spec := GateSpec{Stage: f[2], Default: f[3] == "true", Locked: f[4] == "locked"}
		if f[5] != "-" {
			spec.Deps = strings.Split(f[5], ",")
		}
		out[minor][f[1]] = spec
	}
	return out
})

// Gate is feature gate name as release minor has it; false when it has no
// such gate.
func Gate(minor int, name string) (GateSpec, bool) {
	spec, ok := featureGates()[minor][name]
	return spec, ok
}

// DRAGates are the names of the DRA feature gates release minor has,
// sorted.
func DRAGates(minor int) []string {
	return slices.DeleteFunc(slices.Sorted(maps.Keys(featureGates()[minor])), func(name string) bool {
		return !strings.HasPrefix(name, "DRA") && name != DynamicResourceAllocation
	})
}

// Enabled reports whether the cluster has feature gate name on.
func (c Cluster) Enabled(name string) bool {
	if on, ok := c.gates[name]; ok {
		return on
	}
	if name == DynamicResourceAllocation && c.Minor < 34 && !c.bare {
		return true
	}
	spec, ok := Gate(c.Minor, name)
	if !ok {
		return false
	}
	// AllAlpha and AllBeta set the unlocked gates of their stage.
	if on, set := c.gates[allOf[spec.Stage]]; set && !spec.Locked {
		return on
	}
	return spec.Default
}

// allOf is the gate that sets every gate of a stage: AllAlpha, AllBeta, or
// none ("").
var allOf = map[string]string{"ALPHA": AllAlpha, "BETA": AllBeta}

// GateOff says, for a message, why gate name is off: "its G feature gate
// is off by default (on from 1.36)" when the settings leave it at the
// release's default, "its G feature gate is off" otherwise.
func (c Cluster) GateOff(name string) string {
	spec, _ := Gate(c.Minor, name)
	_, set := c.gates[name]
	if _, all := c.gates[allOf[spec.Stage]]; all && !spec.Locked {
		set = true
	}
	if set {
		return fmt.Sprintf("its %s feature gate is off", name)
	}
	msg := fmt.Sprintf("its %s feature gate is off by default", name)
	for minor := c.Minor + 1; minor <= Newest().Minor; minor++ {
		if spec, ok := Gate(minor, name); ok && spec.Default {
			return msg + fmt.Sprintf(" (on from 1.%d)", minor)
		}
	}
	return msg
}

// SetFeatureGates sets gates as kube-apiserver's --feature-gates reads
// them ("DRADeviceTaints=true,AllAlpha=false"), and refuses what it
// refuses to start with: a gate the release does not have, a value that is
// not a boolean, a locked gate set against its lock. Later settings win.
func (c *Cluster) SetFeatureGates(s string) error {
	for _, kv := range strings.Split(s, ",") {
		kv = strings.TrimSpace(kv)
		if kv == "" {
			continue
		}
		name, value, ok := strings.Cut(kv, "=")
		name = strings.TrimSpace(name)
		if !ok {
			return fmt.Errorf("missing bool value for %s", name)
		}
		on, err := strconv.ParseBool(strings.TrimSpace(value))
		if err != nil {
			return fmt.Errorf("invalid value of %s=%s, err: %v", name, value, err)
		}
		if err := c.setGate(name, on); err != nil {
			return err
		}
	}
	return nil
}

func (c *Cluster) setGate(name string, on bool) error {
	spec, ok := Gate(c.Minor, name)
	switch {
	case name == AllAlpha || name == AllBeta:
	case !ok:
		return fmt.Errorf("unrecognized feature gate: %s (Kubernetes 1.%d has %d gates; its DRA gates: %s)",
			name, c.Minor, len(featureGates()[c.Minor]), strings.Join(DRAGates(c.Minor), ", "))
	case spec.Locked && on != spec.Default:
		return fmt.Errorf("cannot set feature gate %s to %t, feature is locked to %t", name, on, spec.Default)
	}
	c.gates = cloneSet(c.gates)
	c.gates[name] = on
	return nil
}

// Set sets the settings of kube-apiserver's --feature-gates and
// --runtime-config, and refuses what it refuses to start with.
func (c *Cluster) Set(featureGates, runtimeConfig string) error {
	if err := c.SetFeatureGates(featureGates); err != nil {
		return fmt.Errorf("--feature-gates: %w", err)
	}
	if err := c.SetRuntimeConfig(runtimeConfig); err != nil {
		return fmt.Errorf("--runtime-config: %w", err)
	}
	if err := c.Validate(); err != nil {
		return fmt.Errorf("--feature-gates: %w", err)
	}
	return nil
}

// Validate refuses, as kube-apiserver refuses to start, a gate on whose
// dependencies are not all on.
func (c Cluster) Validate() error {
	if broken := c.brokenDeps(); len(broken) > 0 {
		return fmt.Errorf("%s is enabled, but depends on features that are disabled: [%s]", broken[0][0], strings.Join(broken[0][1:], " "))
	}
	return nil
}

// SetEnabled sets, of the gates of enabled as a running apiserver reports
// them (its kubernetes_feature_enabled metric), each that is not at the
// release's default, as its flags must have; a name the release does not
// have is left out.
func (c *Cluster) SetEnabled(enabled map[string]bool) {
	c.gates = cloneSet(c.gates)
	def := Cluster{Minor: c.Minor, bare: c.bare}
	for name, on := range enabled {
		if _, ok := Gate(c.Minor, name); ok && on != def.Enabled(name) {
			c.gates[name] = on
		}
	}
}

// SetRuntimeConfig sets the served API versions as kube-apiserver's
// --runtime-config reads them ("api/all=true,resource.k8s.io/v1beta1",
// a key alone meaning true), and refuses a value that is not a boolean and
// a resource.k8s.io version the release does not have.
func (c *Cluster) SetRuntimeConfig(s string) error {
	for _, kv := range strings.Split(s, ",") {
		kv = strings.TrimSpace(kv)
		if kv == "" {
			continue
		}
		key, value, hasValue := strings.Cut(kv, "=")
		on, err := true, error(nil)
		if hasValue {
			if on, err = strconv.ParseBool(strings.TrimSpace(value)); err != nil {
				return fmt.Errorf("invalid value of %s: %s, err: %v", key, value, err)
			}
		}
		key = strings.TrimSpace(key)
		if version, ok := strings.CutPrefix(key, UpstreamGroup+"/"); ok {
			version, _, _ = strings.Cut(version, "/")
			if !Registered(version, c.Minor) {
				return fmt.Errorf("group version %s/%s that has not been registered (Kubernetes 1.%d has %s)", UpstreamGroup, version, c.Minor, strings.Join(c.versions(), ", "))
			}
		}
		c.runtime = cloneSet(c.runtime)
		c.runtime[key] = on
	}
	return nil
}

// SetServed sets the resource.k8s.io versions a running apiserver serves
// (its discovery), as its flags must have: each version the release has
// that it serves other than by default. A release before 1.34 that serves
// any has DRA on.
func (c *Cluster) SetServed(served []string) {
	c.runtime = cloneSet(c.runtime)
	if len(served) > 0 && !c.Enabled(DynamicResourceAllocation) {
		c.gates = cloneSet(c.gates)
		c.gates[DynamicResourceAllocation] = true
	}
	for _, v := range c.versions() {
		if on := slices.Contains(served, v); on != c.servesVersion(v) {
			c.runtime[UpstreamGroup+"/"+v] = on
		}
	}
}

// versions are the versions of resource.k8s.io the release has.
func (c Cluster) versions() []string {
	var out []string
	for _, l := range lifecycles {
		if c.has(l) && !slices.Contains(out, l.version) {
			out = append(out, l.version)
		}
	}
	return out
}

// has reports whether the release has the kinds of l in its version.
func (c Cluster) has(l lifecycle) bool {
	return l.introduced != 0 && l.introduced <= c.Minor && (l.removed == 0 || c.Minor < l.removed)
}

// Serves reports whether the cluster serves kind (or its typed list) in
// version of resource.k8s.io: the release has it, and its settings or
// defaults enable it. By default a release serves the GA versions; before
// 1.34, when DRA itself is off by default, Defaults takes the versions a
// DRA cluster is started with as enabled: the release's claim version
// (Releases) and the betas beside it. Every other version needs
// --runtime-config, and before 1.34 every version needs the
// DynamicResourceAllocation gate.
func (c Cluster) Serves(version, kind string) bool {
	kind = strings.TrimSuffix(kind, "List")
	l := lifecycleOf(version, kind)
	if !c.has(l) || c.Minor < 34 && !c.Enabled(DynamicResourceAllocation) {
		return false
	}
	stage := "ga"
	switch {
	case strings.Contains(version, "alpha"):
		stage = "alpha"
	case strings.Contains(version, "beta"):
		stage = "beta"
	}
	served, set := false, false
	for _, key := range []string{"api/all", "api/" + stage, UpstreamGroup + "/" + version, UpstreamGroup + "/" + version + "/" + Resource(kind)} {
		if on, ok := c.runtime[key]; ok {
			served, set = on, true
		}
	}
	if set {
		return served
	}
	own := CreatedIn(KindClaim, c.Minor)
	return stage == "ga" || !c.bare && (version == own && l.introduced <= c.Minor || c.Minor < 34 && stage == "beta")
}

// Has reports whether the release has kind in version of resource.k8s.io,
// served by default or not.
func (c Cluster) Has(version, kind string) bool {
	return c.has(lifecycleOf(version, strings.TrimSuffix(kind, "List")))
}

// servesVersion reports whether c serves version for any kind.
func (c Cluster) servesVersion(version string) bool {
	return slices.ContainsFunc(lifecycles, func(l lifecycle) bool {
		return l.version == version && slices.ContainsFunc(l.kinds, func(kind string) bool { return c.Serves(version, kind) })
	})
}

// SettingsString names the settings that differ from the defaults, as
// kube-apiserver's flags: "--feature-gates=A=true --runtime-config=api/all=true";
// "" for the defaults.
func (c Cluster) SettingsString() string {
	var parts []string
	if len(c.gates) > 0 {
		parts = append(parts, "--feature-gates="+JoinSettings(c.gates))
	}
	if len(c.runtime) > 0 {
		parts = append(parts, "--runtime-config="+JoinSettings(c.runtime))
	}
	return strings.Join(parts, " ")
}

// JoinSettings writes settings as a flag's value, sorted: "A=true,B=false".
func JoinSettings[V any](m map[string]V) string {
	var kv []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		kv = append(kv, fmt.Sprintf("%s=%v", k, m[k]))
	}
	return strings.Join(kv, ",")
}

// cloneSet copies m: a copy of a Cluster, then set, leaves the original.
func cloneSet(m map[string]bool) map[string]bool {
	out := make(map[string]bool, len(m)+1)
	maps.Copy(out, m)
	return out
}

// Resource is the resource of a resource.k8s.io kind, as --runtime-config
// names it: "deviceclasses", "resourceclaimparameters".
func Resource(kind string) string {
	r := strings.ToLower(kind)
	switch {
	case strings.HasSuffix(r, "ss"):
		return r + "es"
	case strings.HasSuffix(r, "s"):
		return r
	}
	return r + "s"
}
