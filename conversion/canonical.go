package conversion

import (
	"encoding/json"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/claimbridge/claimbridge/api"
)

// Both encodings below are encoding/json's, with sorted keys and without
// HTML escaping. Restore fingerprints hash these bytes, and stored
// annotations carry such fingerprints: the bytes must never change.

// CanonicalJSON is api.AppendJSON with every number in canonical form: the
// text the kube-apiserver stores for it (1.0 as 1, 1e2 as 100, 0.0000001
// as 1e-7). So a tree encodes alike before and after the apiserver stores it.
// v is not modified.
func CanonicalJSON(v interface{}) ([]byte, error) { return appendCanonicalJSON(nil, v) }

// appendCanonicalJSON appends CanonicalJSON(v) to buf.
func appendCanonicalJSON(buf []byte, v interface{}) ([]byte, error) {
	c, _ := canonicalTree(v)
	return api.AppendJSON(buf, c)
}

// withoutKeys returns m without the keys in omit. It copies m only when m
// has one of them.
func withoutKeys(m map[string]interface{}, omit ...string) map[string]interface{} {
	if !slices.ContainsFunc(omit, func(k string) bool { _, ok := m[k]; return ok }) {
		return m
	}
	out := maps.Clone(m)
	for _, k := range omit {
		delete(out, k)
	}
	return out
}

// canonicalTree returns v with its numbers in canonical form, and whether
// that differs from v. It copies only the containers on the way to a
// changed number; v is not modified.
func canonicalTree(v interface{}) (interface{}, bool) {
	switch v := v.(type) {
	case json.Number:
		return canonicalNumber(v)
	case float64:
		// encoding/json writes a float64 in canonical form, except -0.
		if v == 0 && math.Signbit(v) {
			return float64(0), true
		}
	case map[string]interface{}:
		var out map[string]interface{}
		for k, e := range v {
			c, changed := canonicalTree(e)
			if !changed {
				continue
			}
			if out == nil {
				out = maps.Clone(v)
			}
			out[k] = c
		}
		if out != nil {
			return out, true
		}
	case []interface{}:
		var out []interface{}
		for i, e := range v {
			c, changed := canonicalTree(e)
			if !changed {
				continue
			}
			if out == nil {
				out = slices.Clone(v)
			}
			out[i] = c
		}
		if out != nil {
			return out, true
		}
	}
	return v, false
}

// canonicalNumber returns the canonical form of n and whether it differs
// from n. Text that is not a JSON number is left for encoding/json to
// refuse.
func canonicalNumber(n json.Number) (json.Number, bool) {
	var small [32]byte
	c := appendCanonicalNumber(small[:0], string(n))
	if string(c) == string(n) || !api.IsJSONNumber(string(n)) {
		return n, false
	}
	return json.Number(c), true
}

// appendCanonicalNumber appends the canonical form of the JSON number s to
// buf: the text the kube-apiserver stores for it. The apiserver decodes an
// integer literal that fits as an int64 and anything else as a float64, and
// encodes it again with encoding/json. So 1, 1.0 and 1e0 are all "1", and
// 0.0000001 is "1e-7". A literal out of float64 range is kept as it is.
// "" is "0". Callers check that s is a JSON number.
func appendCanonicalNumber(buf []byte, s string) []byte {
	if s == "" {
		return append(buf, '0')
	}
	if !strings.ContainsAny(s, ".eE") { // an integer
		digits := len(s)
		if s[0] == '-' {
			digits--
		}
		if digits <= 18 { // fits an int64; JSON has no leading zeros
			if s == "-0" {
				return append(buf, '0')
			}
			return append(buf, s...)
		}
		if n, err := strconv.ParseInt(s, 10, 64); err == nil {
			return strconv.AppendInt(buf, n, 10)
		}
	}
	f, err := strconv.ParseFloat(s, 64)
	switch {
	case err != nil:
		return append(buf, s...)
	case f == 0:
		return append(buf, '0') // -0 too
	}
	return api.AppendFloat(buf, f)
}
