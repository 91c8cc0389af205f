package conversion

import (
	"fmt"
	"strings"

	"github.com/claimbridge/claimbridge/api"
)

// The versions claimbridge serves, oldest first (see package api).
const (
	V1alpha1 = api.V1alpha1
	V1alpha2 = api.V1alpha2
	V1alpha3 = api.V1alpha3
)

// Versions is the conversion chain, oldest first (api.ConversionVersions).
// Conversion between versions that are not neighbours steps through every
// version in between.
var Versions = api.ConversionVersions

// The API groups whose claims and templates are converted. The group of an
// object is never changed.
const (
	Group         = api.Group
	UpstreamGroup = api.UpstreamGroup
)

// The kinds that are converted.
const (
	KindClaim        = api.KindClaim
	KindTemplate     = api.KindTemplate
	KindClaimList    = api.KindClaimList
	KindTemplateList = api.KindTemplateList
)

// Convert returns obj converted to version toVersion ("v1alpha1", "v1alpha2"
// or "v1alpha3"). obj must be a ResourceClaim, ResourceClaimTemplate or one of
// their List kinds; its apiVersion group is kept (resource.claimbridge.dev or
// resource.k8s.io). obj is not modified. Converting to the version obj
// already has returns a deep copy.
//
// Convert fails only when obj is not a convertible object or when what the
// target version cannot hold does not fit into the annotation size limit.
func Convert(obj map[string]interface{}, toVersion string) (map[string]interface{}, error) {
	group, from, kind, err := Identify(obj)
	if err != nil {
		return nil, err
	}
	if versionIndex(toVersion) < 0 {
		return nil, fmt.Errorf("unsupported target version %q: supported versions are %s", toVersion, strings.Join(Versions, ", "))
	}
	out := deepCopyMap(obj)
	switch kind {
	case KindClaim, KindTemplate:
		if err := convertObject(out, kind, from, toVersion); err != nil {
			return nil, err
		}
	default: // a List kind
		if err := convertList(out, strings.TrimSuffix(kind, "List"), from, toVersion); err != nil {
			return nil, err
		}
	}
	out["apiVersion"] = group + "/" + toVersion
	return out, nil
}

// Identify returns the group, version and kind of a convertible object, or an
// error that says why obj is not one.
func Identify(obj map[string]interface{}) (group, version, kind string, err error) {
	return api.Identify(obj)
}

func versionIndex(v string) int { return api.VersionIndex(v) }

// convertObject converts a claim or template in place, one neighbouring
// version at a time, so that v1alpha1 ⇄ v1alpha3 passes through v1alpha2 and
// every restore annotation is written and read by the same pair of steps.
func convertObject(obj map[string]interface{}, kind, from, to string) error {
	for i, j := versionIndex(from), versionIndex(to); i != j; {
		next := i + 1
		if j < i {
			next = i - 1
		}
		if err := step(obj, kind, Versions[i], Versions[next]); err != nil {
			return fmt.Errorf("converting %s %s from %s to %s: %w", kind, describeObject(obj), from, to, err)
		}
		i = next
	}
	return nil
}

func convertList(list map[string]interface{}, kind, from, to string) error {
	items, _ := list["items"].([]interface{})
	for i, it := range items {
		item, ok := it.(map[string]interface{})
		if !ok {
			continue // not an object: nothing this package can convert; kept as is
		}
		if err := convertObject(item, kind, from, to); err != nil {
			return fmt.Errorf("items[%d]: %w", i, err)
		}
		if av, ok := item["apiVersion"].(string); ok {
			if group, _, ok := strings.Cut(av, "/"); ok {
				item["apiVersion"] = group + "/" + to
			}
		}
	}
	return nil
}

// describeObject names an object for error messages (see api.Ref).
func describeObject(obj map[string]interface{}) string { return api.Ref(obj) }
