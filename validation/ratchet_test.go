package validation

import (
	"testing"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// An unchanged allocation is not validated again on status writes, nor a
// missing status.driverName when neither object has one
// (withoutUnchangedAllocationErrors; docs/validation.md, "An unchanged
// allocation is not validated again on status writes"). Everything else a
// status write does is: the rule lets no other finding go.
func TestUnchangedAllocationKeepsOtherFindings(t *testing.T) {
	requireConversion(t)
	allocatedV1 := `{"apiVersion":"resource.claimbridge.dev/v1alpha1","kind":"ResourceClaim","metadata":{"name":"c","namespace":"ns","resourceVersion":"1"},` +
		`"spec":{"resourceClassName":"gpu"},"status":{"driverName":"gpu.example.com","allocation":{"resourceHandle":"h","shareable":true},` +
		`"reservedFor":[{"resource":"pods","name":"a","uid":"1"}]}}`
	status := func(o map[string]interface{}) map[string]interface{} { return o["status"].(map[string]interface{}) }
	for name, tc := range map[string]struct {
		edit func(o map[string]interface{})
		want field.ErrorList
	}{
		"unreserving": {
			edit: func(o map[string]interface{}) { delete(status(o), "reservedFor") },
		},
		// The driver the allocation had is cleared: rule 7 (and the stored
		// allocation's drivers change).
		"clearing-the-driver": {
			edit: func(o map[string]interface{}) { delete(status(o), "driverName") },
			want: field.ErrorList{
				field.Required(field.NewPath("status", "driverName"), "must be specified when `allocation` is set"),
				field.Invalid(field.NewPath("status", "allocation"), "<value omitted>", "field is immutable: the update changes the allocation as seen through v1alpha3"),
			},
		},
		// Rule 46.
		"reserving-for-a-consumer-without-uid": {
			edit: func(o map[string]interface{}) {
				status(o)["reservedFor"] = append(status(o)["reservedFor"].([]interface{}), map[string]interface{}{"resource": "pods", "name": "b"})
			},
			want: field.ErrorList{field.Required(field.NewPath("status", "reservedFor").Index(1).Child("uid"), "")},
		},
	} {
		t.Run(name, func(t *testing.T) {
			old := obj(t, allocatedV1)
			o := obj(t, allocatedV1)
			tc.edit(o)
			checkScenario(t, func(*testing.T) Request {
				return Request{Operation: Update, SubResource: "status", Object: o, OldObject: old}
			}, func(*testing.T, Request) field.ErrorList { return tc.want })
		})
	}
}
