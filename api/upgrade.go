package api

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// A Refusal is a setting that a release's kube-apiserver refuses to start
// with, or a setting it lacks to keep serving a cluster's DRA objects.
type Refusal struct {
	// Setting is the flag as it is set: "--feature-gates=DynamicResourceAllocation=true".
	Setting string
	// Message is kube-apiserver's own words ("unrecognized feature gate:
	// DynamicResourceAllocation"), or for a setting it lacks, what follows.
	Message string
	// Mend is what to do instead.
	Mend string
}

func (r Refusal) String() string { return r.Message + " (" + r.Setting + "): " + r.Mend }

// startWith is the mend of the flags a release lacks to serve DRA.
const startWith = "start it with them"

// Lacks reports whether r names flags the release lacks to serve DRA: it
// starts without them, and serves no resource.k8s.io.
func (r Refusal) Lacks() bool { return r.Mend == startWith }

// LacksNote is the note on each stored object when release target lacks
// the flags to serve DRA (a refusal that Lacks): it serves none of them,
// or its components read none of them; "" when it lacks none.
func LacksNote(refusals []Refusal, target string) string {
	i := slices.IndexFunc(refusals, Refusal.Lacks)
	switch {
	case i < 0:
		return ""
	case strings.Contains(refusals[i].Message, "serves no"):
		return fmt.Sprintf("Kubernetes %s serves it only with the flags it lacks (kube-apiserver %[1]s, above)", target)
	}
	return fmt.Sprintf("Kubernetes %s's %s and %s read it only with the flags it lacks (kube-apiserver %[1]s, above)", target, Scheduler, Kubelet)
}

// registeredUntil is the first release whose scheme no longer registers a
// version of resource.k8s.io: from it, kube-apiserver refuses to start with
// the version in --runtime-config, true or false. The versions after
// v1alpha2 are still registered in the newest release known.
var registeredUntil = map[string]int{V1alpha1: 27, V1alpha2: 31}

// Registered reports whether release minor's kube-apiserver registers
// version of resource.k8s.io, served or not.
func Registered(version string, minor int) bool {
	first := 0
	for _, l := range lifecycles {
		if l.version == version && (first == 0 || l.introduced < first) {
			first = l.introduced
		}
	}
	until, ok := registeredUntil[version]
	return first != 0 && first <= minor && (!ok || minor < until)
}

// Upgrade is c's settings on release minor, as an upgrade or a rollback in
// place keeps the apiserver's flags, and what minor's kube-apiserver refuses
// of them: a gate it does not know, a gate set against its lock, a gate on
// whose dependencies are off, a --runtime-config version it has not
// registered; and, when minor needs flags to serve DRA (before 1.34), the
// gate and versions it lacks. The target has every mend applied: each
// refused setting dropped, the lacking ones set.
func (c Cluster) Upgrade(minor int) (target Cluster, refusals []Refusal) {
	target = Bare(minor)
	for _, name := range slices.Sorted(maps.Keys(c.gates)) {
		on := c.gates[name]
		setting := fmt.Sprintf("--feature-gates=%s=%t", name, on)
		spec, ok := Gate(minor, name)
		switch {
		case name == AllAlpha || name == AllBeta:
		case !ok:
			refusals = append(refusals, Refusal{setting, "unrecognized feature gate: " + name, gateGone(c.Minor, minor, name)})
			continue
		case spec.Locked && on != spec.Default:
			refusals = append(refusals, Refusal{setting, fmt.Sprintf("cannot set feature gate %s to %t, feature is locked to %t", name, on, spec.Default),
				fmt.Sprintf("drop it: Kubernetes 1.%d has it %s and always %s", minor, spec.Stage, map[bool]string{true: "on", false: "off"}[spec.Default])})
			continue
		}
		target.gates = cloneSet(target.gates)
		target.gates[name] = on
	}
	for _, dep := range target.brokenDeps() {
		gate, off := dep[0], dep[1]
		mend, drop := "drop it", gate
		if _, set := target.gates[gate]; !set {
			mend, drop = fmt.Sprintf("drop %s=false: %s is on by default in 1.%d and needs it", off, gate, minor), off
		}
		refusals = append(refusals, Refusal{fmt.Sprintf("--feature-gates=%s=%t", drop, target.gates[drop]),
			fmt.Sprintf("%s is enabled, but depends on features that are disabled: [%s]", gate, off), mend})
		delete(target.gates, drop)
	}
	for _, key := range slices.Sorted(maps.Keys(c.runtime)) {
		setting := fmt.Sprintf("--runtime-config=%s=%t", key, c.runtime[key])
		if version, ok := strings.CutPrefix(key, UpstreamGroup+"/"); ok {
			version, _, _ = strings.Cut(version, "/")
			if !Registered(version, minor) {
				refusals = append(refusals, Refusal{setting, fmt.Sprintf("group version %s/%s that has not been registered", UpstreamGroup, version), versionGone(minor, version)})
				continue
			}
		}
		target.runtime = cloneSet(target.runtime)
		target.runtime[key] = c.runtime[key]
	}
	if gates, versions := target.lacks(target.componentsRead); gates != "" && c.servesDRA() {
		setting := "--feature-gates=" + gates
		if versions != "" {
			setting += " --runtime-config=" + versions
		}
		msg := fmt.Sprintf("Kubernetes 1.%d serves no %s without these flags: its DRA objects would be out of reach", minor, UpstreamGroup)
		if target.servesDRA() {
			msg = fmt.Sprintf("Kubernetes 1.%d's %s, %s and %s read DRA objects through what these flags serve: without them no claim is allocated nor prepared",
				minor, Scheduler, ControllerManager, Kubelet)
		}
		refusals = append(refusals, Refusal{setting, msg, startWith})
		_ = target.Set(gates, versions)
	}
	return target, refusals
}

// brokenDeps are the gates on whose dependencies are off, sorted, each
// followed by the dependencies that are off.
func (c Cluster) brokenDeps() [][]string {
	var out [][]string
	gates := featureGates()[c.Minor]
	for _, name := range slices.Sorted(maps.Keys(gates)) {
		if off := slices.DeleteFunc(slices.Clone(gates[name].Deps), c.Enabled); len(off) > 0 && c.Enabled(name) {
			out = append(out, append([]string{name}, off...))
		}
	}
	return out
}

// lacks are the --feature-gates and --runtime-config values that a
// release before 1.34 needs to serve DRA when c lacks any of them: the
// DynamicResourceAllocation gate, and each version v of resource.k8s.io
// for which need(v) and c does not serve it; "" when it lacks none.
func (c Cluster) lacks(need func(version string) bool) (gates, versions string) {
	if c.Minor >= 34 {
		return "", ""
	}
	var lacking []string
	for _, v := range c.versions() {
		if need(v) && !c.servesVersion(v) {
			lacking = append(lacking, UpstreamGroup+"/"+v+"=true")
		}
	}
	if c.Enabled(DynamicResourceAllocation) && len(lacking) == 0 {
		return "", ""
	}
	return DynamicResourceAllocation + "=true", strings.Join(lacking, ",")
}

// componentsRead reports whether the release's scheduler,
// controller-manager or kubelet read a kind of its GA track (or a
// ResourceClass) through version.
func (c Cluster) componentsRead(version string) bool {
	for _, component := range []string{Scheduler, ControllerManager, Kubelet} {
		for _, kind := range append(slices.Clip(devices), KindResourceClass) {
			if Reads(c.Minor, component, kind) == version {
				return true
			}
		}
	}
	return false
}

// servesDRA reports whether c serves any version of resource.k8s.io.
func (c Cluster) servesDRA() bool {
	return slices.ContainsFunc(c.versions(), c.servesVersion)
}

// gateGone is the mend of a gate that release to does not know.
func gateGone(from, to int, name string) string {
	if to < from {
		return fmt.Sprintf("drop it: Kubernetes 1.%d does not have it yet", to)
	}
	if spec, ok := Gate(from, name); ok && spec.Stage == "GA" {
		return fmt.Sprintf("drop it: Kubernetes 1.%d removed the gate; the feature is GA and always on", to)
	}
	return fmt.Sprintf("drop it: Kubernetes 1.%d removed the gate and the feature", to)
}

// versionGone is the mend of a version that release minor has not
// registered: the version its claims are written in.
func versionGone(minor int, version string) string {
	own := CreatedIn(KindClaim, minor)
	msg := fmt.Sprintf("drop it: Kubernetes 1.%d never had %s/%s", minor, UpstreamGroup, version)
	if FirstRelease(KindClaim) <= minor && minor > lastRegistered(version) {
		msg = fmt.Sprintf("drop it: Kubernetes 1.%d no longer has %s/%s", minor, UpstreamGroup, version)
	}
	if own != "" && Bare(minor).Serves(own, KindClaim) {
		return msg + fmt.Sprintf("; it serves %s/%s", UpstreamGroup, own)
	}
	if own != "" {
		return msg + fmt.Sprintf("; its DRA version is %s/%s (--runtime-config=%s/%s=true)", UpstreamGroup, own, UpstreamGroup, own)
	}
	return msg
}

// lastRegistered is the newest release that registers version.
func lastRegistered(version string) int {
	for _, r := range slices.Backward(Releases) {
		if Registered(version, r.Minor) {
			return r.Minor
		}
	}
	return 0
}
