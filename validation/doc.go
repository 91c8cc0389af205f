// Package validation is the version-agnostic entry point to claimbridge's
// ResourceClaim and ResourceClaimTemplate validation, used by the validating
// webhook, by `claimbridge validate` and by `claimbridge migrate` (which
// refuses a migrated v1alpha1, v1alpha2 or v1alpha3 object that fails the
// create rules).
//
// Validate takes an admission-like Request holding JSON trees, decodes them
// into the shape named by apiVersion (v1alpha1, v1alpha2 or v1alpha3 of
// resource.claimbridge.dev or resource.k8s.io), emulates what kube-apiserver
// does to a write of this CRD before validating admission runs (status
// dropped on create, status kept on main updates, only status taken on
// status updates), applies the upstream defaults, runs the upstream rules of
// that shape (packages v1alpha1, v1alpha2, v1alpha3) and then the
// cross-version invariants that keep one stored object consistent whichever
// version an update arrives in. See docs/validation.md.
//
// Go code that holds a typed claim passes conversion.ToTree(claim) as the
// Request's Object (ExampleValidate). Validate is safe for concurrent use
// and does not modify the request's objects. The CEL selectors of v1alpha3
// are compiled as Kubernetes 1.31 compiled them, with upstream's packages
// (k8s.io/dynamic-resource-allocation/cel, k8s.io/apiserver/pkg/cel): they
// bring cel-go, and through k8s.io/component-base prometheus, OpenTelemetry
// and cobra, into every importer's build, which conversion and the api
// packages do not.
package validation
