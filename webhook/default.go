package webhook

import (
	"encoding/json"
	"fmt"

	admissionv1 "k8s.io/api/admission/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/claimbridge/claimbridge/defaulting"
)

// handleDefault decides /default: a claim or template created or updated
// (not its status) gets, as a JSON Patch (package defaulting), the
// defaults of its version's release and what its stored form must keep.
func handleDefault(req *admissionv1.AdmissionRequest) admissionv1.AdmissionResponse {
	op := req.Operation
	if op != admissionv1.Create && op != admissionv1.Update || req.SubResource != "" {
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
		if op != admissionv1.Update {
			return nil, nil
		}
		old, err := decodeObject(req.OldObject.Raw)
		if err != nil {
			return nil, fmt.Errorf("oldObject %v", err)
		}
		return old, nil
	}
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
