package manifest

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParsePositions(t *testing.T) {
	data := "# leading comment\napiVersion: v1\nkind: A\n---\n---   # empty document\napiVersion: v1\nkind: List\nitems:\n- {apiVersion: v1, kind: B}\n- {apiVersion: v1, kind: C}\n--- \napiVersion: v1\nkind: D\n"
	docs, err := Parse("f.yaml", []byte(data))
	if err != nil {
		t.Fatal(err)
	}
	type pos struct {
		Kind        string
		Index, Line int
		Item        int
	}
	var got []pos
	for _, d := range docs {
		got = append(got, pos{d.Object["kind"].(string), d.Index, d.Line, d.Item})
	}
	want := []pos{{"A", 1, 1, -1}, {"B", 3, 6, 0}, {"C", 3, 6, 1}, {"D", 4, 12, -1}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("positions (-want +got):\n%s", diff)
	}
}

func TestParseJSONStream(t *testing.T) {
	data := "{\"apiVersion\":\"v1\",\"kind\":\"A\"}\n\n  {\"apiVersion\":\"v1\",\"kind\":\"B\",\"n\":12345678901234567890}\n"
	docs, err := Parse("-", []byte(data))
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) != 2 || docs[1].Line != 3 || docs[1].Index != 2 {
		t.Fatalf("got %+v", docs)
	}
	if n := docs[1].Object["n"]; n == nil || n.(interface{ String() string }).String() != "12345678901234567890" {
		t.Errorf("big numbers must survive as their text, got %v", n)
	}
	if got := docs[1].Position(); got != "<stdin>: document 2 (line 3)" {
		t.Errorf("Position() = %q", got)
	}
}

func TestParseErrors(t *testing.T) {
	for name, tc := range map[string]struct {
		data, want string
	}{
		"yaml-syntax": {"apiVersion: v1\nkind: A\n---\nkind: [\n", "f: document 2 (line 4): "},
		// The YAML parser's line is the file's, not the document's.
		"yaml-second-document-line": {"apiVersion: v1\nkind: A\n---\napiVersion: v1\nkind: B\n...\napiVersion: v1\n", "f: document 2 (line 4): more than one YAML document: a document after \"...\" or after another must start with a \"---\" line (yaml: line 6: did not find expected <document start>)"},
		"yaml-syntax-line":          {"apiVersion: v1\nkind: A\n---\napiVersion: v1\nkind: B\nmetadata:\n  labels:\n    a: b: c\n", "f: document 2 (line 4): yaml: line 8: mapping values are not allowed"},
		"scalar":                    {"just a string\n", "f: document 1 (line 1): expected an object, got a string"},
		"unrendered-template":       {"{{$n := 1}}\napiVersion: v1\nkind: A\n", "(the document holds {{ … }}: if it is a template, render it first)"},
		"no-apiversion":             {"kind: A\n", `f: document 1 (line 1): object has no "apiVersion"`},
		"apiversion-lower-case":     {"apiversion: v1\nkind: Pod\n", `f: document 1 (line 1): object has no "apiVersion" (it has "apiversion": keys are case-sensitive)`},
		"list-item":                 {"apiVersion: v1\nkind: List\nitems: [1]\n", "items[0]: expected an object, got a number"},
		"list-items-obj":            {"apiVersion: v1\nkind: List\nitems: {a: 1}\n", `"items" of a List must be an array`},
		"duplicate-key":             {"apiVersion: v1\nkind: A\nkind: B\n", "document 1"},
		"json-duplicate":            {`{"apiVersion":"v1","kind":"A","metadata":{"x":{"a":1,"a":2}}}`, `f: document 1 (line 1): key "a" appears twice in the object at metadata.x`},
		"json-top-dup":              {`{"kind":"A","kind":"B"}`, `f: document 1 (line 1): key "kind" appears twice in the top-level object`},
		"json-too-deep":             {`{"apiVersion":"v1","kind":"A","x":` + strings.Repeat("[", 10002) + strings.Repeat("]", 10002) + `}`, "exceeded max depth"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := Parse("f", []byte(tc.data))
			var perr *Error
			if !errors.As(err, &perr) {
				t.Fatalf("want *Error, got %v", err)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q does not contain %q", err, tc.want)
			}
		})
	}
}

// JSON documents are decoded as JSON: a number YAML would read as a string
// (beyond a float64's range) stays a number with its text, as in kubectl.
func TestParseJSONNumbersStayNumbers(t *testing.T) {
	docs, err := Parse("f.json", []byte(`{"apiVersion":"v1","kind":"A","n":1e400,"m":[-0.0,1E+2],"s":"1e400","o":{"b":true,"z":null}}`))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]interface{}{
		"apiVersion": "v1", "kind": "A", "n": json.Number("1e400"),
		"m": []interface{}{json.Number("-0.0"), json.Number("1E+2")}, "s": "1e400",
		"o": map[string]interface{}{"b": true, "z": nil},
	}
	if diff := cmp.Diff(want, docs[0].Object); diff != "" {
		t.Errorf("object (-want +got):\n%s", diff)
	}
	// A JSON value followed by YAML (kubectl reads the value as JSON, the
	// rest as YAML): the value keeps its numbers, with a separator after it
	// or a comment.
	for _, rest := range []string{"\n---\napiVersion: v1\nkind: B\n", "\n# the end\n"} {
		docs, err = Parse("f", []byte(`{"apiVersion":"v1","kind":"A","n":1e400,"m":123456789012345678901234567890}`+rest))
		if err != nil {
			t.Fatal(err)
		}
		if n, m := docs[0].Object["n"], docs[0].Object["m"]; n != json.Number("1e400") || m != json.Number("123456789012345678901234567890") {
			t.Errorf("JSON before %q: n = %#v, m = %#v, want the numbers as written", rest, n, m)
		}
	}
	// The same document as YAML: 1e400 is a string to YAML (and to kubectl).
	docs, err = Parse("f.yaml", []byte("apiVersion: v1\nkind: A\ncount: 1e400\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got := docs[0].Object["count"]; got != "1e400" {
		t.Errorf("YAML n = %#v, want the string", got)
	}
}

func TestReadAllStdinAndLimit(t *testing.T) {
	docs, err := ReadAll([]string{Stdin}, strings.NewReader("apiVersion: v1\nkind: A\n"))
	if err != nil || len(docs) != 1 || docs[0].Source != Stdin {
		t.Fatalf("got %v, %v", docs, err)
	}
	big := strings.NewReader(strings.Repeat("#", MaxInputBytes+1))
	if _, err := ReadAll([]string{Stdin}, big); err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Errorf("oversized input: got %v", err)
	}
}

func TestReadAllStdinOnce(t *testing.T) {
	docs, err := ReadAll([]string{Stdin, Stdin}, strings.NewReader("apiVersion: v1\nkind: A\n"))
	if err == nil || !strings.Contains(err.Error(), `standard input ("-") can be read only once`) {
		t.Errorf("got %v, %v", docs, err)
	}
}

func TestReadAllDirectory(t *testing.T) {
	dir := t.TempDir()
	write := func(name, data string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("b.yaml", "apiVersion: v1\nkind: B\n")
	write("A.YML", "apiVersion: v1\nkind: A\n")
	write("c.json", `{"apiVersion":"v1","kind":"C"}`)
	write("README.md", "not a manifest: {[")
	if err := os.Mkdir(filepath.Join(dir, "sub.yaml"), 0o700); err != nil {
		t.Fatal(err)
	}
	write("sub.yaml/d.yaml", "apiVersion: v1\nkind: D\n")
	if err := os.Symlink("b.yaml", filepath.Join(dir, "link.yaml")); err != nil {
		t.Fatal(err)
	}
	docs, err := ReadAll([]string{dir}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range docs {
		got = append(got, filepath.Base(d.Source)+":"+d.Object["kind"].(string))
	}
	// In name order, as kubectl -f DIR; subdirectories and other files are not read.
	if diff := cmp.Diff([]string{"A.YML:A", "b.yaml:B", "c.json:C", "link.yaml:B"}, got); diff != "" {
		t.Errorf("documents (-want +got):\n%s", diff)
	}

	// A directory without a manifest is a mistake (kubectl: "no objects
	// passed"), not an empty input.
	empty := t.TempDir()
	if err := os.WriteFile(filepath.Join(empty, "notes.txt"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadAll([]string{empty}, nil); err == nil || !strings.Contains(err.Error(), "no .yaml, .yml or .json file in the directory") {
		t.Errorf("empty directory: %v", err)
	}
}

// A kind: List inside a kind: List is flattened, as kubectl flattens it
// (FlattenListVisitor): its objects are read in order, not passed over as
// one object that no converter looks into.
func TestParseNestedList(t *testing.T) {
	data := `apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: A}
- apiVersion: v1
  kind: List
  items:
  - {apiVersion: v1, kind: B}
  - apiVersion: v1
    kind: List
    items: [{apiVersion: v1, kind: C}]
- {apiVersion: v1, kind: D}
`
	docs, err := Parse("f", []byte(data))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range docs {
		got = append(got, fmt.Sprintf("%s@%d", d.Object["kind"], d.Item))
	}
	if diff := cmp.Diff([]string{"A@0", "B@1", "C@2", "D@3"}, got); diff != "" {
		t.Errorf("objects (-want +got):\n%s", diff)
	}
	_, err = Parse("f", []byte("apiVersion: v1\nkind: List\nitems:\n- {apiVersion: v1, kind: List, items: [{kind: X}]}\n"))
	if err == nil || !strings.Contains(err.Error(), `items[0].items[0]: object has no "apiVersion"`) {
		t.Errorf("nested item error: %v", err)
	}
}

// TestInItemPosition: an item of a typed list is named below the document,
// and below the kind: List item that holds the typed list (items[i] was
// overwritten with the typed list's index, naming the wrong item).
func TestInItemPosition(t *testing.T) {
	doc := Document{Source: "f.yaml", Index: 2, Line: 7, Item: -1}
	item := map[string]interface{}{"kind": "ResourceClaim"}
	for _, tc := range []struct {
		doc  Document
		want string
	}{
		{doc.InItem(1, item), "f.yaml: document 2 (line 7), items[1]"},
		{Document{Source: Stdin, Index: 1, Line: 1, Item: 3}.InItem(0, item), "<stdin>: document 1 (line 1), items[3].items[0]"},
		{doc, "f.yaml: document 2 (line 7)"},
	} {
		if got := tc.doc.Position(); got != tc.want {
			t.Errorf("Position() = %q, want %q", got, tc.want)
		}
	}
	if got := doc.InItem(1, item).Object["kind"]; got != "ResourceClaim" {
		t.Errorf("InItem's object has kind %v", got)
	}
}
