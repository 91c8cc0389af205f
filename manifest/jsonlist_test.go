package manifest

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/yaml"
)

// parseEachWholeJSON is ParseEach as it was before a JSON List was read
// item by item: a JSON value decoded whole (wholeJSONObject,
// wholeJSONListItems: copies of the code of then), then its items. The
// reference FuzzJSONListItems compares ParseEach with.
func parseEachWholeJSON(source string, data []byte, visit func(Document) error) error {
	data, err := toUTF8(data)
	if err != nil {
		return &Error{Source: source, Err: err}
	}
	if err := checkUTF8(data); err != nil {
		return &Error{Source: source, Err: err}
	}
	for _, chunk := range split(data) {
		if chunk.err != nil {
			return &Error{Source: source, Index: chunk.index, Line: chunk.line, Err: chunk.err}
		}
		doc := Document{Source: source, Index: chunk.index, Line: chunk.line, Item: -1}
		if !chunk.json {
			doc.raw = chunk.data
			if err := eachYAML(doc, parseable(chunk.data), visit); err != nil {
				return &Error{Source: source, Index: chunk.index, Line: chunk.line, Err: err}
			}
			continue
		}
		obj, err := wholeJSONObject(chunk.data)
		if err != nil {
			return &Error{Source: source, Index: chunk.index, Line: chunk.line, Err: err}
		}
		if obj == nil {
			continue
		}
		items, isList, err := wholeJSONListItems(obj)
		if err != nil {
			return &Error{Source: source, Index: chunk.index, Line: chunk.line, Err: err}
		}
		if !isList {
			doc.Object = obj
			if err := visit(doc); err != nil {
				return err
			}
			continue
		}
		for i, it := range items {
			d := doc
			d.Item, d.Object = i, it
			if err := visit(d); err != nil {
				return err
			}
		}
	}
	return nil
}

// wholeJSONObject is decodeObject of a JSON value as it was.
func wholeJSONObject(data []byte) (map[string]interface{}, error) {
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.UseNumber()
	v, err := wholeJSONValue(dec, "")
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("more than one JSON value in the document")
	}
	if v == nil {
		return nil, nil
	}
	return typedObject(v)
}

// wholeJSONValue is jsonValue as it was.
func wholeJSONValue(dec *json.Decoder, path string) (interface{}, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch tok {
	case json.Delim('{'):
		m := map[string]interface{}{}
		for dec.More() {
			kt, err := dec.Token()
			if err != nil {
				return nil, err
			}
			key := kt.(string)
			if _, dup := m[key]; dup {
				return nil, fmt.Errorf("key %q appears twice in %s", key, describePath(path))
			}
			if m[key], err = wholeJSONValue(dec, joinPath(path, key)); err != nil {
				return nil, err
			}
		}
		_, err := dec.Token()
		return m, err
	case json.Delim('['):
		s := []interface{}{}
		for i := 0; dec.More(); i++ {
			e, err := wholeJSONValue(dec, fmt.Sprintf("%s[%d]", path, i))
			if err != nil {
				return nil, err
			}
			s = append(s, e)
		}
		_, err := dec.Token()
		return s, err
	}
	return tok, nil
}

// wholeJSONListItems is listItems (with appendItems and appendItem) as it was.
func wholeJSONListItems(obj map[string]interface{}) ([]map[string]interface{}, bool, error) {
	if !(obj["kind"] == "List" && obj["apiVersion"] == "v1") {
		return nil, false, nil
	}
	items, err := wholeAppendItems(nil, obj, "")
	return items, true, err
}

func wholeAppendItems(items []map[string]interface{}, list map[string]interface{}, path string) ([]map[string]interface{}, error) {
	raw, _ := list["items"].([]interface{})
	if _, present := list["items"]; present && raw == nil && list["items"] != nil {
		err := errors.New(`"items" of a List must be an array`)
		if path != "" {
			err = fmt.Errorf("%s: %w", path, err)
		}
		return nil, err
	}
	for i, it := range raw {
		at := fmt.Sprintf("items[%d]", i)
		if path != "" {
			at = path + "." + at
		}
		m, err := typedObject(it)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", at, err)
		}
		if !(m["kind"] == "List" && m["apiVersion"] == "v1") {
			items = append(items, m)
			continue
		}
		if items, err = wholeAppendItems(items, m, at); err != nil {
			return nil, err
		}
	}
	return items, nil
}

// checkJSONListItems checks that ParseEach reads data as parseEachWholeJSON
// does: the same objects, and the same error, field by field. Before an
// error, the objects of the documents before the one that cannot be read
// are compared (of that one, the items before the error may have been
// given).
func checkJSONListItems(t *testing.T, data []byte) {
	t.Helper()
	var want, got []Document
	wantErr := parseEachWholeJSON("f.json", data, func(d Document) error { want = append(want, d); return nil })
	err := ParseEach("f.json", data, func(d Document) error { got = append(got, d); return nil })
	if fmt.Sprint(err) != fmt.Sprint(wantErr) {
		t.Fatalf("error %v, read whole %v", err, wantErr)
	}
	var e, we *Error
	if errors.As(err, &e) != errors.As(wantErr, &we) || e != nil && (e.Source != we.Source || e.Index != we.Index || e.Line != we.Line) {
		t.Fatalf("error %#v, read whole %#v", e, we)
	}
	if e != nil {
		notBefore := func(d Document) bool { return d.Index >= e.Index }
		want, got = slices.DeleteFunc(want, notBefore), slices.DeleteFunc(got, notBefore)
	}
	// reflect.DeepEqual first: cmp.Diff takes minutes over deep nesting.
	if len(want) == 0 && len(got) == 0 || reflect.DeepEqual(want, got) {
		return
	}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(Document{}, list{})); diff != "" {
		t.Errorf("read item by item (+) is not read whole (-):\n%s", diff)
	}
}

// jsonListEdgeCases are JSON documents at the edges of eachJSON:
// seeds of FuzzJSONListItems and cases of TestJSONListItems.
var jsonListEdgeCases = []struct{ name, data string }{
	{"a List, items first", `{"apiVersion":"v1","items":[{"apiVersion":"v1","kind":"A"},{"apiVersion":"v1","kind":"B","x":1e400}],"kind":"List","metadata":{"resourceVersion":""}}`},
	{"an empty List", `{"apiVersion":"v1","items":[],"kind":"List"}`},
	{"items null", `{"apiVersion":"v1","items":null,"kind":"List"}`},
	{"items an object", `{"apiVersion":"v1","items":{"a":1},"kind":"List"}`},
	{"items a string", `{"apiVersion":"v1","items":"x","kind":"List"}`},
	{"no items", `{"apiVersion":"v1","kind":"List"}`},
	{"items twice", `{"apiVersion":"v1","items":[{"apiVersion":"v1","kind":"A"}],"items":[],"kind":"List"}`},
	{"kind twice after items", `{"apiVersion":"v1","items":[{"apiVersion":"v1","kind":"A"}],"kind":"List","kind":"List"}`},
	{"a duplicate key in an item", `{"apiVersion":"v1","items":[{"apiVersion":"v1","kind":"A"},{"apiVersion":"v1","kind":"A","metadata":{"a":1,"a":2}}],"kind":"List"}`},
	{"a duplicate key in an item and after the items", `{"apiVersion":"v1","items":[{"apiVersion":"v1","kind":"A","kind":"B"}],"kind":"List","metadata":{"a":1,"a":2}}`},
	{"a refused item, then a duplicate key", `{"apiVersion":"v1","items":[{"apiVersion":"v1"},{"apiVersion":"v1","kind":"A","b":{"c":[{"d":1,"d":1}]}}],"kind":"List"}`},
	{"a refused item after one given", `{"apiVersion":"v1","items":[{"apiVersion":"v1","kind":"A"},{"kind":"A"},{"apiVersion":"v1","kind":"C"}],"kind":"List"}`},
	{"items that are no objects", `{"apiVersion":"v1","items":[{"apiVersion":"v1","kind":"A"},1,"s",null,true,[]],"kind":"List"}`},
	{"a nested List", `{"apiVersion":"v1","items":[{"apiVersion":"v1","kind":"A"},{"apiVersion":"v1","kind":"List","items":[{"apiVersion":"v1","kind":"B"},{"apiVersion":"v1","kind":"List","items":null}]},{"apiVersion":"v1","kind":"C"}],"kind":"List"}`},
	{"a nested List with items no array", `{"apiVersion":"v1","items":[{"apiVersion":"v1","kind":"A"},{"apiVersion":"v1","kind":"List","items":7}],"kind":"List"}`},
	{"no List: a typed list", `{"apiVersion":"resource.k8s.io/v1","items":[{"apiVersion":"v1","kind":"A"}],"kind":"ResourceClaimList"}`},
	{"no List: apiVersion v2", `{"items":[{"apiVersion":"v1","kind":"A"}],"kind":"List","apiVersion":"v2"}`},
	{"no List: no kind", `{"items":[{"apiVersion":"v1","kind":"A"}],"apiVersion":"v1"}`},
	{"kind not a string", `{"items":[],"apiVersion":"v1","kind":["List"]}`},
	{"not an object", `[{"apiVersion":"v1","items":[],"kind":"List"}]`},
	{"null", `null`},
	{"huge numbers", `{"apiVersion":"v1","items":[{"apiVersion":"v1","kind":"A","n":123456789012345678901234567890,"m":-1.5e-999}],"kind":"List","n":1e99999}`},
	{"items inside another field", `{"apiVersion":"v1","kind":"List","spec":{"items":[{"apiVersion":"v1","kind":"A"}]}}`},
	{"escaped key", `{"apiVersion":"v1","it\u0065ms":[{"apiVersion":"v1","kind":"A"}],"kind":"List"}`},
	{"whitespace everywhere", " \r\n{ \"apiVersion\" : \"v1\" ,\n \"items\" :\n [ \n{\"apiVersion\":\"v1\",\"kind\":\"A\"} \t,\n {\"apiVersion\":\"v1\",\"kind\":\"B\"} ] , \"kind\" : \"List\" } \n"},
	{"two Lists, a stream", `{"apiVersion":"v1","items":[{"apiVersion":"v1","kind":"A"}],"kind":"List"}` + "\n" + `{"apiVersion":"v1","items":[{"apiVersion":"v1","kind":"B"}],"kind":"List"}`},
	{"a List then YAML", `{"apiVersion":"v1","items":[{"apiVersion":"v1","kind":"A"}],"kind":"List"}` + "\napiVersion: v1\nkind: B\n"},
	{"deep nesting in an item", `{"apiVersion":"v1","items":[{"apiVersion":"v1","kind":"A","d":` + strings.Repeat("[", 5000) + strings.Repeat("]", 5000) + `}],"kind":"List"}`},
	{"too deep", `{"apiVersion":"v1","items":[{"apiVersion":"v1","kind":"A","d":` + strings.Repeat("[", 10001) + strings.Repeat("]", 10001) + `}],"kind":"List"}`},
	{"a BOM", "\xef\xbb\xbf" + `{"apiVersion":"v1","items":[{"apiVersion":"v1","kind":"A"}],"kind":"List"}`},
	{"UTF-16", string(utf16LE(`{"apiVersion":"v1","items":[{"apiVersion":"v1","kind":"A","é":"ü"}],"kind":"List"}`))},
	{"not UTF-8", `{"apiVersion":"v1","items":[{"apiVersion":"v1","kind":"A","x":"` + "\xff" + `"}],"kind":"List"}`},
}

// utf16LE is s in UTF-16, little-endian, with a byte order mark (only
// characters of the Basic Multilingual Plane).
func utf16LE(s string) []byte {
	out := []byte{0xFF, 0xFE}
	for _, r := range s {
		out = append(out, byte(r), byte(r>>8))
	}
	return out
}

// TestJSONListItems: the edge cases read item by item as read whole.
func TestJSONListItems(t *testing.T) {
	for _, c := range jsonListEdgeCases {
		t.Run(c.name, func(t *testing.T) {
			checkJSONListItems(t, []byte(c.data))
		})
	}
}

// addJSONExports seeds f with test/manifests/exports in JSON, the YAML ones
// as kubectl get -o json prints them.
func addJSONExports(f *testing.F) {
	files, _ := filepath.Glob("../test/manifests/exports/*/*")
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		if strings.HasSuffix(file, ".yaml") {
			if data, err = yaml.YAMLToJSON(data); err != nil {
				f.Fatal(err)
			}
		}
		f.Add(data)
	}
}

// FuzzJSONListItems: whatever the input, ParseEach gives the objects (and
// the error) that decoding each JSON value whole gave.
func FuzzJSONListItems(f *testing.F) {
	for _, c := range jsonListEdgeCases {
		f.Add([]byte(c.data))
	}
	addJSONExports(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		checkJSONListItems(t, data)
	})
}

// TestJSONListIsReadItemByItem: a List as kubectl prints it (items before
// kind) is read item by item, and what is not such a List, or has an
// unclean frame, is left to the whole reading.
func TestJSONListIsReadItemByItem(t *testing.T) {
	const item = `{"apiVersion":"v1","kind":"A"}`
	for _, c := range []struct {
		name, data string
		read       bool
	}{
		{"kubectl's List", `{"apiVersion":"v1","items":[` + item + `,` + item + `],"kind":"List","metadata":{"resourceVersion":""}}`, true},
		{"kind first", `{"kind":"List","apiVersion":"v1","items":[` + item + `]}`, true},
		{"a key twice in an item", `{"apiVersion":"v1","items":[{"apiVersion":"v1","kind":"A","kind":"A"}],"kind":"List"}`, true},
		{"an escaped items key", `{"apiVersion":"v1","\u0069tems":[` + item + `],"kind":"List"}`, true},
		{"a typed list", `{"apiVersion":"resource.k8s.io/v1","items":[` + item + `],"kind":"ResourceClaimList"}`, false},
		{"items twice", `{"apiVersion":"v1","items":[` + item + `],"items":[],"kind":"List"}`, false},
		{"a key twice in the frame", `{"apiVersion":"v1","items":[` + item + `],"kind":"List","m":{"a":1,"a":1}}`, false},
		{"items null", `{"apiVersion":"v1","items":null,"kind":"List"}`, false},
		{"no items", `{"apiVersion":"v1","kind":"List"}`, false},
		{"an array", `[` + item + `]`, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			frame, items, ok := jsonFrame([]byte(c.data))
			if read := ok && items != nil && isList(frame); read != c.read {
				t.Errorf("read item by item: %t, want %t", read, c.read)
			}
		})
	}
}
