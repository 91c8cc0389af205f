package conversion_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/randfill"

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
	var obj interface{}
	kind := conversion.KindClaim
	if template {
		kind = conversion.KindTemplate
	}
	switch version + "/" + kind {
	case "v1alpha1/ResourceClaim":
		o := &v1alpha1.ResourceClaim{}
		f.Fill(o)
		obj = o
	case "v1alpha2/ResourceClaim":
		o := &v1alpha2.ResourceClaim{}
		f.Fill(o)
		obj = o
	case "v1alpha3/ResourceClaim":
		o := &v1alpha3.ResourceClaim{}
		f.Fill(o)
		obj = o
	case "v1alpha1/ResourceClaimTemplate":
		o := &v1alpha1.ResourceClaimTemplate{}
		f.Fill(o)
		o.Spec.ObjectMeta = templateMeta(o.Spec.ObjectMeta)
		obj = o
	case "v1alpha2/ResourceClaimTemplate":
		o := &v1alpha2.ResourceClaimTemplate{}
		f.Fill(o)
		o.Spec.ObjectMeta = templateMeta(o.Spec.ObjectMeta)
		obj = o
	case "v1alpha3/ResourceClaimTemplate":
		o := &v1alpha3.ResourceClaimTemplate{}
		f.Fill(o)
		o.Spec.ObjectMeta = templateMeta(o.Spec.ObjectMeta)
		obj = o
	}
	m := toTree(t, obj)
	m["apiVersion"] = conversion.Group + "/" + version
	m["kind"] = kind
	return m
}

// templateMeta keeps what the generated schema has for an embedded
// ObjectMeta (labels, annotations, name, namespace, finalizers).
func templateMeta(m metav1.ObjectMeta) metav1.ObjectMeta {
	return metav1.ObjectMeta{Labels: m.Labels, Annotations: m.Annotations}
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
// converted objects into strictly.
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
	}
	panic("unknown " + version + "/" + kind)
}

// rng returns a seeded source so that failures reproduce.
func rng(seed int64) *rand.Rand { return rand.New(rand.NewSource(seed)) }
