package webhook

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/go-logr/logr"
	admissionv1 "k8s.io/api/admission/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"
)

// RetryAfterSeconds is the Retry-After of a shed review.
const RetryAfterSeconds = 1

// slots bound the reviews processed at once, as kube-apiserver's
// max-in-flight filter does; a review waits Config.MaxQueueWait, then is shed.
type slots chan struct{}

// acquire takes a slot, waiting at most wait; it returns the reason it
// took none ("" when it took one).
func (s slots) acquire(ctx context.Context, wait time.Duration) string {
	select {
	case s <- struct{}{}:
		return ""
	default:
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case s <- struct{}{}:
		return ""
	case <-t.C:
		return "wait_expired"
	case <-ctx.Done():
		return "client_gone"
	}
}

func (s slots) release() { <-s }

// endpoint is what the pipeline knows of a review handler.
type endpoint struct {
	path        string
	maxBytes    int64 // of the body
	maxDepth    int   // of the review's JSON nesting
	requireCert bool
	kind, group string // of the review, in group/v1 or v1beta1
	deny        bool   // a refused review whose head names it gets a denial (admission)
}

// exchange is one review through the pipeline.
type exchange struct {
	*endpoint
	s     *Server
	w     http.ResponseWriter
	ctx   context.Context // the review's deadline
	log   logr.Logger
	start time.Time
	body  []byte // the review, or what was read of it when refused
}

// headBytes is how much of a review body is read, at most, to answer a
// review that is not decoded: its kind, apiVersion and uid come first.
const headBytes = 64 << 10

// serveReview is the pipeline of every endpoint: the one preamble (the
// headers, the deadline, a slot, the body within its cap) and the one
// recover, around handle, which decodes, decides and answers.
func (s *Server) serveReview(e endpoint, handle func(exchange)) http.Handler {
	inFlight, path := s.metrics.inFlight.WithLabelValues(e.path), any(e.path) // path: boxed once
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		inFlight.Inc()
		defer inFlight.Dec()
		x := exchange{endpoint: &e, s: s, w: w, start: time.Now(), log: klog.FromContext(r.Context()).WithValues("endpoint", path)}
		defer s.catch(e.path, func(p any) {
			x.log.Error(nil, "Recovered from panic", "panic", fmt.Sprint(p))
			http.Error(w, "internal error", http.StatusInternalServerError)
		})
		readHead := func() { x.body, _ = io.ReadAll(io.LimitReader(r.Body, headBytes)) }
		if herr := checkHeaders(w, r, e.maxBytes, e.requireCert); herr != nil {
			if e.deny && herr.code == http.StatusRequestEntityTooLarge {
				w.Header().Set("Connection", "close") // the rest stays unread
				readHead()
			}
			x.refuse(herr)
			return
		}
		var cancel context.CancelFunc
		x.ctx, cancel = s.deadline(r, x.start)
		defer cancel()
		if reason := s.slots.acquire(x.ctx, s.cfg.MaxQueueWait); reason != "" {
			s.metrics.shed.WithLabelValues(e.path, reason).Inc()
			// kube-apiserver's client retries a 429 after Retry-After; a
			// denial of code 429 it hands to its client, which retries.
			if e.deny {
				readHead()
			} else {
				w.Header().Set("Retry-After", strconv.Itoa(RetryAfterSeconds))
			}
			x.refuse(errorf(http.StatusTooManyRequests, "claimbridge webhook overloaded: all %d review slots busy for --max-queue-wait; retry after %ds",
				s.cfg.MaxInFlight, RetryAfterSeconds))
			return
		}
		defer s.slots.release()
		var herr *httpError
		if x.body, herr = readBody(w, r, e.maxBytes); herr != nil {
			x.refuse(herr)
			return
		}
		handle(x)
	})
}

// decode decodes the body into review, the endpoint's kind in its group's
// v1 or v1beta1 within its depth, with a uid (hasUID); else it refuses it.
func (x *exchange) decode(review any, tm *metav1.TypeMeta, hasUID func() bool) bool {
	var herr *httpError
	if err := checkDepth(x.body, x.maxDepth); err != nil {
		herr = errorf(http.StatusBadRequest, "%v", err)
	} else if err := json.Unmarshal(x.body, review); err != nil {
		herr = errorf(http.StatusBadRequest, "decoding %s: %v", x.kind, err)
	} else if !x.names(tm.Kind, tm.APIVersion) {
		herr = errorf(http.StatusBadRequest, "unsupported review %s %q: want %s %s/v1 or v1beta1", tm.Kind, tm.APIVersion, x.kind, x.group)
	} else if !hasUID() {
		herr = errorf(http.StatusBadRequest, "%s has no request with a uid", x.kind)
	}
	if herr != nil {
		x.refuse(herr)
	}
	return herr == nil
}

// refuse answers a review refused before it was decoded, and counts it:
// with a denial of herr's status when the endpoint denies and the head of
// the body names its review and uid, else with herr as an HTTP error,
// logged at -v=2 (a misdirected client can send thousands a second).
func (x *exchange) refuse(herr *httpError) {
	x.s.metrics.request(x.path, "", cmp.Or(refusedResults[herr.code], "bad_request"), x.start)
	var kind, apiVersion, uid string
	if x.deny {
		kind, apiVersion, uid = reviewHead(x.body)
	}
	if uid == "" || !x.names(kind, apiVersion) {
		x.log.V(2).Info("Rejected request", "code", herr.code, "reason", logString(herr.msg))
		http.Error(x.w, herr.msg, herr.code)
		return
	}
	x.log.Info("Admission denied before decoding", "uid", logString(uid), "code", herr.code, "reason", logString(herr.msg))
	status := apierrors.NewBadRequest(herr.msg)
	switch herr.code {
	case http.StatusRequestEntityTooLarge:
		status = apierrors.NewRequestEntityTooLargeError(herr.msg)
	case http.StatusTooManyRequests:
		status = apierrors.NewTooManyRequests(herr.msg, RetryAfterSeconds)
	}
	resp := denied(status)
	resp.UID = types.UID(uid)
	writeJSON(x.w, x.log, &admissionv1.AdmissionReview{TypeMeta: metav1.TypeMeta{Kind: kind, APIVersion: apiVersion}, Response: &resp})
}

// names tells whether kind and apiVersion are the endpoint's review.
func (e *endpoint) names(kind, apiVersion string) bool {
	return kind == e.kind && (apiVersion == e.group+"/v1" || apiVersion == e.group+"/v1beta1")
}

// answer counts a decoded review's answer, by operation (admission) and
// result, and writes it.
func (x *exchange) answer(operation, result string, review any) {
	x.s.metrics.request(x.path, operation, result, x.start)
	writeJSON(x.w, x.log, review)
}

// writeJSON encodes v as the 200 response, or answers 500 when it cannot
// be encoded (Encode writes nothing then). No HTML escaping: the reader is
// the apiserver, not a page, and the objects are copied as they are.
func writeJSON(w http.ResponseWriter, log logr.Logger, v any) {
	w.Header().Set("Content-Type", "application/json")
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	err := enc.Encode(v)
	if _, ok := errors.AsType[*json.MarshalerError](err); ok { // the only encoding error a review can have
		log.Error(err, "Encoding response")
		http.Error(w, "encoding response failed", http.StatusInternalServerError)
	} else if err != nil {
		log.V(2).Info("Writing response failed", "err", err)
	}
}

// refusedResults are the result labels of a review refused undecoded, by
// status: "refused" for a method or content type kube-apiserver never
// sends (a prober's GET, kept out of the error alerts), "unauthorized",
// "shed"; any other status is "bad_request".
var refusedResults = map[int]string{
	http.StatusMethodNotAllowed: "refused", http.StatusUnsupportedMediaType: "refused",
	http.StatusUnauthorized: "unauthorized", http.StatusTooManyRequests: "shed",
}

// catch, deferred, counts a panic of endpoint and has answer answer it:
// the server's one recover. http.ErrAbortHandler passes through.
func (s *Server) catch(endpoint string, answer func(p any)) {
	p := recover()
	if p == nil {
		return
	}
	if p == http.ErrAbortHandler {
		panic(p)
	}
	s.metrics.panics.WithLabelValues(endpoint).Inc()
	answer(p)
}
