// Package jsontree encodes and decodes JSON trees — map[string]interface{},
// []interface{}, string, json.Number, bool and nil — byte for byte as
// encoding/json does, without reflection. Conversion runs on every
// ConversionReview the apiserver sends (always one object), so the webhook's
// per-review cost is dominated by this work; see docs/performance.md.
package jsontree

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"unicode/utf8"
)

// Marshal returns the encoding of v that json.Marshal would return (HTML
// characters escaped).
func Marshal(v interface{}) ([]byte, error) {
	return Append(make([]byte, 0, 1024), v, true)
}

// Append appends the encoding of v to buf: what json.Marshal returns when
// escapeHTML is true, what a json.Encoder with SetEscapeHTML(false) writes
// (without its newline) when false. Values of other types are encoded by
// encoding/json.
func Append(buf []byte, v interface{}, escapeHTML bool) ([]byte, error) {
	switch v := v.(type) {
	case nil:
		return append(buf, "null"...), nil
	case string:
		return appendString(buf, v, escapeHTML), nil
	case bool:
		if v {
			return append(buf, "true"...), nil
		}
		return append(buf, "false"...), nil
	case json.Number:
		if v == "" {
			return append(buf, '0'), nil
		}
		if !isValidNumber(string(v)) {
			return fallback(buf, v, escapeHTML)
		}
		return append(buf, v...), nil
	case map[string]interface{}:
		if v == nil {
			return append(buf, "null"...), nil
		}
		return appendObject(buf, v, nil, escapeHTML)
	case []interface{}:
		if v == nil {
			return append(buf, "null"...), nil
		}
		buf = append(buf, '[')
		var err error
		for i, e := range v {
			if i > 0 {
				buf = append(buf, ',')
			}
			if buf, err = Append(buf, e, escapeHTML); err != nil {
				return nil, err
			}
		}
		return append(buf, ']'), nil
	}
	return fallback(buf, v, escapeHTML)
}

// AppendObjectOmitting appends the encoding of m without its keys in omit,
// as Append would encode a copy of m without them.
func AppendObjectOmitting(buf []byte, m map[string]interface{}, omit []string, escapeHTML bool) ([]byte, error) {
	if m == nil {
		return append(buf, "null"...), nil
	}
	return appendObject(buf, m, omit, escapeHTML)
}

func appendObject(buf []byte, m map[string]interface{}, omit []string, escapeHTML bool) ([]byte, error) {
	// The members are taken in one pass over the map (no lookup per key)
	// and sorted by key, byte-wise, as encoding/json sorts.
	var small [16]member
	members := small[:0]
	for k, v := range m {
		if len(omit) == 0 || !slices.Contains(omit, k) {
			members = append(members, member{k, v})
		}
	}
	sortMembers(members)
	buf = append(buf, '{')
	var err error
	for i, e := range members {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = appendString(buf, e.key, escapeHTML)
		buf = append(buf, ':')
		if buf, err = Append(buf, e.value, escapeHTML); err != nil {
			return nil, err
		}
	}
	return append(buf, '}'), nil
}

// sortMembers sorts ms by key: insertion sort for the few members objects
// have, slices.SortFunc beyond.
func sortMembers(ms []member) {
	if len(ms) > 12 {
		slices.SortFunc(ms, func(a, b member) int { return strings.Compare(a.key, b.key) })
		return
	}
	for i := 1; i < len(ms); i++ {
		for j := i; j > 0 && ms[j].key < ms[j-1].key; j-- {
			ms[j], ms[j-1] = ms[j-1], ms[j]
		}
	}
}

func fallback(buf []byte, v interface{}, escapeHTML bool) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(escapeHTML)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return append(buf, bytes.TrimSuffix(b.Bytes(), []byte("\n"))...), nil
}

const hex = "0123456789abcdef"

// safeSet and htmlSafeSet tell the ASCII bytes appendString copies as they
// are, without and with HTML escaping.
var safeSet, htmlSafeSet = func() (plain, html [utf8.RuneSelf]bool) {
	for b := 0x20; b < utf8.RuneSelf; b++ {
		plain[b] = b != '"' && b != '\\'
		html[b] = plain[b] && b != '<' && b != '>' && b != '&'
	}
	return plain, html
}()

// appendString is encoding/json's appendString.
func appendString(dst []byte, s string, escapeHTML bool) []byte {
	dst = append(dst, '"')
	start := 0
	safe := &safeSet
	if escapeHTML {
		safe = &htmlSafeSet
	}
	for i := 0; i < len(s); {
		if b := s[i]; b < utf8.RuneSelf {
			if safe[b] {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch b {
			case '\\', '"':
				dst = append(dst, '\\', b)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hex[b>>4], hex[b&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hex[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// isValidNumber is encoding/json's isValidNumber.
func isValidNumber(s string) bool {
	if s == "" {
		return false
	}
	if s[0] == '-' {
		s = s[1:]
		if s == "" {
			return false
		}
	}
	switch {
	default:
		return false
	case s[0] == '0':
		s = s[1:]
	case '1' <= s[0] && s[0] <= '9':
		s = s[1:]
		for len(s) > 0 && '0' <= s[0] && s[0] <= '9' {
			s = s[1:]
		}
	}
	if len(s) >= 2 && s[0] == '.' && '0' <= s[1] && s[1] <= '9' {
		s = s[2:]
		for len(s) > 0 && '0' <= s[0] && s[0] <= '9' {
			s = s[1:]
		}
	}
	if len(s) >= 2 && (s[0] == 'e' || s[0] == 'E') {
		s = s[1:]
		if s[0] == '+' || s[0] == '-' {
			s = s[1:]
			if s == "" {
				return false
			}
		}
		for len(s) > 0 && '0' <= s[0] && s[0] <= '9' {
			s = s[1:]
		}
	}
	return s == ""
}
