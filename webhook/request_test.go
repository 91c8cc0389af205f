package webhook

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestPipelineRecovers: a panic in a handler is a 500, counted, and frees
// its slot; http.ErrAbortHandler passes through to net/http.
func TestPipelineRecovers(t *testing.T) {
	s := newServer(t, func(c *Config) { c.MaxInFlight, c.MaxQueueWait = 1, time.Millisecond })
	var p any = "kaboom"
	h := s.serveReview(endpoint{path: "/convert", maxBytes: 1 << 10}, func(exchange) { panic(p) })
	for i := range 2 { // the second gets the slot the first held
		rec := serve(h, "/convert", []byte(`{}`))
		if rec.Code != http.StatusInternalServerError || !strings.Contains(rec.Body.String(), "internal error") {
			t.Errorf("panic %d: got %d %s, want 500 internal error", i, rec.Code, rec.Body)
		}
		if got, _ := metricValue(t, s, "claimbridge_webhook_panics_total", "endpoint", "/convert"); got != float64(i+1) {
			t.Errorf("panic %d: %v panics counted", i, got)
		}
	}
	p = http.ErrAbortHandler
	defer func() {
		if r := recover(); r != http.ErrAbortHandler {
			t.Errorf("recovered %v, want http.ErrAbortHandler", r)
		}
	}()
	serve(h, "/convert", []byte(`{}`))
	t.Error("http.ErrAbortHandler was recovered")
}
