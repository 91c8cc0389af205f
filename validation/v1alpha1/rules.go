package v1alpha1

import "github.com/claimbridge/claimbridge/validation/classic"

// Rules are the rules v1alpha1 shares with v1alpha2 (package classic), with
// this version's own rules for the allocation result.
var Rules = classic.NewRules(validateAllocationResult)
