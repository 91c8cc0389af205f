package validation

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/claimbridge/claimbridge/conversion"
)

// TestTemplateMetadataStoredWithoutTheWebhook: a template whose spec.metadata
// holds what a create is refused for (generateName, an unknown field),
// stored while the webhook was not called, can still be labelled and have
// its finalizer removed through every version: an unchanged spec.metadata
// is neither decoded nor validated again on update. A create, and an update
// that changes spec.metadata, still get them.
func TestTemplateMetadataStoredWithoutTheWebhook(t *testing.T) {
	requireConversion(t)
	stored := obj(t, `{"apiVersion":"resource.claimbridge.dev/v1alpha3","kind":"ResourceClaimTemplate",
		"metadata":{"name":"t","namespace":"ns","resourceVersion":"1","finalizers":["example.com/f"]},
		"spec":{"metadata":{"generateName":"g-","colour":"blue","labels":{"a":"b"}},"spec":{"devices":{"requests":[{"name":"r","deviceClassName":"gpu","allocationMode":"ExactCount","count":1}]}}}}`)
	for _, version := range []string{"v1alpha1", "v1alpha2", "v1alpha3"} {
		t.Run(version, func(t *testing.T) {
			old, err := conversion.Convert(deepCopyJSON(stored), version)
			if err != nil {
				t.Fatal(err)
			}
			created, err := Validate(Request{Operation: Create, Object: deepCopyJSON(old)})
			if err != nil {
				t.Fatal(err)
			}
			wantCreate := field.ErrorList{ // unknown fields first, as the strict decode finds them
				field.Forbidden(field.NewPath("spec", "metadata", "colour"), "unknown field"),
				field.Forbidden(field.NewPath("spec", "metadata", "generateName"), "cannot be set"),
			}
			if diff := cmp.Diff(wantCreate, created.Errors); diff != "" {
				t.Errorf("create (-want +got):\n%s", diff)
			}
			newObj := deepCopyJSON(old)
			meta := newObj["metadata"].(map[string]interface{})
			meta["labels"] = map[string]interface{}{"team": "a"}
			delete(meta, "finalizers")
			resp, err := Validate(Request{Operation: Update, Object: newObj, OldObject: old})
			if err != nil {
				t.Fatal(err)
			}
			if len(resp.Errors) > 0 {
				t.Errorf("label and finalizer removal: %v", resp.Errors)
			}
			// Values the typed ObjectMeta cannot decode (stored while the
			// webhook was not called: a date-time the schema's check accepts
			// and metav1.Time does not parse, a string where a number
			// belongs): an update that leaves them as they were is not
			// refused either.
			for _, bad := range []map[string]interface{}{
				{"creationTimestamp": "2024-01-01t00:00:00z"},
				{"generation": "1"},
			} {
				undecodable := deepCopyJSON(old)
				undecodable["spec"].(map[string]interface{})["metadata"] = bad
				newObj := deepCopyJSON(undecodable)
				delete(newObj["metadata"].(map[string]interface{}), "finalizers")
				resp, err := Validate(Request{Operation: Update, Object: newObj, OldObject: undecodable})
				if err != nil || len(resp.Errors) > 0 {
					t.Errorf("finalizer removal with spec.metadata %v: %v %v", bad, err, resp.Errors)
				}
			}
			changed := deepCopyJSON(old)
			changed["spec"].(map[string]interface{})["metadata"].(map[string]interface{})["generateName"] = "h-"
			resp, err = Validate(Request{Operation: Update, Object: changed, OldObject: old})
			if err != nil {
				t.Fatal(err)
			}
			if !hasError(resp.Errors, "spec.metadata.generateName", field.ErrorTypeForbidden) {
				t.Errorf("an update changing spec.metadata: %v, want its finding", resp.Errors)
			}
		})
	}
}

func hasError(errs field.ErrorList, path string, typ field.ErrorType) bool {
	for _, e := range errs {
		if e.Field == path && e.Type == typ {
			return true
		}
	}
	return false
}
