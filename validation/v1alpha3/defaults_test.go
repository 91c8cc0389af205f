package v1alpha3

import (
	"testing"

	api "github.com/claimbridge/claimbridge/api/v1alpha3"
)

// TestSetDefaultsIgnoresNil: nil pointers of every supported type, and
// other types, are ignored as the doc says, not dereferenced.
func TestSetDefaultsIgnoresNil(t *testing.T) {
	for _, obj := range []interface{}{nil, (*api.ResourceClaim)(nil), (*api.ResourceClaimTemplate)(nil),
		(*api.ResourceClaimList)(nil), (*api.ResourceClaimTemplateList)(nil), "not an object"} {
		SetDefaults(obj)
	}
}
