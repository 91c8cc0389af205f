package common

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	apiv3 "github.com/claimbridge/claimbridge/api/v1alpha3"
)

// The field-for-field shortcut of ValidateImmutableField changes no
// finding: between every pair of the values below (equal, equal only
// semantically — the same quantity or time written differently, nil and
// empty — and different) it reports what the semantic comparison alone
// reports, and both outcomes and both paths occur.
func TestImmutableFieldShortcut(t *testing.T) {
	alloc := func(device string, selector *corev1.NodeSelector, params []byte) *apiv3.AllocationResult {
		a := &apiv3.AllocationResult{NodeSelector: selector}
		a.Devices.Results = []apiv3.DeviceRequestAllocationResult{{Request: "gpu", Driver: "gpu.example.com", Pool: "node-3", Device: device}}
		if params != nil {
			a.Devices.Config = []apiv3.DeviceAllocationConfiguration{{Source: "FromClaim", Requests: []string{"gpu"},
				DeviceConfiguration: apiv3.DeviceConfiguration{Opaque: &apiv3.OpaqueDeviceConfiguration{Driver: "gpu.example.com",
					Parameters: runtime.RawExtension{Raw: params}}}}}
		}
		return a
	}
	term := func(values []string) *corev1.NodeSelector {
		return &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchFields: []corev1.NodeSelectorRequirement{
			{Key: "metadata.name", Operator: corev1.NodeSelectorOpIn, Values: values}}}}}
	}
	type withQuantity struct {
		Q    resource.Quantity
		T    metav1.Time
		List []string
	}
	when := metav1.Date(2024, 10, 1, 0, 0, 0, 0, metav1.Now().UTC().Location())
	values := [][]interface{}{
		{
			alloc("gpu-0", nil, nil), alloc("gpu-0", nil, nil), alloc("gpu-1", nil, nil),
			alloc("gpu-0", term([]string{"node-3"}), nil), alloc("gpu-0", term([]string{"node-3"}), nil),
			alloc("gpu-0", term(nil), nil), alloc("gpu-0", term([]string{}), nil),
			alloc("gpu-0", nil, []byte(`{"a":1}`)), alloc("gpu-0", nil, []byte(`{"a":1}`)), alloc("gpu-0", nil, []byte(`{"a":2}`)),
		},
		{
			withQuantity{Q: resource.MustParse("1Gi")}, withQuantity{Q: resource.MustParse("1024Mi")},
			withQuantity{Q: resource.MustParse("1Gi")}, withQuantity{Q: resource.MustParse("2Gi")},
			withQuantity{T: when}, withQuantity{T: metav1.NewTime(when.Local())},
			withQuantity{List: nil}, withQuantity{List: []string{}}, withQuantity{List: []string{"x"}},
		},
	}
	path := field.NewPath("status", "allocation")
	count := map[string]int{}
	for _, set := range values {
		for i, a := range set {
			for j, b := range set {
				var want field.ErrorList
				if !apiequality.Semantic.DeepEqual(b, a) {
					want = field.ErrorList{field.Invalid(path, a, FieldImmutableErrorMsg)}
				}
				got := ValidateImmutableField(a, b, path)
				if diff := cmp.Diff(fmt.Sprint(want), fmt.Sprint(got)); diff != "" {
					t.Errorf("%T %d vs %d (-semantic only +with shortcut):\n%s", a, i, j, diff)
				}
				count[fmt.Sprintf("equal %v, field for field %v", len(want) == 0, reflect.DeepEqual(a, b))]++
			}
		}
	}
	for _, k := range []string{"equal true, field for field true", "equal true, field for field false", "equal false, field for field false"} {
		if count[k] == 0 {
			t.Errorf("no pair with %s; the test no longer tests what it says (%v)", k, count)
		}
	}
}
