package webhook

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admission/v1"

	"github.com/claimbridge/claimbridge/api"
)

// TestOverload: with every slot busy, a review waits MaxQueueWait and is
// shed: /convert with 429 and Retry-After, /validate and /default with a
// denial of code 429, which kube-apiserver hands to the client to retry.
// A client gone while it waits is counted apart.
func TestOverload(t *testing.T) {
	entered, release := make(chan struct{}), make(chan struct{})
	s := newServer(t, func(c *Config) {
		c.MaxInFlight, c.MaxQueueWait = 1, 20*time.Millisecond
		c.Converter = func(obj map[string]any, to string) (map[string]any, error) {
			entered <- struct{}{}
			<-release
			return fakeConvert(obj, to)
		}
	})
	h := s.Handler()
	convert := conversionReview("uid-1", api.Group+"/v1alpha1", fixture(t, api.V1alpha3))
	busy := make(chan *httptest.ResponseRecorder)
	go func() { busy <- serve(h, "/convert", convert) }()
	<-entered

	rec := serve(h, "/convert", convert)
	if rec.Code != http.StatusTooManyRequests || rec.Header().Get("Retry-After") != "1" || !strings.Contains(rec.Body.String(), "overloaded: all 1 review slots busy") {
		t.Errorf("/convert: got %d Retry-After %q %s", rec.Code, rec.Header().Get("Retry-After"), rec.Body)
	}
	for _, endpoint := range []string{"/validate", "/default"} {
		rec = serve(h, endpoint, admissionReview(claimRequest(t, admissionv1.Create, api.V1alpha3)))
		r := decodeAdmission(t, rec.Code, rec.Body.Bytes())
		if r.Allowed || r.UID != "req-uid" || r.Result.Code != http.StatusTooManyRequests || r.Result.Details == nil || r.Result.Details.RetryAfterSeconds != 1 {
			t.Errorf("%s: got %s, want a denial 429 with retryAfterSeconds 1", endpoint, rec.Body)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	gone := httptest.NewRequestWithContext(ctx, http.MethodPost, "/convert", strings.NewReader(string(convert)))
	gone.Header.Set("Content-Type", "application/json")
	h.ServeHTTP(httptest.NewRecorder(), gone)

	close(release)
	if rec := <-busy; rec.Code != http.StatusOK {
		t.Errorf("the review in its slot: got %d %s", rec.Code, rec.Body)
	}
	for _, c := range []struct {
		endpoint, reason string
		want             float64
	}{
		{"/convert", "wait_expired", 1}, {"/validate", "wait_expired", 1}, {"/default", "wait_expired", 1}, {"/convert", "client_gone", 1},
	} {
		if got, _ := metricValue(t, s, "claimbridge_webhook_shed_total", "endpoint", c.endpoint, "reason", c.reason); got != c.want {
			t.Errorf("shed %s %s: %v, want %v", c.endpoint, c.reason, got, c.want)
		}
	}
	if got, _ := metricValue(t, s, "claimbridge_webhook_requests_total", "endpoint", "/convert", "result", "shed"); got != 2 {
		t.Errorf("requests shed on /convert: %v, want 2", got)
	}
}
