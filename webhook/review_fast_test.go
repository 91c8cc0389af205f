package webhook

import (
	"reflect"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

// TestDecodeCanonicalConversionReview: a review in the apiserver's shape
// decodes to what encoding/json decodes, objects included; every other shape
// is left to encoding/json.
func TestDecodeCanonicalConversionReview(t *testing.T) {
	obj := fixture(t, "v1alpha3")
	for _, tc := range []struct {
		name string
		body string
		ok   bool
	}{
		{"apiserver shape v1", string(conversionReview("apiextensions.k8s.io/v1", "u1", Group+"/v1alpha1", obj)), true},
		{"apiserver shape v1beta1, two objects", string(conversionReview("apiextensions.k8s.io/v1beta1", "u1", Group+"/v1alpha2", obj, obj)), true},
		{"no objects key", `{"kind":"ConversionReview","apiVersion":"apiextensions.k8s.io/v1","request":{"uid":"u","desiredAPIVersion":"x"}}`, false},
		{"capitalised key", `{"Kind":"ConversionReview","apiVersion":"apiextensions.k8s.io/v1","request":{"uid":"u","desiredAPIVersion":"x","objects":[]}}`, false},
		{"extra key", `{"kind":"ConversionReview","apiVersion":"apiextensions.k8s.io/v1","request":{"uid":"u","desiredAPIVersion":"x","objects":[]},"response":{}}`, false},
		{"empty uid", `{"kind":"ConversionReview","apiVersion":"apiextensions.k8s.io/v1","request":{"uid":"","desiredAPIVersion":"x","objects":[]}}`, false},
		{"object not an object", `{"kind":"ConversionReview","apiVersion":"apiextensions.k8s.io/v1","request":{"uid":"u","desiredAPIVersion":"x","objects":[null]}}`, false},
		{"wrong review version", `{"kind":"ConversionReview","apiVersion":"v1","request":{"uid":"u","desiredAPIVersion":"x","objects":[]}}`, false},
		{"uid not a string", `{"kind":"ConversionReview","apiVersion":"apiextensions.k8s.io/v1","request":{"uid":1,"desiredAPIVersion":"x","objects":[]}}`, false},
		{"malformed", `{"kind":`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			review, decoded, ok := decodeCanonicalConversionReview([]byte(tc.body))
			if ok != tc.ok {
				t.Fatalf("ok = %v, want %v", ok, tc.ok)
			}
			if !ok {
				return
			}
			var want apiextensionsv1.ConversionReview
			if herr := decodeConversionReview([]byte(tc.body), &want); herr != nil {
				t.Fatalf("encoding/json rejects it: %v", herr)
			}
			if review.TypeMeta != want.TypeMeta || review.Request.UID != want.Request.UID ||
				review.Request.DesiredAPIVersion != want.Request.DesiredAPIVersion || len(review.Request.Objects) != len(want.Request.Objects) {
				t.Fatalf("review %+v, encoding/json %+v", review, want)
			}
			for i, o := range want.Request.Objects {
				wantObj, err := decodeObject(o.Raw)
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(decoded[i], wantObj) {
					t.Errorf("objects[%d] = %v, want %v", i, decoded[i], wantObj)
				}
			}
		})
	}
}
