package webhook

import (
	"context"
	"errors"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/claimbridge/claimbridge/api"
)

// validator decides one admission request with a ValidateFunc.
type validator struct {
	validate ValidateFunc
	metrics  *metrics
	// maxViewDepth is every request's ValidationRequest.MaxViewDepth: how
	// deep /convert returns a converted object (convertedDepth).
	maxViewDepth int
}

var _ admission.Handler = (*validator)(nil)

// Handle allows what it does not validate (DELETE, CONNECT, subresources
// other than status) and denies invalid objects with exactly
// apierrors.NewInvalid's status, so clients get 422 with per-field causes.
func (v *validator) Handle(ctx context.Context, req admission.Request) admission.Response {
	op := Operation(req.Operation)
	if op != OperationCreate && op != OperationUpdate {
		return allowed(nil)
	}
	if req.SubResource != "" && req.SubResource != "status" {
		return allowed(nil)
	}
	if req.Kind.Group != api.Group || !api.IsKind(req.Kind.Kind) || !api.IsServed(req.Kind.Version) {
		return denied(apierrors.NewBadRequest(fmt.Sprintf("kind %s.%s/%s is not served by this webhook", req.Kind.Kind, req.Kind.Group, req.Kind.Version)))
	}
	vreq := ValidationRequest{Operation: op, SubResource: req.SubResource, MaxViewDepth: v.maxViewDepth}
	var err error
	if vreq.Object, err = objectOf(req.Object); err != nil {
		return denied(apierrors.NewBadRequest(fmt.Sprintf("object %v", err)))
	}
	if op == OperationUpdate {
		if vreq.OldObject, err = objectOf(req.OldObject); err != nil {
			return denied(apierrors.NewBadRequest(fmt.Sprintf("oldObject %v", err)))
		}
	}
	if err := ctx.Err(); err != nil {
		return denied(apierrors.NewTimeoutError(fmt.Sprintf("validation not started: %v", err), 0))
	}
	res, err := v.safeValidate(vreq)
	var pe *panicError
	if errors.As(err, &pe) {
		return denied(apierrors.NewInternalError(err))
	}
	if err != nil {
		return denied(apierrors.NewBadRequest(err.Error()))
	}
	if len(res.Errors) == 0 {
		return allowed(res.Warnings)
	}
	gk, name := res.GroupKind, res.Name
	if gk.Empty() {
		gk = schema.GroupKind{Group: req.Kind.Group, Kind: req.Kind.Kind}
	}
	if name == "" {
		name = req.Name
	}
	// No warnings with a denial: the apiserver of 1.26-1.31 adds a
	// strategy's warnings only to a write that passed validation, and
	// kubectl would print them above the error, about an object not stored.
	return denied(apierrors.NewInvalid(gk, name, res.Errors))
}

// safeValidate turns a validator panic into an internal error.
func (v *validator) safeValidate(req ValidationRequest) (res ValidationResponse, err error) {
	defer func() {
		if p := recover(); p != nil {
			v.metrics.recordPanic("/validate")
			err = &panicError{value: p}
		}
	}()
	return v.validate(req)
}

type panicError struct{ value any }

func (e *panicError) Error() string { return fmt.Sprintf("validator panicked: %v", e.value) }
