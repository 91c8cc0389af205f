// Package v1alpha2 validates and defaults the v1alpha2 shape of the
// ResourceClaim and ResourceClaimTemplate (Kubernetes 1.27–1.30,
// resource.k8s.io/v1alpha2) the way kube-apiserver 1.30 did, including the
// 1.30 structured-parameters allocation results. Only the allocation
// result's rules are this version's own; the rest are package classic's.
package v1alpha2
