package webhook

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/klog/v2"
	"k8s.io/klog/v2/textlogger"
)

// TestLogStringIsBounded: what a log line takes from a request is at most
// maxLoggedString bytes of it, valid UTF-8, with its length when cut.
func TestLogStringIsBounded(t *testing.T) {
	long := strings.Repeat("x", 10000)
	for in, want := range map[string]string{
		"v1alpha3":                   "v1alpha3",
		"bad\xffutf8":                "bad\uFFFDutf8",
		"x\n\t\x1b[2J\u009b\x7f":     `x\n\t\x1b[2J\u009b\x7f`,
		long:                         strings.Repeat("x", maxLoggedString) + "… (10000 bytes)",
		strings.Repeat("é", 200):     strings.Repeat("é", 128) + "… (400 bytes)",
		strings.Repeat("é", 128)[1:]: "\uFFFD" + strings.Repeat("é", 127),
	} {
		if got := logString(in); got != want {
			t.Errorf("logString(%.20q…) = %.40q…, want %.40q…", in, got, want)
		}
	}
}

// TestDeniedFieldsNameNoValues: a denial's log line names each cause's
// reason and field, never the message that quotes the object's values.
func TestDeniedFieldsNameNoValues(t *testing.T) {
	st := &metav1.Status{Message: `spec.resourceClassName: Invalid value: "secret-value"`, Details: &metav1.StatusDetails{}}
	for i := 0; i < 10; i++ {
		st.Details.Causes = append(st.Details.Causes, metav1.StatusCause{Type: metav1.CauseTypeFieldValueInvalid, Field: "spec.resourceClassName", Message: `Invalid value: "secret-value"`})
	}
	got := deniedFields(st)
	want := append(slices.Repeat([]string{"FieldValueInvalid spec.resourceClassName"}, maxLoggedCauses), "… (10 causes)")
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("deniedFields (-want +got):\n%s", diff)
	}
	if deniedFields(&metav1.Status{}) != nil || deniedFields(nil) != nil {
		t.Error("a status without details names causes")
	}
}

// TestLogsEscapeRequestStrings: what a log line takes from a request keeps
// its control characters out of the log, also with a newline, which klog's
// text format would otherwise take as a multi-line value and write raw: a
// client that reaches the port must not put escape sequences into the
// terminal of whoever reads the log, nor lines of its own making.
func TestLogsEscapeRequestStrings(t *testing.T) {
	const hostile = "x\n\x1b[2J\rE0101 00:00:00.000000       1 forged.go:1] \"forged\"\x07\u009b31m"
	denyAll := func(ValidationRequest) (ValidationResponse, error) {
		return ValidationResponse{Errors: field.ErrorList{field.Invalid(field.NewPath("spec"), "", "must be valid")}}, nil
	}
	validation := admissionReview("admission.k8s.io/v1", admissionv1.AdmissionRequest{
		UID: hostile, Kind: metav1.GroupVersionKind{Group: "resource.claimbridge.dev", Version: "v1alpha3", Kind: "ResourceClaim"},
		Operation: admissionv1.Create, Namespace: hostile, Name: hostile, Object: runtime.RawExtension{Raw: fixture(t, "v1alpha3")},
	})
	gate := newSlotGate(1, time.Second, 0, nil)
	for _, tc := range []struct {
		name    string
		handler http.Handler
		body    []byte
		logged  string // a line that must be logged
	}{
		{"convert-failure", newTestConvertHandler(fakeConvert), conversionReview("apiextensions.k8s.io/v1", hostile, hostile, fixture(t, "v1alpha1")), `"Conversion failed"`},
		{"validate-denial", newTestValidateHandler(denyAll), validation, `"Admission denied"`},
		{"shed-review", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			gate.shedReview(w, r, "/validate", shedOverloaded, 1<<20, 64)
		}), validation, `"Shed review"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			log := textlogger.NewLogger(textlogger.NewConfig(textlogger.Output(&out), textlogger.Verbosity(4)))
			req := httptest.NewRequest(http.MethodPost, "/", bytes.NewReader(tc.body)).WithContext(klog.NewContext(context.Background(), log))
			req.Header.Set("Content-Type", "application/json")
			tc.handler.ServeHTTP(httptest.NewRecorder(), req)
			if !strings.Contains(out.String(), tc.logged) {
				t.Fatalf("no %s line in the log:\n%s", tc.logged, out.String())
			}
			for i, line := range strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n") {
				if !regexp.MustCompile(`^[IWE]\d{4} `).MatchString(line) {
					t.Errorf("line %d is no log line of the server's: %q", i+1, line)
				}
				if j := strings.IndexFunc(line, isControl); j >= 0 {
					t.Errorf("line %d holds the control character %q: %q", i+1, line[j:j+1], line)
				}
			}
		})
	}
}
