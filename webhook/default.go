package webhook

import (
	"context"
	"encoding/json"
	"fmt"

	admissionv1 "k8s.io/api/admission/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/defaulting"
)

// defaulter decides /default: a claim or template created or updated (not
// its status: a status write keeps the stored spec) gets the defaults of its
// version's release as a JSON Patch (package defaulting), which
// kube-apiserver applies before validation, as it applied its own defaulting
// to every object it stored.
type defaulter struct {
	metrics *metrics
}

var _ admission.Handler = (*defaulter)(nil)

// Handle allows every request; what needs defaults gets a patch. A kind
// this webhook does not serve is refused, as /validate refuses it (the
// webhook configuration sends only claims and templates), and so is an
// object that is no JSON object. An object whose fields have the wrong JSON
// types is left for /validate to refuse.
func (d *defaulter) Handle(ctx context.Context, req admission.Request) (resp admission.Response) {
	defer func() {
		if p := recover(); p != nil {
			d.metrics.recordPanic("/default")
			resp = denied(apierrors.NewInternalError(fmt.Errorf("defaulting panicked: %v", p)))
		}
	}()
	op := Operation(req.Operation)
	if op != OperationCreate && op != OperationUpdate || req.SubResource != "" {
		return allowed(nil)
	}
	if req.Kind.Group != api.Group || !api.IsKind(req.Kind.Kind) || !api.IsServed(req.Kind.Version) {
		return denied(apierrors.NewBadRequest(fmt.Sprintf("kind %s.%s/%s is not served by this webhook", req.Kind.Kind, req.Kind.Group, req.Kind.Version)))
	}
	obj, err := objectOf(req.Object)
	if err != nil {
		return denied(apierrors.NewBadRequest(fmt.Sprintf("object %v", err)))
	}
	ops := defaulting.Patch(obj, req.Kind.Version, req.Kind.Kind)
	if len(ops) == 0 {
		return allowed(nil)
	}
	patch, err := json.Marshal(ops)
	if err != nil {
		return denied(apierrors.NewInternalError(err))
	}
	patchType := admissionv1.PatchTypeJSONPatch
	return admission.Response{AdmissionResponse: admissionv1.AdmissionResponse{Allowed: true, Patch: patch, PatchType: &patchType}}
}
