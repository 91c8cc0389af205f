package webhook

import (
	"cmp"
	"context"
	"fmt"

	admissionv1 "k8s.io/api/admission/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/validation"
)

// The validator's request and response are the validation package's.
type (
	// Operation is the admission operation handed to the validator.
	Operation = validation.Operation
	// ValidationRequest is one write to validate.
	ValidationRequest = validation.Request
	// ValidationResponse is the verdict on one write.
	ValidationResponse = validation.Response
)

// The operations the validator sees.
const (
	OperationCreate = validation.Create
	OperationUpdate = validation.Update
)

// ValidateFunc validates one admission request; its error means unusable
// input, findings go into the response.
type ValidateFunc func(ValidationRequest) (ValidationResponse, error)

// validator decides /validate with a ValidateFunc.
type validator struct {
	validate ValidateFunc
	metrics  *metrics
	// maxViewDepth is how deep /convert returns a converted object.
	maxViewDepth int
}

// handle allows what it does not validate (DELETE, CONNECT, subresources
// other than status) and denies an invalid object with exactly
// apierrors.NewInvalid's status: 422 with a cause per field.
func (v *validator) handle(_ context.Context, req *admissionv1.AdmissionRequest) (resp admissionv1.AdmissionResponse) {
	op := Operation(req.Operation)
	if op != OperationCreate && op != OperationUpdate || req.SubResource != "" && req.SubResource != "status" {
		return allowed(nil)
	}
	if bad := unservedKind(req); bad != nil {
		return denied(bad)
	}
	vreq := ValidationRequest{Operation: op, SubResource: req.SubResource, MaxViewDepth: v.maxViewDepth}
	var err error
	if vreq.Object, err = decodeObject(req.Object.Raw); err != nil {
		return denied(apierrors.NewBadRequest(fmt.Sprintf("object %v", err)))
	}
	if op == OperationUpdate {
		if vreq.OldObject, err = decodeObject(req.OldObject.Raw); err != nil {
			return denied(apierrors.NewBadRequest(fmt.Sprintf("oldObject %v", err)))
		}
	}
	defer func() {
		if p := recover(); p != nil {
			v.metrics.panics.WithLabelValues("/validate").Inc()
			resp = denied(apierrors.NewInternalError(fmt.Errorf("validator panicked: %v", p)))
		}
	}()
	res, err := v.validate(vreq)
	if err != nil {
		return denied(apierrors.NewBadRequest(err.Error()))
	}
	if len(res.Errors) == 0 {
		return allowed(res.Warnings)
	}
	// No warnings with a denial: kube-apiserver adds a strategy's warnings
	// only to a write that passed, and kubectl would print them above the
	// error, about an object not stored.
	gk := cmp.Or(res.GroupKind, schema.GroupKind{Group: req.Kind.Group, Kind: req.Kind.Kind})
	return denied(apierrors.NewInvalid(gk, cmp.Or(res.Name, req.Name), res.Errors))
}

// unservedKind refuses a kind this webhook does not serve (the webhook
// configuration sends only claims and templates).
func unservedKind(req *admissionv1.AdmissionRequest) *apierrors.StatusError {
	if req.Kind.Group == api.Group && api.IsKind(req.Kind.Kind) && api.IsServed(req.Kind.Version) {
		return nil
	}
	return apierrors.NewBadRequest(fmt.Sprintf("kind %s.%s/%s is not served by this webhook", req.Kind.Kind, req.Kind.Group, req.Kind.Version))
}
