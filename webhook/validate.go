package webhook

import (
	"cmp"
	"fmt"

	admissionv1 "k8s.io/api/admission/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/validation"
)

// ValidateFunc validates one admission request; its error means unusable
// input, findings go into the response.
type ValidateFunc func(validation.Request) (validation.Response, error)

// handleValidate decides /validate with Config.Validator. It allows what it
// does not validate (DELETE, CONNECT, subresources other than status) and
// denies an invalid object with exactly apierrors.NewInvalid's status: 422
// with a cause per field.
func (s *Server) handleValidate(req *admissionv1.AdmissionRequest) admissionv1.AdmissionResponse {
	op := validation.Operation(req.Operation)
	if op != validation.Create && op != validation.Update || req.SubResource != "" && req.SubResource != "status" {
		return allowed(nil)
	}
	if bad := unservedKind(req); bad != nil {
		return denied(bad)
	}
	// The converted object may nest no deeper than /convert returns.
	vreq := validation.Request{Operation: op, SubResource: req.SubResource, MaxViewDepth: convertedDepth(s.cfg.MaxJSONDepth), CEL: s.cel}
	var err error
	if vreq.Object, err = decodeObject(req.Object.Raw); err != nil {
		return denied(apierrors.NewBadRequest(fmt.Sprintf("object %v", err)))
	}
	if op == validation.Update {
		if vreq.OldObject, err = decodeObject(req.OldObject.Raw); err != nil {
			return denied(apierrors.NewBadRequest(fmt.Sprintf("oldObject %v", err)))
		}
	}
	res, err := s.cfg.Validator(vreq)
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
