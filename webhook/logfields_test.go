package webhook

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestLogStringIsBounded: what a log line takes from a request is at most
// maxLoggedString bytes of it, valid UTF-8, with its length when cut.
func TestLogStringIsBounded(t *testing.T) {
	long := strings.Repeat("x", 10000)
	for in, want := range map[string]string{
		"v1alpha3":                   "v1alpha3",
		"bad\xffutf8":                "bad\uFFFDutf8",
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
