package webhook

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestRejectedRequestsResult: a method or content type kube-apiserver never
// sends counts as "refused", out of the error-rate alerts (a prober's GET
// would fire them); a malformed review as "bad_request".
func TestRejectedRequestsResult(t *testing.T) {
	ts := startServer(t, nil)
	c := ts.client(t, nil)
	send := func(method, path, contentType, body string) int {
		t.Helper()
		req, err := http.NewRequest(method, ts.url(path), strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		if contentType != "" {
			req.Header.Set("Content-Type", contentType)
		}
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode
	}
	for _, path := range []string{"/convert", "/validate", "/default"} {
		for _, tt := range []struct {
			method, contentType, body string
			code                      int
		}{
			{http.MethodGet, "", "", http.StatusMethodNotAllowed},
			{http.MethodPost, "text/plain", "{}", http.StatusUnsupportedMediaType},
			{http.MethodPost, "application/json", "{", http.StatusBadRequest},
		} {
			if got := send(tt.method, path, tt.contentType, tt.body); got != tt.code {
				t.Errorf("%s %s (%s): status %d, want %d", tt.method, path, tt.contentType, got, tt.code)
			}
		}
		if got := value(t, ts.metrics.requests.WithLabelValues(path, "", "refused")); got != 2 {
			t.Errorf("%s: %v refused, want 2 (the GET and the text/plain POST)", path, got)
		}
		if got := value(t, ts.metrics.requests.WithLabelValues(path, "", "bad_request")); got != 1 {
			t.Errorf("%s: %v bad_request, want 1 (the truncated review)", path, got)
		}
	}
}

// TestLogRate: at most perSecond lines a second; the next line let through
// says how many were held back.
func TestLogRate(t *testing.T) {
	l := logRate{perSecond: 3}
	t0 := time.Unix(1000, 0)
	var got []int
	for i := 0; i < 5; i++ { // 3 through, 2 held back
		if ok, suppressed := l.allow(t0.Add(time.Duration(i) * time.Millisecond)); ok {
			got = append(got, suppressed)
		}
	}
	if ok, suppressed := l.allow(t0.Add(time.Second)); !ok || suppressed != 2 {
		t.Errorf("next second: ok %v, suppressed %d; want true, 2", ok, suppressed)
	}
	if len(got) != 3 || got[0] != 0 || got[1] != 0 || got[2] != 0 {
		t.Errorf("first second: %v; want three lines, none reporting held-back ones", got)
	}
	if ok, suppressed := l.allow(t0.Add(time.Second + time.Millisecond)); !ok || suppressed != 0 {
		t.Errorf("after the report: ok %v, suppressed %d; want true, 0", ok, suppressed)
	}
}
