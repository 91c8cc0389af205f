package jsontree

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// rebuild decodes the value at data[start:end] through the scanner: objects
// and arrays from the spans ScanObject and ScanArray report, everything
// else with Unmarshal. ok is false if the scanner could not follow the text
// or its spans do not cover the value exactly.
func rebuild(data []byte, start, end int) (v interface{}, ok bool) {
	ok = true
	switch data[start] {
	case '{':
		m := map[string]interface{}{}
		got := ScanObject(data, start, func(key []byte, s, e int) {
			k, err := Unmarshal(append(append([]byte{'"'}, key...), '"'), 1)
			val, vok := rebuild(data, s, e)
			ok = ok && err == nil && vok
			if ok {
				m[k.(string)] = val
			}
		})
		return m, ok && got == end
	case '[':
		a := []interface{}{}
		got := ScanArray(data, start, func(s, e int) {
			val, vok := rebuild(data, s, e)
			ok = ok && vok
			a = append(a, val)
		})
		return a, ok && got == end
	}
	v, err := Unmarshal(data[start:end], 1)
	return v, err == nil && skipValue(data, start) == end
}

// checkScan: for text Unmarshal accepts, the scanner's spans rebuild the
// same tree; for any text, the scanner does not panic.
func checkScan(t testing.TB, data []byte) {
	ScanObject(data, 0, func([]byte, int, int) {})
	ScanArray(data, 0, func(int, int) {})
	want, err := Unmarshal(data, 10000)
	if err != nil {
		return
	}
	start := skipSpace(data, 0)
	end := skipValue(data, start)
	if end < 0 || skipSpace(data, end) != len(data) {
		t.Fatalf("skipValue(%q) = %d", data, end)
	}
	got, ok := rebuild(data, start, end)
	if !ok || !reflect.DeepEqual(got, want) {
		t.Fatalf("scanned %q: %#v (ok %v), want %#v", data, got, ok, want)
	}
}

func TestScanMatchesUnmarshal(t *testing.T) {
	for _, s := range append(seeds, `{ "a" : [ 1 , { } , [ ] ] , "b\"c" : "x\\" , "a" : 2 }`, ` [ ] `, `{"k":"\"}"}`) {
		t.Run(s, func(t *testing.T) { checkScan(t, []byte(s)) })
	}
	files, _ := filepath.Glob(filepath.Join("..", "..", "webhook", "testdata", "*.json"))
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		t.Run(filepath.Base(f), func(t *testing.T) { checkScan(t, data) })
	}
}

func TestScanRefusesWhatItCannotFollow(t *testing.T) {
	for _, s := range []string{``, `x`, `{`, `{"a"`, `{"a":`, `{"a":1`, `{"a":1,`, `{"a" 1}`, `{1:2}`, `{"a":1]`, `[`, `[1`, `[1}`, `"abc`, `{"a":}`} {
		if ScanObject([]byte(s), 0, nil) != -1 && s[0] == '{' {
			t.Errorf("ScanObject(%q) followed it", s)
		}
		if s != "" && s[0] == '[' && ScanArray([]byte(s), 0, nil) != -1 {
			t.Errorf("ScanArray(%q) followed it", s)
		}
	}
}

func FuzzScan(f *testing.F) {
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) { checkScan(t, data) })
}
