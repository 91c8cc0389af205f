package webhook

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	admissionv1 "k8s.io/api/admission/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/validation"
)

// TestAdmissionUndecodable: a review that is named (kind, apiVersion and
// uid at its head) is denied, whatever is wrong with the rest; one that
// cannot be named gets the HTTP error.
func TestAdmissionUndecodable(t *testing.T) {
	h := newServer(t, func(c *Config) { c.MaxValidateBodyBytes = 4096; c.MaxJSONDepth = 10 }).Handler()
	head := `{"kind":"AdmissionReview","apiVersion":"admission.k8s.io/v1","request":{"uid":"u-1",`
	large := head + `"object":{"a":"` + strings.Repeat("x", 5000) + `"}}}`
	tests := map[string]struct {
		body    string
		chunked bool
		code    int32  // of the denial, 0 for an HTTP error
		status  int    // of the HTTP error
		want    string // in the message
	}{
		"malformed":         {body: head + `"object":{`, code: 400, want: "decoding AdmissionReview"},
		"too-deep":          {body: head + `"object":{"a":[[[[[[[[[]]]]]]]]]}}}`, code: 400, want: "JSON nesting exceeds the maximum depth of 9"},
		"wrong-type":        {body: head + `"operation":5}}`, code: 400, want: "decoding AdmissionReview"},
		"too-large":         {body: large, code: 413, want: "bytes exceeds the limit of 4096 bytes"},
		"too-large-chunked": {body: large, chunked: true, code: 413, want: "request body exceeds the limit of 4096 bytes"},
		"unnamed-malformed": {body: `{"kind":"AdmissionReview","request":{`, status: 400, want: "decoding AdmissionReview"},
		"no-uid":            {body: `{"kind":"AdmissionReview","apiVersion":"admission.k8s.io/v1","request":{}}`, status: 400, want: "AdmissionReview has no request with a uid"},
		"conversion-review": {body: strings.Replace(head, "AdmissionReview", "ConversionReview", 1) + `"x":1}}`, status: 400, want: `unsupported review ConversionReview`},
		"unnamed-too-large": {body: `{"request":{"object":"` + strings.Repeat("x", 5000) + `"}}`, status: 413, want: "exceeds the limit of 4096 bytes"},
	}
	for name, tc := range tests {
		for _, endpoint := range []string{"/validate", "/default"} {
			t.Run(name+endpoint, func(t *testing.T) {
				req := request(http.MethodPost, endpoint, strings.NewReader(tc.body))
				if tc.chunked {
					req.ContentLength = -1
				}
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, req)
				if tc.code == 0 {
					if rec.Code != tc.status || !strings.Contains(rec.Body.String(), tc.want) {
						t.Errorf("got %d %s, want HTTP %d containing %q", rec.Code, rec.Body, tc.status, tc.want)
					}
					return
				}
				r := decodeAdmission(t, rec.Code, rec.Body.Bytes())
				if r.UID != "u-1" || r.Allowed || r.Result == nil || r.Result.Code != tc.code || !strings.Contains(r.Result.Message, tc.want) {
					t.Errorf("got %s, want a denial %d containing %q", rec.Body, tc.code, tc.want)
				}
			})
		}
	}
}

// TestValidate runs the real validator: the testdata claims are allowed
// (the older ones with the warnings of their storage), an invalid claim
// is denied with exactly apierrors.NewInvalid's status.
func TestValidate(t *testing.T) {
	h := newServer(t, nil).Handler()
	for v, warnings := range map[string]int{api.V1alpha1: 1, api.V1alpha2: 1, api.V1alpha3: 0} {
		for _, op := range []admissionv1.Operation{admissionv1.Create, admissionv1.Update} {
			if op == admissionv1.Update {
				warnings = 0 // unchanged, as stored
			}
			rec := serve(h, "/validate", admissionReview(claimRequest(t, op, v)))
			if r := decodeAdmission(t, rec.Code, rec.Body.Bytes()); !r.Allowed || r.UID != "req-uid" || len(r.Warnings) != warnings {
				t.Errorf("%s %s: got %s, want allowed with %d warnings", v, op, rec.Body, warnings)
			}
		}
	}
	v1beta1 := strings.Replace(string(admissionReview(claimRequest(t, admissionv1.Create, api.V1alpha3))), "admission.k8s.io/v1", "admission.k8s.io/v1beta1", 1)
	if rec := serve(h, "/validate", []byte(v1beta1)); !strings.HasPrefix(rec.Body.String(), `{"kind":"AdmissionReview","apiVersion":"admission.k8s.io/v1beta1","response":{"uid":"req-uid","allowed":true}`) {
		t.Errorf("v1beta1 review: got %d %s", rec.Code, rec.Body)
	}
	req := claimRequest(t, admissionv1.Create, api.V1alpha3)
	req.Object.Raw = []byte(`{"apiVersion":"` + api.Group + `/v1alpha3","kind":"ResourceClaim","metadata":{"name":"c","namespace":"ns"},` +
		`"spec":{"devices":{"requests":[{"name":"gpu","deviceClassName":"Bad_Class"}]}}}`)
	rec := serve(h, "/validate", admissionReview(req))
	r := decodeAdmission(t, rec.Code, rec.Body.Bytes())
	path := field.NewPath("spec", "devices", "requests").Index(0).Child("deviceClassName")
	want := apierrors.NewInvalid(schema.GroupKind{Group: api.Group, Kind: api.KindClaim}, "c",
		field.ErrorList{field.Invalid(path, "Bad_Class", utilvalidation.IsDNS1123Subdomain("Bad_Class")[0])}).Status()
	if d := cmp.Diff(&want, r.Result); d != "" || r.Allowed || r.UID != "req-uid" || r.Result.Code != 422 {
		t.Errorf("denial (-want +got):\n%s", d)
	}
}

// TestValidateVerdicts: a valid object is allowed with the validator's
// warnings; a denial carries none; a validator's error or panic is a
// denial, the panic counted.
func TestValidateVerdicts(t *testing.T) {
	warnings := []string{"first", "second"}
	for name, tc := range map[string]struct {
		validate ValidateFunc
		code     int32 // of the denial, 0 when allowed
		want     string
		panics   float64
	}{
		"allowed": {validate: func(validation.Request) (validation.Response, error) {
			return validation.Response{Warnings: warnings}, nil
		}},
		"denied": {validate: func(validation.Request) (validation.Response, error) {
			return validation.Response{Errors: field.ErrorList{field.Required(field.NewPath("spec"), "")}, Warnings: warnings}, nil
		}, code: 422, want: `ResourceClaim.resource.claimbridge.dev "claim" is invalid: spec: Required value`},
		"error": {validate: func(validation.Request) (validation.Response, error) {
			return validation.Response{}, errors.New("unusable")
		}, code: 400, want: "unusable"},
		"panic": {validate: func(validation.Request) (validation.Response, error) { panic("kaboom") }, code: 500, want: "validator panicked: kaboom", panics: 1},
	} {
		t.Run(name, func(t *testing.T) {
			s := newServer(t, func(c *Config) { c.Validator = tc.validate })
			rec := serve(s.Handler(), "/validate", admissionReview(claimRequest(t, admissionv1.Create, api.V1alpha3)))
			r := decodeAdmission(t, rec.Code, rec.Body.Bytes())
			if tc.code == 0 {
				if !r.Allowed || r.Result != nil || !cmp.Equal(r.Warnings, warnings) {
					t.Errorf("got %s, want allowed with warnings %q", rec.Body, warnings)
				}
			} else if r.Allowed || r.Result.Code != tc.code || !strings.Contains(r.Result.Message, tc.want) || r.Warnings != nil {
				t.Errorf("got %s, want a denial %d containing %q without warnings", rec.Body, tc.code, tc.want)
			}
			if got, _ := metricValue(t, s, "claimbridge_webhook_panics_total", "endpoint", "/validate"); got != tc.panics {
				t.Errorf("%v panics counted, want %v", got, tc.panics)
			}
		})
	}
}

// TestAdmissionScope: what /validate and /default do not decide is
// allowed untouched; a kind they do not serve is refused.
func TestAdmissionScope(t *testing.T) {
	called := false
	h := newServer(t, func(c *Config) {
		c.Validator = func(validation.Request) (validation.Response, error) {
			called = true
			return validation.Response{Errors: field.ErrorList{field.Required(field.NewPath("spec"), "")}}, nil
		}
	}).Handler()
	with := func(op admissionv1.Operation, sub string, f func(*admissionv1.AdmissionRequest)) admissionv1.AdmissionRequest {
		req := claimRequest(t, op, api.V1alpha3)
		req.SubResource = sub
		if f != nil {
			f(&req)
		}
		return req
	}
	unserved := "not served by this webhook"
	tests := map[string]struct {
		req                 admissionv1.AdmissionRequest
		validate, defaulted string // "" allowed, else in the denial
	}{
		"delete":            {req: with(admissionv1.Delete, "", nil)},
		"connect":           {req: with(admissionv1.Connect, "", nil)},
		"scale":             {req: with(admissionv1.Update, "scale", nil)},
		"binding":           {req: with(admissionv1.Create, "binding", nil)},
		"status":            {req: with(admissionv1.Update, "status", nil), validate: "is invalid"},
		"create":            {req: with(admissionv1.Create, "", nil), validate: "is invalid"},
		"other-kind":        {req: with(admissionv1.Create, "", func(r *admissionv1.AdmissionRequest) { r.Kind.Kind = "DeviceClass" }), validate: unserved, defaulted: unserved},
		"other-group":       {req: with(admissionv1.Create, "", func(r *admissionv1.AdmissionRequest) { r.Kind.Group = "resource.k8s.io" }), validate: unserved, defaulted: unserved},
		"unserved-version":  {req: with(admissionv1.Update, "", func(r *admissionv1.AdmissionRequest) { r.Kind.Version = "v1" }), validate: unserved, defaulted: unserved},
		"delete-other-kind": {req: with(admissionv1.Delete, "", func(r *admissionv1.AdmissionRequest) { r.Kind.Kind = "Pod" })},
	}
	for name, tc := range tests {
		for endpoint, want := range map[string]string{"/validate": tc.validate, "/default": tc.defaulted} {
			t.Run(name+endpoint, func(t *testing.T) {
				called = false
				rec := serve(h, endpoint, admissionReview(tc.req))
				r := decodeAdmission(t, rec.Code, rec.Body.Bytes())
				if want == "" {
					if !r.Allowed || r.Patch != nil || called {
						t.Errorf("got %s (validator called: %v), want allowed untouched", rec.Body, called)
					}
					return
				}
				if r.Allowed || !strings.Contains(r.Result.Message, want) {
					t.Errorf("got %s, want a denial containing %q", rec.Body, want)
				}
			})
		}
	}
}

// TestDefault: a v1alpha3 request without allocationMode and count gets
// them as a JSON patch; a defaulted one gets none.
func TestDefault(t *testing.T) {
	h := newServer(t, nil).Handler()
	claim := func(request string) []byte {
		return []byte(`{"apiVersion":"` + api.Group + `/v1alpha3","kind":"ResourceClaim","metadata":{"name":"c","namespace":"ns"},` +
			`"spec":{"devices":{"requests":[` + request + `]}}}`)
	}
	for name, tc := range map[string]struct {
		request, patch string
	}{
		"undefaulted": {`{"name":"gpu","deviceClassName":"gpu.example.com"}`,
			`[{"op":"add","path":"/spec/devices/requests/0/allocationMode","value":"ExactCount"},{"op":"add","path":"/spec/devices/requests/0/count","value":1}]`},
		"defaulted": {`{"name":"gpu","deviceClassName":"gpu.example.com","allocationMode":"All"}`, ""},
	} {
		t.Run(name, func(t *testing.T) {
			req := claimRequest(t, admissionv1.Create, api.V1alpha3)
			req.Object.Raw = claim(tc.request)
			rec := serve(h, "/default", admissionReview(req))
			r := decodeAdmission(t, rec.Code, rec.Body.Bytes())
			if !r.Allowed || r.UID != "req-uid" || string(r.Patch) != tc.patch || (r.PatchType != nil) != (tc.patch != "") {
				t.Errorf("got %s, want patch %s", rec.Body, tc.patch)
			}
			if r.PatchType != nil && *r.PatchType != admissionv1.PatchTypeJSONPatch {
				t.Errorf("patch type %s", *r.PatchType)
			}
		})
	}
}

// TestFitWarnings: warnings reach the client as kube-apiserver passes them
// on: escaped, and within its 4096-rune budget with a count of the rest.
func TestFitWarnings(t *testing.T) {
	long := strings.Repeat("é", 300)
	cut := strings.Repeat("é", 255) + "…"
	many := func(n int, w string) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = w
		}
		return out
	}
	more := func(n int) string {
		return fmt.Sprintf("%d more warnings not shown (the apiserver passes on at most 4 KiB of them): claimbridge validate -f <the object> prints them all", n)
	}
	tests := map[string]struct{ in, want []string }{
		"none":           {},
		"fit":            {in: []string{"a", long}, want: []string{"a", long}},
		"controls":       {in: []string{"tab\there\x1b[2J\u0085", "bad \xff byte"}, want: []string{`tab\there\x1b[2J\u0085`, "bad \uFFFD byte"}},
		"exactly-budget": {in: many(16, strings.Repeat("x", 256)), want: many(16, strings.Repeat("x", 256))},
		"over-budget-cut": {in: append(many(14, long), "short"),
			want: append(many(14, cut), "short")},
		"over-budget-more": {in: many(20, long), want: append(many(15, cut), more(5))},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			in := append([]string(nil), tc.in...)
			got := fitWarnings(tc.in)
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
			total := 0
			for _, w := range got {
				total += utf8.RuneCountInString(w)
			}
			if total > 4096 || !cmp.Equal(in, tc.in) {
				t.Errorf("%d runes in all; input changed: %v", total, !cmp.Equal(in, tc.in))
			}
		})
	}
}

// TestWarningsFittedByHandler: the handler passes the validator's
// warnings through fitWarnings.
func TestWarningsFittedByHandler(t *testing.T) {
	h := newServer(t, func(c *Config) {
		c.Validator = func(validation.Request) (validation.Response, error) {
			return validation.Response{Warnings: []string{"a\nb"}}, nil
		}
	}).Handler()
	rec := serve(h, "/validate", admissionReview(claimRequest(t, admissionv1.Create, api.V1alpha3)))
	if r := decodeAdmission(t, rec.Code, rec.Body.Bytes()); !cmp.Equal(r.Warnings, []string{`a\nb`}) {
		t.Errorf("warnings %q", r.Warnings)
	}
}

// TestLogString: strings from requests are logged escaped and bounded.
func TestLogString(t *testing.T) {
	for in, want := range map[string]string{
		"plain":                        "plain",
		"x\n\x1b[2J\u009b\x7f":         `x\n\x1b[2J\u009b\x7f`,
		"bad \xff":                     "bad \uFFFD",
		strings.Repeat("a", 256):       strings.Repeat("a", 256),
		strings.Repeat("a", 300):       strings.Repeat("a", 256) + "… (300 bytes)",
		strings.Repeat("\n", 300):      strings.Repeat(`\n`, 256) + "… (300 bytes)",
		strings.Repeat("a", 255) + "é": strings.Repeat("a", 255) + "\uFFFD… (257 bytes)",
	} {
		if got := logString(in); got != want {
			t.Errorf("logString(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestDeniedFields: a denial's log line names reasons and fields, never
// the messages that quote values, and at most eight.
func TestDeniedFields(t *testing.T) {
	var errs field.ErrorList
	for i := range 10 {
		errs = append(errs, field.Invalid(field.NewPath("spec").Index(i), "secret", "must not be"))
	}
	st := apierrors.NewInvalid(schema.GroupKind{Kind: "K"}, "n", errs).Status()
	got := deniedFields(&st)
	want := []string{"FieldValueInvalid spec[0]", "FieldValueInvalid spec[1]", "FieldValueInvalid spec[2]", "FieldValueInvalid spec[3]",
		"FieldValueInvalid spec[4]", "FieldValueInvalid spec[5]", "FieldValueInvalid spec[6]", "FieldValueInvalid spec[7]", "… (10 causes)"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	if got := deniedFields(&metav1.Status{}); got != nil {
		t.Errorf("without details: %q", got)
	}
}
