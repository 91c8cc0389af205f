package conversion

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/claimbridge/claimbridge/api"
)

// The versions of the conversion chain, oldest first (see package api):
// the three claimbridge serves, and upstream's v1beta1 (1.32), v1beta2
// (1.33) and v1 (1.34+), which claimbridge converts to and from for group
// resource.k8s.io only (docs/conversion.md says why).
const (
	V1alpha1 = api.V1alpha1
	V1alpha2 = api.V1alpha2
	V1alpha3 = api.V1alpha3
	V1beta1  = api.V1beta1
	V1beta2  = api.V1beta2
	V1       = api.V1
)

// Each version list is a copy: changing it changes nothing else.
var (
	// Versions lists the versions the claimbridge CRD serves
	// (api.ServedVersions).
	Versions = slices.Clone(api.ServedVersions)
	// GAVersions lists the upstream versions that Convert reaches from the
	// alpha shapes (api.UpstreamOnlyVersions).
	GAVersions = slices.Clone(api.UpstreamOnlyVersions)
	// ChainVersions is the conversion chain: every conversion goes through
	// the neighbours between its two versions (api.ConversionVersions).
	ChainVersions = slices.Clone(api.ConversionVersions)
)

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

// Convert returns obj converted to version toVersion, one of ChainVersions
// (v1alpha1 … v1alpha3, and v1beta1, v1beta2, v1 for group resource.k8s.io).
// obj must be a ResourceClaim, ResourceClaimTemplate or one of their List
// kinds; its apiVersion group is kept (resource.claimbridge.dev or
// resource.k8s.io). obj is not modified. Converting to the version obj
// already has returns a deep copy.
//
// Convert fails only when toVersion is not one of ChainVersions, when obj is
// not a convertible object (or a claimbridge-group object asked for an
// upstream-only version), or when what the target version cannot hold does
// not fit into the annotation size limit.
//
// An object whose known fields have the wrong JSON type (for example spec a
// string) is refused with a *MalformedError naming the field path.
// ConvertWithWarnings also says what the target version's consumers miss.
func Convert(obj map[string]interface{}, toVersion string) (map[string]interface{}, error) {
	return convert(obj, toVersion, nil, false, false)
}

// ConvertShared is Convert for a caller that modifies neither obj nor the
// result afterwards (the webhook encodes the result and drops both): the
// result may share with obj the values conversion does not change — the
// metadata other than the annotations, fields of no version, and the values
// a mapping moves unchanged into the other version's sections (node
// selectors, parameters, reservations) — instead of copying them. Its result
// is equal to Convert's.
func ConvertShared(obj map[string]interface{}, toVersion string) (map[string]interface{}, error) {
	return convert(obj, toVersion, nil, true, false)
}

// convert is Convert; share is ConvertShared's.
// lossesOnly (see Losses) skips the restore annotations of the versions
// passed through: the result is not a faithful conversion, only what the
// forward mappings saw.
func convert(obj map[string]interface{}, toVersion string, ws *[]Warning, share, lossesOnly bool) (map[string]interface{}, error) {
	group, from, kind, err := Identify(obj)
	if err != nil {
		return nil, err
	}
	if err := checkTarget(group, from, toVersion); err != nil {
		return nil, err
	}
	if err := checkShape(obj, from, kind); err != nil {
		return nil, err
	}
	var out map[string]interface{}
	switch kind {
	case KindClaim, KindTemplate:
		out = copyForSteps(obj, kind, from != toVersion, share)
		if err := convertObject(out, kind, from, toVersion, "", ws, stepOptions{skipInvertible: true, keepRestore: !lossesOnly, share: share}); err != nil {
			return nil, err
		}
	default: // a List kind
		out = deepCopyMap(obj)
		if err := convertList(out, strings.TrimSuffix(kind, "List"), from, toVersion, ws); err != nil {
			return nil, err
		}
	}
	out["apiVersion"] = group + "/" + toVersion
	return out, nil
}

// copyForSteps returns the copy of a claim or template that convertObject
// converts in place. Every step replaces the sections it maps (spec, and a
// claim's status) with maps it builds from copies, so when at least one step
// runs (mapped), those sections are shared with obj rather than copied
// first; every other field is deep-copied. The result shares nothing with
// obj once the steps have run.
//
// With share, only the maps the steps modify besides the sections —
// metadata and metadata.annotations, where the restore annotations are
// removed and added — are copied (shallowly: annotation values are strings);
// everything else is shared with obj, also when no step runs.
func copyForSteps(obj map[string]interface{}, kind string, mapped, share bool) map[string]interface{} {
	if !mapped && !share {
		return deepCopyMap(obj)
	}
	out := make(map[string]interface{}, len(obj)+1)
	for k, v := range obj {
		switch {
		case k == "spec", k == "status" && kind == KindClaim:
			out[k] = v
		case share && k == "metadata":
			out[k] = copyMetadataShallow(v)
		case share:
			out[k] = v
		default:
			out[k] = deepCopy(v)
		}
	}
	return out
}

// copyMetadataShallow copies a metadata object and its annotations one
// level deep; anything else is returned as it is.
func copyMetadataShallow(v interface{}) interface{} {
	meta, ok := v.(map[string]interface{})
	if !ok || meta == nil {
		return v
	}
	out := maps.Clone(meta)
	if ann, ok := meta["annotations"].(map[string]interface{}); ok && ann != nil {
		out["annotations"] = maps.Clone(ann)
	}
	return out
}

// checkTarget fails for versions outside the chain and for the GA versions
// of the claimbridge group, which its CRD does not serve.
func checkTarget(group, from, toVersion string) error {
	switch i := api.VersionIndex(toVersion); {
	case i < 0:
		return fmt.Errorf("unsupported target version %q: supported versions are %s", toVersion, strings.Join(api.ConversionVersions, ", "))
	case group == Group && i >= len(api.ServedVersions):
		return fmt.Errorf("target version %s is not served by group %s (only %s); it is a version of %s, reached from manifests of that group: "+
			"to move this object to the built-in API, give it apiVersion %s/%s", toVersion, Group, strings.Join(api.ServedVersions, ", "), UpstreamGroup, UpstreamGroup, from)
	}
	return nil
}

// Identify returns the group, version and kind of a convertible object, or an
// error that says why obj is not one.
func Identify(obj map[string]interface{}) (group, version, kind string, err error) {
	group, version, kind, err = api.Identify(obj)
	if err != nil {
		return "", "", "", err
	}
	if group == Group && !api.IsServed(version) {
		return "", "", "", fmt.Errorf("apiVersion %q: unsupported version %q (supported: %s)", group+"/"+version, version, strings.Join(api.ServedVersions, ", "))
	}
	if group == UpstreamGroup && version == V1alpha3 {
		if err := checkV1alpha3Shape(obj, kind); err != nil {
			return "", "", "", err
		}
	}
	return group, version, kind, nil
}

// convertObject converts a claim or template in place, one neighbouring
// version of ChainVersions at a time, so that v1alpha1 ⇄ v1alpha3 passes
// through v1alpha2 (and v1alpha3 ⇄ v1 through v1beta1 and v1beta2), and
// every restore annotation is written and read by the same pair of steps.
//
// When ws is not nil, the losses of every step are appended to it as
// warnings; pathPrefix ("items[i].") locates a list item. A claim with a
// status converted to a GA version also gets the warning that an apiserver
// discards the status of a create (From and To are then the whole
// conversion's versions).
func convertObject(obj map[string]interface{}, kind, from, to, pathPrefix string, ws *[]Warning, opts stepOptions) error {
	name := api.Ref(obj)
	warn := func(stepFrom, stepTo string, losses []loss) {
		for _, l := range losses {
			*ws = append(*ws, Warning{Kind: kind, Object: name, From: stepFrom, To: stepTo, Path: pathPrefix + l.path, Message: l.message})
		}
	}
	for i, j := api.VersionIndex(from), api.VersionIndex(to); i != j; {
		next := i + 1
		if j < i {
			next = i - 1
		}
		var losses *[]loss
		if ws != nil {
			losses = &[]loss{}
		}
		if err := doStep(obj, kind, api.ConversionVersions[i], api.ConversionVersions[next], losses, opts); err != nil {
			return fmt.Errorf("converting %s %s from %s to %s: %w", kind, name, from, to, err)
		}
		if losses != nil {
			warn(api.ConversionVersions[i], api.ConversionVersions[next], *losses)
		}
		i = next
	}
	if ws != nil && kind == KindClaim && api.VersionIndex(to) >= len(api.ServedVersions) {
		var losses []loss
		statusLoss(obj, &lossReport{losses: &losses})
		warn(from, to, losses)
	}
	return nil
}

func convertList(list map[string]interface{}, kind, from, to string, ws *[]Warning) error {
	items, _ := list["items"].([]interface{})
	for i, it := range items {
		item, ok := it.(map[string]interface{})
		if !ok {
			continue // not an object: nothing this package can convert; kept as is
		}
		if err := checkItemIdentity(item, i, asString(list["apiVersion"]), kind); err != nil {
			return err
		}
		if err := convertObject(item, kind, from, to, fmt.Sprintf("items[%d].", i), ws, stepOptions{skipInvertible: true, keepRestore: true}); err != nil {
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

// checkItemIdentity refuses an item of a typed list that names another
// apiVersion or kind than the list's: the list's are what it is converted
// from, so an item of another version would have its fields read as the
// list's version's (unknown there, and kept only in a restore annotation),
// not converted. kubectl creates every item by its own apiVersion and kind;
// a kind: List holds items of several versions and kinds.
func checkItemIdentity(item map[string]interface{}, i int, apiVersion, kind string) *MalformedError {
	const hint = "an item of a typed list is converted from the list's apiVersion and kind; put items of other versions or kinds in a kind: List (apiVersion v1) or documents of their own"
	var err *MalformedError
	if av, ok := item["apiVersion"].(string); ok && av != apiVersion {
		err = &MalformedError{Path: fmt.Sprintf("items[%d].apiVersion", i), Want: apiVersion, Got: av, Hint: hint}
	} else if k, ok := item["kind"].(string); ok && k != kind {
		err = &MalformedError{Path: fmt.Sprintf("items[%d].kind", i), Want: kind, Got: k, Hint: hint}
	} else {
		return nil
	}
	err.Kind, err.Object = kind, api.Ref(item)
	if k, ok := item["kind"].(string); ok {
		err.Kind = k
	}
	return err
}
