package validation

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

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
	// A v1alpha3 claim without requests, allocated: its v1alpha1 view has
	// an allocation and no driver.
	noRequestsV3 := `{"apiVersion":"resource.claimbridge.dev/v1alpha3","kind":"ResourceClaim","metadata":{"name":"c","namespace":"ns","resourceVersion":"1"},` +
		`"spec":{"devices":{}},"status":{"allocation":{"devices":{}},"reservedFor":[{"resource":"pods","name":"a","uid":"1"}]}}`
	status := func(o map[string]interface{}) map[string]interface{} { return o["status"].(map[string]interface{}) }
	for name, tc := range map[string]struct {
		base string // allocatedV1 if empty
		edit func(o map[string]interface{})
		want field.ErrorList
	}{
		// A driver "" is no driver, as absent: the client sends its empty
		// string back.
		"unreserving-without-a-driver-sent-as-empty-string": {
			base: "noRequests",
			edit: func(o map[string]interface{}) {
				delete(status(o), "reservedFor")
				status(o)["driverName"] = ""
			},
		},
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
			base := func() map[string]interface{} {
				if tc.base == "noRequests" {
					return mustConvert(t, obj(t, noRequestsV3), "v1alpha1")
				}
				return obj(t, allocatedV1)
			}
			old, o := base(), base()
			tc.edit(o)
			resp, err := Validate(Request{Operation: Update, SubResource: "status", Object: o, OldObject: old})
			if err != nil {
				t.Fatal(err)
			}
			// (No findings may come as an empty list or as nil.)
			if diff := cmp.Diff(tc.want, resp.Errors, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
		})
	}
}
