package manifest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestListIsParsedItemByItem: the YAML parser is given a kind: List as
// kubectl writes it an item at a time, never whole (it holds a node for
// every value of what it is given: 30 times the size of an export), and the
// objects are those of the list read whole.
func TestListIsParsedItemByItem(t *testing.T) {
	for _, n := range []int{1, 10, 1000} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			var b strings.Builder
			b.WriteString("apiVersion: v1\nitems:\n")
			for i := 0; i < n; i++ {
				fmt.Fprintf(&b, "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: c%d\n    namespace: default\n  data:\n    script: |\n      echo %d\n\n      exit 0\n", i, i)
			}
			b.WriteString("kind: List\nmetadata:\n  resourceVersion: \"\"\n")
			data := []byte(b.String())
			largest := 0
			saved := yamlToJSON
			yamlToJSON = func(y []byte) ([]byte, error) { largest = max(largest, len(y)); return saved(y) }
			defer func() { yamlToJSON = saved }()

			docs, err := Parse("f.yaml", data)
			if err != nil {
				t.Fatal(err)
			}
			if len(docs) != n {
				t.Fatalf("%d objects, want %d", len(docs), n)
			}
			for i, d := range docs {
				meta, _ := d.Object["metadata"].(map[string]interface{})
				dataField, _ := d.Object["data"].(map[string]interface{})
				if d.Item != i || meta["name"] != fmt.Sprintf("c%d", i) || dataField["script"] != fmt.Sprintf("echo %d\n\nexit 0\n", i) {
					t.Errorf("item %d: %+v", i, d)
				}
			}
			const itemBytes = 200 // an item is about 120 bytes
			if largest > itemBytes {
				t.Errorf("a list of %d items in %d bytes: the YAML parser was given %d bytes at once, want at most an item's %d", n, len(data), largest, itemBytes)
			}
		})
	}
}

// TestListByItemsMeansTheWholeList: a List read item by item is the list
// read whole; a List whose pieces might not mean what the whole does (or
// do not decode) is read whole, with the same result or error as before.
func TestListByItemsMeansTheWholeList(t *testing.T) {
	const head, tail = "apiVersion: v1\nitems:\n", "kind: List\nmetadata:\n  resourceVersion: \"\"\n"
	for _, c := range []struct {
		name   string
		data   string
		byItem bool // read item by item
	}{
		{"kubectl's form", head + "- apiVersion: v1\n  kind: A\n- apiVersion: v1\n  kind: B\n" + tail, true},
		{"frame after the items only", "items:\n- {apiVersion: v1, kind: A}\napiVersion: v1\nkind: List\n", true},
		{"frame with comments and blank lines", "# export\napiVersion: v1 # the list\n\nitems: # all\n# first\n- {apiVersion: v1, kind: A}\n\n# second\n- {apiVersion: v1, kind: B}\nkind: 'List'\nmetadata: {}\n", true},
		{"dash alone, content below", head + "-\n  apiVersion: v1\n  kind: A\n" + tail, true},
		{"wider item indentation", head + "-   apiVersion: v1\n    kind: A\n    metadata:\n      name: a\n" + tail, true},
		{"an item's sequence at the start of the line", head + "- apiVersion: v1\n  kind: A\n  list:\n  - a\n  - - b\n    - c\n" + tail, true},
		{"block scalars with blank and indented lines", head + "- apiVersion: v1\n  kind: A\n  data:\n    a: |\n      x\n\n       \n        y\n \n    b: >-\n      folded\n      text\n\n      more\n    c: |2\n        two\n" + tail, true},
		{"block scalar ended by a comment at the start of a line", head + "- apiVersion: v1\n  kind: A\n  data:\n    a: |\n      x\n# note\n    b: y\n" + tail, true},
		{"quoted value over lines with a comment line", head + "- apiVersion: v1\n  kind: A\n  data:\n    a: \"x\n# not a comment\n      y\"\n    b: 'p\n\n      q'\n" + tail, true},
		{"plain value over lines", head + "- apiVersion: v1\n  kind: A\n  data:\n    a: one\n      two\n\n      three\n" + tail, true},
		{"anchor and merge key in one item", head + "- apiVersion: v1\n  kind: A\n  base: &b {x: 1}\n  data:\n    <<: *b\n    y: 2\n" + tail, true},
		{"YAML 1.1 values", head + "- apiVersion: v1\n  kind: A\n  data: {a: yes, b: 0x1F, c: 1e3, d: ~, e: 010, \"on\": 1}\n" + tail, true},
		{"items of a nested List", head + "- apiVersion: v1\n  kind: List\n  items:\n  - {apiVersion: v1, kind: A}\n  - {apiVersion: v1, kind: B}\n" + tail, true},

		// Read whole.
		{"an alias of another item's anchor", head + "- &a {apiVersion: v1, kind: A}\n- *a\n" + tail, false},
		{"a merge key of another item's anchor", head + "- apiVersion: v1\n  kind: A\n  x: &x {a: 1}\n- apiVersion: v1\n  kind: B\n  y:\n    <<: *x\n" + tail, false},
		{"a quoted value over an item's start", head + "- apiVersion: v1\n  kind: A\n  a: \"x\n- y\"\n" + tail, false},
		{"a flow mapping over an item's start", head + "- apiVersion: v1\n  kind: A\n  a: {x: 1,\n- y: 2}\n" + tail, false},
		{"a quoted value of the frame over lines", "apiVersion: v1\nkind: List\nnote: \"\nitems:\n- {apiVersion: v1, kind: A}\n\"\n\"items\": []\n", false},
		{"a frame value of two words", "apiVersion: v1\nkind: List\nnote: two words\nitems:\n- {apiVersion: v1, kind: A}\n", false},
		{"items indented", "apiVersion: v1\nkind: List\nitems:\n  - {apiVersion: v1, kind: A}\n  - {apiVersion: v1, kind: B}\n", false},
		{"items in flow style", "apiVersion: v1\nkind: List\nitems: [{apiVersion: v1, kind: A}]\n", false},
		{"no items", "apiVersion: v1\nkind: List\nitems:\n", false},
		{"items twice", head + "- {apiVersion: v1, kind: A}\nitems:\n- {apiVersion: v1, kind: B}\n" + tail, false},
		{"items twice, once quoted", head + "- {apiVersion: v1, kind: A}\n\"items\": []\n" + tail, false},
		{"not a List", "apiVersion: v1\nkind: Template\nitems:\n- {apiVersion: v1, kind: A}\n", false},
		{"a key twice in an item", head + "- apiVersion: v1\n  kind: A\n- apiVersion: v1\n  kind: B\n  metadata: {name: a, name: b}\n" + tail, false},
		{"a key twice in the frame", head + "- {apiVersion: v1, kind: A}\nkind: List\nkind: List\n", false},
		{"a document end in an item's text", head + "- apiVersion: v1\n  kind: A\n  a: \"x\n  ... y\"\n" + tail, false},
		{"a separator in an item's text", head + "- apiVersion: v1\n  kind: A\n  a: 'x\n  --- y'\n" + tail, false},
		{"a document end after the items", head + "- {apiVersion: v1, kind: A}\n...\n" + tail, false},
		{"a tab-indented line", head + "- apiVersion: v1\n\tkind: A\n" + tail, false},
		{"a line indented by one column", head + "- apiVersion: v1\n  kind: A\n  a: \"x\n y\"\n" + tail, false},
		{"a carriage return starting an item's line (FuzzListByItems)", "apiVersion: v1\nitems:\n- \r0: \nkind: List", false},
		{"CRLF line ends", strings.ReplaceAll(head+"- apiVersion: v1\n  kind: A\n"+tail, "\n", "\r\n"), false},
		{"a NEL line break", head + "- apiVersion: v1\n  kind: A\u0085b: 1\n" + tail, false},
		{"an LS line break", head + "- apiVersion: v1\n  kind: A\u2028b: 1\n" + tail, false},
		{"an item that is a sequence", head + "- - a\n  - b\n- apiVersion: v1\n  kind: A\n" + tail, false},
		{"an item that is null", head + "-\n- apiVersion: v1\n  kind: A\n" + tail, false},
		{"an item that is a block scalar with a comment line", head + "- |\n  text\n# note\n  more\n- apiVersion: v1\n  kind: A\n" + tail, false},
		{"a tab after an item's indentation", head + "- apiVersion: v1\n  \tkind: A\n" + tail, false},
		{"a dash without a blank", head + "-{apiVersion: v1, kind: A}\n" + tail, false},
		{"a directive", "%YAML 1.1\n---\n" + head + "- {apiVersion: v1, kind: A}\n" + tail, false},
		{"a tag handle of the document", "%TAG !e! tag:example.com,2000:\n---\n" + head + "- !e!x {apiVersion: v1, kind: A}\n" + tail, false},
		{"YAML that does not parse", head + "- apiVersion: v1\n  kind: [A\n" + tail, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			checkListByItems(t, []byte(c.data), &c.byItem)
		})
	}
}

// checkListByItems checks that data, read item by item, gives what it gives
// read whole; and, unless byItem is nil, whether it was read item by item
// to its end.
func checkListByItems(t *testing.T, data []byte, byItem *bool) {
	t.Helper()
	var got, want []Document
	doc := Document{Source: "f.yaml", Index: 1, Line: 1, Item: -1}
	_, done, err := eachListItem(doc, data, func(d Document) error { got = append(got, d); return nil })
	if byItem != nil && done != *byItem {
		t.Errorf("read item by item: %v, want %v", done, *byItem)
	}
	if done {
		whole, wholeErr := decodeYAML(data)
		if wholeErr != nil {
			t.Fatalf("read item by item, but read whole it is refused: %v", wholeErr)
		}
		wantErr := visitObject(doc, whole, 0, func(d Document) error { want = append(want, d); return nil })
		if fmt.Sprint(err) != fmt.Sprint(wantErr) {
			t.Errorf("error %v, read whole %v", err, wantErr)
		}
		if diff := cmp.Diff(want, got, cmp.AllowUnexported(Document{}, list{})); err == nil && diff != "" {
			t.Errorf("item by item (+) is not the list read whole (-):\n%s", diff)
		}
	}
	checkParseEach(t, data)
}

// FuzzListByItems: whatever a document is, read item by item it is what it
// is read whole, or it is read whole from the item that needs it.
// TestCorpusListByItems (-tags corpus) checks the same of the documents of
// the real-world corpus.
func FuzzListByItems(f *testing.F) {
	for _, glob := range []string{"../examples/*/*.yaml", "../test/manifests/exports/*/*.yaml", "../test/manifests/drivers/*.yaml"} {
		files, _ := filepath.Glob(glob)
		for _, file := range files {
			data, err := os.ReadFile(file)
			if err != nil {
				f.Fatal(err)
			}
			for _, c := range split(data) {
				if c.err == nil && !c.json {
					f.Add(c.data)
				}
			}
		}
	}
	f.Add([]byte("apiVersion: v1\nitems:\n- apiVersion: v1\n  kind: A\n  a: \"x\n# y\n  z\"\nkind: List\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if isListFrame(data) {
			checkListByItems(t, data, nil)
		}
	})
}
