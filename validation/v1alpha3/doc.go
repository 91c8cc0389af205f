// Package v1alpha3 validates and defaults the v1alpha3 shape of the
// ResourceClaim and ResourceClaimTemplate (Kubernetes 1.31,
// resource.k8s.io/v1alpha3) the way kube-apiserver 1.31 did with the
// DRAControlPlaneController feature enabled (controller and
// deallocationRequested are validated, never dropped).
package v1alpha3
