// Package conversion converts ResourceClaim and ResourceClaimTemplate objects
// along the chain of api.ConversionVersions: claimbridge's v1alpha1 (Kubernetes 1.26),
// v1alpha2 (1.27–1.30) and v1alpha3 (1.31, the storage version), and
// upstream's v1beta1 (1.32), v1beta2 (1.33) and v1 (1.34+) for group
// resource.k8s.io.
//
// Conversion works on the JSON tree (map[string]interface{}, as decoded by
// encoding/json with UseNumber), so every value it does not move is kept byte
// for byte. It never validates, and it handles partial objects (no status, no
// spec, even no metadata). Objects whose known fields have the wrong JSON type
// are refused, and so is resource.k8s.io/v1alpha3 input of the 1.32/1.33
// shape (shape.go).
//
// ConvertTyped converts typed objects (claimbridge's api packages and
// k8s.io/api/resource); ToTree gives the tree of a typed object. Decode a tree
// into a Go type with encoding/json: runtime.DefaultUnstructuredConverter
// refuses the json.Number values conversion writes.
//
// Every function is safe for concurrent use and leaves its arguments alone,
// unless its doc says otherwise.
//
// Whatever the target version cannot hold travels in an annotation
// (claimbridge.dev/restore-<version>) and is removed again when the object
// comes back to that version. ConvertWithWarnings reports what the target
// release's consumers (scheduler, kubelet, drivers) miss. See
// docs/conversion.md.
package conversion
