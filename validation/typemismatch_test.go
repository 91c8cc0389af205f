package validation

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// TestDecodeErrorNamesMetadataFields: a value of the wrong JSON type where
// conversion's shape check does not look (metadata, opaque types) is named
// by its path with indices and both JSON types, not by encoding/json's Go
// struct and type names (found by a walkthrough: an ownerReferences uid
// that was a number).
func TestDecodeErrorNamesMetadataFields(t *testing.T) {
	requireConversion(t)
	for _, tc := range []struct {
		metadata string
		want     string
	}{
		{`{"name":"c","namespace":"ns","ownerReferences":[{"apiVersion":"v1","kind":"Pod","name":"p","uid":"u"},{"apiVersion":"v1","kind":"Pod","name":"q","uid":5}]}`,
			"metadata.ownerReferences[1].uid must be a string, not a number"},
		{`{"name":"c","namespace":"ns","labels":{"a":"x","b":true}}`, "metadata.labels[b] must be a string, not a boolean"},
		{`{"name":"c","namespace":"ns","creationTimestamp":7}`, "metadata.creationTimestamp must be a string, not a number"},
		{`{"name":"c","namespace":"ns","generation":"1"}`, "metadata.generation must be a number, not a string"},
		{`{"name":"c","namespace":"ns","managedFields":{}}`, "metadata.managedFields must be an array, not an object"},
		{`{"name":"c","namespace":"ns","uid":null,"generation":"1"}`, "metadata.generation must be a number, not a string"},
		{`{"name":"c","namespace":"ns","creationTimestamp":"2024-01-01T00:00:00Z","ownerReferences":[{"apiVersion":"v1","kind":"Pod","name":"p","uid":5}]}`,
			"metadata.ownerReferences[0].uid must be a string, not a number"},
		{`{"name":"c","namespace":"ns","ownerReferences":[5]}`, "metadata.ownerReferences[0] must be an object, not a number"},
	} {
		var meta map[string]interface{}
		d := json.NewDecoder(strings.NewReader(tc.metadata))
		d.UseNumber()
		if err := d.Decode(&meta); err != nil {
			t.Fatal(err)
		}
		obj := map[string]interface{}{"apiVersion": "resource.claimbridge.dev/v1alpha2", "kind": "ResourceClaim",
			"metadata": meta, "spec": map[string]interface{}{"resourceClassName": "gpu"}}
		_, err := Validate(Request{Operation: Create, Object: obj})
		if want := "decoding object: " + tc.want; fmt.Sprint(err) != want {
			t.Errorf("%s: error %v, want %s", tc.metadata, err, want)
		}
	}
}

// The Go name of an embedded struct whose fields are inlined (TypeMeta) is
// no JSON key: a member of that name is an unknown field, not where the
// decoder failed.
func TestDecodeErrorSkipsInlinedStructNames(t *testing.T) {
	requireConversion(t)
	for name, extra := range map[string]interface{}{
		"TypeMeta-as-a-number":  5,
		"TypeMeta-as-an-object": map[string]interface{}{"kind": 5},
	} {
		t.Run(name, func(t *testing.T) {
			obj := map[string]interface{}{"apiVersion": "resource.claimbridge.dev/v1alpha2", "kind": "ResourceClaim",
				"metadata": map[string]interface{}{"name": "c", "namespace": "ns", "generation": "1"},
				"spec":     map[string]interface{}{"resourceClassName": "gpu"}, "TypeMeta": extra}
			_, err := Validate(Request{Operation: Create, Object: obj})
			if want := "decoding object: metadata.generation must be a number, not a string"; fmt.Sprint(err) != want {
				t.Errorf("error %v, want %s", err, want)
			}
		})
	}
}
