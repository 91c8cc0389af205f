// Package common holds the validation rules that the three ResourceClaim
// shapes (v1alpha1, v1alpha2, v1alpha3) share: object metadata, names,
// node selectors, the reservedFor list and the status invariants, plus the
// claim spec, warning and status rules of v1alpha1 and v1alpha2 (1.26–1.30),
// which those two shapes share field for field.
//
// Every helper has the shape of the upstream Kubernetes helpers
// (k8s.io/kubernetes pkg/apis/resource/validation and
// pkg/apis/core/validation of 1.26–1.31): it takes a value and a field path
// and returns a field.ErrorList whose types, paths, values and details are
// exactly what upstream produced. Where the apimachinery release we build
// against (v0.36) words an error differently from 1.26–1.31 (TooLong), the
// error is built here by hand.
package common
