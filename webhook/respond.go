package webhook

import (
	"encoding/json"
	"net/http"
	"runtime/debug"

	"github.com/go-logr/logr"
	"k8s.io/klog/v2"
)

// writeJSON encodes v as the 200 response.
func writeJSON(w http.ResponseWriter, log logr.Logger, v any) {
	data, err := json.Marshal(v)
	if err != nil {
		log.Error(err, "Encoding response")
		http.Error(w, "encoding response failed", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	if _, err := w.Write(data); err != nil {
		log.V(2).Info("Writing response failed", "err", err)
	}
}

// writeHTTPError answers a review that could not be read.
func writeHTTPError(w http.ResponseWriter, log logr.Logger, e *httpError) {
	log.Info("Rejected request", "code", e.code, "reason", e.msg)
	http.Error(w, e.msg, e.code)
}

// recoverPanics answers 500 for any panic a handler did not recover itself
// and keeps the server running; http.ErrAbortHandler passes through.
func recoverPanics(endpoint string, m *metrics, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			p := recover()
			if p == nil {
				return
			}
			if p == http.ErrAbortHandler {
				panic(p)
			}
			m.recordPanic(endpoint)
			klog.FromContext(r.Context()).Error(nil, "Recovered from panic", "endpoint", endpoint, "panic", p, "stack", string(debug.Stack()))
			http.Error(w, "internal error", http.StatusInternalServerError)
		}()
		next.ServeHTTP(w, r)
	})
}
