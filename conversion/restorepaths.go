package conversion

import (
	"strconv"
	"strings"
)

// RestoreStatusPaths returns the paths of the status operations in obj's
// restore annotation of version, read as a conversion to version reads them
// (an annotation that does not decode holds nothing), whether or not their
// fingerprint still matches. Validation uses it to tell whether a
// conversion can change what a status check reads (see
// validation/unchanged.go).
func RestoreStatusPaths(obj map[string]interface{}, version string) []string {
	r := decodeRestore(obj, version)
	if r == nil || r.Status == nil {
		return nil
	}
	paths := make([]string, len(r.Status.Patch))
	for i, op := range r.Status.Patch {
		paths[i] = op.Path
	}
	return paths
}

// RestoredSpecFields returns the spec fields that obj's restore annotation
// of version holds: what a conversion back to version adds or replaces,
// because the object's current version cannot hold it. They are field paths
// of version (spec.devices.requests[0].count, spec.spec.parametersRef), in
// the annotation's order. Removals are left out (they restore the absence
// of a field, no content), and so is an annotation that does not decode.
// migrate reports these fields as lost when it drops the annotation.
func RestoredSpecFields(obj map[string]interface{}, version string) []string {
	r := decodeRestore(obj, version)
	if r == nil || r.Spec == nil {
		return nil
	}
	var fields []string
	for _, op := range r.Spec.Patch {
		if op.Op == "remove" {
			continue
		}
		fields = append(fields, fieldPath(op.Path))
	}
	return fields
}

// fieldPath writes a JSON pointer as a field path: /spec/devices/requests/0
// is spec.devices.requests[0]; a key that is not an identifier is written
// as [key], as field.Path.Key does.
func fieldPath(pointer string) string {
	var b strings.Builder
	for i, tok := range strings.Split(strings.TrimPrefix(pointer, "/"), "/") {
		tok = unescapePointer(tok)
		switch {
		case isIndex(tok):
			b.WriteString("[" + tok + "]")
		case isIdentifier(tok):
			if i > 0 {
				b.WriteByte('.')
			}
			b.WriteString(tok)
		default:
			b.WriteString("[" + tok + "]")
		}
	}
	return b.String()
}

func isIndex(s string) bool {
	if s == "" {
		return false
	}
	_, err := strconv.Atoi(s)
	return err == nil && s[0] != '-' && s[0] != '+'
}

func isIdentifier(s string) bool {
	if s == "" {
		return false
	}
	for i, c := range s {
		letter := c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
		if !letter && (i == 0 || c < '0' || c > '9') {
			return false
		}
	}
	return true
}
