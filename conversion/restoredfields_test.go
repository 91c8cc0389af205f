package conversion

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/claimbridge/claimbridge/api"
)

// withAnnotation is an object whose only metadata is a v1alpha3 restore
// annotation of the given value.
func withAnnotation(value string) map[string]interface{} {
	return map[string]interface{}{"metadata": map[string]interface{}{
		"annotations": map[string]interface{}{api.RestoreAnnotation(api.V1alpha3): value}}}
}

// TestRestoredSpecFields: the spec fields a restore annotation holds, as
// field paths of its version; removals, status operations and annotations
// that do not decode hold none.
func TestRestoredSpecFields(t *testing.T) {
	tests := []struct {
		name  string
		value string
		want  []string
	}{
		{"add-replace-remove", `{"spec":{"base":"b","patch":[` +
			`{"op":"add","path":"/spec/devices/requests/0/count","value":2},` +
			`{"op":"replace","path":"/spec/devices/requests/10/name","value":"r"},` +
			`{"op":"remove","path":"/spec/allocationMode"}]},` +
			`"status":{"base":"s","patch":[{"op":"add","path":"/status/allocation/controller","value":"d"}]}}`,
			[]string{"spec.devices.requests[0].count", "spec.devices.requests[10].name"}},
		{"template", `{"spec":{"base":"b","patch":[{"op":"add","path":"/spec/spec/parametersRef","value":{}}]}}`,
			[]string{"spec.spec.parametersRef"}},
		{"keys-that-are-not-identifiers", `{"spec":{"base":"b","patch":[` +
			`{"op":"add","path":"/spec/devices/config/0/opaque/parameters/a~1b.c","value":1},` +
			`{"op":"add","path":"/spec/x/-1","value":1}]}}`,
			[]string{"spec.devices.config[0].opaque.parameters[a/b.c]", "spec.x[-1]"}},
		{"whole-section", `{"spec":{"base":"b","patch":[{"op":"add","path":"/spec","value":{}}]}}`, []string{"spec"}},
		{"status-only", `{"status":{"base":"s","patch":[{"op":"add","path":"/status/x","value":1}]}}`, nil},
		{"created-only", `{"created":"annotations"}`, nil},
		{"not-json", `{`, nil},
		{"decodes-in-part", `{"status":5,"spec":{"base":"b","patch":[{"op":"add","path":"/spec/x","value":1}]}}`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if d := cmp.Diff(tt.want, RestoredSpecFields(withAnnotation(tt.value), api.V1alpha3)); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
	if got := RestoredSpecFields(withAnnotation(`{"spec":{"base":"b","patch":[{"op":"add","path":"/spec/x","value":1}]}}`), api.V1alpha2); got != nil {
		t.Errorf("fields of another version's annotation: %v", got)
	}
}

// TestFieldPathKeys: fieldPath writes a key as .key when it is an
// identifier (letters a-z and A-Z, digits 0-9 and _, not starting with a
// digit) and as [key] otherwise, an empty key included.
func TestFieldPathKeys(t *testing.T) {
	for pointer, want := range map[string]string{
		"/spec/zone":        "spec.zone",
		"/spec/Atom/Zeta":   "spec.Atom.Zeta",
		"/spec/a0/_b9":      "spec.a0._b9",
		"/spec/1a":          "spec[1a]",
		"/spec/x/":          "spec.x[]",
		"/spec/requests/10": "spec.requests[10]",
	} {
		if got := fieldPath(pointer); got != want {
			t.Errorf("fieldPath(%q) = %q, want %q", pointer, got, want)
		}
	}
}
