package conversion

import (
	"encoding/json"
	"testing"
)

// TestRestoreJSONMatchesEncodingJSON: the hand-written encoding of a restore
// annotation is byte for byte canonicalJSON's (encoding/json's) encoding.
func TestRestoreJSONMatchesEncodingJSON(t *testing.T) {
	tree := map[string]interface{}{"b": []interface{}{json.Number("1"), "<x&y>", nil, true}, "a": map[string]interface{}{}}
	for name, r := range map[string]*restore{
		"empty":        {},
		"created only": {Created: "metadata=null"},
		"spec and status": {
			Spec:    &sectionPatch{Base: "abc", Patch: []operation{{Op: "add", Path: "/spec/a~1b", Value: tree}, {Op: "remove", Path: "/spec/x"}}},
			Status:  &sectionPatch{Base: "", Patch: []operation{{Op: "replace", Path: "/status", Value: "\u2028é"}}},
			Created: "annotations",
		},
		"nil patch":     {Status: &sectionPatch{Base: "f"}},
		"empty patch":   {Spec: &sectionPatch{Base: "f", Patch: []operation{}}},
		"null value":    {Spec: &sectionPatch{Patch: []operation{{Op: "add", Path: "/spec/n", Value: nil}}}},
		"scalar values": {Spec: &sectionPatch{Patch: []operation{{Op: "add", Path: "/spec/n", Value: false}, {Op: "add", Path: "/spec/m", Value: json.Number("-1.5e3")}}}},
	} {
		t.Run(name, func(t *testing.T) {
			want, err := canonicalJSONReflect(r)
			if err != nil {
				t.Fatal(err)
			}
			got, err := r.appendJSON(nil)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != string(want) {
				t.Errorf("appendJSON = %s\nencoding/json = %s", got, want)
			}
		})
	}
}

// canonicalJSONReflect is canonicalJSON through encoding/json's reflection.
func canonicalJSONReflect(v interface{}) ([]byte, error) {
	type wrapper struct{ V interface{} }
	data, err := canonicalJSON(wrapper{v})
	if err != nil {
		return nil, err
	}
	return data[len(`{"V":`) : len(data)-1], nil
}
