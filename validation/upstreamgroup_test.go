package validation

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/claimbridge/claimbridge/api"
	apiv1 "github.com/claimbridge/claimbridge/api/v1alpha1"
	apiv2 "github.com/claimbridge/claimbridge/api/v1alpha2"
)

// TestUpstreamGroupGetsReleaseRulesOnly: a resource.k8s.io object (what
// `claimbridge validate` checks offline) was served by its release in its
// version alone, so it gets that release's rules, where the CRD's object
// (served in every version at once) also gets the cross-version rules and
// the stricter v1alpha1 allocation: status writes that 1.26.15 and 1.30.14
// accept (found by the CLI audit against those apiservers) are accepted.
func TestUpstreamGroupGetsReleaseRulesOnly(t *testing.T) {
	requireConversion(t)
	allocatedV1 := `{"apiVersion":"GROUP/v1alpha1","kind":"ResourceClaim","metadata":{"name":"c","namespace":"ns","resourceVersion":"1"},"spec":{"resourceClassName":"gpu"},"status":{"driverName":"gpu.example.com","allocation":{"resourceHandle":"h","shareable":true}}}`
	allocatedV2 := `{"apiVersion":"GROUP/v1alpha2","kind":"ResourceClaim","metadata":{"name":"c","namespace":"ns","resourceVersion":"1"},"spec":{"resourceClassName":"gpu"},"status":{"driverName":"gpu.example.com","allocation":{"resourceHandles":[{"driverName":"gpu.example.com","data":"h"}],"shareable":true}}}`
	badDriver := field.Invalid(field.NewPath("status", "driverName"), "Bad_Driver", "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, "+
		"'-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is "+
		"'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')")
	v2HandleChanged := field.Invalid(field.NewPath("status", "allocation"), &apiv2.AllocationResult{
		ResourceHandles: []apiv2.ResourceHandle{{DriverName: "gpu.example.com", Data: "h2"}}, Shareable: true}, "field is immutable")
	tests := []struct {
		name                  string
		old, new              string
		upstream, claimbridge field.ErrorList
	}{{
		// 1.26 allocations were mutable (1.27 made them immutable).
		name:     "v1alpha1-allocation-changed",
		old:      allocatedV1,
		new:      strings.Replace(allocatedV1, `"resourceHandle":"h"`, `"resourceHandle":"h2"`, 1),
		upstream: nil,
		claimbridge: field.ErrorList{field.Invalid(field.NewPath("status", "allocation"),
			&apiv1.AllocationResult{ResourceHandle: "h2", Shareable: true}, "field is immutable")},
	}, {
		// Upstream checks only the driver name's syntax; through the CRD,
		// the allocation of the v1alpha3 view (whose devices name the
		// driver) would change.
		name:     "v1alpha2-driver-name-changed",
		old:      allocatedV2,
		new:      strings.Replace(allocatedV2, `"driverName":"gpu.example.com","allocation"`, `"driverName":"other.example.com","allocation"`, 1),
		upstream: nil,
		claimbridge: field.ErrorList{field.Invalid(field.NewPath("status", "allocation"), "<value omitted>",
			"field is immutable: the update changes the allocation as seen through v1alpha3")},
	}, {
		// Only the immutability is 1.27's: 1.26 reported the rest (an
		// invalid driver name) as the CRD does.
		name:     "v1alpha1-allocation-changed-with-an-invalid-driver",
		old:      allocatedV1,
		new:      strings.Replace(allocatedV1, `"driverName":"gpu.example.com","allocation":{"resourceHandle":"h"`, `"driverName":"Bad_Driver","allocation":{"resourceHandle":"h2"`, 1),
		upstream: field.ErrorList{badDriver},
		claimbridge: field.ErrorList{badDriver, field.Invalid(field.NewPath("status", "allocation"),
			&apiv1.AllocationResult{ResourceHandle: "h2", Shareable: true}, "field is immutable")},
	}, {
		// 1.30 allocations are immutable, as the CRD's.
		name:        "v1alpha2-allocation-changed",
		old:         allocatedV2,
		new:         strings.Replace(allocatedV2, `"data":"h"`, `"data":"h2"`, 1),
		upstream:    field.ErrorList{v2HandleChanged},
		claimbridge: field.ErrorList{v2HandleChanged},
	}}
	for _, tt := range tests {
		for _, group := range []string{api.UpstreamGroup, api.Group} {
			t.Run(tt.name+"/"+group, func(t *testing.T) {
				in := func(s string) map[string]interface{} { return obj(t, strings.Replace(s, "GROUP", group, 1)) }
				resp, err := Validate(Request{Operation: Update, SubResource: "status", Object: in(tt.new), OldObject: in(tt.old)})
				if err != nil {
					t.Fatal(err)
				}
				if group == api.UpstreamGroup {
					if diff := cmp.Diff(tt.upstream, resp.Errors); diff != "" {
						t.Errorf("errors (-want +got):\n%s", diff)
					}
					return
				}
				if diff := cmp.Diff(tt.claimbridge, resp.Errors); diff != "" {
					t.Errorf("errors (-want +got):\n%s", diff)
				}
			})
		}
	}
}
