package webhook

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	admissionv1 "k8s.io/api/admission/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/conversion"
	"github.com/claimbridge/claimbridge/defaulting"
	"github.com/claimbridge/claimbridge/validation"
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
	var warnings []string
	// oldObject decodes the stored object of an update once, when needed
	// (nil for a create): the common write needs it not.
	oldObject := sync.OnceValues(func() (map[string]interface{}, *apierrors.StatusError) {
		if op != OperationUpdate {
			return nil, nil
		}
		old, err := objectOf(req.OldObject)
		if err != nil {
			return nil, apierrors.NewBadRequest(fmt.Sprintf("oldObject %v", err))
		}
		return old, nil
	})
	if stored := validation.StoredRestoreVersions(req.Kind.Version); req.Kind.Kind == api.KindClaim && hasRestoreAnnotation(obj, stored) {
		old, bad := oldObject()
		if bad != nil {
			return denied(bad)
		}
		var keep *defaulting.Operation
		if keep, warnings = storedStatusData(obj, old, req.Kind.Version); keep != nil {
			ops = append(ops, *keep)
		}
	}
	// storedDefaults tries ops with defaulting.Apply, which takes "add"
	// operations only: storedStatusData removes the annotations only when
	// none is left, and storedDefaults has nothing to do without a
	// restore-v1alpha3 annotation, which that leaves (it is never stored).
	if stored := storedDefaults(obj, ops); stored != nil {
		ops = append(ops, *stored)
	}
	if len(ops) == 0 {
		return allowed(nil)
	}
	// Only an update that gets defaults can be one whose sole change is
	// the managedFields times kube-apiserver set before admission.
	if op == OperationUpdate {
		old, bad := oldObject()
		if bad != nil {
			return denied(bad)
		}
		if kept := storedManagedFields(obj, old, ops); kept != nil {
			ops = append(ops, *kept)
		}
	}
	patch, err := json.Marshal(ops)
	if err != nil {
		return denied(apierrors.NewInternalError(err))
	}
	patchType := admissionv1.PatchTypeJSONPatch
	return admission.Response{AdmissionResponse: admissionv1.AdmissionResponse{Allowed: true, Patch: patch, PatchType: &patchType, Warnings: fitWarnings(warnings)}}
}

// storedStatusData is the operation that gives obj, a claim written through
// the main resource in version, the restore annotations
// validation.KeepStoredStatusRestoreData gives it (the status data of old,
// the stored claim, nil for a create), and its warnings; nil when nothing
// changes.
func storedStatusData(obj, old map[string]interface{}, version string) (*defaulting.Operation, []string) {
	out, warnings := validation.KeepStoredStatusRestoreData(obj, old, version)
	if len(warnings) == 0 {
		return nil, nil
	}
	annotations, ok := out["metadata"].(map[string]interface{})["annotations"]
	if !ok {
		return &defaulting.Operation{Op: "remove", Path: "/metadata/annotations"}, warnings
	}
	return &defaulting.Operation{Op: "add", Path: "/metadata/annotations", Value: annotations}, warnings
}

// storedDefaults is the operation that gives obj, once ops (its own
// version's defaults) are applied, the restore annotations under which it is
// stored with the storage version's defaults (conversion.
// StoredDefaultsAnnotations): a v1alpha1/v1alpha2 view read before the stored
// claim was defaulted records that its requests had no mode or count, and
// written back it would store that again. nil when nothing changes; obj is
// not modified.
func storedDefaults(obj map[string]interface{}, ops []defaulting.Operation) *defaulting.Operation {
	meta, _ := obj["metadata"].(map[string]interface{})
	if ann, _ := meta["annotations"].(map[string]interface{}); ann[api.RestoreAnnotation(api.V1alpha3)] == nil {
		return nil // the common case, without a copy
	}
	defaulted := api.DeepCopyJSON(obj)
	if err := defaulting.Apply(defaulted, ops); err != nil {
		return nil
	}
	annotations, present, changed, err := conversion.StoredDefaultsAnnotations(defaulted)
	if err != nil || !changed {
		return nil
	}
	if !present {
		return &defaulting.Operation{Op: "remove", Path: "/metadata/annotations"}
	}
	return &defaulting.Operation{Op: "add", Path: "/metadata/annotations", Value: annotations}
}

// hasRestoreAnnotation reports whether obj has the restore annotation of
// one of versions: the common write has none, and needs neither its old
// object decoded nor its annotations read.
func hasRestoreAnnotation(obj map[string]interface{}, versions []string) bool {
	meta, _ := obj["metadata"].(map[string]interface{})
	ann, _ := meta["annotations"].(map[string]interface{})
	for _, v := range versions {
		if _, ok := ann[api.RestoreAnnotation(v)]; ok {
			return true
		}
	}
	return false
}
