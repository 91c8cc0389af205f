package api

import (
	"reflect"
	"testing"
)

func TestMetadataAccessors(t *testing.T) {
	ann := map[string]interface{}{"a": "1", RestoreAnnotation(V1alpha2): "{}"}
	meta := map[string]interface{}{"annotations": ann, "labels": map[string]interface{}{"l": "x"}}
	for _, tc := range []struct {
		name          string
		obj           map[string]interface{}
		meta, ann     map[string]interface{}
		a             interface{}
		hasA, restore bool
	}{
		{"nil object", nil, nil, nil, nil, false, false},
		{"no metadata", map[string]interface{}{}, nil, nil, nil, false, false},
		{"null metadata", map[string]interface{}{"metadata": nil}, nil, nil, nil, false, false},
		{"metadata not an object", map[string]interface{}{"metadata": "x"}, nil, nil, nil, false, false},
		{"annotations not an object", map[string]interface{}{"metadata": map[string]interface{}{"annotations": []interface{}{}}},
			map[string]interface{}{"annotations": []interface{}{}}, nil, nil, false, false},
		{"annotations", map[string]interface{}{"metadata": meta}, meta, ann, "1", true, true},
	} {
		if got := Metadata(tc.obj); !reflect.DeepEqual(got, tc.meta) {
			t.Errorf("%s: Metadata = %v, want %v", tc.name, got, tc.meta)
		}
		if got := Annotations(tc.obj); !reflect.DeepEqual(got, tc.ann) {
			t.Errorf("%s: Annotations = %v, want %v", tc.name, got, tc.ann)
		}
		if got, ok := Annotations(tc.obj)["a"]; got != tc.a || ok != tc.hasA {
			t.Errorf("%s: Annotations[a] = %v, %v, want %v, %v", tc.name, got, ok, tc.a, tc.hasA)
		}
		if got := HasRestoreAnnotation(tc.obj); got != tc.restore {
			t.Errorf("%s: HasRestoreAnnotation = %v, want %v", tc.name, got, tc.restore)
		}
		if got := HasRestoreData(tc.obj, V1alpha1, V1alpha2); got != tc.restore {
			t.Errorf("%s: HasRestoreData = %v, want %v", tc.name, got, tc.restore)
		}
		if got := HasRestoreData(tc.obj, V1alpha3); got {
			t.Errorf("%s: HasRestoreData(v1alpha3) = true", tc.name)
		}
		if _, ok := RestoreData(tc.obj, V1alpha2); ok != tc.restore {
			t.Errorf("%s: RestoreData ok = %v, want %v", tc.name, ok, tc.restore)
		}
	}
	// The maps of the tree itself, not copies.
	obj := map[string]interface{}{"metadata": meta}
	Annotations(obj)["b"] = "2"
	if ann["b"] != "2" {
		t.Error("Annotations returned a copy")
	}
}

// TestPruneAnnotations deletes an annotation, then prunes.
func TestPruneAnnotations(t *testing.T) {
	for _, tc := range []struct {
		name    string
		meta    interface{}
		want    interface{}
		present bool // want metadata in obj
	}{
		{"no metadata", nil, nil, false},
		{"no annotations", map[string]interface{}{"name": "n"}, map[string]interface{}{"name": "n"}, true},
		{"annotations not an object", map[string]interface{}{"annotations": "x"}, map[string]interface{}{"annotations": "x"}, true},
		{"other annotations kept", map[string]interface{}{"annotations": map[string]interface{}{"k": "v", "o": "w"}},
			map[string]interface{}{"annotations": map[string]interface{}{"o": "w"}}, true},
		{"empty map removed", map[string]interface{}{"annotations": map[string]interface{}{"k": "v"}}, map[string]interface{}{}, true},
		{"an empty map removed too", map[string]interface{}{"annotations": map[string]interface{}{}}, map[string]interface{}{}, true},
	} {
		obj := map[string]interface{}{}
		if tc.meta != nil {
			obj["metadata"] = tc.meta
		}
		delete(Annotations(obj), "k")
		PruneAnnotations(obj)
		if got, ok := obj["metadata"]; ok != tc.present || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: metadata = %v, want %v", tc.name, got, tc.want)
		}
	}
}
