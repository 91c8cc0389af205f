package manifest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/claimbridge/claimbridge/api"
)

// encodeAll is how convert and migrate encoded their output before
// Writer: every object at once, as a YAML stream, or with one
// json.Encoder (one object as it is, several as a v1 List).
func encodeAll(objects []map[string]interface{}, positions []string, format string) ([]byte, error) {
	if objects == nil {
		objects = []map[string]interface{}{} // the commands' slice was never nil: "items": []
	}
	var buf bytes.Buffer
	if format == "json" {
		var v interface{} = map[string]interface{}{
			"apiVersion": "v1", "kind": "List",
			"metadata": map[string]interface{}{"resourceVersion": ""},
			"items":    objects,
		}
		if len(objects) == 1 {
			v = objects[0]
		}
		enc := json.NewEncoder(&buf)
		enc.SetIndent("", "    ")
		enc.SetEscapeHTML(false)
		if err := enc.Encode(v); err != nil {
			return nil, err
		}
		return escapeJSONControls(buf.Bytes()), nil
	}
	for i, obj := range objects {
		data, err := yaml.Marshal(obj)
		if err != nil {
			return nil, fmt.Errorf("%s: %s: cannot be written as YAML: %w; use -o json", positions[i], api.Describe(obj), err)
		}
		if err := readsBack(obj, data); err != nil {
			return nil, fmt.Errorf("%s: %s: %w; use -o json", positions[i], api.Describe(obj), err)
		}
		if i > 0 {
			buf.WriteString("---\n")
		}
		buf.Write(data)
	}
	return buf.Bytes(), nil
}

// checkObjectWriter checks that Writer, given objects one at a time,
// writes what encodeAll wrote, or fails as it failed.
func checkObjectWriter(t *testing.T, objects []map[string]interface{}) {
	t.Helper()
	positions := make([]string, len(objects))
	for i := range objects {
		positions[i] = fmt.Sprintf("f.yaml: document %d (line 1)", i+1)
	}
	for _, format := range []string{"yaml", "json"} {
		want, wantErr := encodeAll(objects, positions, format)
		w := Writer{Format: format}
		for i, obj := range objects {
			w.Add(obj, Document{Source: "f.yaml", Index: i + 1, Line: 1, Item: -1})
		}
		if fmt.Sprint(w.Err()) != fmt.Sprint(wantErr) {
			t.Fatalf("%s: error %v, want %v", format, w.Err(), wantErr)
		}
		if wantErr != nil {
			continue
		}
		var got bytes.Buffer
		if err := w.Flush(&got); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Bytes(), want) {
			t.Errorf("%s:\n%s\nwant\n%s", format, got.Bytes(), want)
		}
	}
}

func decodeObjects(t *testing.T, docs ...string) []map[string]interface{} {
	t.Helper()
	var out []map[string]interface{}
	for _, d := range docs {
		dec := json.NewDecoder(bytes.NewReader([]byte(d)))
		dec.UseNumber()
		var m map[string]interface{}
		if err := dec.Decode(&m); err != nil {
			t.Fatal(err)
		}
		out = append(out, m)
	}
	return out
}

// TestObjectWriterWritesWhatEncodingAllWrote: none, one and several
// objects, empty objects and arrays, HTML characters, DEL and C1 controls,
// a number YAML cannot hold (an error in YAML, written in JSON).
func TestObjectWriterWritesWhatEncodingAllWrote(t *testing.T) {
	a := `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","annotations":{}},"data":{"x":"<&>","y":"\u009b[31m\u007f"}}`
	b := `{"apiVersion":"v1","kind":"Secret","metadata":{"name":"b"},"items":[],"n":[1,{"z":[]},{}],"e":1.50}`
	big := `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"x":1e400}`
	for _, c := range []struct {
		name    string
		objects []string
	}{
		{"none", nil},
		{"one", []string{a}},
		{"two", []string{a, b}},
		{"three", []string{b, a, b}},
		{"one YAML cannot hold", []string{big}},
		{"YAML cannot hold the second", []string{a, big, b}},
	} {
		t.Run(c.name, func(t *testing.T) {
			checkObjectWriter(t, decodeObjects(t, c.objects...))
		})
	}
}

// FuzzObjectWriter: for any objects (JSON values of a stream), Writer
// writes what encodeAll wrote.
func FuzzObjectWriter(f *testing.F) {
	f.Add(`{"a":"\u0085<\u2028>","b":[{},[]]} {"c":1e3} {}`)
	f.Add(`{"x":{"y":{"z":[1,2,{"w":null}]}}}`)
	f.Fuzz(func(t *testing.T, stream string) {
		dec := json.NewDecoder(bytes.NewReader([]byte(stream)))
		dec.UseNumber()
		var objects []map[string]interface{}
		for len(objects) < 4 {
			var m map[string]interface{}
			if err := dec.Decode(&m); err != nil || m == nil {
				break
			}
			objects = append(objects, m)
		}
		checkObjectWriter(t, objects)
	})
}
