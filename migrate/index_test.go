package migrate

import (
	"testing"

	"github.com/claimbridge/claimbridge/api"
)

// TestIndexFindsTheFirstMatchInInputOrder: find names the object a claim's
// parametersRef refers to, directly or through generatedFrom, the first in
// the input when several match, as the linear scan it replaced did.
func TestIndexFindsTheFirstMatchInInputOrder(t *testing.T) {
	params := func(name string, generatedFrom map[string]interface{}) map[string]interface{} {
		o := map[string]interface{}{"apiVersion": parametersAPI, "kind": api.KindClaimParameters,
			"metadata": map[string]interface{}{"name": name, "namespace": "ns"}}
		if generatedFrom != nil {
			o["generatedFrom"] = generatedFrom
		}
		return o
	}
	vendor := map[string]interface{}{"apiGroup": "gpu.example.com", "kind": "GpuClaimParameters", "name": "two-gpus"}
	generated := params("generated", vendor)
	direct := params("two-gpus", nil)
	again := params("generated-again", vendor)
	class := map[string]interface{}{"apiVersion": parametersAPI, "kind": api.KindResourceClass, "metadata": map[string]interface{}{"name": "gpu"}}
	class26 := map[string]interface{}{"apiVersion": "resource.k8s.io/v1alpha1", "kind": api.KindResourceClass, "metadata": map[string]interface{}{"name": "old"}}
	var x Index
	for _, o := range []map[string]interface{}{generated, direct, again, class, class26} {
		x.Add(o)
	}
	for _, c := range []struct {
		name      string
		namespace string
		ref       map[string]interface{}
		want      map[string]interface{}
	}{
		{"through generatedFrom, the first of two", "ns", vendor, generated},
		{"directly", "ns", map[string]interface{}{"apiGroup": "resource.k8s.io", "kind": api.KindClaimParameters, "name": "two-gpus"}, direct},
		{"directly, the generated one by its own name", "ns", map[string]interface{}{"apiGroup": "resource.k8s.io", "kind": api.KindClaimParameters, "name": "generated"}, generated},
		{"another namespace", "other", vendor, nil},
		{"another vendor kind", "ns", map[string]interface{}{"apiGroup": "gpu.example.com", "kind": "Other", "name": "two-gpus"}, nil},
	} {
		if got := x.find(api.KindClaimParameters, c.namespace, c.ref); !sameObject(got, c.want) {
			t.Errorf("%s: found %v, want %v", c.name, got, c.want)
		}
	}
	if x.class("gpu")["kind"] != api.KindResourceClass || x.class("old") != nil || x.anyClass("old")["apiVersion"] != "resource.k8s.io/v1alpha1" {
		t.Errorf("class lookups: %v %v %v", x.class("gpu"), x.class("old"), x.anyClass("old"))
	}
	var none *Index
	if none.find(api.KindClaimParameters, "ns", vendor) != nil || none.class("gpu") != nil || none.anyClass("gpu") != nil {
		t.Error("a nil index finds something")
	}
}

func sameObject(a, b map[string]interface{}) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return api.Metadata(a)["name"] == api.Metadata(b)["name"]
}
