package jsontree

import (
	"encoding/json"
	"math"
	"strconv"
	"testing"
)

// apiserverNumber is the text the kube-apiserver stores for the JSON number
// s: decoded as an int64 if it is an integer that fits, else as a float64
// (apimachinery's unstructured JSON), and encoded with encoding/json.
func apiserverNumber(t *testing.T, s string) string {
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

func canonicalNumber(s string) string { return string(AppendCanonicalNumber(nil, s)) }

// TestAppendCanonicalNumber: the canonical form of a number is the same for
// the text as written and for every text the apiserver stores for it, and is
// its own canonical form.
func TestAppendCanonicalNumber(t *testing.T) {
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
		got := canonicalNumber(tc.in)
		if got != tc.want {
			t.Errorf("canonical %s = %s, want %s", tc.in, got, tc.want)
		}
		if again := canonicalNumber(got); again != got {
			t.Errorf("canonical %s = %s, but canonical %s = %s", tc.in, got, got, again)
		}
		if _, err := strconv.ParseFloat(tc.in, 64); err != nil {
			continue // the apiserver refuses it
		}
		// Stored once, twice: -0.0 is stored as -0, then as 0.
		stored := tc.in
		for i := 0; i < 2; i++ {
			stored = apiserverNumber(t, stored)
			if c := canonicalNumber(stored); c != got {
				t.Errorf("%s is stored as %s, whose canonical form %s differs from %s", tc.in, stored, c, got)
			}
		}
	}
}

// TestAppendCanonical: a tree whose numbers are canonical encodes as Append
// encodes it; other numbers are rewritten, in every position, and only they.
func TestAppendCanonical(t *testing.T) {
	canonical := map[string]interface{}{
		"a": json.Number("1"), "b": []interface{}{json.Number("2.5"), json.Number("-7"), json.Number("1e-7")},
		"c": map[string]interface{}{"d": json.Number("1.2345678901234568e+22"), "e": "1.0 <&>", "f": nil, "g": true},
	}
	want, err := Append(nil, canonical, false)
	if err != nil {
		t.Fatal(err)
	}
	got, err := AppendCanonical(nil, canonical)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Errorf("AppendCanonical = %s, want Append's %s", got, want)
	}
	written := map[string]interface{}{
		"a": json.Number("1.0"), "b": []interface{}{json.Number("2.50"), json.Number("-7"), json.Number("0.0000001")},
		"c": map[string]interface{}{"d": json.Number("12345678901234567000000"), "e": "1.0 <&>", "f": nil, "g": true},
	}
	if got, err = AppendCanonical(nil, written); err != nil || string(got) != string(want) {
		t.Errorf("AppendCanonical = %s, %v, want %s", got, err, want)
	}
	native := map[string]interface{}{"a": float64(1), "b": []interface{}{2.5, int64(-7), 1e-7}, "c": math.Copysign(0, -1), "d": 3}
	if got, err = AppendCanonical(nil, native); err != nil || string(got) != `{"a":1,"b":[2.5,-7,1e-7],"c":0,"d":3}` {
		t.Errorf("AppendCanonical of Go numbers = %s, %v", got, err)
	}
	got, err = AppendObjectOmittingCanonical(nil, written, []string{"b"})
	if wantOmit := `{"a":1,"c":{"d":1.2345678901234568e+22,"e":"1.0 <&>","f":null,"g":true}}`; err != nil || string(got) != wantOmit {
		t.Errorf("AppendObjectOmittingCanonical = %s, %v, want %s", got, err, wantOmit)
	}
}
