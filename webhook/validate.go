package webhook

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/klog/v2"
)

// validateHandler serves /validate: AdmissionReview admission.k8s.io/v1 and
// v1beta1 (same shape). A denial is exactly apierrors.NewInvalid's status.
type validateHandler struct {
	validate          ValidateFunc
	maxBytes          int64
	maxDepth          int
	timeout           time.Duration
	requireClientCert bool
	metrics           *metrics
}

var _ http.Handler = (*validateHandler)(nil)

func (h *validateHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	log := klog.FromContext(r.Context()).WithValues("endpoint", "/validate")
	if h.requireClientCert && (r.TLS == nil || len(r.TLS.VerifiedChains) == 0) {
		h.metrics.request("/validate", "", "unauthorized", start)
		writeHTTPError(w, log, errorf(http.StatusUnauthorized, "a verified client certificate is required"))
		return
	}
	body, herr := readReview(r, h.maxBytes, h.maxDepth)
	if herr != nil {
		h.metrics.request("/validate", "", "bad_request", start)
		writeHTTPError(w, log, herr)
		return
	}
	var review admissionv1.AdmissionReview
	if herr := decodeAdmissionReview(body, &review); herr != nil {
		h.metrics.request("/validate", "", "bad_request", start)
		writeHTTPError(w, log, herr)
		return
	}
	req := review.Request
	log = log.WithValues("uid", req.UID, "kind", req.Kind.Kind, "object", klog.KRef(req.Namespace, req.Name),
		"operation", req.Operation, "subResource", req.SubResource)
	ctx, cancel := context.WithTimeout(r.Context(), h.timeout)
	defer cancel()

	resp, result := h.admit(ctx, req)
	resp.UID = req.UID
	switch result {
	case "denied", "error":
		log.Info("Admission denied", "code", resp.Result.Code, "message", resp.Result.Message)
	default:
		log.V(4).Info("Admission allowed", "warnings", len(resp.Warnings), "duration", time.Since(start))
	}
	h.metrics.request("/validate", string(req.Operation), result, start)
	writeJSON(w, log, &admissionv1.AdmissionReview{TypeMeta: review.TypeMeta, Response: resp})
}

func decodeAdmissionReview(body []byte, review *admissionv1.AdmissionReview) *httpError {
	if err := json.Unmarshal(body, review); err != nil {
		return errorf(http.StatusBadRequest, "decoding AdmissionReview: %v", err)
	}
	if review.Kind != "AdmissionReview" ||
		(review.APIVersion != "admission.k8s.io/v1" && review.APIVersion != "admission.k8s.io/v1beta1") {
		return errorf(http.StatusBadRequest, "unsupported review %s %q: want AdmissionReview admission.k8s.io/v1 or v1beta1", review.Kind, review.APIVersion)
	}
	if review.Request == nil {
		return errorf(http.StatusBadRequest, "AdmissionReview has no request")
	}
	if review.Request.UID == "" {
		return errorf(http.StatusBadRequest, "AdmissionReview request has no uid")
	}
	return nil
}

// admit decides one request and names the outcome for metrics: allowed,
// denied (validation errors) or error (unusable request, panic, deadline).
func (h *validateHandler) admit(ctx context.Context, req *admissionv1.AdmissionRequest) (*admissionv1.AdmissionResponse, string) {
	op := Operation(req.Operation)
	if op != OperationCreate && op != OperationUpdate {
		return &admissionv1.AdmissionResponse{Allowed: true}, "allowed"
	}
	if req.SubResource != "" && req.SubResource != "status" {
		return &admissionv1.AdmissionResponse{Allowed: true}, "allowed"
	}
	if req.Kind.Group != Group || !servedKinds[req.Kind.Kind] || !servedVersions[req.Kind.Version] {
		return errored(http.StatusBadRequest, "kind %s.%s/%s is not served by this webhook", req.Kind.Kind, req.Kind.Group, req.Kind.Version), "error"
	}
	vreq := ValidationRequest{Operation: op, SubResource: req.SubResource}
	var err error
	if vreq.Object, err = decodeObject(req.Object.Raw); err != nil {
		return errored(http.StatusBadRequest, "object %v", err), "error"
	}
	if op == OperationUpdate {
		if vreq.OldObject, err = decodeObject(req.OldObject.Raw); err != nil {
			return errored(http.StatusBadRequest, "oldObject %v", err), "error"
		}
	}
	if err := ctx.Err(); err != nil {
		return errored(http.StatusGatewayTimeout, "validation not started: %v", err), "error"
	}
	res, err := h.safeValidate(vreq)
	var pe *panicError
	if errors.As(err, &pe) {
		return errored(http.StatusInternalServerError, "%v", err), "error"
	}
	if err != nil {
		return errored(http.StatusBadRequest, "%v", err), "error"
	}
	resp := &admissionv1.AdmissionResponse{Allowed: len(res.Errors) == 0, Warnings: res.Warnings}
	if resp.Allowed {
		return resp, "allowed"
	}
	gk, name := res.GroupKind, res.Name
	if gk.Empty() {
		gk = schema.GroupKind{Group: req.Kind.Group, Kind: req.Kind.Kind}
	}
	if name == "" {
		name = req.Name
	}
	st := apierrors.NewInvalid(gk, name, res.Errors).Status()
	resp.Result = &st
	return resp, "denied"
}

// safeValidate turns a validator panic into an internal error.
func (h *validateHandler) safeValidate(req ValidationRequest) (res ValidationResponse, err error) {
	defer func() {
		if p := recover(); p != nil {
			h.metrics.panic("/validate")
			err = &panicError{value: p}
		}
	}()
	return h.validate(req)
}

type panicError struct{ value any }

func (e *panicError) Error() string { return fmt.Sprintf("validator panicked: %v", e.value) }

func errored(code int32, format string, args ...any) *admissionv1.AdmissionResponse {
	reason := metav1.StatusReasonBadRequest
	switch code {
	case http.StatusInternalServerError:
		reason = metav1.StatusReasonInternalError
	case http.StatusGatewayTimeout:
		reason = metav1.StatusReasonTimeout
	}
	return &admissionv1.AdmissionResponse{Result: &metav1.Status{
		Status: metav1.StatusFailure, Code: code, Reason: reason, Message: fmt.Sprintf(format, args...),
	}}
}
