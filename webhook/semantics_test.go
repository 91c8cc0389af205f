package webhook

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// TestConvertMalformedIsFailure: with the real converter, an object whose
// known fields have the wrong JSON type is a Failure naming the object and
// the field path, and nothing is converted.
func TestConvertMalformedIsFailure(t *testing.T) {
	good := []byte(`{"apiVersion":"` + Group + `/v1alpha2","kind":"ResourceClaim","metadata":{"name":"ok","namespace":"ns","uid":"u1"},"spec":{"resourceClassName":"gpu"}}`)
	bad := []byte(`{"apiVersion":"` + Group + `/v1alpha2","kind":"ResourceClaim","metadata":{"name":"bad","namespace":"ns","uid":"u2"},"spec":{"resourceClassName":"gpu"},"status":{"reservedFor":{"name":"pod"}}}`)
	out := decodeConversionResponse(t, post(newTestConvertHandler(defaultConverter), conversionReview("apiextensions.k8s.io/v1", "uid-m", Group+"/v1alpha3", good, bad)))
	r := out.Response
	if r.Result.Status != metav1.StatusFailure || len(r.ConvertedObjects) != 0 {
		t.Fatalf("got %+v, want a Failure without objects", r)
	}
	for _, want := range []string{"objects[1] ResourceClaim ns/bad", "status.reservedFor must be an array, not an object"} {
		if !strings.Contains(r.Result.Message, want) {
			t.Errorf("message %q does not contain %q", r.Result.Message, want)
		}
	}
}

// TestValidateStorageWarnings: with the real validator, a v1alpha2 write
// whose parametersRef the stored v1alpha3 object cannot carry to 1.31
// consumers is allowed with an admission warning; a plain one gets none.
func TestValidateStorageWarnings(t *testing.T) {
	request := func(spec string) admissionv1.AdmissionRequest {
		return admissionv1.AdmissionRequest{
			UID:      "req-w",
			Kind:     metav1.GroupVersionKind{Group: Group, Version: "v1alpha2", Kind: "ResourceClaim"},
			Resource: metav1.GroupVersionResource{Group: Group, Version: "v1alpha2", Resource: "resourceclaims"},
			Name:     "c", Namespace: "ns", Operation: admissionv1.Create,
			Object: runtime.RawExtension{Raw: []byte(`{"apiVersion":"` + Group + `/v1alpha2","kind":"ResourceClaim","metadata":{"name":"c","namespace":"ns"},"spec":` + spec + `}`)},
		}
	}
	h := newTestValidateHandler(defaultValidator)
	for name, c := range map[string]struct {
		spec string
		want []string
	}{
		"parametersRef": {
			spec: `{"resourceClassName":"gpu","allocationMode":"WaitForFirstConsumer","parametersRef":{"apiGroup":"resource.k8s.io","kind":"ResourceClaimParameters","name":"p"}}`,
			want: []string{`stored as v1alpha3: spec.parametersRef: ResourceClaimParameters have no v1alpha3 equivalent: a 1.31 scheduler allocates one device of class "gpu" without the parameters' selectors and counts`},
		},
		"plain": {spec: `{"resourceClassName":"gpu","allocationMode":"WaitForFirstConsumer"}`},
	} {
		t.Run(name, func(t *testing.T) {
			r := decodeAdmissionResponse(t, post(h, admissionReview("admission.k8s.io/v1", request(c.spec)))).Response
			if !r.Allowed {
				t.Fatalf("denied: %+v", r.Result)
			}
			if diff := cmp.Diff(c.want, r.Warnings); diff != "" {
				t.Errorf("warnings (-want +got):\n%s", diff)
			}
		})
	}
}
