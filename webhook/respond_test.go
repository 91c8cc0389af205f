package webhook

import (
	"encoding/json"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
)

// TestAppendConversionReviewMatchesMarshal: the hand-written success
// response is byte for byte json.Marshal's.
func TestAppendConversionReviewMatchesMarshal(t *testing.T) {
	obj := []byte(`{"apiVersion":"resource.claimbridge.dev/v1alpha1","kind":"ResourceClaim","metadata":{"annotations":{"a":"\u003cx\u0026y\u003e"},"name":"c"}}`)
	for name, tc := range map[string]struct {
		tm      metav1.TypeMeta
		uid     types.UID
		objects []runtime.RawExtension
	}{
		"v1 one object":    {metav1.TypeMeta{Kind: "ConversionReview", APIVersion: "apiextensions.k8s.io/v1"}, "uid-1", []runtime.RawExtension{{Raw: obj}}},
		"v1beta1 two":      {metav1.TypeMeta{Kind: "ConversionReview", APIVersion: "apiextensions.k8s.io/v1beta1"}, "<&>\u2028", []runtime.RawExtension{{Raw: obj}, {Raw: obj}}},
		"no objects":       {metav1.TypeMeta{Kind: "ConversionReview", APIVersion: "apiextensions.k8s.io/v1"}, "u", []runtime.RawExtension{}},
		"nil objects":      {metav1.TypeMeta{Kind: "ConversionReview"}, "u", nil},
		"empty type meta":  {metav1.TypeMeta{}, "", []runtime.RawExtension{{Raw: obj}}},
		"api version only": {metav1.TypeMeta{APIVersion: "apiextensions.k8s.io/v1"}, "u", []runtime.RawExtension{{Raw: obj}}},
	} {
		t.Run(name, func(t *testing.T) {
			want, err := json.Marshal(&apiextensionsv1.ConversionReview{TypeMeta: tc.tm, Response: &apiextensionsv1.ConversionResponse{
				UID: tc.uid, ConvertedObjects: tc.objects, Result: metav1.Status{Status: metav1.StatusSuccess},
			}})
			if err != nil {
				t.Fatal(err)
			}
			if got := appendConversionReview(nil, tc.tm, tc.uid, tc.objects); string(got) != string(want) {
				t.Errorf("appendConversionReview = %s\njson.Marshal = %s", got, want)
			}
		})
	}
}
