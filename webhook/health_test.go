package webhook

import (
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
)

func TestHealthMuxProfiling(t *testing.T) {
	var ready atomic.Bool
	ready.Store(true)
	for _, tc := range []struct {
		profiling bool
		path      string
		want      int
	}{
		{false, "/healthz", http.StatusOK},
		{false, "/readyz", http.StatusOK},
		{false, "/debug/pprof/", http.StatusNotFound},
		{false, "/debug/pprof/goroutine?debug=1", http.StatusNotFound},
		{true, "/healthz", http.StatusOK},
		{true, "/debug/pprof/", http.StatusOK},
		{true, "/debug/pprof/goroutine?debug=1", http.StatusOK},
		{true, "/debug/pprof/cmdline", http.StatusOK},
	} {
		rec := httptest.NewRecorder()
		healthMux(&ready, tc.profiling).ServeHTTP(rec, httptest.NewRequest(http.MethodGet, tc.path, nil))
		if rec.Code != tc.want {
			t.Errorf("profiling=%v GET %s: %d, want %d", tc.profiling, tc.path, rec.Code, tc.want)
		}
	}
}
