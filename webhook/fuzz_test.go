package webhook

import (
	"encoding/json"
	"net/http"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/claimbridge/claimbridge/api"
)

// FuzzConvertHandler feeds arbitrary bodies to /convert with the real
// converter. Whatever comes in, the handler answers 200, 400 or 413; a 200
// carries the request's uid and, on Success, one object per input object.
func FuzzConvertHandler(f *testing.F) {
	for _, rv := range []string{"apiextensions.k8s.io/v1", "apiextensions.k8s.io/v1beta1"} {
		for i, to := range versions {
			// One object per seed keeps inputs small for the mutator.
			f.Add(conversionReview(rv, "seed", api.Group+"/"+to, fixture(f, versions[(i+1)%3])))
		}
	}
	for _, s := range []string{
		``, `{}`, `null`, `[]`, `{"apiVersion":"apiextensions.k8s.io/v1","kind":"ConversionReview","request":{"uid":"u","objects":[null,1,"x",{}]}}`,
		`{"apiVersion":"apiextensions.k8s.io/v1","kind":"ConversionReview","request":{"uid":"u","desiredAPIVersion":"resource.claimbridge.dev/v1alpha1","objects":[{"apiVersion":"resource.claimbridge.dev/v1alpha3","kind":"ResourceClaim","metadata":[],"spec":1}]}}`,
		`[[[[[[[[[[[[[[[[`, "\xff\xfe",
	} {
		f.Add([]byte(s))
	}
	h := newTestConvertHandler(defaultConverter)
	f.Fuzz(func(t *testing.T, body []byte) {
		rec := post(h, body)
		switch rec.Code {
		case http.StatusBadRequest, http.StatusRequestEntityTooLarge:
			return
		case http.StatusOK:
		default:
			t.Fatalf("status %d: %s", rec.Code, rec.Body)
		}
		var in, out apiextensionsv1.ConversionReview
		if err := json.Unmarshal(body, &in); err != nil {
			t.Fatalf("200 for an undecodable review: %v", err)
		}
		if err := json.Unmarshal(rec.Body.Bytes(), &out); err != nil || out.Response == nil {
			t.Fatalf("undecodable response %v: %s", err, rec.Body)
		}
		if out.Response.UID != in.Request.UID || out.APIVersion != in.APIVersion {
			t.Fatalf("uid %q apiVersion %q, want %q %q", out.Response.UID, out.APIVersion, in.Request.UID, in.APIVersion)
		}
		switch out.Response.Result.Status {
		case metav1.StatusSuccess:
			if len(out.Response.ConvertedObjects) != len(in.Request.Objects) {
				t.Fatalf("%d objects for %d", len(out.Response.ConvertedObjects), len(in.Request.Objects))
			}
		case metav1.StatusFailure:
			if out.Response.Result.Message == "" {
				t.Fatal("Failure without a message")
			}
		default:
			t.Fatalf("result %+v", out.Response.Result)
		}
	})
}

// fuzzValidator denies objects without a name, so the fuzzer reaches both
// outcomes; the real validator is tested by its owners.
func fuzzValidator(r ValidationRequest) (ValidationResponse, error) {
	md, _ := r.Object["metadata"].(map[string]interface{})
	name, _ := md["name"].(string)
	if name != "" {
		return ValidationResponse{Warnings: []string{"ok"}}, nil
	}
	return ValidationResponse{Errors: field.ErrorList{field.Required(field.NewPath("metadata", "name"), "")}}, nil
}

// FuzzValidateHandler feeds arbitrary bodies to /validate. The handler
// answers 200, 400 or 413; a 200 echoes the uid and review version, and a
// denial carries a status with a code; a review encoding/json cannot decode
// gets a 200 only as a denial of code 400 echoing what its head names.
func FuzzValidateHandler(f *testing.F) {
	for _, rv := range []string{"admission.k8s.io/v1", "admission.k8s.io/v1beta1"} {
		for _, v := range versions {
			f.Add(admissionReview(rv, claimRequest(&testing.T{}, "CREATE", v, "")))
			f.Add(admissionReview(rv, claimRequest(&testing.T{}, "UPDATE", v, "status")))
		}
	}
	for _, s := range []string{
		``, `{}`, `[]`, `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u","operation":"CREATE","kind":{"group":"resource.claimbridge.dev","version":"v1alpha3","kind":"ResourceClaim"},"object":{}}}`,
		`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u","operation":"DELETE"}}`,
		`{{{{{{{{`, "\x00",
	} {
		f.Add([]byte(s))
	}
	h := newTestValidateHandler(fuzzValidator)
	f.Fuzz(func(t *testing.T, body []byte) {
		rec := post(h, body)
		switch rec.Code {
		case http.StatusBadRequest, http.StatusRequestEntityTooLarge:
			return
		case http.StatusOK:
		default:
			t.Fatalf("status %d: %s", rec.Code, rec.Body)
		}
		var in, out admissionv1.AdmissionReview
		if err := json.Unmarshal(rec.Body.Bytes(), &out); err != nil || out.Response == nil {
			t.Fatalf("undecodable response %v: %s", err, rec.Body)
		}
		if err := json.Unmarshal(body, &in); err != nil {
			// Denied with code 400, the uid and version from its head
			// (TestUndecodableReviewIsDenied), never admitted.
			head, ok := headOf(body)
			if r := out.Response; !ok || r.Allowed || r.Result == nil || r.Result.Code != http.StatusBadRequest ||
				string(r.UID) != head.uid || out.APIVersion != head.apiVersion {
				t.Fatalf("200 for an undecodable review (%v), not its head's denial: %s", err, rec.Body)
			}
			return
		}
		if out.Response.UID != in.Request.UID || out.APIVersion != in.APIVersion || out.Kind != "AdmissionReview" {
			t.Fatalf("uid %q review %s, want %q %s", out.Response.UID, out.APIVersion, in.Request.UID, in.APIVersion)
		}
		if !out.Response.Allowed && (out.Response.Result == nil || out.Response.Result.Code == 0) {
			t.Fatalf("denial without a status code: %s", rec.Body)
		}
	})
}
