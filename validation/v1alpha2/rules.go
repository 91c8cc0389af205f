package v1alpha2

import "github.com/claimbridge/claimbridge/validation/classic"

// Rules are the rules v1alpha2 shares with v1alpha1 (package classic), with
// this version's own rules for the allocation result.
var Rules = classic.NewRules(validateAllocationResult)
