package conversion

import (
	"crypto/sha256"
	"encoding/hex"
	"reflect"
	"sync"
)

// asMap returns v as an object, or nil.
func asMap(v interface{}) map[string]interface{} {
	m, _ := v.(map[string]interface{})
	return m
}

// asSlice returns v as an array, or nil.
func asSlice(v interface{}) []interface{} {
	s, _ := v.([]interface{})
	return s
}

// asString returns v as a string, or "".
func asString(v interface{}) string {
	s, _ := v.(string)
	return s
}

// fingerprintBuffers hold the JSON a fingerprint hashes, and the restore
// annotation while pushRestore encodes it.
var fingerprintBuffers = sync.Pool{New: func() any { b := make([]byte, 0, 4096); return &b }}

// fingerprint is a short, stable digest of a JSON tree ("" for absent): the
// first 8 bytes of the SHA-256 of the JSON that encode appends for v, in
// hex.
func fingerprint(encode func([]byte, interface{}) ([]byte, error), v interface{}, present bool) string {
	if !present {
		return ""
	}
	bp := fingerprintBuffers.Get().(*[]byte)
	defer fingerprintBuffers.Put(bp)
	data, err := encode((*bp)[:0], v)
	if err != nil {
		return "unencodable"
	}
	if cap(data) <= 1<<20 { // keep no buffer a huge section grew
		*bp = data[:0]
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:8])
}

// sameContainer reports whether a and b are the same map, or slices of the
// same elements: a shared subtree, equal without looking into it.
func sameContainer(a, b interface{}) bool {
	switch a := a.(type) {
	case map[string]interface{}:
		b, ok := b.(map[string]interface{})
		return ok && a != nil && b != nil && reflect.ValueOf(a).UnsafePointer() == reflect.ValueOf(b).UnsafePointer()
	case []interface{}:
		b, ok := b.([]interface{})
		return ok && len(a) > 0 && len(a) == len(b) && &a[0] == &b[0]
	}
	return false
}
