package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
)

// AppendJSON appends to buf the JSON encoding of v, a JSON tree, exactly as
// a json.Encoder with SetEscapeHTML(false) writes it, without the trailing
// newline. It walks the tree's own types instead of reflecting: a status
// write encodes its objects several times. Values it does not know (floats,
// strings that need escaping, other Go types) go to encoding/json.
func AppendJSON(buf []byte, v interface{}) ([]byte, error) {
	switch v := v.(type) {
	case nil:
		return append(buf, "null"...), nil
	case bool:
		return strconv.AppendBool(buf, v), nil
	case string:
		return appendString(buf, v)
	case float64:
		if !math.IsInf(v, 0) && !math.IsNaN(v) {
			return AppendFloat(buf, v), nil
		}
	case int64:
		return strconv.AppendInt(buf, v, 10), nil
	case json.Number:
		if IsJSONNumber(string(v)) {
			return append(buf, v...), nil
		}
	case map[string]interface{}:
		if v == nil {
			return append(buf, "null"...), nil
		}
		keys := slices.AppendSeq(make([]string, 0, len(v)), maps.Keys(v))
		slices.Sort(keys)
		buf = append(buf, '{')
		for i, k := range keys {
			if i > 0 {
				buf = append(buf, ',')
			}
			var err error
			if buf, err = appendString(buf, k); err != nil {
				return nil, err
			}
			buf = append(buf, ':')
			if buf, err = AppendJSON(buf, v[k]); err != nil {
				return nil, err
			}
		}
		return append(buf, '}'), nil
	case []interface{}:
		if v == nil {
			return append(buf, "null"...), nil
		}
		buf = append(buf, '[')
		for i, e := range v {
			if i > 0 {
				buf = append(buf, ',')
			}
			var err error
			if buf, err = AppendJSON(buf, e); err != nil {
				return nil, err
			}
		}
		return append(buf, ']'), nil
	}
	return appendEncoded(buf, v)
}

// appendEncoded appends what encoding/json writes for v.
func appendEncoded(buf []byte, v interface{}) ([]byte, error) {
	b := bytes.NewBuffer(buf)
	enc := json.NewEncoder(b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	out := b.Bytes()
	return out[:len(out)-1], nil
}

// appendString writes s as encoding/json does: as it is between quotes
// when every byte is plain.
func appendString(buf []byte, s string) ([]byte, error) {
	for i := 0; i < len(s); i++ {
		if !plain[s[i]] {
			return appendEncoded(buf, s)
		}
	}
	buf = append(buf, '"')
	buf = append(buf, s...)
	return append(buf, '"'), nil
}

// plain holds the bytes encoding/json writes as they are in a string:
// printable ASCII but '"' and '\\'.
var plain = func() (t [256]bool) {
	for c := 0x20; c < 0x7f; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// AppendFloat appends a finite f as encoding/json writes it: the shortest
// decimal that reads back as f, in exponent form below 1e-6 and from 1e21,
// with a one-digit negative exponent written without its zero.
func AppendFloat(buf []byte, f float64) []byte {
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	buf = strconv.AppendFloat(buf, f, format, -1, 64)
	if n := len(buf); format == 'e' && n >= 4 && buf[n-4] == 'e' && buf[n-3] == '-' && buf[n-2] == '0' {
		buf[n-2] = buf[n-1]
		buf = buf[:n-1]
	}
	return buf
}

// DecodeJSON decodes the first JSON value of data into v with json.Number
// numbers, as every reader of JSON trees here does.
func DecodeJSON(data []byte, v interface{}) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	return dec.Decode(v)
}

// DecodeObject decodes raw, an object of a review (no bytes for null), as
// a JSON object with json.Number numbers.
func DecodeObject(raw []byte) (map[string]interface{}, error) {
	var o any
	if err := DecodeJSON(raw, &o); err != nil && len(raw) > 0 {
		return nil, fmt.Errorf("is not a JSON object: %v", err)
	}
	if obj, ok := o.(map[string]interface{}); ok {
		return obj, nil
	} else if o == nil {
		return nil, errors.New("is empty")
	}
	return nil, errors.New("is not a JSON object")
}

// IsJSONNumber reports whether s is exactly one JSON number literal.
func IsJSONNumber(s string) bool {
	if s == "" || s[len(s)-1] < '0' || s[len(s)-1] > '9' || s[0] != '-' && (s[0] < '0' || s[0] > '9') {
		return false
	}
	return json.Valid([]byte(s)) // such a valid JSON value is a number
}

// JSONNestsDeeper reports whether the JSON text data nests more than
// maxDepth arrays and objects, before any decoder reads it. Brackets inside
// strings do not count; malformed JSON is left to the decoder.
func JSONNestsDeeper[T ~string | ~[]byte](data T, maxDepth int) bool {
	depth, inString := 0, false
	for i := 0; i < len(data); i++ {
		switch c := data[i]; {
		case inString && c == '\\':
			i++ // the escaped byte
		case inString:
			inString = c != '"'
		case c == '"':
			inString = true
		case c == '[' || c == '{':
			if depth++; depth > maxDepth {
				return true
			}
		case c == ']' || c == '}':
			depth--
		}
	}
	return false
}
