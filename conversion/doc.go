// Package conversion converts ResourceClaim and ResourceClaimTemplate objects
// between the three shapes served by claimbridge: v1alpha1 (Kubernetes 1.26),
// v1alpha2 (1.27–1.30) and v1alpha3 (1.31, the storage version), and on to
// upstream's v1beta1 (1.32), v1beta2 (1.33) and v1 (1.34+) for group
// resource.k8s.io (ChainVersions).
//
// Conversion works on the JSON object tree (map[string]interface{}, as decoded
// by encoding/json with UseNumber or as held by unstructured.Unstructured), so
// that every value it does not move is carried over byte for byte. It never
// validates, never fails on content it can represent and handles partial
// objects (no status, no spec, even no metadata).
//
// Go code that holds typed objects (claimbridge's api/v1alpha1, v1alpha2 and
// v1alpha3, k8s.io/api/resource/v1beta1, v1beta2 and v1) converts them with
// ConvertTyped, which takes the target version from its output's Go type and
// returns the warnings; ToTree gives the tree of a typed object, with the
// apiVersion and kind that its usually empty TypeMeta lacks, for Convert or
// validation.Validate (typed.go). Decode a tree into a Go type with
// encoding/json: runtime.DefaultUnstructuredConverter.FromUnstructured refuses
// the json.Number values conversion writes. A conversion through a typed
// object is exact where the Go type writes what the conversion wrote (as
// for every fixture and example, TestConvertTypedFixtures); through the tree
// it always is.
//
// Every function is safe for concurrent use (the webhook converts on many
// goroutines) and leaves its arguments alone unless its doc says otherwise
// (ConvertTyped's out; ConvertShared's and ConvertSections' results share
// with their input).
//
// Whatever the target shape cannot hold travels in an annotation
// (claimbridge.dev/restore-<version>) and is removed again when the object
// comes back to that version. Mappings keep the meaning for the target
// release's consumers (scheduler, kubelet, drivers); what they cannot say
// to them is reported by ConvertWithWarnings (warnings.go). Objects whose
// known fields have the wrong JSON type are refused, as is
// resource.k8s.io/v1alpha3 input of the 1.32/1.33 shape (shape.go).
// See docs/conversion.md.
package conversion
