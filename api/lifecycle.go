package api

import (
	"fmt"
	"slices"
	"strings"
)

// devices are the kinds every GA-track version of resource.k8s.io has.
var devices = []string{KindClaim, KindTemplate, KindDeviceClass, KindResourceSlice}

// lifecycles are the one table of which release serves which kind of
// resource.k8s.io in which version: from 1.32, upstream's
// APILifecycleIntroduced, APILifecycleDeprecated and APILifecycleRemoved
// (k8s.io/api resource/*/zz_generated.prerelease-lifecycle.go; 0: not
// set); before, the versions k8s.io/api no longer has, served from
// introduced until removed. As minor releases, oldest version first. A
// version a release serves but not as its claims' version (Releases) needs
// --runtime-config there.
var lifecycles = []lifecycle{
	{V1alpha1, []string{KindClaim, KindTemplate, KindResourceClass, "PodScheduling"}, 26, 0, 27},
	{V1alpha2, []string{KindClaim, KindTemplate, KindResourceClass, "PodSchedulingContext"}, 27, 0, 31},
	{V1alpha2, []string{KindResourceSlice, KindClaimParameters, KindClassParameters}, 30, 0, 31},
	// 1.32 and 1.33 keep v1alpha3 beside the betas, with --runtime-config.
	{V1alpha3, []string{KindClaim, KindTemplate, KindDeviceClass, KindResourceSlice}, 31, 0, 34},
	{V1alpha3, []string{"PodSchedulingContext"}, 31, 0, 32},
	{V1alpha3, []string{KindDeviceTaintRule}, 33, 36, 39},
	{V1alpha3, []string{"ResourcePoolStatusRequest"}, 36, 39, 42},
	{V1beta1, devices, 32, 35, 38},
	{V1beta2, devices, 33, 36, 39},
	{V1beta2, []string{KindDeviceTaintRule}, 36, 39, 42},
	{V1, devices, 34, 0, 0},
	{V1, []string{KindDeviceTaintRule}, 37, 0, 0},
}

type lifecycle struct {
	version                         string
	kinds                           []string
	introduced, deprecated, removed int
}

// lifecycleOf is the lifecycle of kind (or its typed list) in version.
func lifecycleOf(version, kind string) lifecycle {
	for _, l := range lifecycles {
		if l.version == version && slices.Contains(l.kinds, strings.TrimSuffix(kind, "List")) {
			return l
		}
	}
	return lifecycle{}
}

// Lifecycle returns the releases (minor numbers) in which upstream
// deprecates kind (or its typed list) in version of resource.k8s.io, and
// from which it no longer serves it; 0 for what upstream has not set.
func Lifecycle(version, kind string) (deprecated, removed int) {
	l := lifecycleOf(version, kind)
	return l.deprecated, l.removed
}

// Deprecation is the warning for an object of kind in version of
// resource.k8s.io judged by cluster c when c serves it and its release
// deprecates it, in upstream's words: "resource.k8s.io/v1beta1 DeviceClass
// is deprecated in Kubernetes 1.35 and no longer served from 1.38: use
// resource.k8s.io/v1"; "" otherwise.
func (c Cluster) Deprecation(version, kind string) string {
	deprecated, removed := Lifecycle(version, kind)
	if deprecated == 0 || c.Minor < deprecated || !c.Serves(version, kind) {
		return ""
	}
	kind = strings.TrimSuffix(kind, "List")
	msg := fmt.Sprintf("%s/%s %s is deprecated in Kubernetes 1.%d and no longer served from 1.%d", UpstreamGroup, version, kind, deprecated, removed)
	// The newest version of the kind that the release serves undeprecated.
	for _, l := range slices.Backward(lifecycles) {
		if slices.Contains(l.kinds, kind) && l.introduced <= c.Minor && (l.deprecated == 0 || c.Minor < l.deprecated) {
			return msg + ": use " + UpstreamGroup + "/" + l.version
		}
	}
	return msg
}

// CreatedIn is the version in which release minor creates kind: the
// newest it serves kind in; "" when it has no such kind. For claims it is
// Releases' Version; a DeviceTaintRule is v1alpha3 in 1.33–1.35, v1beta2 in
// 1.36, v1 from 1.37.
func CreatedIn(kind string, minor int) string {
	version := ""
	for _, l := range lifecycles {
		if slices.Contains(l.kinds, kind) && l.introduced <= minor && (l.removed == 0 || minor < l.removed) && VersionIndex(l.version) > VersionIndex(version) {
			version = l.version
		}
	}
	return version
}

// FirstRelease is the first release (a minor number) with kind in
// resource.k8s.io; 0 for a kind it never had.
func FirstRelease(kind string) int {
	first := 0
	for _, l := range lifecycles {
		if slices.Contains(l.kinds, kind) && (first == 0 || l.introduced < first) {
			first = l.introduced
		}
	}
	return first
}

// A Gap is why a cluster does not serve a kind in a version of
// resource.k8s.io, and what serves it.
type Gap struct {
	// Why follows the version: "which Kubernetes 1.36 serves only with
	// --runtime-config=resource.k8s.io/v1beta2=true".
	Why string
	// Flag is the --runtime-config that serves it; "" when the release
	// does not have it.
	Flag string
	// Removed is the release that removed it; 0 when it never had it, or
	// has it behind Flag.
	Removed int
}

// ServeRemoved is the environment variable with which kube-apiserver
// serves, for one release only, the versions that release removed.
const ServeRemoved = "KUBE_APISERVER_SERVE_REMOVED_APIS_FOR_ONE_RELEASE=true"

// Gap says why c does not serve kind in version: the release has it only
// with --runtime-config, removed it, or never had it.
func (c Cluster) Gap(version, kind string) Gap {
	l := lifecycleOf(version, strings.TrimSuffix(kind, "List"))
	switch {
	case c.has(l):
		flag := fmt.Sprintf("--runtime-config=%s/%s=true", UpstreamGroup, version)
		if c.Minor < 34 && !c.Enabled(DynamicResourceAllocation) {
			flag = "--feature-gates=" + DynamicResourceAllocation + "=true " + flag
		}
		return Gap{Why: fmt.Sprintf("which Kubernetes 1.%d serves only with %s", c.Minor, flag), Flag: flag}
	case l.removed != 0 && c.Minor >= l.removed:
		return Gap{Why: fmt.Sprintf("which Kubernetes 1.%d no longer serves (removed in 1.%d)", c.Minor, l.removed), Removed: l.removed}
	case l.introduced != 0:
		return Gap{Why: fmt.Sprintf("which Kubernetes 1.%d does not have (it came in 1.%d)", c.Minor, l.introduced)}
	}
	return Gap{Why: fmt.Sprintf("which no Kubernetes release has for %s", kind)}
}

// Stopgap says, of a version removed in release removed, how its
// kube-apiserver still serves it for that release only; "" after it.
func (g Gap) Stopgap(minor int) string {
	if g.Removed == 0 || minor != g.Removed {
		return ""
	}
	return fmt.Sprintf("as a stopgap for 1.%d only, kube-apiserver serves it with %s in its environment", minor, ServeRemoved)
}
