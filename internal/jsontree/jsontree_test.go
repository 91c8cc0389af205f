package jsontree

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// stdDecode is encoding/json with UseNumber, one value and nothing after it.
func stdDecode(data []byte) (interface{}, bool) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v interface{}
	if err := dec.Decode(&v); err != nil {
		return nil, false
	}
	if _, err := dec.Token(); err == nil || err.Error() != "EOF" {
		return nil, false
	}
	return v, true
}

func stdEncode(t testing.TB, v interface{}, escapeHTML bool) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(escapeHTML)
	if err := enc.Encode(v); err != nil {
		return nil
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// check compares decoding and encoding data with encoding/json.
func check(t testing.TB, data []byte) {
	want, ok := stdDecode(data)
	got, err := Unmarshal(data, 10000)
	if ok != (err == nil) {
		t.Fatalf("%q: encoding/json ok=%v, Unmarshal err=%v", data, ok, err)
	}
	if !ok {
		return
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%q: Unmarshal = %#v, encoding/json = %#v", data, got, want)
	}
	// The variants that share their input decode the same.
	owned, errOwned := UnmarshalOwned(bytes.Clone(data), 10000)
	fromString, errString := UnmarshalString(string(data), 10000)
	if errOwned != nil || errString != nil || !reflect.DeepEqual(owned, want) || !reflect.DeepEqual(fromString, want) {
		t.Fatalf("%q: UnmarshalOwned = %#v, %v; UnmarshalString = %#v, %v; encoding/json = %#v", data, owned, errOwned, fromString, errString, want)
	}
	// Decoding into maps a recycler took back from another tree decodes the
	// same, and so does decoding into the maps of this very tree again.
	var rc Recycler
	if _, err := rc.UnmarshalOwned([]byte(`{"a":{"b":1,"c":[{"d":2},{}]},"e":{"f":"g"}}`), 10000); err != nil {
		t.Fatal(err)
	}
	rc.Release()
	for range 2 {
		recycled, errRecycled := rc.UnmarshalOwned(bytes.Clone(data), 10000)
		if errRecycled != nil || !reflect.DeepEqual(recycled, want) {
			t.Fatalf("%q: Recycler.UnmarshalOwned = %#v, %v; encoding/json = %#v", data, recycled, errRecycled, want)
		}
		rc.Release()
	}
	for _, html := range []bool{true, false} {
		enc, err := Append(nil, got, html)
		if err != nil {
			t.Fatalf("%q: Append: %v", data, err)
		}
		if std := stdEncode(t, want, html); !bytes.Equal(enc, std) {
			t.Fatalf("%q escapeHTML=%v: Append = %s, encoding/json = %s", data, html, enc, std)
		}
	}
}

var seeds = []string{
	`{}`, `[]`, `null`, `true`, `false`, `0`, `-0`, `1.5e+10`, `-12.25E-3`, `"x"`,
	` {"a": [1, 2, {"b": null}], "c": "d"} `,
	`{"a":1,"a":2}`,
	`"<>&\u2028\u2029 \b\f\n\r\t\u0001 \"\\\/"`,
	`"\ud83d\ude00 \ud83d x \ude00 \ud83d\u0041"`,
	"\"\xff\xfe valid é 日本\"",
	`{"z":1,"a":{"y":[true,false,null],"b":"\u00e9"}}`,
	`01`, `1.`, `.5`, `-`, `1e`, `{"a"}`, `{"a":1,}`, `[1,]`, `[1 2]`, `"abc`, `"\x"`, `"\u12"`, "\"a\tb\"",
	`{"a":1} x`, `tru`, `nul`, `{"a":1}{}`, `{"a" 1}`, `"\u0000"`,
}

func TestMatchesEncodingJSON(t *testing.T) {
	for _, s := range seeds {
		t.Run(s, func(t *testing.T) { check(t, []byte(s)) })
	}
	files, _ := filepath.Glob(filepath.Join("..", "..", "webhook", "testdata", "*.json"))
	if len(files) == 0 {
		t.Fatal("no fixtures in webhook/testdata")
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		t.Run(filepath.Base(f), func(t *testing.T) { check(t, data) })
	}
}

func TestDepthLimit(t *testing.T) {
	for _, tc := range []struct {
		in   string
		max  int
		fail bool
	}{{`[[1]]`, 2, false}, {`[[1]]`, 1, true}, {`{"a":{"b":{}}}`, 3, false}, {`{"a":{"b":{}}}`, 2, true}} {
		_, err := Unmarshal([]byte(tc.in), tc.max)
		if (err != nil) != tc.fail {
			t.Errorf("Unmarshal(%s, %d) err = %v, want failure %v", tc.in, tc.max, err, tc.fail)
		}
	}
}

func TestAppendOtherTypes(t *testing.T) {
	for _, v := range []interface{}{
		int64(-3), 1.5, map[string]string{"b": "<", "a": "x"}, []string{"x"}, json.Number("bad"),
		map[string]interface{}(nil), []interface{}(nil), map[string]interface{}{"n": json.Number("")},
	} {
		for _, html := range []bool{true, false} {
			got, gotErr := Append(nil, v, html)
			want := stdEncode(t, v, html)
			if (gotErr != nil) != (want == nil) || !bytes.Equal(got, want) {
				t.Errorf("Append(%#v, %v) = %s, %v; encoding/json %s", v, html, got, gotErr, want)
			}
		}
	}
}

func FuzzMatchesEncodingJSON(f *testing.F) {
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) { check(t, data) })
}

// TestUnmarshalOwnedUniqueKeys: an object with a repeated key, at any depth,
// is refused; without one the tree is UnmarshalOwned's.
func TestUnmarshalOwnedUniqueKeys(t *testing.T) {
	for _, text := range []string{`{"a":1,"a":2}`, `{"a":{"b":1,"b":1}}`, `[{"x":1},{"y":1,"y":2}]`} {
		if _, err := UnmarshalOwnedUniqueKeys([]byte(text), 64); err == nil {
			t.Errorf("%s: accepted", text)
		}
	}
	text := `{"a":[{"b":1},{"b":2}],"c":{"d":null}}`
	got, err := UnmarshalOwnedUniqueKeys([]byte(text), 64)
	want, _ := UnmarshalOwned([]byte(text), 64)
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("%s: %v, %v; want %v", text, got, err, want)
	}
}
