package manifest

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestParseMergeKeys: YAML merge keys read as kubectl reads them: a key of
// the mapping itself overrides a merged one, and of several merged mappings
// the first wins. Neither is a duplicate key.
func TestParseMergeKeys(t *testing.T) {
	for name, tc := range map[string]struct {
		data string
		want map[string]interface{}
	}{
		"override a merged key": {
			data: "labels: &l {a: x, b: w}\nannotations:\n  <<: *l\n  a: z\n",
			want: map[string]interface{}{"labels": map[string]interface{}{"a": "x", "b": "w"}, "annotations": map[string]interface{}{"a": "z", "b": "w"}},
		},
		"several merged mappings with a common key": {
			data: "labels:\n  <<: [{a: first, b: v}, {a: second, c: w}]\n",
			want: map[string]interface{}{"labels": map[string]interface{}{"a": "first", "b": "v", "c": "w"}},
		},
		"aliases": {
			data: "labels: {a: &v value}\nannotations: {b: *v}\n",
			want: map[string]interface{}{"labels": map[string]interface{}{"a": "value"}, "annotations": map[string]interface{}{"b": "value"}},
		},
	} {
		t.Run(name, func(t *testing.T) {
			docs, err := Parse("f", []byte("apiVersion: v1\nkind: A\nmetadata:\n"+indent(tc.data)))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, docs[0].Object["metadata"]); diff != "" {
				t.Errorf("metadata (-want +got):\n%s", diff)
			}
		})
	}
}

func indent(s string) string {
	return "  " + strings.ReplaceAll(strings.TrimSuffix(s, "\n"), "\n", "\n  ") + "\n"
}

// TestParseDuplicateKeys: a key given twice in one mapping is refused, also
// when YAML reads its two spellings as different keys (a boolean, a number)
// that become one JSON key: one value would be lost, which one at random.
func TestParseDuplicateKeys(t *testing.T) {
	for name, tc := range map[string]struct {
		data, want string
	}{
		"same key":            {data: "data:\n  a: x\n  a: y\n", want: `key "a" appears twice in the object at data`},
		"quoted and plain":    {data: "data:\n  a: x\n  'a': y\n", want: `key "a" appears twice in the object at data`},
		"boolean and string":  {data: "data:\n  on: x\n  \"true\": y\n", want: `key "true" appears twice in the object at data (once as the boolean true, which YAML reads from an unquoted y, yes or on too)`},
		"y and yes":           {data: "data:\n  y: x\n  yes: y\n", want: `key "true" appears twice in the object at data`},
		"number and string":   {data: "data:\n  1: x\n  \"1\": y\n", want: `key "1" appears twice in the object at data (once as the number 1)`},
		"octal and decimal":   {data: "data:\n  010: x\n  8: y\n", want: `key "8" appears twice in the object at data`},
		"float precision":     {data: "data:\n  1.00000001: x\n  1: y\n", want: `key "1" appears twice in the object at data`},
		"in a list item":      {data: "spec:\n  requests:\n  - {name: a, name: b}\n", want: `key "name" appears twice in the object at spec.requests[0]`},
		"in a merged mapping": {data: "labels: &l {a: x, a: y}\nannotations: {<<: *l}\n", want: `key "a" appears twice in the object at labels`},
		"at the top":          {data: "kind: B\n", want: `key "kind" appears twice in the top-level object`},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := Parse("f", []byte("apiVersion: v1\nkind: A\n"+tc.data))
			if err == nil || !strings.Contains(err.Error(), "f: document 1 (line 1): "+tc.want) {
				t.Errorf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

// The checks leave numbers as YAML reads them.
func TestParseYAMLNumbersUnchanged(t *testing.T) {
	docs, err := Parse("f", []byte("apiVersion: v1\nkind: A\nnums: [0x1F, 0o17, 017, 1e3, -0, 12345678901234567890, 1_000]\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := []interface{}{json.Number("31"), json.Number("15"), json.Number("15"), json.Number("1000"), json.Number("0"), json.Number("12345678901234567890"), json.Number("1000")}
	if diff := cmp.Diff(want, docs[0].Object["nums"]); diff != "" {
		t.Errorf("nums (-want +got):\n%s", diff)
	}
}
