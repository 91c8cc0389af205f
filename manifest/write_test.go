package manifest

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/yaml"
)

// TestListWriter: export's List is what encoding the whole List writes,
// as kubectl get -o yaml|json does, item by item; YAML that would not read
// back as the objects is refused.
func TestListWriter(t *testing.T) {
	pod := func(name string, annotations map[string]interface{}) map[string]interface{} {
		return map[string]interface{}{"apiVersion": "v1", "kind": "Pod", "metadata": map[string]interface{}{"name": name, "annotations": annotations},
			"spec": map[string]interface{}{"containers": []interface{}{map[string]interface{}{"name": "c", "args": []interface{}{"a", "b"}}}}}
	}
	lists := map[string][]map[string]interface{}{
		"empty": {},
		"one":   {pod("a", nil)},
		"several": {
			pod("a", map[string]interface{}{"script": "set -e\n  indented\n\nlast\n", "lead": "  spaces", "html": "<a & b>"}),
			{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]interface{}{"name": "b"}, "data": map[string]interface{}{"k": "v1\nv2"}},
			pod("c", map[string]interface{}{"empty": ""}),
		},
	}
	for name, items := range lists {
		list := map[string]interface{}{"apiVersion": "v1", "kind": "List", "metadata": map[string]interface{}{"resourceVersion": ""}, "items": items}
		wantYAML, err := yaml.Marshal(list)
		if err != nil {
			t.Fatal(err)
		}
		var wantJSON bytes.Buffer
		enc := json.NewEncoder(&wantJSON)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "    ")
		if err := enc.Encode(list); err != nil {
			t.Fatal(err)
		}
		for format, want := range map[string]string{"yaml": string(wantYAML), "json": wantJSON.String()} {
			w := ListWriter{Format: format}
			for _, obj := range items {
				if err := w.Add(obj); err != nil {
					t.Fatal(err)
				}
			}
			var out strings.Builder
			if err := w.Flush(&out); err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(want, out.String()); d != "" {
				t.Errorf("%s, %s (-whole List +item by item):\n%s", name, format, d)
			}
		}
	}
	for _, tt := range []struct{ format, name, want string }{
		{"json", "a\u009b", ""},
		{"yaml", "a\u009b", "Pod a\u009b cannot be written as YAML: yaml: control characters are not allowed; use -o json"},
		{"yaml", "a\u0085b", "Pod a\u0085b cannot be written as YAML: metadata.name: the string \"a\\u0085b\" reads back from YAML as the string \"a b\"; use -o json"},
	} {
		w := ListWriter{Format: tt.format}
		got := ""
		if err := w.Add(pod(tt.name, nil)); err != nil {
			got = err.Error()
		}
		if got != tt.want {
			t.Errorf("%s %q: got error %q, want %q", tt.format, tt.name, got, tt.want)
		}
	}
	w := ListWriter{Format: "json"}
	if err := w.Add(pod("a\u009b", nil)); err != nil || !strings.Contains(w.buf.String(), `"name": "a\u009b"`) {
		t.Errorf("JSON: C1 controls not escaped: %v %s", err, w.buf.String())
	}
}

// FuzzWriterPassThrough: a YAML stream whose every object is added
// unchanged is written as it was read, byte for byte.
func FuzzWriterPassThrough(f *testing.F) {
	for _, s := range []string{"# c\n---\na: 1\nkind: A\napiVersion: v1\n---\n# d\n---\n\n--- # x\nkind: B\napiVersion: v1\n---\n# end\n",
		"apiVersion: v1\nkind: List\nitems:\n- {kind: A, apiVersion: v1}\n- {kind: List, apiVersion: v1, items: [{kind: B, apiVersion: v1}]}\n",
		"kind: A\r\napiVersion: v1\r\n---\r\nkind: B\r\napiVersion: v1", "%YAML 1.1\n---\nkind: A\napiVersion: v1\n...\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if t := bytes.TrimLeft(data, " \t\r\n"); len(t) > 0 && (t[0] == '{' || t[0] == '[') {
			return // JSON
		}
		docs, err := Parse("f.yaml", data)
		if err != nil || len(docs) == 0 {
			return
		}
		for _, c := range split(data) {
			if v, _ := decodeYAML(parseable(c.data)); v == nil && !noObject(c.data) {
				return // a null document ("~", an anchor alone) is not written
			}
		}
		var w Writer
		for _, d := range docs {
			w.Add(d.Object, d)
		}
		var out bytes.Buffer
		if err := w.Flush(&out); err != nil {
			return // an object YAML cannot hold, written again
		}
		if out.String() != string(data) {
			t.Errorf("written as\n%q\nread as\n%q", out.String(), data)
		}
	})
}
