package webhook

import (
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/go-logr/logr"
	admissionv1 "k8s.io/api/admission/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"
)

// decideFunc decides one admission request.
type decideFunc func(req *admissionv1.AdmissionRequest) admissionv1.AdmissionResponse

// headBytes is how much of a review body is read, at most, to answer a
// review that is not decoded: its kind, apiVersion and uid come first.
const headBytes = 64 << 10

// admissionHandler serves an AdmissionReview admission.k8s.io/v1 or v1beta1
// with decide, named decider in the denial of its panic. It answers every
// review it can name with a denial, never an HTTP error: with
// failurePolicy Ignore, kube-apiserver would admit the write unchecked.
func (s *Server) admissionHandler(endpoint, decider string, requireCert bool, decide decideFunc) http.HandlerFunc {
	maxBytes := s.cfg.MaxValidateBodyBytes
	return func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		log := klog.FromContext(r.Context()).WithValues("endpoint", endpoint)
		defer s.recoverPanic(w, log, endpoint)
		refuse := func(herr *httpError, head []byte) {
			s.metrics.request(endpoint, "", refusedResult(herr), start)
			denyUndecoded(w, log, head, herr)
		}
		if herr := checkHeaders(w, r, maxBytes, requireCert); herr != nil {
			var head []byte
			if herr.code == http.StatusRequestEntityTooLarge {
				w.Header().Set("Connection", "close") // the rest stays unread
				head, _ = io.ReadAll(io.LimitReader(r.Body, headBytes))
			}
			refuse(herr, head)
			return
		}
		ctx, cancel := s.deadline(r, start)
		defer cancel()
		if reason := s.slots.acquire(ctx, s.cfg.MaxQueueWait); reason != "" {
			// A denial of code 429: kube-apiserver hands it to the client
			// with Retry-After, and client-go retries the write.
			s.metrics.shed.WithLabelValues(endpoint, reason).Inc()
			head, _ := io.ReadAll(io.LimitReader(r.Body, headBytes))
			refuse(errorf(http.StatusTooManyRequests, "%s", overloaded(s.cfg.MaxInFlight)), head)
			return
		}
		defer s.slots.release()
		body, herr := readBody(w, r, maxBytes)
		var review admissionv1.AdmissionReview
		if herr == nil {
			// One level less than a ConversionReview: every object admitted
			// fits in the reviews that read it through another version.
			herr = decodeReview(body, max(1, s.cfg.MaxJSONDepth-1), &review, &review.TypeMeta, "AdmissionReview", "admission.k8s.io")
		}
		if herr == nil && (review.Request == nil || review.Request.UID == "") {
			herr = errorf(http.StatusBadRequest, "AdmissionReview has no request with a uid")
		}
		if herr != nil {
			refuse(herr, body)
			return
		}
		req := review.Request
		log = log.WithValues("uid", logString(string(req.UID)), "kind", logString(req.Kind.Kind), "object", klog.KRef(logString(req.Namespace), logString(req.Name)),
			"operation", logString(string(req.Operation)), "subResource", logString(req.SubResource))
		resp := s.decideRecovered(endpoint, decider, decide, req)
		resp.UID = req.UID
		resp.Warnings = fitWarnings(resp.Warnings)
		s.metrics.request(endpoint, operationLabel(req.Operation), logVerdict(log, &resp, start), start)
		writeJSON(w, log, &admissionv1.AdmissionReview{TypeMeta: review.TypeMeta, Response: &resp})
	}
}

// decideRecovered is decide's answer, or a denial of code 500 when it panics.
func (s *Server) decideRecovered(endpoint, decider string, decide decideFunc, req *admissionv1.AdmissionRequest) (resp admissionv1.AdmissionResponse) {
	defer func() {
		if p := recover(); p != nil {
			s.metrics.panics.WithLabelValues(endpoint).Inc()
			resp = denied(apierrors.NewInternalError(fmt.Errorf("%s panicked: %v", decider, p)))
		}
	}()
	return decide(req)
}

// logVerdict logs resp and returns its result label.
func logVerdict(log logr.Logger, resp *admissionv1.AdmissionResponse, start time.Time) string {
	if resp.Allowed {
		log.V(4).Info("Admission allowed", "warnings", len(resp.Warnings), "patch", len(resp.Patch), "duration", time.Since(start))
		return "allowed"
	}
	log.Info("Admission denied", "code", resp.Result.Code, "reason", resp.Result.Reason, "causes", deniedFields(resp.Result))
	log.V(4).Info("Admission denial message", "message", logString(resp.Result.Message))
	if resp.Result.Code == http.StatusUnprocessableEntity {
		return "denied"
	}
	return "error"
}

// denyUndecoded answers an undecoded review with a denial of herr's
// status when its head names an AdmissionReview and its uid, else with herr.
func denyUndecoded(w http.ResponseWriter, log logr.Logger, head []byte, herr *httpError) {
	kind, apiVersion, uid := reviewHead(head)
	if uid == "" || kind != "AdmissionReview" || (apiVersion != "admission.k8s.io/v1" && apiVersion != "admission.k8s.io/v1beta1") {
		writeHTTPError(w, log, herr)
		return
	}
	log.Info("Admission denied before decoding", "uid", logString(uid), "code", herr.code, "reason", logString(herr.msg))
	status := apierrors.NewBadRequest(herr.msg)
	switch herr.code {
	case http.StatusRequestEntityTooLarge:
		status = apierrors.NewRequestEntityTooLargeError(herr.msg)
	case http.StatusTooManyRequests:
		status = apierrors.NewTooManyRequests(herr.msg, RetryAfterSeconds)
	}
	resp := denied(status)
	resp.UID = types.UID(uid)
	writeJSON(w, log, &admissionv1.AdmissionReview{TypeMeta: metav1.TypeMeta{Kind: kind, APIVersion: apiVersion}, Response: &resp})
}

// operationLabel keeps the operation label to admission's four values.
func operationLabel(op admissionv1.Operation) string {
	switch op {
	case admissionv1.Create, admissionv1.Update, admissionv1.Delete, admissionv1.Connect:
		return string(op)
	}
	return "unknown"
}

func allowed(warnings []string) admissionv1.AdmissionResponse {
	return admissionv1.AdmissionResponse{Allowed: true, Warnings: warnings}
}

// denied carries err's status, its code and reason included.
func denied(err *apierrors.StatusError) admissionv1.AdmissionResponse {
	st := err.Status()
	return admissionv1.AdmissionResponse{Result: &st}
}
