package release

import (
	"encoding/json"
	"fmt"

	"github.com/claimbridge/claimbridge/api"
)

// serverSetMetadata are the metadata fields the apiserver sets on create;
// expected copies them from the stored object. The first three must be there.
var serverSetMetadata = []string{"uid", "resourceVersion", "creationTimestamp", "managedFields", "generation"}

const requiredServerSet = 3

// defaults are the fields each release's defaulting adds to a created
// object, by the version it serves: where migrate left one out, expected
// adds it with this value. Paths are from the claim spec (a template's is
// under spec.spec); "[]" steps into every list item.
var defaults = map[string][]defaulted{
	// Kubernetes 1.31, pkg/apis/resource/v1alpha3/defaults.go.
	api.V1alpha3: {
		{path: []string{"devices", "requests", "[]"}, field: "allocationMode", value: "ExactCount"},
		{path: []string{"devices", "requests", "[]"}, field: "count", value: float64(1), when: map[string]interface{}{"allocationMode": "ExactCount"}},
	},
	// Kubernetes 1.30, pkg/apis/resource/v1alpha2/defaults.go.
	api.V1alpha2: {
		{field: "allocationMode", value: "WaitForFirstConsumer"},
	},
	// Kubernetes 1.26, pkg/apis/resource/v1alpha1/defaults.go.
	api.V1alpha1: {
		{field: "allocationMode", value: "WaitForFirstConsumer"},
	},
}

// unsetButSerialized are the fields each release writes even when unset,
// by the version it serves: where migrate left one out (and everything above
// it), expected adds it with this value. 1.31's ResourceClaimSpec.Devices is
// a struct and DeviceClaim.Requests has no omitempty: a claim without
// requests is stored with "devices": {"requests": null}.
var unsetButSerialized = map[string][]defaulted{
	api.V1alpha3: {{path: []string{"devices"}, field: "requests", value: nil}},
}

// defaulted is one defaulted field: set at path when absent (and, with
// when, only when the object at path has those values).
type defaulted struct {
	path  []string
	field string
	value interface{}
	when  map[string]interface{}
}

// expected is what the apiserver must have stored for migrated (already
// normalized): migrated, plus stored's server-set metadata, plus the fields
// the release serializes when unset (a template's
// spec.metadata.creationTimestamp: null, unsetButSerialized), plus the
// release's defaults, plus an empty status on a claim (status is reset on
// create; 1.31 returns it as {}).
func expected(migrated, stored map[string]interface{}, version, kind string) (map[string]interface{}, error) {
	want := normalize(migrated)
	meta := want["metadata"].(map[string]interface{})
	storedMeta, _ := stored["metadata"].(map[string]interface{})
	for i, f := range serverSetMetadata {
		v, ok := storedMeta[f]
		if !ok {
			if i < requiredServerSet {
				return nil, fmt.Errorf("the stored object has no metadata.%s", f)
			}
			continue
		}
		meta[f] = v
	}
	spec := child(want, "spec")
	if kind == api.KindTemplate {
		// The template's embedded ObjectMeta has a non-omitempty
		// creationTimestamp: it is stored as null.
		if m := child(spec, "metadata"); m["creationTimestamp"] == nil {
			m["creationTimestamp"] = nil
		}
		spec = child(spec, "spec")
	}
	for _, d := range unsetButSerialized[version] {
		m := spec
		for _, p := range d.path {
			m = child(m, p)
		}
		if _, ok := m[d.field]; !ok {
			m[d.field] = d.value
		}
	}
	for _, d := range defaults[version] {
		applyDefault(spec, d.path, d)
	}
	if st, ok := stored["status"]; ok && kind == api.KindClaim {
		if m, _ := st.(map[string]interface{}); len(m) == 0 {
			want["status"] = map[string]interface{}{}
		}
	}
	return want, nil
}

func applyDefault(obj interface{}, path []string, d defaulted) {
	if len(path) == 0 {
		m, ok := obj.(map[string]interface{})
		if !ok {
			return
		}
		for k, v := range d.when {
			if m[k] != v {
				return
			}
		}
		if _, ok := m[d.field]; !ok {
			m[d.field] = d.value
		}
		return
	}
	if path[0] == "[]" {
		list, _ := obj.([]interface{})
		for _, it := range list {
			applyDefault(it, path[1:], d)
		}
		return
	}
	m, _ := obj.(map[string]interface{})
	if next, ok := m[path[0]]; ok {
		applyDefault(next, path[1:], d)
	}
}

// child is m[key] as an object, created when absent.
func child(m map[string]interface{}, key string) map[string]interface{} {
	c, ok := m[key].(map[string]interface{})
	if !ok {
		c = map[string]interface{}{}
		m[key] = c
	}
	return c
}

// normalize round-trips v through JSON: numbers become float64 whether they
// came from the manifest reader (json.Number) or the client (int64).
func normalize(v map[string]interface{}) map[string]interface{} {
	data, err := json.Marshal(v)
	if err != nil {
		panic(err) // decoded JSON always encodes
	}
	var out map[string]interface{}
	if err := json.Unmarshal(data, &out); err != nil {
		panic(err)
	}
	return out
}

func mustJSON(v interface{}) string {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(data)
}
