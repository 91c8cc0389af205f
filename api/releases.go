package api

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// The finalizers that protect an allocated claim from deletion, set by the
// resourceclaim controller of the releases that serve the version.
const (
	FinalizerV1alpha2 = "dra.k8s.io/delete-protection"             // 1.27–1.30
	FinalizerV1alpha3 = "resource.kubernetes.io/delete-protection" // 1.31 and later
)

// A Release is a Kubernetes minor release, as users name their clusters.
type Release struct {
	// Minor is the minor version: 26 for Kubernetes 1.26.
	Minor int
	// Version is the resource.k8s.io version its claims are written in: the
	// newest it serves.
	Version string
	// Pre is, for a release not out yet, the pre-release it is known from
	// ("v1.38.0-beta.0"): its gates and rules are read from that
	// pre-release's sources, and no apiserver of it answers claimbridge's
	// tests. Drop it when the release is out.
	Pre string
}

// Releases are the releases with DRA, oldest first: the one table of which
// release serves which version.
var Releases = []Release{
	{26, V1alpha1, ""}, {27, V1alpha2, ""}, {28, V1alpha2, ""}, {29, V1alpha2, ""}, {30, V1alpha2, ""},
	{31, V1alpha3, ""}, {32, V1beta1, ""}, {33, V1beta2, ""},
	{34, V1, ""}, {35, V1, ""}, {36, V1, ""}, {37, V1, ""},
	{38, V1, "v1.38.0-beta.0"},
}

func (r Release) String() string { return fmt.Sprintf("1.%d", r.Minor) }

// Newest is the newest release of Releases.
func Newest() Release { return Releases[len(Releases)-1] }

// Named is the release as a person reads it: "1.37", or "1.38
// (v1.38.0-beta.0)" for one known from its pre-release.
func (r Release) Named() string {
	if r.Pre != "" {
		return fmt.Sprintf("1.%d (%s)", r.Minor, r.Pre)
	}
	return r.String()
}

// ReleaseRange names the releases of the table for help and messages:
// "1.26 … 1.38".
func ReleaseRange() string {
	return fmt.Sprintf("%s … %s", Releases[0], Newest())
}

// Devices reports whether the release's claims request devices (1.31 and
// later) rather than name a resource class.
func (r Release) Devices() bool { return r.Minor >= 31 }

// ParseRelease reads a release of Releases named as ParseMinor reads one.
func ParseRelease(s string) (Release, bool) {
	m, ok := ParseMinor(s)
	if i := slices.IndexFunc(Releases, func(r Release) bool { return r.Minor == m }); ok && i >= 0 {
		return Releases[i], true
	}
	return Release{}, false
}

// ParseNext reads the release after the newest of Releases, named as
// ParseMinor reads one. claimbridge judges it by the newest's rules and by
// the versions upstream stops serving in it (Lifecycle). It returns the
// newest release and the next one's minor.
func ParseNext(s string) (newest Release, next int, ok bool) {
	newest = Newest()
	m, ok := ParseMinor(s)
	return newest, newest.Minor + 1, ok && m == newest.Minor+1
}

// Next names the release after the newest of Releases ("1.39").
func Next() string { return fmt.Sprintf("1.%d", Newest().Minor+1) }

// ParseMinor reads the minor of a 1.x release as users and clusters name
// it: "1.33", "v1.33", or a cluster's version with its patch and a
// pre-release or build suffix ("v1.33.4", "v1.33.4-eks-a1b2c3d",
// "v1.33.4+k3s1").
func ParseMinor(s string) (int, bool) {
	rest, ok := strings.CutPrefix(strings.TrimPrefix(s, "v"), "1.")
	minor, patch, hasPatch := strings.Cut(rest, ".")
	if i := strings.IndexAny(patch, "-+"); i >= 0 {
		patch = patch[:i]
	}
	m, err := strconv.Atoi(minor)
	return m, ok && err == nil && digits(minor) && (!hasPatch || digits(patch))
}

// ParsePatch reads the patch of a release named with one ("v1.32.1",
// "1.32.1-eks-a1b2c3d"); -1 when it names none.
func ParsePatch(s string) int {
	parts := strings.SplitN(strings.TrimPrefix(s, "v"), ".", 3)
	if _, ok := ParseMinor(s); !ok || len(parts) < 3 {
		return -1
	}
	patch, _ := strconv.Atoi(strings.FieldsFunc(parts[2], func(r rune) bool { return r == '-' || r == '+' })[0])
	return patch
}

// ReservedForLimit is how many entries a claim's status.reservedFor may
// hold in release minor, patch (-1: not known): upstream's
// ResourceClaimReservedForMaxSize, 32 until 1.32.0, 256 from 1.32.1
// (kubernetes#129544) and 1.33. sure is false for 1.32 of an unknown patch
// (limit is then 1.32.0's).
func ReservedForLimit(minor, patch int) (limit int, sure bool) {
	switch {
	case minor >= 33 || minor == 32 && patch >= 1:
		return 256, true
	case minor == 32 && patch < 0:
		return 32, false
	}
	return 32, true
}

// digits reports whether s is a non-empty string of decimal digits.
func digits(s string) bool { return s != "" && strings.Trim(s, "0123456789") == "" }

// writtenIn are the releases whose claims are written in version, oldest
// first.
func writtenIn(version string) []Release {
	return slices.DeleteFunc(slices.Clone(Releases), func(r Release) bool { return r.Version != version })
}

// Judge is the release whose rules judge an object of version: the newest
// release out whose claims are written in it (1.30 for v1alpha2).
func Judge(version string) (Release, bool) {
	rs := slices.DeleteFunc(writtenIn(version), func(r Release) bool { return r.Pre != "" })
	if len(rs) == 0 {
		return Release{}, false
	}
	return rs[len(rs)-1], true
}

// Oldest is the oldest release whose claims are written in version.
func Oldest(version string) Release {
	if rs := writtenIn(version); len(rs) > 0 {
		return rs[0]
	}
	return Release{}
}

// Serving names the releases whose claims are written in version:
// "1.26", "1.27–1.30", "1.34+".
func Serving(version string) string {
	rs := writtenIn(version)
	switch {
	case len(rs) == 0:
		return ""
	case version == V1:
		return rs[0].String() + "+"
	case len(rs) == 1:
		return rs[0].String()
	}
	return rs[0].String() + "–" + rs[len(rs)-1].String()
}

// A Change is a rule of upstream's resource.k8s.io validation that a
// release changed. A rule that follows a field or its feature gate reads
// Fields instead (FieldOf).
type Change int

// The changes; since has the first release of each.
const (
	// A ResourceClass has structuredParameters.
	ClassStructuredParameters Change = iota
	// A CEL selector's length and cost, and opaque parameters' size, are
	// limited.
	CELLimits
	// A bad key of a map is named at the key, not at the map.
	KeyPathAtKey
	// A v1beta1 device's findings are named without basic.
	DevicePathsWithoutBasic
	// A bad C identifier is Invalid, not a type error; opaque parameters
	// that are not an object "must be a valid JSON object".
	IdentifierMessages
	// The scheduler allocates a device that consumes a counter set its own
	// slice does not hold without counting it; before, it allocates no such
	// device (k8s.io/dynamic-resource-allocation's checkAvailableCounters).
	UnheldCountersAllocated
	// A ResourceSlice holds sharedCounters or devices, not both, and its
	// counter sets are checked as a set.
	SliceSplit
	// A DeviceTaintRule selects by driver, pool and device only (no class
	// or CEL selectors).
	TaintRuleSelectorsRemoved
	// The taint effect None.
	TaintEffectNone
	// One finding where earlier releases gave several (an empty name only
	// Required, a too-long list only TooMany, a duplicate at the item),
	// and new messages for qualified names.
	TerseFindings
	// A bad key of a map is named at the map again.
	KeyPathAtMap
	// A capacity's default below its min is named at default.
	DefaultBelowMinAtDefault
	// v1beta1 requests are checked declaratively: a set field of an
	// exact request is named without exactly.
	DeclarativeV1beta1
	// A qualified name (an attribute, a capacity, a constraint's) has at
	// most one slash.
	OneSlash
	// A claim's capacity requests are checked: at most 32, none below
	// zero, each named as a device's capacity.
	CapacityRequestsChecked
	// A version attribute's numbers have at most 18 digits.
	SemverDigits
	// With perDeviceNodeSelection, a device's nodeSelector has exactly one
	// term.
	OneNodeSelectorTerm
	// A duplicate in a list keyed by name (requests, counter sets) is
	// named with the whole item.
	DuplicateItems
	// An update of a ResourceClaimTemplate checks its spec again (only
	// unchanged capacity requests are taken as stored).
	TemplateUpdatesChecked
	// A node allocatable mapping's capacityKey is a qualified name; its
	// dependent fields, and its one of capacityKey or deviceMultiplier,
	// are checked declaratively.
	NodeAllocatableDeclarative
)

var since = [...]int{
	ClassStructuredParameters:  30,
	CELLimits:                  32,
	KeyPathAtKey:               32,
	DevicePathsWithoutBasic:    33,
	IdentifierMessages:         34,
	UnheldCountersAllocated:    34,
	SliceSplit:                 35,
	TaintRuleSelectorsRemoved:  35,
	TaintEffectNone:            35,
	TerseFindings:              35,
	KeyPathAtMap:               36,
	DefaultBelowMinAtDefault:   37,
	DeclarativeV1beta1:         37,
	OneSlash:                   38,
	CapacityRequestsChecked:    38,
	SemverDigits:               38,
	OneNodeSelectorTerm:        38,
	DuplicateItems:             38,
	TemplateUpdatesChecked:     38,
	NodeAllocatableDeclarative: 38,
}

// Has reports whether release minor has change c.
func Has(minor int, c Change) bool { return minor >= since[c] }

// Since is the first release (a minor number) with change c.
func Since(c Change) int { return since[c] }
