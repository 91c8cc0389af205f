// Package jsontree encodes and decodes JSON trees — map[string]interface{},
// []interface{}, string, json.Number, bool and nil — byte for byte as
// encoding/json does, without reflection. Conversion runs on every
// ConversionReview the apiserver sends (always one object), so the webhook's
// per-review cost is dominated by this work; see docs/performance.md.
package jsontree

import (
	"bytes"
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Append appends the encoding of v to buf: what json.Marshal returns when
// escapeHTML is true, what a json.Encoder with SetEscapeHTML(false) writes
// (without its newline) when false. Values of other types are encoded by
// encoding/json.
func Append(buf []byte, v interface{}, escapeHTML bool) ([]byte, error) {
	return appendValue(buf, v, flagsOf(escapeHTML))
}

// AppendCanonical appends the encoding of v as Append(buf, v, false) does,
// except that every number is written in its canonical form
// (AppendCanonicalNumber). Where all numbers already have that form, the
// bytes are Append's.
func AppendCanonical(buf []byte, v interface{}) ([]byte, error) {
	return appendValue(buf, v, canonicalNumbers)
}

// flags select how a tree is encoded.
type flags uint8

const (
	escapeHTMLFlag   flags = 1 << iota // escape <, > and & in strings
	canonicalNumbers                   // write numbers in canonical form
)

func flagsOf(escapeHTML bool) flags {
	if escapeHTML {
		return escapeHTMLFlag
	}
	return 0
}

func appendValue(buf []byte, v interface{}, fl flags) ([]byte, error) {
	escapeHTML := fl&escapeHTMLFlag != 0
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
		if fl&canonicalNumbers != 0 {
			return AppendCanonicalNumber(buf, string(v)), nil
		}
		return append(buf, v...), nil
	case float64:
		if fl&canonicalNumbers != 0 && !math.IsNaN(v) && !math.IsInf(v, 0) {
			return appendCanonicalFloat(buf, v), nil
		}
	case int64:
		if fl&canonicalNumbers != 0 {
			return strconv.AppendInt(buf, v, 10), nil
		}
	case int:
		if fl&canonicalNumbers != 0 {
			return strconv.AppendInt(buf, int64(v), 10), nil
		}
	case map[string]interface{}:
		if v == nil {
			return append(buf, "null"...), nil
		}
		return appendObject(buf, v, nil, fl)
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
			if buf, err = appendValue(buf, e, fl); err != nil {
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
	return appendObject(buf, m, omit, flagsOf(escapeHTML))
}

// AppendObjectOmittingCanonical appends the encoding of m without its keys
// in omit, as AppendCanonical would encode a copy of m without them.
func AppendObjectOmittingCanonical(buf []byte, m map[string]interface{}, omit []string) ([]byte, error) {
	if m == nil {
		return append(buf, "null"...), nil
	}
	return appendObject(buf, m, omit, canonicalNumbers)
}

func appendObject(buf []byte, m map[string]interface{}, omit []string, fl flags) ([]byte, error) {
	escapeHTML := fl&escapeHTMLFlag != 0
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
		if buf, err = appendValue(buf, e.value, fl); err != nil {
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

// AppendCanonicalNumber appends the canonical form of the valid JSON number
// s (other text is appended as it is): the text the kube-apiserver stores
// for it. The apiserver decodes a
// number as an int64 if the literal is an integer that fits, else as a
// float64, and encodes it again with encoding/json; so
//
//   - a literal that parses as an int64 is written as that int64 in
//     decimal ("-0" as "0");
//   - any other literal is parsed as a float64 f and written as
//     encoding/json writes f: without an exponent (shortest digits) if
//     1e-6 <= |f| < 1e21, else with one ("1e-7", "1.2345678901234567e+22");
//     zero is written "0";
//   - a literal out of float64 range (which the apiserver refuses) is
//     written as it is.
//
// So 1, 1.0 and 1e0 are all "1", 2.50 is "2.5", 0.0000001 and 1e-07 are
// "1e-7", and the form is its own canonical form: storing an object any
// number of times leaves canonical numbers as they are.
func AppendCanonicalNumber(buf []byte, s string) []byte {
	if s == "" { // as Append encodes json.Number("")
		return append(buf, '0')
	}
	integer := true
	for i := 0; i < len(s); i++ {
		if c := s[i]; c == '.' || c == 'e' || c == 'E' {
			integer = false
			break
		}
	}
	if integer {
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
	if err != nil {
		return append(buf, s...)
	}
	return appendCanonicalFloat(buf, f)
}

// appendCanonicalFloat appends the finite f as encoding/json encodes a
// float64, with zero (also -0) as "0".
func appendCanonicalFloat(buf []byte, f float64) []byte {
	if f == 0 {
		return append(buf, '0')
	}
	format := byte('f')
	if abs := math.Abs(f); abs < 1e-6 || abs >= 1e21 {
		format = 'e'
	}
	buf = strconv.AppendFloat(buf, f, format, -1, 64)
	if format == 'e' { // e-07 → e-7, as encoding/json
		n := len(buf)
		if n >= 4 && buf[n-4] == 'e' && buf[n-3] == '-' && buf[n-2] == '0' {
			buf[n-2] = buf[n-1]
			buf = buf[:n-1]
		}
	}
	return buf
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
