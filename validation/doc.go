// Package validation validates claimbridge's ResourceClaims and
// ResourceClaimTemplates for the validating webhook, `claimbridge validate`
// and `claimbridge migrate`. Admit runs a manifest's write as the
// cluster's admission does: /default's patch, then Validate. Validate takes a Request of JSON trees (Go code
// with a typed claim passes conversion.ToTree(claim); ExampleValidate) or,
// from the webhook, of JSON; it is safe for concurrent use. See
// docs/validation.md.
//
// A request flows through these files:
//
//   - admit.go: Admit, for the CLI;
//   - validate.go: Request and Response, Validate's one dispatch on the
//     operation and subresource, and validateCreate, validateUpdate and
//     validateStatusUpdate, each with what the CRD's registry strategy does
//     to the write first; storageStatusFromJSON, the webhook's status write
//     of the storage version decoded once from its JSON; and viewsFit, the
//     one rule that spares a write the other versions' views;
//   - rules.go: the object decoded, defaulted and checked by
//     its version's rules (versionRules: packages classic, v1alpha1,
//     v1alpha2, v1alpha3 and common);
//   - ratchet.go: findings dropped on updates that leave their part as stored;
//   - crossversion.go, createchecks.go, depth.go, statusrestoredata.go: the
//     cross-version checks, on the object converted to every other version;
//   - alike.go: alike findings and warnings said once.
//
// The CEL selectors of v1alpha3 are compiled with upstream's packages,
// which bring cel-go, prometheus, OpenTelemetry and cobra into every
// importer's build.
package validation
