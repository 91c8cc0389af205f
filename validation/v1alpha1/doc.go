// Package v1alpha1 validates and defaults the v1alpha1 shape of the
// ResourceClaim and ResourceClaimTemplate (Kubernetes 1.26,
// resource.k8s.io/v1alpha1) the way kube-apiserver 1.26.2+ did, with one
// deliberate difference: status.allocation is immutable once set, as from
// 1.27 on (1.26 let it change). Only the allocation result's rules are this
// version's own; the rest are package classic's.
package v1alpha1
