package webhook

import (
	"context"
	"net/http"
	"time"

	"github.com/go-logr/logr"
	admissionv1 "k8s.io/api/admission/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"
)

// admissionHandler serves an admission endpoint (/validate, /default):
// AdmissionReview admission.k8s.io/v1 and v1beta1 (same shape). It is the
// transport around an admission.Handler of controller-runtime: client
// certificate, body cap, depth limit and strict decoding here, the decision
// (a denial, warnings, a patch) in the handler.
type admissionHandler struct {
	endpoint          string
	decide            admission.Handler
	maxBytes          int64
	maxDepth          int
	timeout           time.Duration
	requireClientCert bool
	metrics           *metrics
}

var _ http.Handler = (*admissionHandler)(nil)

func (h *admissionHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := arrival(r)
	log := klog.FromContext(r.Context()).WithValues("endpoint", h.endpoint)
	if h.requireClientCert && !verifiedClient(r) {
		h.metrics.request(h.endpoint, "", "unauthorized", start)
		writeHTTPError(w, log, errorf(http.StatusUnauthorized, "a verified client certificate is required"))
		return
	}
	body, herr := readReview(w, r, h.maxBytes, 0)
	if herr != nil {
		h.metrics.request(h.endpoint, "", unreadResult(herr), start)
		if herr.code == http.StatusRequestEntityTooLarge {
			refuseTooLarge(w, r, log, body, h.maxBytes, herr)
			return
		}
		writeHTTPError(w, log, herr)
		return
	}
	review, ok := decodeCanonicalAdmissionReview(body, h.reviewDepth())
	if !ok {
		review = admissionv1.AdmissionReview{}
		if herr := decodeChecked(body, h.reviewDepth(), func(b []byte) *httpError { return decodeAdmissionReview(b, &review) }); herr != nil {
			h.metrics.request(h.endpoint, "", "bad_request", start)
			refuseUndecodable(w, log, body, herr)
			return
		}
	}
	req := review.Request
	log = log.WithValues("uid", logString(string(req.UID)), "kind", logString(req.Kind.Kind), "object", klog.KRef(logString(req.Namespace), logString(req.Name)),
		"operation", logString(string(req.Operation)), "subResource", logString(req.SubResource))
	ctx, cancel := context.WithDeadline(r.Context(), start.Add(h.timeout)) // from arrival, as /convert
	defer cancel()

	resp := h.decide.Handle(ctx, admission.Request{AdmissionRequest: *req})
	resp.UID = req.UID
	result := outcome(&resp)
	if result == "allowed" {
		log.V(4).Info("Admission allowed", "warnings", len(resp.Warnings), "patch", len(resp.Patch), "duration", time.Since(start))
	} else {
		log.Info("Admission denied", "code", resp.Result.Code, "reason", resp.Result.Reason, "causes", deniedFields(resp.Result))
		log.V(4).Info("Admission denial message", "message", logString(resp.Result.Message))
	}
	h.metrics.request(h.endpoint, operationLabel(req.Operation), result, start)
	writeJSON(w, log, &admissionv1.AdmissionReview{TypeMeta: review.TypeMeta, Response: &resp.AdmissionResponse})
}

// reviewDepth is the deepest an AdmissionReview may nest: maxDepth
// (--max-json-depth) less one, the level a ConversionReview adds
// ({"request":{"objects":[…]}} against {"request":{"object":…}}), so that
// every object admitted fits in the ConversionReviews the apiserver sends
// to read it through another version. An object that fit the one and not
// the other was stored through v1alpha3, and then failed every read of it
// and every list of claims through v1alpha1 and v1alpha2, in all
// namespaces (TestAdmittedObjectFitsConversionReview).
func (h *admissionHandler) reviewDepth() int {
	return max(1, h.maxDepth-1)
}

// refuseUndecodable answers a review that was read but cannot be decoded
// (nested deeper than --max-json-depth, malformed) from the head of body
// (scanHead: the body may nest too deep for a recursive scan): see
// denyFromHead. kube-apiserver takes an HTTP error for a failed call, which
// failurePolicy: Ignore admits unvalidated, and a namespace user can make it
// send such a review: it stores objects nested up to 10,000 levels, and a
// claim's opaque parameters take anything.
func refuseUndecodable(w http.ResponseWriter, log logr.Logger, body []byte, herr *httpError) {
	head, ok := headOf(body)
	denyFromHead(w, log, head, ok, herr, "review not decoded")
}

// refuseTooLarge answers a review over the body cap
// (--max-validate-body-bytes) from its head (see denyFromHead): one
// announced over the cap from its first headPrefix bytes (the rest is never
// read, and the connection is closed), one sent chunked from read, what
// readReview read of it up to the cap. Under failurePolicy: Ignore an HTTP
// 413 would admit the write unvalidated (a cap set below what
// kube-apiserver sends).
func refuseTooLarge(w http.ResponseWriter, r *http.Request, log logr.Logger, read []byte, maxBytes int64, herr *httpError) {
	if r.ContentLength > maxBytes {
		w.Header().Set("Connection", "close") // the body stays unread: no draining it after the answer
		head, ok := readHead(r.Body)
		denyFromHead(w, log, head, ok, herr, "review too large")
		return
	}
	head, ok := headOf(read)
	denyFromHead(w, log, head, ok, herr, "review too large")
}

// denyFromHead answers with a denial of herr's code and message echoing the
// uid when head (ok: read whole) names an AdmissionReview and its uid, as a
// shed review is answered, else with herr as an HTTP error.
func denyFromHead(w http.ResponseWriter, log logr.Logger, head reviewHead, ok bool, herr *httpError, what string) {
	if !ok || head.uid == "" || !isAdmissionReview(head) {
		writeHTTPError(w, log, herr)
		return
	}
	log.Info("Admission denied: "+what, "uid", logString(head.uid), "reason", logString(herr.msg))
	status := apierrors.NewBadRequest(herr.msg)
	if herr.code == http.StatusRequestEntityTooLarge {
		status = apierrors.NewRequestEntityTooLargeError(herr.msg)
	}
	resp := denied(status)
	resp.UID = types.UID(head.uid)
	writeJSON(w, log, &admissionv1.AdmissionReview{TypeMeta: metav1.TypeMeta{APIVersion: head.apiVersion, Kind: head.kind}, Response: &resp.AdmissionResponse})
}

// isAdmissionReview reports whether head names an AdmissionReview of a
// version the apiserver sends.
func isAdmissionReview(head reviewHead) bool {
	return head.kind == "AdmissionReview" && (head.apiVersion == "admission.k8s.io/v1" || head.apiVersion == "admission.k8s.io/v1beta1")
}

// operationLabel is the operation as a metric label: one of admission's
// four, else "unknown", so that a client cannot add series with made-up
// operations (the body's string is the client's to choose).
func operationLabel(op admissionv1.Operation) string {
	switch op {
	case admissionv1.Create, admissionv1.Update, admissionv1.Delete, admissionv1.Connect:
		return string(op)
	}
	return "unknown"
}

// outcome names a response for metrics: allowed, denied (validation
// errors, 422) or error (unusable request, panic, deadline).
func outcome(resp *admission.Response) string {
	switch {
	case resp.Allowed:
		return "allowed"
	case resp.Result != nil && resp.Result.Code == http.StatusUnprocessableEntity:
		return "denied"
	}
	return "error"
}

func decodeAdmissionReview(body []byte, review *admissionv1.AdmissionReview) *httpError {
	return decodeReview(body, review, &review.TypeMeta, "AdmissionReview", "admission.k8s.io", func() (bool, types.UID) {
		if review.Request == nil {
			return false, ""
		}
		return true, review.Request.UID
	})
}

// objectOf is the object of raw: the tree the one-pass review decoding
// left there, or raw's bytes decoded.
func objectOf(raw runtime.RawExtension) (map[string]interface{}, error) {
	if obj, ok := decodedTree(raw); ok {
		return obj, nil
	}
	return decodeObject(raw.Raw)
}

// allowed is an admission without a status, as the apiserver needs no more.
func allowed(warnings []string) admission.Response {
	return admission.Response{AdmissionResponse: admissionv1.AdmissionResponse{Allowed: true}}.WithWarnings(fitWarnings(warnings)...)
}

// denied carries err's status, code and reason included.
func denied(err *apierrors.StatusError) admission.Response {
	st := err.Status()
	return admission.Response{AdmissionResponse: admissionv1.AdmissionResponse{Result: &st}}
}

// verifiedClient reports whether the request came with a client certificate
// verified by --client-ca-file.
func verifiedClient(r *http.Request) bool { return r.TLS != nil && len(r.TLS.VerifiedChains) > 0 }

// refusedByHeaders is the slot gate's test for a request its handler refuses
// before reading the body: by readReview's header checks, or for want of a
// client certificate when one is required.
func refusedByHeaders(maxBytes int64, requireClientCert bool) func(*http.Request) bool {
	return func(r *http.Request) bool {
		return requireClientCert && !verifiedClient(r) || headerError(r, maxBytes) != nil
	}
}
