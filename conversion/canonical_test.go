package conversion

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/claimbridge/claimbridge/api"
)

// apiserverNumberText is the text the kube-apiserver stores for the JSON
// number s: decoded as an int64 if it is an integer that fits, else as a
// float64 (apimachinery's unstructured JSON), and encoded with encoding/json.
func apiserverNumberText(t *testing.T, s string) string {
	t.Helper()
	var v interface{}
	if n, err := json.Number(s).Int64(); err == nil {
		v = n
	} else if f, err := json.Number(s).Float64(); err == nil {
		v = f
	} else {
		t.Fatalf("the apiserver refuses %s: %v", s, err)
	}
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func canonicalText(s string) string { return string(appendCanonicalNumber(nil, s)) }

// TestCanonicalNumberText: the canonical form of a number is the same for
// the text as written and for every text the apiserver stores for it, and is
// its own canonical form.
func TestCanonicalNumberText(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"0", "0"}, {"-0", "0"}, {"0.0", "0"}, {"-0.0", "0"}, {"0e5", "0"},
		{"1", "1"}, {"1.0", "1"}, {"1e0", "1"}, {"1E0", "1"}, {"10e-1", "1"}, {"-1.0", "-1"},
		{"40", "40"}, {"40.0", "40"}, {"1e2", "100"}, {"1E+2", "100"},
		{"2.5", "2.5"}, {"2.50", "2.5"}, {"25e-1", "2.5"}, {"-2.50", "-2.5"},
		{"0.0000001", "1e-7"}, {"1e-07", "1e-7"}, {"1e-7", "1e-7"}, {"0.000001", "0.000001"},
		{"0.1", "0.1"}, {"123456.789e3", "123456789"},
		{"999999999999999999", "999999999999999999"}, // 18 digits
		{"9223372036854775807", "9223372036854775807"},
		{"-9223372036854775808", "-9223372036854775808"},
		{"9223372036854775808", "9223372036854776000"}, // beyond int64: a float64
		{"1152921504606846976.0", "1152921504606847000"},
		{"12345678901234567000000", "1.2345678901234568e+22"}, // the same float64
		{"12345678901234568000000", "1.2345678901234568e+22"},
		{"1.2345678901234567e+22", "1.2345678901234568e+22"},
		{"1.2345678901234568e22", "1.2345678901234568e+22"},
		{"100000000000000000000", "100000000000000000000"}, {"1e20", "100000000000000000000"},
		{"1e21", "1e+21"}, {"1.7976931348623157e308", "1.7976931348623157e+308"},
		{"1e400", "1e400"}, {"-1e400", "-1e400"}, // out of float64 range: as written
	} {
		got := canonicalText(tc.in)
		if got != tc.want {
			t.Errorf("canonical %s = %s, want %s", tc.in, got, tc.want)
		}
		if again := canonicalText(got); again != got {
			t.Errorf("canonical %s = %s, but canonical %s = %s", tc.in, got, got, again)
		}
		if _, err := strconv.ParseFloat(tc.in, 64); err != nil {
			continue // the apiserver refuses it
		}
		// Stored once, twice: -0.0 is stored as -0, then as 0.
		stored := tc.in
		for i := 0; i < 2; i++ {
			stored = apiserverNumberText(t, stored)
			if c := canonicalText(stored); c != got {
				t.Errorf("%s is stored as %s, whose canonical form %s differs from %s", tc.in, stored, c, got)
			}
		}
	}
}

// TestCanonicalNumberLeavesInvalidText: text that is not a JSON number is
// not rewritten, even where strconv parses it, so that encoding it fails as
// encoding/json fails on it.
func TestCanonicalNumberLeavesInvalidText(t *testing.T) {
	for _, s := range []string{"", "x", "+1", ".5", "1.", "01", " 1", "1 ", "0x1.8p1", "0xEp1", "Inf", "1e", "-", `"1"`, "true"} {
		if got, changed := canonicalNumber(json.Number(s)); changed || string(got) != s {
			t.Errorf("canonicalNumber(%q) = %q, %v; want it unchanged", s, got, changed)
		}
		if s == "" {
			continue // encoding/json writes 0
		}
		if data, err := CanonicalJSON(map[string]interface{}{"n": json.Number(s)}); err == nil {
			t.Errorf("CanonicalJSON of json.Number(%q) = %s, want an error", s, data)
		}
	}
	if data, err := CanonicalJSON([]interface{}{json.Number("")}); err != nil || string(data) != "[0]" {
		t.Errorf(`CanonicalJSON of json.Number("") = %s, %v; want [0]`, data, err)
	}
}

// TestCanonicalJSON: a tree whose numbers are canonical encodes as
// encodeJSON encodes it; other numbers are rewritten, in every position, and
// only they; the tree itself is left as it is.
func TestCanonicalJSON(t *testing.T) {
	canonical := map[string]interface{}{
		"a": json.Number("1"), "b": []interface{}{json.Number("2.5"), json.Number("-7"), json.Number("1e-7")},
		"c": map[string]interface{}{"d": json.Number("1.2345678901234568e+22"), "e": "1.0 <&>", "f": nil, "g": true},
	}
	want, err := encodeJSON(canonical)
	if err != nil {
		t.Fatal(err)
	}
	if w := `{"a":1,"b":[2.5,-7,1e-7],"c":{"d":1.2345678901234568e+22,"e":"1.0 <&>","f":null,"g":true}}`; string(want) != w {
		t.Fatalf("encodeJSON = %s, want %s", want, w)
	}
	got, err := CanonicalJSON(canonical)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Errorf("CanonicalJSON = %s, want encodeJSON's %s", got, want)
	}
	if c, changed := canonicalTree(canonical); changed || !sameContainer(c, canonical) {
		t.Errorf("canonicalTree of a canonical tree copied it")
	}
	written := map[string]interface{}{
		"a": json.Number("1.0"), "b": []interface{}{json.Number("2.50"), json.Number("-7"), json.Number("0.0000001")},
		"c": map[string]interface{}{"d": json.Number("12345678901234567000000"), "e": "1.0 <&>", "f": nil, "g": true},
	}
	before, _ := encodeJSON(written)
	if got, err = CanonicalJSON(written); err != nil || string(got) != string(want) {
		t.Errorf("CanonicalJSON = %s, %v, want %s", got, err, want)
	}
	if after, _ := encodeJSON(written); string(after) != string(before) {
		t.Errorf("CanonicalJSON modified its tree: %s, was %s", after, before)
	}
	native := map[string]interface{}{"a": float64(1), "b": []interface{}{2.5, int64(-7), 1e-7}, "c": math.Copysign(0, -1), "d": 3}
	if got, err = CanonicalJSON(native); err != nil || string(got) != `{"a":1,"b":[2.5,-7,1e-7],"c":0,"d":3}` {
		t.Errorf("CanonicalJSON of Go numbers = %s, %v", got, err)
	}
	if _, err = CanonicalJSON(map[string]interface{}{"n": math.NaN()}); err == nil {
		t.Errorf("CanonicalJSON of NaN: want an error")
	}
}

// TestEncodeJSONIsEncodingJSON: encodeJSON is a json.Encoder's encoding
// with SetEscapeHTML(false), without its newline.
func TestEncodeJSONIsEncodingJSON(t *testing.T) {
	tree := map[string]interface{}{
		"z": "<a&b> \u2028 \x01 é \"q\" \\", "a": []interface{}{json.Number("1.50"), nil, false, 1.0, int64(3)},
		"m": map[string]interface{}{}, "s": []interface{}{}, "n": map[string]interface{}(nil), "o": map[string]string{"y": ">", "x": "1"},
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(tree); err != nil {
		t.Fatal(err)
	}
	got, err := encodeJSON(tree)
	if err != nil {
		t.Fatal(err)
	}
	if want := strings.TrimSuffix(b.String(), "\n"); string(got) != want {
		t.Errorf("encodeJSON = %s\nwant       %s", got, want)
	}
	prefix := []byte("prefix:")
	if got, err := api.AppendJSON(prefix, "<x>"); err != nil || string(got) != `prefix:"<x>"` {
		t.Errorf("appendJSON = %s, %v", got, err)
	}
	if got, err := api.AppendJSON(prefix, json.Number("bad")); err == nil || got != nil {
		t.Errorf("appendJSON of an invalid number = %s, %v; want nil and an error", got, err)
	}
}

// TestDecodeJSONText: one JSON value with whitespace around it decodes as
// encoding/json with UseNumber decodes it; deeper nesting than the limit,
// other values after it and invalid JSON fail.
func TestDecodeJSONText(t *testing.T) {
	for _, tc := range []struct {
		in   string
		max  int
		fail bool
	}{
		{`[[1]]`, 2, false}, {`[[1]]`, 1, true}, {`{"a":{"b":{}}}`, 3, false}, {`{"a":{"b":{}}}`, 2, true},
		{`{"a":"[[[[[{{{{"}`, 1, false}, {`{"a":"\"[[["}`, 1, false}, {`{"a":"\\"}`, 1, false},
		{" \t\r\n{} \t\r\n", 1, false}, {`{} {}`, 1, true}, {`{}}`, 1, true}, {`{} x`, 1, true},
		{`{`, 1, true}, {``, 1, true}, {` `, 1, true}, {`{"a":1,}`, 1, true}, {"{}\u00a0", 1, true},
		{`1`, 0, false}, {`"x"`, 0, false}, {`[]`, 0, true},
		{strings.Repeat("[", 64) + strings.Repeat("]", 64), MaxHandleDataDepth, false},
		{strings.Repeat("[", 65) + strings.Repeat("]", 65), MaxHandleDataDepth, true},
	} {
		_, err := decodeJSONText(tc.in, tc.max)
		if (err != nil) != tc.fail {
			t.Errorf("decodeJSONText(%q, %d) err = %v, want failure %v", tc.in, tc.max, err, tc.fail)
		}
	}
	v, err := decodeJSONText(`{"n":1.50,"s":"\ud800x","a":[true,null],"n":2}`, 2)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := encodeJSON(v); string(got) != "{\"a\":[true,null],\"n\":2,\"s\":\"\ufffdx\"}" {
		t.Errorf("decoded %s", got)
	}
	if n := v.(map[string]interface{})["n"]; n != json.Number("2") {
		t.Errorf("n = %#v, want json.Number 2", n)
	}
}
