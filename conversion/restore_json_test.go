package conversion

import (
	"encoding/json"
	"testing"
)

// TestRestoreJSONMatchesEncodingJSON: the hand-written encoding of a restore
// annotation is byte for byte encodeJSON's (encoding/json's) encoding.
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

// canonicalJSONReflect is encodeJSON through encoding/json's reflection.
func canonicalJSONReflect(v interface{}) ([]byte, error) {
	type wrapper struct{ V interface{} }
	data, err := encodeJSON(wrapper{v})
	if err != nil {
		return nil, err
	}
	return data[len(`{"V":`) : len(data)-1], nil
}

// TestRestoreOperationsAreRFC6902: an add or replace carries "value", null
// included; a remove carries none; and an annotation written before, whose
// add of null had no "value", reads back the same.
func TestRestoreOperationsAreRFC6902(t *testing.T) {
	r := &restore{Spec: &sectionPatch{Patch: []operation{
		{Op: "add", Path: "/spec/n"}, {Op: "replace", Path: "/spec/m"}, {Op: "remove", Path: "/spec/x"},
	}}}
	got, err := r.appendJSON(nil)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"spec":{"base":"","patch":[{"op":"add","path":"/spec/n","value":null},{"op":"replace","path":"/spec/m","value":null},{"op":"remove","path":"/spec/x"}]}}`
	if string(got) != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	var old, current restore
	if err := json.Unmarshal([]byte(`{"spec":{"base":"","patch":[{"op":"add","path":"/spec/n"}]}}`), &old); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(got, &current); err != nil {
		t.Fatal(err)
	}
	if o, c := old.Spec.Patch[0], current.Spec.Patch[0]; o != c {
		t.Errorf("the old form reads as %+v, the new as %+v", o, c)
	}
}
