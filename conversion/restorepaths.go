package conversion

import "strings"

// RestoredSpecFields returns the field paths of version, in order, that
// obj's restore annotation of version adds or replaces in the spec (such as
// spec.devices.requests[0].count). migrate reports them as lost when it
// drops the annotation.
func RestoredSpecFields(obj map[string]interface{}, version string) []string {
	r := decodeRestore(obj, version)
	if r == nil || r.Spec == nil {
		return nil
	}
	var fields []string
	for _, op := range r.Spec.Patch {
		if op.Op != "remove" {
			fields = append(fields, fieldPath(op.Path))
		}
	}
	return fields
}

// fieldPath writes a JSON pointer as a field path: /spec/devices/requests/0
// is spec.devices.requests[0], and a key that is no identifier is [key].
func fieldPath(pointer string) string {
	var b strings.Builder
	for i, tok := range strings.Split(strings.TrimPrefix(pointer, "/"), "/") {
		tok = unescapePointer(tok)
		switch {
		case !isIdentifier(tok): // an index (no identifier starts with a digit), or another key
			b.WriteString("[" + tok + "]")
		case i > 0:
			b.WriteString("." + tok)
		default:
			b.WriteString(tok)
		}
	}
	return b.String()
}

// isIdentifier reports whether s is an ASCII identifier: [A-Za-z_][A-Za-z0-9_]*.
func isIdentifier(s string) bool {
	return s != "" && (s[0] < '0' || s[0] > '9') && strings.Trim(s, "_0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ") == ""
}
