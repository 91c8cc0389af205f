// Package classic holds the validation and defaulting rules that the
// v1alpha1 (Kubernetes 1.26) and v1alpha2 (1.27–1.30) shapes share: the
// "classic" DRA claim with a resource class, a parameters reference, an
// allocation mode and a driver-owned allocation. Both versions declare
// their claims and templates alike but for the allocation result, so the
// rules read either (object.go); validation/v1alpha1 and validation/v1alpha2
// add what differs, the rules of the allocation result (a Rules value).
package classic
