package jsontree

import "github.com/claimbridge/claimbridge/api"

// knownKeys are object keys of ConversionReviews, AdmissionReviews and
// ResourceClaims of every version. A key equal to one of them is decoded
// into the string held in the known table: the same value, sharing its
// bytes with the string constants the conversion code compares keys with
// (the linker keeps one copy of equal string data), so that those
// comparisons end at the pointer.
var knownKeys = []string{
	// reviews
	"kind", "apiVersion", "request", "response", "uid", "desiredAPIVersion", "objects", "object", "oldObject",
	"operation", "userInfo", "username", "groups", "extra", "dryRun", "options", "resource", "subResource",
	"requestKind", "requestResource", "requestSubResource", "group", "version", "namespace", "name",
	// metadata
	"metadata", "labels", "annotations", "finalizers", "ownerReferences", "managedFields", "manager", "time",
	"fieldsType", "fieldsV1", "subresource", "resourceVersion", "generation", "creationTimestamp",
	"deletionTimestamp", "deletionGracePeriodSeconds", "generateName", "controller", "blockOwnerDeletion",
	// claims
	"spec", "status", "devices", "requests", "deviceClassName", "selectors", "cel", "expression",
	"allocationMode", "count", "adminAccess", "constraints", "matchAttribute", "distinctAttribute", "config",
	"opaque", "driver", "parameters", "allocation", "results", "pool", "device", "nodeSelector",
	"nodeSelectorTerms", "matchFields", "matchExpressions", "key", "operator", "values", "reservedFor",
	"apiGroup", "source", "resourceClassName", "parametersRef", "driverName", "resourceHandle",
	"resourceHandles", "data", "structuredData", "nodeName", "namedResources", "vendorClassParameters",
	"vendorClaimParameters", "vendorRequestParameters", "availableOnNodes", "shareable",
	"deallocationRequested", "exactly", "firstAvailable", "tolerations", "capacity", "allocationTimestamp",
	"conditions", "type", "reason", "message", "lastTransitionTime", "observedGeneration",
}

// knownValues are string values common in claims and reviews (the known
// keys are values too, like "kind" in a field path). A string value equal to
// one of them is decoded into the interface{} already holding it, without
// allocating a box for it.
var knownValues = func() []string {
	vs := []string{
		"", api.KindClaim, api.KindTemplate, "ConversionReview", "AdmissionReview",
		"apiextensions.k8s.io/v1", "admission.k8s.io/v1", api.Group, api.UpstreamGroup, "resourceclaims",
		"resourceclaimtemplates", "CREATE", "UPDATE", "DELETE", "CONNECT", "Update", "Apply", "FieldsV1",
		"FromClaim", "FromClass", "ExactCount", "All", "WaitForFirstConsumer", "Immediate", "In", "NotIn",
		"Exists", "DoesNotExist", "metadata.name", "pods", "default", "request", "True", "False", "Unknown",
	}
	// The API's versions and apiVersions, from its one definition.
	for _, v := range api.ConversionVersions {
		vs = append(vs, v, api.Group+"/"+v, api.UpstreamGroup+"/"+v)
	}
	return vs
}()

// known is one entry of the known table: the string and the same string
// boxed in an interface{}.
type known struct {
	s     string
	value interface{}
}

// knownBits sizes the known table: 2^knownBits slots, under a quarter full,
// so that a lookup probes one or two slots.
const knownBits = 10

// knownTable holds the known keys and values by knownHash, with linear
// probing; an empty slot has a nil value. A lookup hashes a few bytes of
// the string instead of all of it, and has no map's overhead: the decoder
// looks up every key and every string value it reads.
var knownTable = func() (t [1 << knownBits]known) {
	add := func(s string) {
		for i := knownHash([]byte(s)); ; i = (i + 1) & (1<<knownBits - 1) {
			switch {
			case t[i].value == nil:
				t[i] = known{s: s, value: s}
				return
			case t[i].s == s:
				return
			}
		}
	}
	for _, s := range knownKeys {
		add(s)
	}
	for _, s := range knownValues {
		add(s)
	}
	return t
}()

// knownHash is the slot where the search for b starts: from its length and
// its first, middle and last bytes.
func knownHash(b []byte) uint32 {
	n := uint32(len(b))
	h := n * 0x9E3779B1
	if n > 0 {
		h ^= uint32(b[0])*0x85EBCA77 ^ uint32(b[n/2])*0xC2B2AE3D ^ uint32(b[n-1])*0x27D4EB2F
		h ^= h >> 15
		h *= 0x2C1B3C6D
	}
	return h >> (32 - knownBits)
}

// lookupKnown returns the entry of the known table equal to b, or nil.
func lookupKnown(b []byte) *known { return lookupKnownAt(b, knownHash(b)) }

// lookupKnownAt is lookupKnown for a caller that has b's knownHash h.
func lookupKnownAt(b []byte, h uint32) *known {
	for i := h; ; i = (i + 1) & (1<<knownBits - 1) {
		e := &knownTable[i]
		if e.value == nil {
			return nil
		}
		if e.s == string(b) {
			return e
		}
	}
}
