package webhook

import (
	"context"
	"encoding/json"
	"fmt"

	admissionv1 "k8s.io/api/admission/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/claimbridge/claimbridge/defaulting"
)

// handleDefault decides /default: a claim or template created or updated
// (not its status) gets, as a JSON Patch (package defaulting), the
// defaults of its version's release and what its stored form must keep.
func (s *Server) handleDefault(_ context.Context, req *admissionv1.AdmissionRequest) (resp admissionv1.AdmissionResponse) {
	op := Operation(req.Operation)
	if op != OperationCreate && op != OperationUpdate || req.SubResource != "" {
		return allowed(nil)
	}
	if bad := unservedKind(req); bad != nil {
		return denied(bad)
	}
	obj, err := decodeObject(req.Object.Raw)
	if err != nil {
		return denied(apierrors.NewBadRequest(fmt.Sprintf("object %v", err)))
	}
	// The stored object of an update, decoded only when needed.
	oldObject := func() (map[string]interface{}, error) {
		if op != OperationUpdate {
			return nil, nil
		}
		old, err := decodeObject(req.OldObject.Raw)
		if err != nil {
			return nil, fmt.Errorf("oldObject %v", err)
		}
		return old, nil
	}
	defer func() {
		if p := recover(); p != nil {
			s.metrics.panics.WithLabelValues("/default").Inc()
			resp = denied(apierrors.NewInternalError(fmt.Errorf("defaulting panicked: %v", p)))
		}
	}()
	ops, warnings, err := defaulting.Patch(obj, oldObject, req.Kind.Version, req.Kind.Kind)
	if err != nil {
		return denied(apierrors.NewBadRequest(err.Error()))
	}
	if len(ops) == 0 {
		return allowed(warnings)
	}
	patch, err := json.Marshal(ops)
	if err != nil {
		return denied(apierrors.NewInternalError(err))
	}
	patchType := admissionv1.PatchTypeJSONPatch
	return admissionv1.AdmissionResponse{Allowed: true, Patch: patch, PatchType: &patchType, Warnings: warnings}
}
