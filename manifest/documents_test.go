package manifest

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestParseDocumentBoundaries: every document the YAML parser would see is
// read, or the input is refused; none is dropped in silence.
func TestParseDocumentBoundaries(t *testing.T) {
	type pos struct {
		Kind        string
		Index, Line int
	}
	for name, tc := range map[string]struct {
		data string
		want []pos
	}{
		"document end markers": {
			data: "apiVersion: v1\nkind: A\n...\n---\napiVersion: v1\nkind: B\n...\n# trailing comment\n",
			want: []pos{{"A", 1, 1}, {"B", 2, 5}},
		},
		"document end marker with a comment, then a separator": {
			data: "apiVersion: v1\nkind: A\n... # end\n\n--- # next\napiVersion: v1\nkind: B\n",
			want: []pos{{"A", 1, 1}, {"B", 2, 6}},
		},
		"old Mac line endings": {
			data: "apiVersion: v1\rkind: A\r---\rapiVersion: v1\rkind: B\r",
			want: []pos{{"A", 1, 1}, {"B", 2, 4}},
		},
		"a %YAML directive before the first document": {
			data: "%YAML 1.1\n# the version\n---\napiVersion: v1\nkind: A\n---\napiVersion: v1\nkind: B\n",
			want: []pos{{"A", 1, 1}, {"B", 2, 7}},
		},
		// helm template's output: the first "---" starts the first
		// document, there is no empty one before it.
		"a leading separator": {
			data: "---\n# Source: chart/templates/a.yaml\napiVersion: v1\nkind: A\n---\napiVersion: v1\nkind: B\n",
			want: []pos{{"A", 1, 2}, {"B", 2, 6}},
		},
		"a leading separator after comments": {
			data: "# exported\n\n--- # first\napiVersion: v1\nkind: A\n---\n---\napiVersion: v1\nkind: B\n",
			want: []pos{{"A", 1, 4}, {"B", 3, 8}},
		},
		"separators inside a block scalar": {
			data: "apiVersion: v1\nkind: A\nmetadata:\n  annotations:\n    a: |\n      x\n      ---\n      ...\n---\napiVersion: v1\nkind: B\n",
			want: []pos{{"A", 1, 1}, {"B", 2, 10}},
		},
		// kubectl's YAMLOrJSONDecoder: a JSON value, and when the next
		// does not parse as JSON, the rest of the stream as YAML.
		"a json value, then yaml": {
			data: "{\"apiVersion\":\"v1\",\"kind\":\"A\"}\n---\napiVersion: v1\nkind: B\n---\napiVersion: v1\nkind: C\n",
			want: []pos{{"A", 1, 1}, {"B", 2, 3}, {"C", 3, 6}},
		},
		"a json value, then a comment and a json value": {
			data: "{\"apiVersion\":\"v1\",\"kind\":\"A\"}\n# second\n{\"apiVersion\":\"v1\",\"kind\":\"B\"}\n",
			want: []pos{{"A", 1, 1}, {"B", 2, 2}},
		},
		"a json value, then one that only yaml reads": {
			data: "{\"apiVersion\":\"v1\",\"kind\":\"A\"}  \n\n{\"apiVersion\":\"v1\",\"kind\":\"B\",}\n",
			want: []pos{{"A", 1, 1}, {"B", 2, 2}},
		},
		"a key that starts with ---": {
			data: "apiVersion: v1\nkind: A\n---x: 1\n",
			want: []pos{{"A", 1, 1}},
		},
	} {
		t.Run(name, func(t *testing.T) {
			docs, err := Parse("f", []byte(tc.data))
			if err != nil {
				t.Fatal(err)
			}
			var got []pos
			for _, d := range docs {
				got = append(got, pos{d.Object["kind"].(string), d.Index, d.Line})
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("documents (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseHiddenDocuments(t *testing.T) {
	for name, tc := range map[string]struct {
		data, want string
	}{
		"content after a separator": {
			data: "apiVersion: v1\nkind: A\n--- {apiVersion: v1, kind: B}\n",
			want: `f: document 2 (line 3): a "---" line separates documents and may be followed only by a comment, not by "{apiVersion: v1, kind: B}"`,
		},
		"block scalar after a separator": {
			data: "apiVersion: v1\nkind: A\n--- |\n  text\n",
			want: `f: document 2 (line 3): a "---" line separates documents`,
		},
		"a document after an end marker": {
			data: "apiVersion: v1\nkind: A\n...\napiVersion: v1\nkind: B\n",
			want: `f: document 1 (line 1): more than one YAML document`,
		},
		"a document after an empty one": {
			data: "# nothing\n...\napiVersion: v1\nkind: B\n",
			want: `f: document 1 (line 1): yaml: `,
		},
	} {
		t.Run(name, func(t *testing.T) {
			docs, err := Parse("f", []byte(tc.data))
			if err == nil {
				t.Fatalf("no error; read %d documents", len(docs))
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q does not contain %q", err, tc.want)
			}
		})
	}
}
