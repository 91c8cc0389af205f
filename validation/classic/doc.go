// Package classic validates and defaults the v1alpha1 (Kubernetes 1.26.2+)
// and v1alpha2 (1.27–1.30, as 1.30) shapes of the ResourceClaim and
// ResourceClaimTemplate: the "classic" DRA claim with a resource class, a
// parameters reference, an allocation mode and a driver-owned allocation.
// Both versions declare their claims and templates alike but for the
// allocation result, so the rules read either (object.go) and only those
// of the allocation result are each version's (allocation.go). One
// deliberate difference from 1.26: status.allocation is immutable once
// set, as from 1.27 on (1.26 let it change).
package classic
