package api

import "strings"

// StoredIn is the version release minor writes kind in, in etcd: the
// highest-priority version of its scheme that the release before it has
// (upstream's storage version from 1.33), and for DeviceTaintRules the
// version its storage factory names.
func StoredIn(kind string, minor int) string {
	switch {
	case kind == KindDeviceTaintRule && minor >= 37:
		return V1beta2
	case kind == KindDeviceTaintRule:
		return V1alpha3
	case minor <= 26:
		return V1alpha1
	case minor <= 30:
		return V1alpha2
	case minor == 31:
		return V1alpha3
	case minor <= 33:
		return V1beta1
	case minor == 34:
		return V1beta2
	}
	return V1
}

// FollowsCompatibility reports whether the version kind is stored in
// follows kube-apiserver's --min-compatibility-version (stored as the
// release after it would): every kind but DeviceTaintRule, whose storage
// factory names its version. kube-apiserver 1.37 with
// --min-compatibility-version=1.34 or 1.35 still writes taint rules in
// v1beta2 (test/envtest/inplace, TestRewriteInPlace).
func FollowsCompatibility(kind string) bool { return kind != KindDeviceTaintRule }

// Decodes reports whether release minor's kube-apiserver can read kind
// stored in version: its scheme still registers the kind there. An alpha
// version's kinds leave the scheme when they stop being served; a beta's
// and GA's stay (1.38 reads v1beta1, which it no longer serves).
func Decodes(kind, version string, minor int) bool {
	l := lifecycleOf(version, kind)
	if l.introduced == 0 || minor < l.introduced {
		return false
	}
	return !strings.Contains(version, "alpha") || l.removed == 0 || minor < l.removed
}

// Keeps says what c, release minor with its settings (the release after
// the newest of Releases, judged by the newest's), does with kind stored
// by release from, after an upgrade or a rollback in place: the version it
// is stored in, whether c can read it, and whether c serves the kind.
func (c Cluster) Keeps(kind string, from, minor int) (stored string, readable, served bool) {
	stored = StoredIn(kind, from)
	for _, v := range ConversionVersions {
		served = served || c.Serves(v, kind)
	}
	return stored, Decodes(kind, stored, minor), served
}
