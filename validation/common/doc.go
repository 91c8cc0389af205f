// Package common holds the validation rules that the three ResourceClaim
// shapes (v1alpha1, v1alpha2, v1alpha3) share: object metadata, names, node
// selectors, the reservedFor list and the status invariants. Each helper
// takes a value and a field path and returns exactly the field.ErrorList
// upstream (k8s.io/kubernetes 1.26–1.31) produced; where today's
// apimachinery words an error differently (TooLong), it is built by hand.
// They are in one file, validation.go, as upstream's are.
package common
