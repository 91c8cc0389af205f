package webhook

import (
	"encoding/json"
	"math"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"

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

// TestWriteJSONUnencodable: a response that does not encode is a 500, not
// an empty 200.
func TestWriteJSONUnencodable(t *testing.T) {
	rec := httptest.NewRecorder()
	writeJSON(rec, logr.Discard(), map[string]interface{}{"x": math.NaN()})
	if rec.Code != http.StatusInternalServerError || rec.Body.String() != "encoding response failed\n" {
		t.Errorf("got %d %q, want 500 %q", rec.Code, rec.Body, "encoding response failed\n")
	}
	rec = httptest.NewRecorder()
	writeJSON(rec, logr.Discard(), map[string]interface{}{"x": 1})
	if rec.Code != http.StatusOK || rec.Body.String() != `{"x":1}` || rec.Header().Get("Content-Type") != "application/json" {
		t.Errorf("got %d %q (Content-Type %q), want 200 {\"x\":1} as application/json", rec.Code, rec.Body, rec.Header().Get("Content-Type"))
	}
}

// TestWriteHTTPErrorReportsSuppressed: the first "Rejected request" line
// after held-back ones says how many; the next does not.
func TestWriteHTTPErrorReportsSuppressed(t *testing.T) {
	rejectLogs.mu.Lock()
	saved := rejectLogs.second
	rejectLogs.second, rejectLogs.n, rejectLogs.suppressed = 0, 0, 3 // a second long gone, 3 held back
	rejectLogs.mu.Unlock()
	t.Cleanup(func() {
		rejectLogs.mu.Lock()
		rejectLogs.second, rejectLogs.n, rejectLogs.suppressed = saved, 0, 0
		rejectLogs.mu.Unlock()
	})
	var logged []string
	log := funcr.New(func(_, args string) { logged = append(logged, args) }, funcr.Options{})
	for range 2 {
		rec := httptest.NewRecorder()
		writeHTTPError(rec, log, &httpError{code: http.StatusBadRequest, msg: "bad"})
		if rec.Code != http.StatusBadRequest || rec.Body.String() != "bad\n" {
			t.Errorf("got %d %q, want 400 %q", rec.Code, rec.Body, "bad\n")
		}
	}
	want := []string{
		`"level"=0 "msg"="Rejected request" "suppressedBefore"=3 "code"=400 "reason"="bad"`,
		`"level"=0 "msg"="Rejected request" "code"=400 "reason"="bad"`,
	}
	if !slices.Equal(logged, want) {
		t.Errorf("logged\n%q\nwant\n%q", logged, want)
	}
}

// TestRejectLogsRate: "Rejected request" lines are at most 10 a second
// (docs/operations.md).
func TestRejectLogsRate(t *testing.T) {
	if rejectLogs.perSecond != 10 {
		t.Errorf("rejectLogs.perSecond = %d, want 10", rejectLogs.perSecond)
	}
}

// TestRecoverPanicsPassesThrough: a handler that returns is answered as it
// wrote, nothing counted; http.ErrAbortHandler panics on to net/http
// uncounted; any other panic is counted.
func TestRecoverPanicsPassesThrough(t *testing.T) {
	m := newMetrics()
	h := recoverPanics("/x", m, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusAccepted)
		_, _ = w.Write([]byte("ok"))
	}))
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/", nil))
	if rec.Code != http.StatusAccepted || rec.Body.String() != "ok" {
		t.Errorf("got %d %q, want 202 %q", rec.Code, rec.Body, "ok")
	}
	if got := value(t, m.panics.WithLabelValues("/x")); got != 0 {
		t.Errorf("panics %v after a handler that returned, want 0", got)
	}

	abort := recoverPanics("/x", m, http.HandlerFunc(func(http.ResponseWriter, *http.Request) { panic(http.ErrAbortHandler) }))
	func() {
		defer func() {
			if p := recover(); p != http.ErrAbortHandler {
				t.Errorf("recovered %v, want http.ErrAbortHandler", p)
			}
		}()
		abort.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodPost, "/", nil))
	}()
	if got := value(t, m.panics.WithLabelValues("/x")); got != 0 {
		t.Errorf("panics %v after http.ErrAbortHandler, want 0", got)
	}

	boom := recoverPanics("/x", m, http.HandlerFunc(func(http.ResponseWriter, *http.Request) { panic("boom") }))
	boom.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodPost, "/", nil))
	if got := value(t, m.panics.WithLabelValues("/x")); got != 1 {
		t.Errorf("panics %v after a panic, want 1", got)
	}
}
