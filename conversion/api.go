package conversion

import (
	"cmp"
	"fmt"
	"maps"
	"strings"

	"github.com/claimbridge/claimbridge/api"
)

// Convert returns obj, a claim, template or list of them, converted to
// toVersion, one of api.ConversionVersions. The group is kept. obj is not modified;
// converting to obj's own version returns a deep copy.
//
// Convert fails when toVersion is not in the chain or not served by obj's
// group, when obj is not convertible, or when the restore data does not fit
// the annotation size limit. A field of the wrong JSON type gives a
// *MalformedError.
func Convert(obj map[string]interface{}, toVersion string) (map[string]interface{}, error) {
	return convert(obj, toVersion, nil, false, false)
}

// ConvertShared is Convert for a caller that modifies neither obj nor the
// result afterwards, such as the webhook. The result may share the values
// conversion does not change with obj instead of copying them. It is equal
// to Convert's result.
func ConvertShared(obj map[string]interface{}, toVersion string) (map[string]interface{}, error) {
	return convert(obj, toVersion, nil, true, false)
}

// convert is Convert; share is ConvertShared's. lossesOnly (see Losses)
// writes no restore annotations, so the result does not round-trip.
func convert(obj map[string]interface{}, toVersion string, ws *[]Warning, share, lossesOnly bool) (map[string]interface{}, error) {
	group, from, kind, err := Identify(obj)
	if err != nil {
		return nil, err
	}
	if err := cmp.Or(checkTarget(group, from, toVersion), checkShape(obj, from, kind)); err != nil {
		return nil, err
	}
	var out map[string]interface{}
	switch kind {
	case api.KindClaim, api.KindTemplate:
		out = copyForSteps(obj, kind, from != toVersion, share)
		if err := convertObject(out, kind, from, toVersion, "", ws, stepOptions{skipInvertible: true, keepRestore: !lossesOnly, share: share}); err != nil {
			return nil, err
		}
	default: // a List kind
		out = api.DeepCopyJSON(obj)
		if err := convertList(out, strings.TrimSuffix(kind, "List"), from, toVersion, ws); err != nil {
			return nil, err
		}
	}
	out["apiVersion"] = group + "/" + toVersion
	return out, nil
}

// copyForSteps returns the copy of obj that convertObject converts in place.
// When a step runs (mapped), the sections are not copied: every step replaces
// them with maps built from copies. Other fields are deep-copied.
//
// With share, only metadata and its annotations are copied, shallowly: the
// steps change only the restore annotations there.
func copyForSteps(obj map[string]interface{}, kind string, mapped, share bool) map[string]interface{} {
	if !mapped && !share {
		return api.DeepCopyJSON(obj)
	}
	out := make(map[string]interface{}, len(obj)+1)
	for k, v := range obj {
		switch {
		case share && k == "metadata":
			out[k] = copyMetadataShallow(v)
		case share, k == "spec", k == "status" && kind == api.KindClaim:
			out[k] = v
		default:
			out[k] = api.DeepCopyJSONValue(v)
		}
	}
	return out
}

// copyMetadataShallow copies a metadata object and its annotations one
// level deep.
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
// of the claimbridge group.
func checkTarget(group, from, toVersion string) error {
	switch i := api.VersionIndex(toVersion); {
	case i < 0:
		return fmt.Errorf("unsupported target version %q: supported versions are %s", toVersion, strings.Join(api.ConversionVersions, ", "))
	case group == api.Group && i >= len(api.ServedVersions):
		return fmt.Errorf("target version %s is not served by group %s (only %s); it is a version of %s, reached from manifests of that group: "+
			"to move this object to the built-in API, give it apiVersion %s/%s", toVersion, api.Group, strings.Join(api.ServedVersions, ", "), api.UpstreamGroup, api.UpstreamGroup, from)
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
	if group == api.Group && !api.IsServed(version) {
		return "", "", "", fmt.Errorf("apiVersion %q: unsupported version %q (supported: %s)", group+"/"+version, version, strings.Join(api.ServedVersions, ", "))
	}
	if group == api.UpstreamGroup && version == api.V1alpha3 {
		if err := checkV1alpha3Shape(obj, kind); err != nil {
			return "", "", "", err
		}
	}
	return group, version, kind, nil
}

// convertObject converts a claim or template in place, one step between
// neighbouring versions at a time, so that each restore annotation is written
// and read by the same pair of steps.
//
// When ws is not nil, each step's losses are appended to it; pathPrefix
// ("items[i].") locates a list item. A claim converted to a GA version also
// gets the warning that an apiserver drops the status of a create.
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
	if ws != nil && kind == api.KindClaim && api.VersionIndex(to) >= len(api.ServedVersions) {
		var losses []loss
		statusLoss(obj, &lossReport{losses: &losses})
		warn(from, to, losses)
	}
	return nil
}

func convertList(list map[string]interface{}, kind, from, to string, ws *[]Warning) error {
	for i, it := range asSlice(list["items"]) {
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
		if group, _, ok := strings.Cut(asString(item["apiVersion"]), "/"); ok {
			item["apiVersion"] = group + "/" + to
		}
	}
	return nil
}

// checkItemIdentity refuses an item of a typed list that names another
// apiVersion or kind than the list. Items are converted from the list's
// version, so such an item's fields would be misread, not converted.
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
