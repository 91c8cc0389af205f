package webhook

import (
	"bytes"
	"net/http/httptest"
	"testing"

	"github.com/go-logr/logr"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// TestWriteConversionIsMarshal: /convert answers byte for byte what
// json.Marshal makes of the review (goldens and fingerprints depend on
// it), HTML and line separators escaped alike, also when the uid spells
// the field the converted objects are written into.
func TestWriteConversionIsMarshal(t *testing.T) {
	tm := metav1.TypeMeta{Kind: "ConversionReview", APIVersion: "apiextensions.k8s.io/v1beta1"}
	converted := [][]byte{mustJSON(map[string]any{"a": "<b>&\u2028", "n": 1}), []byte(`{}`)}
	tests := map[string]struct {
		objects [][]byte
		result  metav1.Status
	}{
		"converted": {objects: converted, result: metav1.Status{Status: metav1.StatusSuccess}},
		"no-object": {objects: [][]byte{}, result: metav1.Status{Status: metav1.StatusSuccess}},
		"failure":   {result: failure("objects[0] is <empty> & \u2029")},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			resp := apiextensionsv1.ConversionResponse{UID: `u"convertedObjects":null<&>`, Result: tc.result}
			rec := httptest.NewRecorder()
			writeConversion(rec, logr.Discard(), tm, &resp, tc.objects)
			if tc.objects != nil {
				resp.ConvertedObjects = []runtime.RawExtension{}
			}
			for _, o := range tc.objects {
				resp.ConvertedObjects = append(resp.ConvertedObjects, runtime.RawExtension{Raw: o})
			}
			if want := mustJSON(&apiextensionsv1.ConversionReview{TypeMeta: tm, Response: &resp}); !bytes.Equal(rec.Body.Bytes(), want) {
				t.Errorf("got  %s\nwant %s", rec.Body, want)
			}
		})
	}
}
