// Package classic holds the validation and defaulting rules that the
// v1alpha1 (Kubernetes 1.26) and v1alpha2 (1.27–1.30) shapes share: the
// "classic" DRA claim with a resource class, a parameters reference, an
// allocation mode and a driver-owned allocation. The rules are written once,
// generic over the version's types; validation/v1alpha1 and
// validation/v1alpha2 bind their types to them (a Binding) and add only what
// differs, the allocation result.
package classic
