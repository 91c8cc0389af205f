package webhook

import (
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	admissionv1 "k8s.io/api/admission/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/claimbridge/claimbridge/api"
)

func claimRequest(t *testing.T, op admissionv1.Operation, version, subResource string) admissionv1.AdmissionRequest {
	obj := fixture(t, version)
	req := admissionv1.AdmissionRequest{
		UID:         "req-uid",
		Kind:        metav1.GroupVersionKind{Group: api.Group, Version: version, Kind: "ResourceClaim"},
		Resource:    metav1.GroupVersionResource{Group: api.Group, Version: version, Resource: "resourceclaims"},
		SubResource: subResource,
		Name:        "claim", Namespace: "ns",
		Operation: op,
		UserInfo:  authenticationv1.UserInfo{Username: "alice"},
		Object:    runtime.RawExtension{Raw: obj},
	}
	if op == admissionv1.Update {
		req.OldObject = runtime.RawExtension{Raw: obj}
	}
	return req
}

func TestValidateHandlerDenial(t *testing.T) {
	errs := field.ErrorList{
		field.Required(field.NewPath("spec", "devices", "requests").Index(0).Child("name"), ""),
		field.Invalid(field.NewPath("spec", "devices", "requests").Index(1).Child("count"), int64(-1), "must be greater than zero"),
	}
	gk := schema.GroupKind{Group: api.Group, Kind: "ResourceClaim"}
	var got ValidationRequest
	h := newTestValidateHandler(func(r ValidationRequest) (ValidationResponse, error) {
		got = r
		return ValidationResponse{GroupKind: gk, Name: "claim", Errors: errs, Warnings: []string{"spec.controller is deprecated"}}, nil
	})
	for _, rv := range []string{"admission.k8s.io/v1", "admission.k8s.io/v1beta1"} {
		for _, op := range []admissionv1.Operation{admissionv1.Create, admissionv1.Update} {
			for _, sub := range []string{"", "status"} {
				t.Run(rv+"/"+string(op)+"/"+sub, func(t *testing.T) {
					got = ValidationRequest{}
					out := decodeAdmissionResponse(t, post(h, admissionReview(rv, claimRequest(t, op, "v1alpha3", sub))))
					if out.APIVersion != rv || out.Kind != "AdmissionReview" {
						t.Errorf("review %s %s", out.Kind, out.APIVersion)
					}
					r := out.Response
					if r.UID != "req-uid" || r.Allowed {
						t.Fatalf("uid %q allowed %v", r.UID, r.Allowed)
					}
					want := apierrors.NewInvalid(gk, "claim", errs).Status()
					if d := cmp.Diff(&want, r.Result); d != "" {
						t.Errorf("status (-want +got):\n%s", d)
					}
					if r.Result.Code != http.StatusUnprocessableEntity || r.Result.Reason != metav1.StatusReasonInvalid ||
						len(r.Result.Details.Causes) != 2 || r.Result.Details.Causes[0].Field != "spec.devices.requests[0].name" ||
						r.Result.Details.Causes[0].Type != metav1.CauseTypeFieldValueRequired {
						t.Errorf("unexpected status %+v", r.Result)
					}
					// As the apiserver of 1.26-1.31: warnings only for a
					// write that passes validation.
					if len(r.Warnings) != 0 {
						t.Errorf("warnings with a denial: %q", r.Warnings)
					}
					if got.Operation != Operation(op) || got.SubResource != sub || got.Object == nil ||
						(op == admissionv1.Update) != (got.OldObject != nil) {
						t.Errorf("validator got %+v", got)
					}
					if _, ok := got.Object["metadata"].(map[string]interface{})["generation"].(interface{ Int64() (int64, error) }); !ok {
						t.Errorf("numbers not decoded as json.Number")
					}
				})
			}
		}
	}
}

func TestValidateHandlerAllowed(t *testing.T) {
	h := newTestValidateHandler(func(ValidationRequest) (ValidationResponse, error) {
		return ValidationResponse{Warnings: []string{"w"}}, nil
	})
	out := decodeAdmissionResponse(t, post(h, admissionReview("admission.k8s.io/v1", claimRequest(t, admissionv1.Create, "v1alpha1", ""))))
	if !out.Response.Allowed || out.Response.UID != "req-uid" || out.Response.Result != nil || len(out.Response.Warnings) != 1 {
		t.Errorf("got %+v", out.Response)
	}
}

func TestValidateHandlerSkips(t *testing.T) {
	called := false
	h := newTestValidateHandler(func(ValidationRequest) (ValidationResponse, error) {
		called = true
		return ValidationResponse{}, nil
	})
	for name, req := range map[string]admissionv1.AdmissionRequest{
		"delete":  {UID: "u", Operation: admissionv1.Delete, Kind: metav1.GroupVersionKind{Group: api.Group, Version: "v1alpha3", Kind: "ResourceClaim"}},
		"connect": {UID: "u", Operation: admissionv1.Connect, Kind: metav1.GroupVersionKind{Version: "v1", Kind: "Pod"}},
		"other-subresource": func() admissionv1.AdmissionRequest {
			r := claimRequest(t, admissionv1.Update, "v1alpha3", "scale")
			return r
		}(),
		"another-subresource": claimRequest(t, admissionv1.Create, "v1alpha3", "binding"),
	} {
		t.Run(name, func(t *testing.T) {
			called = false
			out := decodeAdmissionResponse(t, post(h, admissionReview("admission.k8s.io/v1", req)))
			if !out.Response.Allowed || called {
				t.Errorf("allowed %v, validator called %v", out.Response.Allowed, called)
			}
		})
	}
}

func TestValidateHandlerErrors(t *testing.T) {
	tests := map[string]struct {
		validate ValidateFunc
		req      func(*admissionv1.AdmissionRequest)
		code     int32
		want     string
	}{
		"unknown-kind":    {req: func(r *admissionv1.AdmissionRequest) { r.Kind.Kind = "DeviceClass" }, code: 400, want: "not served"},
		"unknown-version": {req: func(r *admissionv1.AdmissionRequest) { r.Kind.Version = "v1" }, code: 400, want: "not served"},
		"other-group":     {req: func(r *admissionv1.AdmissionRequest) { r.Kind.Group = "resource.k8s.io" }, code: 400, want: "not served"},
		"no-object":       {req: func(r *admissionv1.AdmissionRequest) { r.Object.Raw = nil }, code: 400, want: "object is empty"},
		"object-array":    {req: func(r *admissionv1.AdmissionRequest) { r.Object.Raw = []byte(`[]`) }, code: 400, want: "object is not a JSON object"},
		"no-old-object": {req: func(r *admissionv1.AdmissionRequest) {
			r.Operation = admissionv1.Update
			r.OldObject.Raw = nil
		}, code: 400, want: "oldObject is empty"},
		"validator-error": {validate: func(ValidationRequest) (ValidationResponse, error) {
			return ValidationResponse{}, errors.New("unusable")
		},
			code: 400, want: "unusable"},
		"validator-panic": {validate: func(ValidationRequest) (ValidationResponse, error) { panic("kaboom") },
			code: 500, want: "validator panicked: kaboom"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			v := tc.validate
			if v == nil {
				v = allowAll
			}
			req := claimRequest(t, admissionv1.Create, "v1alpha3", "")
			if tc.req != nil {
				tc.req(&req)
			}
			out := decodeAdmissionResponse(t, post(newTestValidateHandler(v), admissionReview("admission.k8s.io/v1", req)))
			r := out.Response
			if r.Allowed || r.UID != "req-uid" || r.Result == nil || r.Result.Code != tc.code || !strings.Contains(r.Result.Message, tc.want) {
				t.Errorf("got %+v %+v, want denial %d containing %q", r, r.Result, tc.code, tc.want)
			}
		})
	}
}

// TestValidateContract runs the real validation.Validate through the
// handler: the fixtures are valid, and a broken object is denied with
// apierrors.NewInvalid's shape.
func TestValidateContract(t *testing.T) {
	h := newTestValidateHandler(defaultValidator)
	for _, v := range versions {
		t.Run(v, func(t *testing.T) {
			out := decodeAdmissionResponse(t, post(h, admissionReview("admission.k8s.io/v1", claimRequest(t, admissionv1.Create, v, ""))))
			if !out.Response.Allowed || out.Response.UID != "req-uid" {
				t.Errorf("fixture denied: %+v", out.Response.Result)
			}
			req := claimRequest(t, admissionv1.Create, v, "")
			req.Object.Raw = []byte(`{"apiVersion":"` + api.Group + `/` + v + `","kind":"ResourceClaim","metadata":{"name":"Not_A_Name","namespace":"ns"},"spec":{}}`)
			out = decodeAdmissionResponse(t, post(h, admissionReview("admission.k8s.io/v1", req)))
			r := out.Response
			if r.Allowed || r.Result == nil || r.Result.Code != 422 || r.Result.Reason != metav1.StatusReasonInvalid ||
				r.Result.Details == nil || len(r.Result.Details.Causes) == 0 || r.Result.Details.Kind != "ResourceClaim" {
				t.Errorf("broken object: %+v", r.Result)
			}
		})
	}
}

// TestOperationLabelIsBounded: the requests metric's operation label takes
// admission's four operations as they are and nothing else from the body.
func TestOperationLabelIsBounded(t *testing.T) {
	for op, want := range map[admissionv1.Operation]string{
		admissionv1.Create: "CREATE", admissionv1.Update: "UPDATE", admissionv1.Delete: "DELETE", admissionv1.Connect: "CONNECT",
		"": "unknown", "create": "unknown", "OP-000001-xxxxxxxx": "unknown",
	} {
		if got := operationLabel(op); got != want {
			t.Errorf("operationLabel(%q) = %q, want %q", op, got, want)
		}
	}
}
