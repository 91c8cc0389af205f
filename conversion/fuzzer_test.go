package conversion_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"

	resourcev1 "k8s.io/api/resource/v1"
	resourcev1beta1 "k8s.io/api/resource/v1beta1"
	resourcev1beta2 "k8s.io/api/resource/v1beta2"
	apiresource "k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/randfill"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/api/v1alpha1"
	"github.com/claimbridge/claimbridge/api/v1alpha2"
	"github.com/claimbridge/claimbridge/api/v1alpha3"
	"github.com/claimbridge/claimbridge/conversion"
)

// newFiller returns a filler for random objects of every version. Each custom
// function says why it constrains a field.
func newFiller(seed int64) *randfill.Filler {
	return randfill.NewWithSeed(seed).NilChance(0.25).NumElements(0, 3).MaxDepth(12).Funcs(
		// TypeMeta is set by the caller to the object's real kind.
		func(*metav1.TypeMeta, randfill.Continue) {},
		// Conversion only ever touches annotations; a small, realistic
		// ObjectMeta keeps the generated schema pruning-clean (the apiserver
		// owns the other fields) and the annotations free of the keys
		// conversion itself writes.
		func(m *metav1.ObjectMeta, c randfill.Continue) {
			m.Name = fmt.Sprintf("claim-%d", c.Intn(1000))
			m.Namespace = "ns"
			m.UID = types.UID(fmt.Sprintf("uid-%d", c.Intn(1000)))
			m.ResourceVersion = fmt.Sprint(c.Intn(100000))
			if c.Bool() {
				m.Labels = map[string]string{"app": c.String(8)}
			}
			if c.Bool() {
				m.Annotations = map[string]string{"example.com/note": c.String(20)}
			}
			if c.Intn(5) == 0 {
				now := metav1.Unix(int64(c.Intn(1<<30)), 0)
				m.DeletionTimestamp = &now
				m.Finalizers = []string{"example.com/protect"}
			}
		},
		// Quantities and times have unexported state; random valid values
		// in their JSON form are what conversion sees.
		func(q *apiresource.Quantity, c randfill.Continue) {
			*q = apiresource.MustParse(fmt.Sprintf("%dMi", c.Intn(1000)))
		},
		func(tm *metav1.Time, c randfill.Continue) {
			*tm = metav1.Unix(int64(c.Intn(1<<30)), 0)
		},
		// RawExtension holds JSON: an object (the only kind the CRD schema
		// and v1alpha3 accept), or nothing.
		func(r *runtime.RawExtension, c randfill.Continue) {
			if c.Intn(3) == 0 {
				return
			}
			obj := map[string]interface{}{"apiVersion": "example.com/v1", "kind": "Params"}
			for i := c.Intn(3); i > 0; i-- {
				obj[c.String(5)] = c.Intn(100)
			}
			if c.Bool() {
				obj["nested"] = map[string]interface{}{"list": []interface{}{c.String(3), true, 1.5}}
			}
			r.Raw, _ = json.Marshal(obj)
		},
		// Opaque handle data is often JSON, sometimes not.
		func(h *v1alpha2.ResourceHandle, c randfill.Continue) {
			c.FillNoCustom(h)
			switch c.Intn(3) {
			case 0:
				h.Data = fmt.Sprintf(`{"device":%q,"n":%d}`, c.String(6), c.Intn(10))
			case 1:
				h.Data = ""
			}
			if h.StructuredData != nil && c.Bool() {
				h.Data = "" // usually exclusive, as upstream validation demands
			}
		},
		// v1alpha3 results often reuse the generated names; random names are
		// allowed too (conversion never validates).
		func(r *v1alpha3.DeviceRequestAllocationResult, c randfill.Continue) {
			c.FillNoCustom(r)
			if c.Bool() {
				r.Device = fmt.Sprintf("%s%d", conversion.HandleDevicePrefix, c.Intn(3))
			}
			if c.Bool() {
				r.Driver = "gpu.example.com"
			}
		},
		func(s *v1alpha3.DeviceAllocationConfiguration, c randfill.Continue) {
			c.FillNoCustom(s)
			if c.Bool() {
				s.Source = v1alpha3.AllocationConfigSource([]string{"FromClaim", "FromClass"}[c.Intn(2)])
			}
			if s.Opaque != nil && c.Bool() {
				s.Opaque.Driver = "gpu.example.com"
			}
		},
	)
}

// randomObject returns a random claim or template of the version as a JSON
// tree, as the apiserver or a manifest would hold it.
func randomObject(t testing.TB, f *randfill.Filler, version string, template bool) map[string]interface{} {
	t.Helper()
	kind := api.KindClaim
	if template {
		kind = api.KindTemplate
	}
	obj := typedFor(version, kind)
	f.Fill(obj)
	m := toTree(t, obj)
	if template {
		// The generated schema of an embedded ObjectMeta has labels and
		// annotations only.
		spec := m["spec"].(map[string]interface{})
		meta, _ := spec["metadata"].(map[string]interface{})
		kept := map[string]interface{}{}
		for _, k := range []string{"labels", "annotations"} {
			if v, ok := meta[k]; ok {
				kept[k] = v
			}
		}
		spec["metadata"] = kept
	}
	group := api.Group
	if isGA(version) {
		group = api.UpstreamGroup
	}
	m["apiVersion"] = group + "/" + version
	m["kind"] = kind
	return m
}

// isGA reports whether version is one of upstream's 1.32+ versions.
func isGA(version string) bool {
	for _, v := range api.UpstreamOnlyVersions {
		if v == version {
			return true
		}
	}
	return false
}

func toTree(t testing.TB, obj interface{}) map[string]interface{} {
	t.Helper()
	data, err := json.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	return decodeTree(t, data)
}

func decodeTree(t testing.TB, data []byte) map[string]interface{} {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var m map[string]interface{}
	if err := dec.Decode(&m); err != nil {
		t.Fatalf("decoding %s: %v", data, err)
	}
	return m
}

// typedFor returns an empty typed object of the version and kind, to decode
// converted objects into strictly: claimbridge's types for the alpha
// versions, k8s.io/api v0.36 for v1beta1, v1beta2 and v1.
func typedFor(version, kind string) interface{} {
	switch version + "/" + kind {
	case "v1alpha1/ResourceClaim":
		return &v1alpha1.ResourceClaim{}
	case "v1alpha2/ResourceClaim":
		return &v1alpha2.ResourceClaim{}
	case "v1alpha3/ResourceClaim":
		return &v1alpha3.ResourceClaim{}
	case "v1alpha1/ResourceClaimTemplate":
		return &v1alpha1.ResourceClaimTemplate{}
	case "v1alpha2/ResourceClaimTemplate":
		return &v1alpha2.ResourceClaimTemplate{}
	case "v1alpha3/ResourceClaimTemplate":
		return &v1alpha3.ResourceClaimTemplate{}
	case "v1beta1/ResourceClaim":
		return &resourcev1beta1.ResourceClaim{}
	case "v1beta2/ResourceClaim":
		return &resourcev1beta2.ResourceClaim{}
	case "v1/ResourceClaim":
		return &resourcev1.ResourceClaim{}
	case "v1beta1/ResourceClaimTemplate":
		return &resourcev1beta1.ResourceClaimTemplate{}
	case "v1beta2/ResourceClaimTemplate":
		return &resourcev1beta2.ResourceClaimTemplate{}
	case "v1/ResourceClaimTemplate":
		return &resourcev1.ResourceClaimTemplate{}
	}
	panic("unknown " + version + "/" + kind)
}
