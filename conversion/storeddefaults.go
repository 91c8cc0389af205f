package conversion

import (
	"maps"
	"strings"

	"github.com/claimbridge/claimbridge/api"
)

// StoredDefaultsAnnotations returns the annotations that obj, a v1alpha1 or
// v1alpha2 claim or template being written, needs to be stored with the
// v1alpha3 defaults: its restore-v1alpha3 annotation may record requests
// without mode or count. present is false when there are none. changed is
// true only when they differ from obj's and the rest of obj is what the
// defaulted object shows. obj is not modified.
func StoredDefaultsAnnotations(obj map[string]interface{}) (annotations interface{}, present, changed bool, err error) {
	_, version, kind, err := Identify(obj)
	if err != nil || version != api.V1alpha1 && version != api.V1alpha2 {
		return nil, false, false, err
	}
	if _, ok := api.RestoreData(obj, api.V1alpha3); !ok {
		return nil, false, false, nil
	}
	stored, err := Convert(obj, api.V1alpha3)
	if err != nil {
		return nil, false, false, err
	}
	ops := DefaultsPatch(stored, api.V1alpha3, kind)
	if len(ops) == 0 {
		return nil, false, false, nil
	}
	if err := ApplyPatch(stored, ops); err != nil {
		return nil, false, false, err
	}
	back, err := Convert(stored, version)
	if err != nil {
		return nil, false, false, err
	}
	for _, section := range []string{"spec", "status"} {
		a, aOK := obj[section]
		b, bOK := back[section]
		if aOK != bOK || !api.EqualJSON(a, b) {
			return nil, false, false, nil
		}
	}
	meta, backMeta := api.Metadata(obj), api.Metadata(back)
	if !api.EqualJSON(withoutKeys(meta, "annotations"), withoutKeys(backMeta, "annotations")) {
		return nil, false, false, nil
	}
	newAnnotations, present := backMeta["annotations"]
	if !api.EqualJSON(withoutRestoreKeys(api.Annotations(obj)), withoutRestoreKeys(asMap(newAnnotations))) {
		return nil, false, false, nil
	}
	if _, had := meta["annotations"]; had == present && api.EqualJSON(meta["annotations"], newAnnotations) {
		return nil, false, false, nil
	}
	return newAnnotations, present, true, nil
}

// withoutRestoreKeys returns annotations without the restore annotations.
func withoutRestoreKeys(annotations map[string]interface{}) map[string]interface{} {
	out := maps.Clone(annotations)
	maps.DeleteFunc(out, func(k string, _ interface{}) bool { return strings.HasPrefix(k, api.RestoreAnnotationPrefix) })
	return out
}
