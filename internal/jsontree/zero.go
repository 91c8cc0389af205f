package jsontree

import "encoding/json"

// IsZeroNumber reports whether v, a decoded JSON value, is absent (nil) or
// the number 0 in any form the decoders give one (json.Number, float64,
// int64, int): what a Go integer field decodes to when the JSON left it out.
func IsZeroNumber(v interface{}) bool {
	switch n := v.(type) {
	case nil:
		return true
	case json.Number:
		f, err := n.Float64()
		return err == nil && f == 0
	case float64:
		return n == 0
	case int64:
		return n == 0
	case int:
		return n == 0
	}
	return false
}
