package api

import (
	"fmt"
	"slices"
	"strings"
)

// devices are the kinds every GA-track version of resource.k8s.io has.
var devices = []string{KindClaim, KindTemplate, "DeviceClass", "ResourceSlice"}

// lifecycles are upstream's APILifecycleIntroduced, APILifecycleDeprecated
// and APILifecycleRemoved of each resource.k8s.io version and kind, as
// minor releases (k8s.io/api resource/*/zz_generated.prerelease-lifecycle.go;
// 0: not set), oldest version first. A version a release serves but not as
// its claims' version (Releases) needs --runtime-config there.
var lifecycles = []lifecycle{
	{V1alpha3, []string{"DeviceTaintRule"}, 33, 36, 39},
	{V1alpha3, []string{"ResourcePoolStatusRequest"}, 36, 39, 42},
	{V1beta1, devices, 32, 35, 38},
	{V1beta2, devices, 33, 36, 39},
	{V1beta2, []string{"DeviceTaintRule"}, 36, 39, 42},
	{V1, devices, 34, 0, 0},
	{V1, []string{"DeviceTaintRule"}, 37, 0, 0},
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
// resource.k8s.io judged by release minor when that release serves it as
// deprecated (ServedBy: an alpha version is not served beside a newer
// one), in upstream's words: "resource.k8s.io/v1beta1 DeviceClass is
// deprecated in Kubernetes 1.35 and no longer served from 1.38: use
// resource.k8s.io/v1"; "" otherwise.
func Deprecation(version, kind string, minor int) string {
	deprecated, removed := Lifecycle(version, kind)
	if deprecated == 0 || minor < deprecated || !ServedBy(version, kind, minor) {
		return ""
	}
	kind = strings.TrimSuffix(kind, "List")
	msg := fmt.Sprintf("%s/%s %s is deprecated in Kubernetes 1.%d and no longer served from 1.%d", UpstreamGroup, version, kind, deprecated, removed)
	// The newest version of the kind that the release serves undeprecated.
	for _, l := range slices.Backward(lifecycles) {
		if slices.Contains(l.kinds, kind) && l.introduced <= minor && (l.deprecated == 0 || minor < l.deprecated) {
			return msg + ": use " + UpstreamGroup + "/" + l.version
		}
	}
	return msg
}

// ServedBy reports whether release minor serves kind in version of
// resource.k8s.io, a beta or GA version, by upstream's lifecycle; false for
// an alpha version, which a release serves only with a feature gate and
// not beside a newer one, and for a version and kind it has no lifecycle
// for.
func ServedBy(version, kind string, minor int) bool {
	l := lifecycleOf(version, kind)
	return !strings.Contains(version, "alpha") && l.introduced != 0 && l.introduced <= minor && (l.removed == 0 || minor < l.removed)
}
