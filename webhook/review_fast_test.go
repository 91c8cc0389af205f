package webhook

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/claimbridge/claimbridge/api"
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
		{"apiserver's empty response", `{"kind":"ConversionReview","apiVersion":"apiextensions.k8s.io/v1","request":{"uid":"u","desiredAPIVersion":"x","objects":[]},"response":{"uid":"","convertedObjects":null,"result":{"metadata":{}}}}`, true},
		{"response {}", `{"kind":"ConversionReview","apiVersion":"apiextensions.k8s.io/v1","request":{"uid":"u","desiredAPIVersion":"x","objects":[]},"response":{}}`, true},
		{"no request, response", `{"kind":"ConversionReview","apiVersion":"apiextensions.k8s.io/v1","response":{},"x":{}}`, false},
		{"response with a uid", `{"kind":"ConversionReview","apiVersion":"apiextensions.k8s.io/v1","request":{"uid":"u","desiredAPIVersion":"x","objects":[]},"response":{"uid":"u"}}`, false},
		{"response with objects", `{"kind":"ConversionReview","apiVersion":"apiextensions.k8s.io/v1","request":{"uid":"u","desiredAPIVersion":"x","objects":[]},"response":{"convertedObjects":[]}}`, false},
		{"response with a status", `{"kind":"ConversionReview","apiVersion":"apiextensions.k8s.io/v1","request":{"uid":"u","desiredAPIVersion":"x","objects":[]},"response":{"result":{"status":"Success"}}}`, false},
		{"response with metadata", `{"kind":"ConversionReview","apiVersion":"apiextensions.k8s.io/v1","request":{"uid":"u","desiredAPIVersion":"x","objects":[]},"response":{"result":{"metadata":{"x":1}}}}`, false},
		{"response not an object", `{"kind":"ConversionReview","apiVersion":"apiextensions.k8s.io/v1","request":{"uid":"u","desiredAPIVersion":"x","objects":[]},"response":5}`, false},
		{"extra key", `{"kind":"ConversionReview","apiVersion":"apiextensions.k8s.io/v1","request":{"uid":"u","desiredAPIVersion":"x","objects":[]},"other":{}}`, false},
		{"empty uid", `{"kind":"ConversionReview","apiVersion":"apiextensions.k8s.io/v1","request":{"uid":"","desiredAPIVersion":"x","objects":[]}}`, false},
		{"object not an object", `{"kind":"ConversionReview","apiVersion":"apiextensions.k8s.io/v1","request":{"uid":"u","desiredAPIVersion":"x","objects":[null]}}`, false},
		{"wrong review version", `{"kind":"ConversionReview","apiVersion":"v1","request":{"uid":"u","desiredAPIVersion":"x","objects":[]}}`, false},
		{"uid not a string", `{"kind":"ConversionReview","apiVersion":"apiextensions.k8s.io/v1","request":{"uid":1,"desiredAPIVersion":"x","objects":[]}}`, false},
		{"malformed", `{"kind":`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			review, decoded, ok := decodeCanonicalConversionReview([]byte(tc.body), maxTreeDepth, nil)
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

// TestDecodeCanonicalAdmissionReview: a review in the apiserver's shape
// decodes to what encoding/json decodes, objects and options included;
// every other shape is left to encoding/json.
func TestDecodeCanonicalAdmissionReview(t *testing.T) {
	full := claimRequest(t, admissionv1.Update, "v1alpha3", "status")
	full.RequestKind = &metav1.GroupVersionKind{Group: api.Group, Version: "v1alpha1", Kind: "ResourceClaim"}
	full.RequestResource = &metav1.GroupVersionResource{Group: api.Group, Version: "v1alpha1", Resource: "resourceclaims"}
	full.RequestSubResource = "status"
	dry := true
	full.DryRun = &dry
	full.Options = runtime.RawExtension{Raw: []byte(`{"kind":"UpdateOptions","apiVersion":"meta.k8s.io/v1","fieldManager":"kube-scheduler"}`)}
	full.UserInfo = authenticationv1.UserInfo{Username: "system:kube-scheduler", UID: "u-1", Groups: []string{"system:authenticated"},
		Extra: map[string]authenticationv1.ExtraValue{"scopes.example.com": {"a", "b"}, "empty": nil}}
	const head = `{"kind":"AdmissionReview","apiVersion":"admission.k8s.io/v1","request":`
	for _, tc := range []struct {
		name string
		body string
		ok   bool
	}{
		{"create v1", string(admissionReview("admission.k8s.io/v1", claimRequest(t, admissionv1.Create, "v1alpha1", ""))), true},
		{"status update v1beta1, every field", string(admissionReview("admission.k8s.io/v1beta1", full)), true},
		{"delete without objects", head + `{"uid":"u","kind":{"group":"g","version":"v","kind":"K"},"resource":{"group":"g","version":"v","resource":"r"},"operation":"DELETE","userInfo":{},"object":null,"oldObject":null,"options":null,"dryRun":false}}`, true},
		{"null extra and groups", head + `{"uid":"u","operation":"CREATE","userInfo":{"groups":null,"extra":null},"object":{}}}`, true},
		{"capitalised key", head + `{"UID":"u","operation":"CREATE","object":{}}}`, false},
		{"unknown key", head + `{"uid":"u","operation":"CREATE","object":{},"future":1}}`, false},
		{"null string", head + `{"uid":"u","operation":null,"object":{}}}`, false},
		{"object not an object", head + `{"uid":"u","operation":"CREATE","object":[1]}}`, false},
		{"options not an object", head + `{"uid":"u","operation":"CREATE","object":{},"options":"x"}}`, false},
		{"extra value not a list", head + `{"uid":"u","operation":"CREATE","object":{},"userInfo":{"extra":{"a":"b"}}}}`, false},
		{"kind with a number", head + `{"uid":"u","operation":"CREATE","object":{},"kind":{"group":1}}}`, false},
		{"no uid", head + `{"operation":"CREATE","object":{}}}`, false},
		{"response too", `{"kind":"AdmissionReview","apiVersion":"admission.k8s.io/v1","request":{"uid":"u"},"response":{}}`, false},
		{"wrong review kind", `{"kind":"ConversionReview","apiVersion":"admission.k8s.io/v1","request":{"uid":"u"}}`, false},
		{"too deep", head + `{"uid":"u","operation":"CREATE","object":{"a":` + strings.Repeat("[", 40) + strings.Repeat("]", 40) + `}}}`, false},
		{"malformed", `{"kind":`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			review, ok := decodeCanonicalAdmissionReview([]byte(tc.body), 32)
			if ok != tc.ok {
				t.Fatalf("ok = %v, want %v", ok, tc.ok)
			}
			if ok {
				compareAdmissionDecodings(t, []byte(tc.body), review)
			}
		})
	}
}

// compareAdmissionDecodings fails unless review is what the slow path
// decodes from body, with objects and options compared as JSON values.
func compareAdmissionDecodings(t *testing.T, body []byte, review admissionv1.AdmissionReview) {
	t.Helper()
	var want admissionv1.AdmissionReview
	if herr := decodeAdmissionReview(body, &want); herr != nil {
		t.Fatalf("encoding/json rejects it: %v", herr)
	}
	got := *review.Request
	for _, pair := range []struct {
		name      string
		got, want *runtime.RawExtension
	}{{"object", &got.Object, &want.Request.Object}, {"oldObject", &got.OldObject, &want.Request.OldObject}} {
		tree, decoded := decodedTree(*pair.got)
		switch {
		case pair.want.Raw == nil && pair.got.Object == nil && pair.got.Raw == nil:
		case !decoded:
			t.Errorf("%s: no decoded tree: %+v", pair.name, *pair.got)
		default:
			wantTree, err := decodeObject(pair.want.Raw)
			if err != nil || !reflect.DeepEqual(tree, wantTree) {
				t.Errorf("%s = %v, want %v (%v)", pair.name, tree, wantTree, err)
			}
		}
		*pair.got, *pair.want = runtime.RawExtension{}, runtime.RawExtension{}
	}
	var gotOpts, wantOpts interface{}
	_ = json.Unmarshal(got.Options.Raw, &gotOpts)
	_ = json.Unmarshal(want.Request.Options.Raw, &wantOpts)
	if !reflect.DeepEqual(gotOpts, wantOpts) {
		t.Errorf("options = %s, want %s", got.Options.Raw, want.Request.Options.Raw)
	}
	got.Options, want.Request.Options = runtime.RawExtension{}, runtime.RawExtension{}
	if review.TypeMeta != want.TypeMeta || !reflect.DeepEqual(got, *want.Request) {
		t.Errorf("review\n%+v\nencoding/json\n%+v", got, *want.Request)
	}
}

// FuzzDecodeCanonicalAdmissionReview: whatever the one-pass decoding
// accepts, encoding/json decodes to the same review.
func FuzzDecodeCanonicalAdmissionReview(f *testing.F) {
	f.Add(admissionReview("admission.k8s.io/v1", claimRequest(&testing.T{}, admissionv1.Update, "v1alpha2", "status")))
	f.Add([]byte(`{"kind":"AdmissionReview","apiVersion":"admission.k8s.io/v1","request":{"uid":"u","userInfo":{"extra":{"a":["b"]}},"object":{}}}`))
	// Short reviews with every member the apiserver writes, so that the
	// mutator works on texts whose members it can copy and repeat.
	const h = `{"kind":"AdmissionReview","apiVersion":"admission.k8s.io/v1","request":`
	for _, r := range []string{
		`{"uid":"u","kind":{"group":"g","version":"v","kind":"K"},"resource":{"group":"g","version":"v","resource":"r"},"subResource":"","requestKind":{"group":"g"},"requestResource":{"resource":"r"},"requestSubResource":"s","name":"n","namespace":"ns","operation":"UPDATE","userInfo":{"username":"a","uid":"b","groups":["g"],"extra":{"k":["v"]}},"object":{"a":1},"oldObject":{"b":2},"dryRun":true,"options":{"o":1}}`,
		`{"uid":"u","userInfo":{"username":"a"},"object":null}`,
	} {
		f.Add([]byte(h + r + `}`))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		if review, ok := decodeCanonicalAdmissionReview(body, 64); ok {
			compareAdmissionDecodings(t, body, review)
		}
	})
}
