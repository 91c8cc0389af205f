package webhook

import (
	"encoding/json"
	"net/http"
	"runtime/debug"
	"sync"
	"time"

	"github.com/go-logr/logr"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"

	"github.com/claimbridge/claimbridge/internal/jsontree"
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

// appendConversionReview encodes a ConversionReview with a successful
// response exactly as json.Marshal does, without re-scanning the converted
// objects: they come from jsontree.Append with HTML escaping, which is already
// the compact, HTML-escaped encoding that json.Marshal would copy them as.
func appendConversionReview(buf []byte, tm metav1.TypeMeta, uid types.UID, objects []runtime.RawExtension) []byte {
	if objects == nil {
		buf = appendConversionReviewHead(buf, tm, uid, false)
		return appendConversionReviewTail(buf, false)
	}
	buf = appendConversionReviewHead(buf, tm, uid, true)
	for i, o := range objects {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = append(buf, o.Raw...)
	}
	return appendConversionReviewTail(buf, true)
}

// appendConversionReviewHead appends what appendConversionReview writes
// before the converted objects: up to the opening bracket of their list
// if withObjects, else up to "convertedObjects":null.
func appendConversionReviewHead(buf []byte, tm metav1.TypeMeta, uid types.UID, withObjects bool) []byte {
	buf = append(buf, '{')
	sep := false
	if tm.Kind != "" {
		buf = append(buf, `"kind":`...)
		buf, _ = jsontree.Append(buf, tm.Kind, true)
		sep = true
	}
	if tm.APIVersion != "" {
		if sep {
			buf = append(buf, ',')
		}
		buf = append(buf, `"apiVersion":`...)
		buf, _ = jsontree.Append(buf, tm.APIVersion, true)
		sep = true
	}
	if sep {
		buf = append(buf, ',')
	}
	buf = append(buf, `"response":{"uid":`...)
	buf, _ = jsontree.Append(buf, string(uid), true)
	if !withObjects {
		return append(buf, `,"convertedObjects":null`...)
	}
	return append(buf, `,"convertedObjects":[`...)
}

// appendConversionReviewTail appends what appendConversionReview writes
// after the converted objects.
func appendConversionReviewTail(buf []byte, withObjects bool) []byte {
	if withObjects {
		buf = append(buf, ']')
	}
	return append(buf, `,"result":{"metadata":{},"status":"Success"}}}`...)
}

// writeRaw writes data, a JSON encoding, as the 200 response.
func writeRaw(w http.ResponseWriter, log logr.Logger, data []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	if _, err := w.Write(data); err != nil {
		log.V(2).Info("Writing response failed", "err", err)
	}
}

// writeHTTPError answers a review that could not be read, and logs it
// within rejectLogs' rate.
func writeHTTPError(w http.ResponseWriter, log logr.Logger, e *httpError) {
	if ok, suppressed := rejectLogs.allow(time.Now()); ok {
		if suppressed > 0 {
			log = log.WithValues("suppressedBefore", suppressed)
		}
		log.Info("Rejected request", "code", e.code, "reason", logString(e.msg))
	}
	http.Error(w, e.msg, e.code)
}

// rejectLogs bounds the "Rejected request" lines: one client sending
// thousands of requests a second that are refused before they are read
// (a prober's GET, a wrong content type, a body over the cap) would
// otherwise write a line each. The metrics count every one.
var rejectLogs = logRate{perSecond: 10}

// logRate lets at most perSecond lines through in each second and counts
// the rest, which the next line let through reports.
type logRate struct {
	perSecond  int
	mu         sync.Mutex
	second     int64
	n          int
	suppressed int
}

func (l *logRate) allow(now time.Time) (ok bool, suppressed int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if s := now.Unix(); s != l.second {
		l.second, l.n = s, 0
	}
	if l.n >= l.perSecond {
		l.suppressed++
		return false, 0
	}
	l.n++
	suppressed, l.suppressed = l.suppressed, 0
	return true, suppressed
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
