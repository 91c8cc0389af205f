// Package validation validates claimbridge's ResourceClaims and
// ResourceClaimTemplates for the validating webhook, `claimbridge validate`
// and `claimbridge migrate`. Validate takes a Request of JSON trees (Go code
// with a typed claim passes conversion.ToTree(claim); ExampleValidate) and
// is safe for concurrent use. See docs/validation.md.
//
// A request flows through these files:
//
//   - request.go and validate.go: Request, Response and the whole flow;
//   - strategy.go: what kube-apiserver does to the write first;
//   - rules.go, decode.go, typemismatch.go: the object decoded, defaulted and
//     checked by its version's rules (packages v1alpha1, v1alpha2, classic,
//     v1alpha3, common);
//   - ratchet.go: findings dropped on updates that leave their part as stored;
//   - createchecks.go, otherversions.go, crossversion.go, unchanged.go,
//     depth.go, statusrestoredata.go: the cross-version checks, on the object
//     converted to every other version;
//   - mergefindings.go and collapsewarnings.go: alike findings said once.
//
// The CEL selectors of v1alpha3 are compiled with upstream's packages,
// which bring cel-go, prometheus, OpenTelemetry and cobra into every
// importer's build.
package validation
