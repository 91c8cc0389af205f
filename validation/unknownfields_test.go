package validation

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/validation/common"
)

// TestRestoreDataAddingUnknownFieldsRefused: a restore annotation is a
// patch its client can write (its base is conversion's fingerprint of the
// spec); one that adds fields its version does not have was refused on a
// create (its views decode strictly) but admitted on a main update, whose
// views compare typed specs: 5,500 unknown spec fields made every read of
// the claim through v1alpha1 diff them. An update that adds them is refused
// at the annotation; one that keeps what the stored object had, and the
// annotations conversion itself writes, are not.
func TestRestoreDataAddingUnknownFieldsRefused(t *testing.T) {
	requireConversion(t)
	claimV2Restore := mustConvert(t, obj(t, `{"apiVersion":"resource.claimbridge.dev/v1alpha2","kind":"ResourceClaim","metadata":{"name":"c","namespace":"ns","resourceVersion":"1"},`+
		`"spec":{"resourceClassName":"gpu","allocationMode":"Immediate","parametersRef":{"kind":"ClaimParameters","name":"p"}}}`), "v1alpha3")
	template := obj(t, `{"apiVersion":"resource.claimbridge.dev/v1alpha3","kind":"ResourceClaimTemplate","metadata":{"name":"t","namespace":"ns","resourceVersion":"1"},`+
		`"spec":{"spec":{"devices":{"requests":[{"name":"gpu","deviceClassName":"gpu.example.com"}]}}}}`)
	// planted is o, of version own, with view's restore data adding the
	// unknown field spec.x (spec.spec.x for a template).
	planted := func(o map[string]interface{}, own, view string) map[string]interface{} {
		seen := mustConvert(t, o, view)
		spec := seen["spec"].(map[string]interface{})
		if seen["kind"] == api.KindTemplate {
			spec = spec["spec"].(map[string]interface{})
		}
		spec["x"] = map[string]interface{}{"a": true}
		return mustConvert(t, seen, own)
	}
	refused := func(view, path string) field.ErrorList {
		return field.ErrorList{field.Invalid(field.NewPath("metadata", "annotations").Key("claimbridge.dev/restore-"+view), common.OmittedValue,
			"the restore annotations make the object invalid as seen through "+view+": "+path+": Forbidden: unknown field")}
	}
	claim3, claim2 := obj(t, claimV3), mustConvert(t, obj(t, claimV3), "v1alpha2")
	for name, tc := range map[string]struct {
		old, new map[string]interface{}
		want     field.ErrorList
	}{
		"v1alpha3-restores-v1alpha2": {claim3, planted(claim3, "v1alpha3", "v1alpha2"), refused("v1alpha2", "spec.x")},
		"v1alpha3-restores-v1alpha1": {claim3, planted(claim3, "v1alpha3", "v1alpha1"), refused("v1alpha1", "spec.x")},
		"v1alpha2-restores-v1alpha1": {claim2, planted(claim2, "v1alpha2", "v1alpha1"), refused("v1alpha1", "spec.x")},
		"template-restores-v1alpha2": {template, planted(template, "v1alpha3", "v1alpha2"), refused("v1alpha2", "spec.spec.x")},
		// Stored so before this check: a label added keeps it.
		"kept-from-the-stored-object": {planted(claim3, "v1alpha3", "v1alpha2"), annotate(planted(claim3, "v1alpha3", "v1alpha2"), "team", "a"), nil},
		// What conversion itself keeps of a v1alpha2 claim (allocationMode
		// Immediate, parametersRef) adds no unknown field.
		"conversions-own-restore-data": {claimV2Restore, annotate(deepCopyJSON(claimV2Restore), "team", "a"), nil},
	} {
		t.Run(name, func(t *testing.T) {
			resp, err := Validate(Request{Operation: Update, Object: tc.new, OldObject: tc.old})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, resp.Errors); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
		})
	}
}
