package webhook

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/prometheus/client_golang/prometheus/testutil"
	admissionv1 "k8s.io/api/admission/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/claimbridge/claimbridge/api"
)

// TestAdmissionRequestMetrics: every admission review counts once in
// claimbridge_webhook_requests_total, under its operation (admission's four,
// else "unknown") and its outcome: allowed, denied (422, validation errors)
// or error (any other denial: a kind not served, a validator panic, which
// also counts in the panics metric).
func TestAdmissionRequestMetrics(t *testing.T) {
	invalid := func(ValidationRequest) (ValidationResponse, error) {
		return ValidationResponse{Errors: field.ErrorList{field.Required(field.NewPath("spec"), "")}}, nil
	}
	for name, tc := range map[string]struct {
		validate  ValidateFunc
		op        admissionv1.Operation
		req       func(*admissionv1.AdmissionRequest)
		operation string
		result    string
		code      int32 // of the denial; 0: allowed
		panics    float64
	}{
		"allowed-create": {validate: allowAll, op: admissionv1.Create, operation: "CREATE", result: "allowed"},
		"denied-update":  {validate: invalid, op: admissionv1.Update, operation: "UPDATE", result: "denied", code: http.StatusUnprocessableEntity},
		"error-kind": {validate: allowAll, op: admissionv1.Create, req: func(r *admissionv1.AdmissionRequest) { r.Kind.Kind = "DeviceClass" },
			operation: "CREATE", result: "error", code: http.StatusBadRequest},
		"error-panic": {validate: func(ValidationRequest) (ValidationResponse, error) { panic("kaboom") }, op: admissionv1.Create,
			operation: "CREATE", result: "error", code: http.StatusInternalServerError, panics: 1},
		"made-up-operation": {validate: allowAll, op: admissionv1.Create, req: func(r *admissionv1.AdmissionRequest) { r.Operation = "PATCH" },
			operation: "unknown", result: "allowed"},
		"connect": {validate: allowAll, op: admissionv1.Create, req: func(r *admissionv1.AdmissionRequest) { r.Operation = admissionv1.Connect },
			operation: "CONNECT", result: "allowed"},
	} {
		t.Run(name, func(t *testing.T) {
			h := newTestValidateHandler(tc.validate)
			req := claimRequest(t, tc.op, "v1alpha3", "")
			if tc.req != nil {
				tc.req(&req)
			}
			r := decodeAdmissionResponse(t, post(h, admissionReview("admission.k8s.io/v1", req))).Response
			if tc.code == 0 && !r.Allowed || tc.code != 0 && (r.Allowed || r.Result == nil || r.Result.Code != tc.code) {
				t.Fatalf("allowed %v, status %+v; want code %d (0: allowed)", r.Allowed, r.Result, tc.code)
			}
			if n := testutil.CollectAndCount(h.metrics.requests); n != 1 {
				t.Errorf("%d request series, want 1", n)
			}
			if got := testutil.ToFloat64(h.metrics.requests.WithLabelValues("/validate", tc.operation, tc.result)); got != 1 {
				t.Errorf("requests{operation=%q, result=%q} = %v, want 1", tc.operation, tc.result, got)
			}
			if got := testutil.ToFloat64(h.metrics.panics.WithLabelValues("/validate")); got != tc.panics {
				t.Errorf("panics = %v, want %v", got, tc.panics)
			}
		})
	}
}

// TestAdmissionRequiresVerifiedClient: with --client-ca-file a review
// without a verified client certificate (none, or a TLS connection whose
// certificate was not verified) is refused with HTTP 401 before its body is
// read, and counts as "unauthorized"; one with a verified chain is decided.
func TestAdmissionRequiresVerifiedClient(t *testing.T) {
	for name, tc := range map[string]struct {
		tls  *tls.ConnectionState
		code int
	}{
		"plain":      {nil, http.StatusUnauthorized},
		"unverified": {&tls.ConnectionState{}, http.StatusUnauthorized},
		"verified":   {&tls.ConnectionState{VerifiedChains: [][]*x509.Certificate{{{}}}}, http.StatusOK},
	} {
		t.Run(name, func(t *testing.T) {
			h := newTestValidateHandler(allowAll)
			h.requireClientCert = true
			r := httptest.NewRequest(http.MethodPost, "/", bytes.NewReader(admissionReview("admission.k8s.io/v1", claimRequest(t, admissionv1.Create, "v1alpha3", ""))))
			r.Header.Set("Content-Type", "application/json")
			r.TLS = tc.tls
			if refused := refusedByHeaders(h.maxBytes, true)(r); refused != (tc.code == http.StatusUnauthorized) {
				t.Errorf("refusedByHeaders %v", refused)
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, r)
			if rec.Code != tc.code {
				t.Fatalf("status %d, want %d: %s", rec.Code, tc.code, rec.Body)
			}
			operation, result := "CREATE", "allowed"
			if tc.code == http.StatusUnauthorized {
				operation, result = "", "unauthorized"
			}
			if got := testutil.ToFloat64(h.metrics.requests.WithLabelValues("/validate", operation, result)); got != 1 {
				t.Errorf("requests{operation=%q, result=%q} = %v, want 1", operation, result, got)
			}
		})
	}
}

// TestAdmissionDeadlineFromArrival: the handler's deadline runs from the
// review's arrival; a review whose time (--request-timeout) is up before it
// is decided is denied with a timeout (504) without calling the validator.
func TestAdmissionDeadlineFromArrival(t *testing.T) {
	called := false
	h := newTestValidateHandler(func(ValidationRequest) (ValidationResponse, error) {
		called = true
		return ValidationResponse{}, nil
	})
	h.timeout = 0 // the deadline is the arrival: passed when the review is decided
	r := decodeAdmissionResponse(t, post(h, admissionReview("admission.k8s.io/v1", claimRequest(t, admissionv1.Update, "v1alpha3", "")))).Response
	if r.Allowed || r.UID != "req-uid" || r.Result == nil || r.Result.Code != http.StatusGatewayTimeout ||
		r.Result.Reason != metav1.StatusReasonTimeout || !strings.Contains(r.Result.Message, "validation not started") {
		t.Errorf("got allowed %v, uid %q, status %+v; want a timeout denial", r.Allowed, r.UID, r.Result)
	}
	if called {
		t.Error("validator called after the deadline")
	}
	if got := testutil.ToFloat64(h.metrics.requests.WithLabelValues("/validate", "UPDATE", "error")); got != 1 {
		t.Errorf("requests{operation=UPDATE, result=error} = %v, want 1", got)
	}
}

// TestReviewDepth: an AdmissionReview nests one level less than
// --max-json-depth (the level a ConversionReview adds), never less than one.
func TestReviewDepth(t *testing.T) {
	for maxDepth, want := range map[int]int{1000: 999, 3: 2, 2: 1, 1: 1} {
		if got := (&admissionHandler{maxDepth: maxDepth}).reviewDepth(); got != want {
			t.Errorf("reviewDepth of maxDepth %d = %d, want %d", maxDepth, got, want)
		}
	}
}

// TestAllowedWarningsAreHeaderSafe: the warnings of an allowed review go out
// as fitWarnings makes them, escaped (kube-apiserver drops, silently, a
// warning with a control character).
func TestAllowedWarningsAreHeaderSafe(t *testing.T) {
	h := newTestValidateHandler(func(ValidationRequest) (ValidationResponse, error) {
		return ValidationResponse{Warnings: []string{"plain", "tab\there"}}, nil
	})
	r := decodeAdmissionResponse(t, post(h, admissionReview("admission.k8s.io/v1", claimRequest(t, admissionv1.Create, "v1alpha3", "")))).Response
	if want := []string{"plain", `tab\there`}; !r.Allowed || !slices.Equal(r.Warnings, want) {
		t.Errorf("allowed %v, warnings %q; want allowed with %q", r.Allowed, r.Warnings, want)
	}
}

// TestValidateDenialDefaultsKindAndName: a denial whose validator names no
// kind or name is of the request's kind and name (apierrors.NewInvalid of
// them), as kubectl prints it.
func TestValidateDenialDefaultsKindAndName(t *testing.T) {
	errs := field.ErrorList{field.Required(field.NewPath("spec"), "")}
	h := newTestValidateHandler(func(ValidationRequest) (ValidationResponse, error) {
		return ValidationResponse{Errors: errs}, nil
	})
	r := decodeAdmissionResponse(t, post(h, admissionReview("admission.k8s.io/v1", claimRequest(t, admissionv1.Create, "v1alpha3", "")))).Response
	want := apierrors.NewInvalid(schema.GroupKind{Group: api.Group, Kind: "ResourceClaim"}, "claim", errs).Status()
	if d := cmp.Diff(&want, r.Result); d != "" || r.Allowed {
		t.Errorf("allowed %v, status (-want +got):\n%s", r.Allowed, d)
	}
}
