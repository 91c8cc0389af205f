package webhook

import (
	"fmt"
	"net/http"
	"time"

	"github.com/go-logr/logr"
	admissionv1 "k8s.io/api/admission/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/klog/v2"
)

// decideFunc decides one admission request.
type decideFunc func(req *admissionv1.AdmissionRequest) admissionv1.AdmissionResponse

// admissionHandler serves an AdmissionReview admission.k8s.io/v1 or v1beta1
// with decide, named decider in the denial of its panic. It answers every
// review it can name with a denial, never an HTTP error: with
// failurePolicy Ignore, kube-apiserver would admit the write unchecked.
func (s *Server) admissionHandler(path, decider string, decide decideFunc) http.Handler {
	// One level less than a ConversionReview: every object admitted fits
	// in the reviews that read it through another version.
	e := endpoint{path: path, maxBytes: s.cfg.MaxValidateBodyBytes, maxDepth: max(1, s.cfg.MaxJSONDepth-1),
		requireCert: s.cfg.ClientCAFile != "", kind: "AdmissionReview", group: "admission.k8s.io", deny: true}
	return s.serveReview(e, func(x exchange) {
		var review admissionv1.AdmissionReview
		if !x.decode(&review, &review.TypeMeta, func() bool { return review.Request != nil && review.Request.UID != "" }) {
			return
		}
		req := review.Request
		x.log = x.log.WithValues("uid", logString(string(req.UID)), "kind", logString(req.Kind.Kind), "object", klog.KRef(logString(req.Namespace), logString(req.Name)),
			"operation", logString(string(req.Operation)), "subResource", logString(req.SubResource))
		resp := func() (resp admissionv1.AdmissionResponse) { // a denial of code 500 when decide panics
			defer s.catch(path, func(p any) { resp = denied(apierrors.NewInternalError(fmt.Errorf("%s panicked: %v", decider, p))) })
			return decide(req)
		}()
		resp.UID = req.UID
		resp.Warnings = fitWarnings(resp.Warnings)
		x.answer(operationLabel(req.Operation), logVerdict(x.log, &resp, x.start), &admissionv1.AdmissionReview{TypeMeta: review.TypeMeta, Response: &resp})
	})
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
