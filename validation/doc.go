// Package validation validates claimbridge's ResourceClaims and
// ResourceClaimTemplates for the validating webhook, `claimbridge validate`
// and `claimbridge migrate`. Validate takes a Request of JSON trees (Go code
// with a typed claim passes conversion.ToTree(claim); ExampleValidate) and
// is safe for concurrent use. See docs/validation.md.
//
// A request flows through these files:
//
//   - request.go: Request, Response and the object's type (objectType);
//   - validate.go: Validate, the whole flow, and the storage warnings;
//   - strategy.go: what kube-apiserver does to the write first (status
//     dropped on create, kept on main updates, alone taken on status writes);
//   - rules.go, decode.go, typemismatch.go: the object decoded into its
//     version's types, defaulted and checked by that version's rules
//     (packages v1alpha1, v1alpha2 and classic, v1alpha3, common);
//   - ratchet.go: findings dropped on updates that leave the offending part
//     as it was stored;
//   - the cross-version checks, for the CRD's group only. The object is
//     converted to every other version (what that version's clients read),
//     and the parts of it the checks compare are decoded (comparedParts):
//     createchecks.go for a create, otherversions.go and crossversion.go
//     for an update; unchanged.go skips them for updates that convert as
//     before; depth.go and statusrestoredata.go refuse restore annotations
//     that nest too deep or carry status data;
//   - mergefindings.go and collapsewarnings.go: findings alike in several
//     versions, and warnings alike but for list indices, said once.
//
// The CEL selectors of v1alpha3 are compiled with upstream's packages,
// which bring cel-go, prometheus, OpenTelemetry and cobra into every
// importer's build.
package validation
