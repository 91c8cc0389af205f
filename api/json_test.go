package api

import (
	"bytes"
	"encoding/json"
	"math"
	"testing"
)

// encodingJSON is what AppendJSON must equal.
func encodingJSON(v interface{}) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

func checkAppendJSON(t *testing.T, v interface{}) {
	t.Helper()
	want, wantErr := encodingJSON(v)
	got, err := AppendJSON([]byte("x"), v)
	if (err != nil) != (wantErr != nil) {
		t.Fatalf("%#v: error %v, encoding/json's %v", v, err, wantErr)
	}
	if err == nil && string(got) != "x"+string(want) {
		t.Fatalf("%#v: got %s, encoding/json writes %s", v, got[1:], want)
	}
}

func TestAppendJSON(t *testing.T) {
	for _, v := range []interface{}{
		nil, true, false, "", "plain", "a\"b", `back\slash`, "<&>", "tab\tnl\n", "\x7f", "é", "\u2028", "\xff",
		int64(-3), int64(math.MaxInt64), 1.5, math.Copysign(0, -1), 1e21, 1e-7, float64(3), math.NaN(), 7, int32(2),
		json.Number("12"), json.Number("-0.5e+3"), json.Number(""), json.Number("01"), json.Number("1."), json.Number("x"),
		map[string]interface{}(nil), []interface{}(nil), map[string]interface{}{}, []interface{}{},
		map[string]interface{}{"b": int64(1), "a": []interface{}{"x", nil, map[string]interface{}{"é": json.Number("2")}}, "<": true},
		map[string]interface{}{"bad": math.Inf(1)},
		[]interface{}{struct{ A int }{1}, map[string]string{"k": "v"}},
	} {
		checkAppendJSON(t, v)
	}
}

// FuzzAppendJSON: any JSON text, decoded as the webhook and the CLI decode
// (json.Number or int64 and float64 numbers), encodes as encoding/json does.
func FuzzAppendJSON(f *testing.F) {
	for _, s := range []string{`{"a":[1,2.5,"x\u0000",null,true,{"b":-0}]}`, `"\ud800"`, `1e400`, `{"<":"&"}`, `[-0.0,1E2,12345678901234567890]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var v interface{}
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.UseNumber()
		if err := dec.Decode(&v); err != nil {
			return
		}
		checkAppendJSON(t, v)
		var f interface{}
		if json.Unmarshal(data, &f) == nil {
			checkAppendJSON(t, f)
		}
		if IsJSONNumber(string(data)) != (json.Valid(data) && len(data) > 0 && (data[0] == '-' || data[0] >= '0' && data[0] <= '9') && data[len(data)-1] >= '0' && data[len(data)-1] <= '9') {
			t.Fatalf("IsJSONNumber(%q) = %v", data, IsJSONNumber(string(data)))
		}
	})
}

func BenchmarkAppendJSON(b *testing.B) {
	var tree interface{}
	data := []byte(`{"apiVersion":"resource.claimbridge.dev/v1alpha3","kind":"ResourceClaim","metadata":{"name":"c","namespace":"default","annotations":{"a":"b"}},"spec":{"devices":{"requests":[{"name":"gpu","deviceClassName":"gpu.example.com","count":2,"allocationMode":"ExactCount"}]}},"status":{"allocation":{"devices":{"results":[{"request":"gpu","driver":"gpu.example.com","pool":"node-7","device":"gpu-0"}]}}}}`)
	if err := json.Unmarshal(data, &tree); err != nil {
		b.Fatal(err)
	}
	b.Run("AppendJSON", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			if _, err := AppendJSON(nil, tree); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("encoding/json", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			if _, err := encodingJSON(tree); err != nil {
				b.Fatal(err)
			}
		}
	})
}
