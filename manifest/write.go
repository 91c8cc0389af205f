package manifest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math/big"
	"slices"
	"strings"
	"unicode/utf8"

	"sigs.k8s.io/yaml"

	"github.com/claimbridge/claimbridge/api"
)

// Writer encodes the objects convert and migrate write, each as it
// is made, so that what is held until the output is written is bytes, not
// objects: as a YAML stream, or as JSON (one object as it is, several as a
// v1 List as kubectl prints them; each object is kept as compact JSON, and
// indented as it is written).
type Writer struct {
	Format string
	buf    bytes.Buffer // YAML: the stream so far; JSON: each object, compact, with a newline
	ends   []int        // where each object ends in buf
	err    error        // the first object that cannot be written
	// YAML: the List whose items are being added, where they start, and
	// how many were added unchanged, in order.
	list          *list
	at, ats, same int
}

// Add encodes obj, made of doc. In YAML, an object that is doc's own
// (passed through unchanged) is written as doc was read, and another keeps
// the comments around doc; a List whose every object is added unchanged
// is written as it was read. After an object that cannot be written, the
// others are not encoded: that one is the error.
func (w *Writer) Add(obj map[string]interface{}, doc Document) {
	if w.err != nil {
		return
	}
	if w.Format == "json" {
		enc := json.NewEncoder(&w.buf)
		enc.SetEscapeHTML(false)
		if w.err = enc.Encode(obj); w.err == nil {
			w.ends = append(w.ends, w.buf.Len())
		}
		return
	}
	unchanged := api.DeepEqualJSON(obj, doc.Object)
	if doc.list != w.list {
		w.endList()
		w.list, w.at, w.ats, w.same = doc.list, w.buf.Len(), len(w.ends), 0
	}
	if unchanged && doc.Item == w.same && doc.typedItems == nil {
		w.same++
	}
	if doc.raw != nil && unchanged {
		w.write(doc.Index, doc.raw)
		return
	}
	data, err := yaml.Marshal(obj)
	if err != nil {
		w.err = fmt.Errorf("%s: %s: cannot be written as YAML: %w; use -o json", doc.Position(), api.Describe(obj), err)
		return
	}
	if err := readsBack(obj, data); err != nil {
		w.err = fmt.Errorf("%s: %s: %w; use -o json", doc.Position(), api.Describe(obj), err)
		return
	}
	w.write(doc.Index, doc.Head(), data, doc.raw[len(doc.raw)-doc.tail:])
}

// write appends one document of the YAML stream, made of parts, the
// index-th document of its source.
func (w *Writer) write(index int, parts ...[]byte) {
	if n := w.buf.Len(); n > 0 && w.buf.Bytes()[n-1] != '\n' {
		w.buf.WriteByte('\n') // a document read without its last line break
	}
	switch sep := separates(parts[0]); {
	case len(w.ends) > 0 && !sep:
		w.buf.WriteString("---\n")
	case len(w.ends) == 0 && sep && index > 1: // no document before it is written
		_, parts[0], _ = bytes.Cut(parts[0], []byte("\n"))
	}
	for _, p := range parts {
		w.buf.Write(p)
	}
	w.ends = append(w.ends, w.buf.Len())
}

// endList writes the List whose items were added last as it was read, in
// place of its items, when each of them was added unchanged, in order.
func (w *Writer) endList() {
	if w.list != nil && w.same == w.list.objects && len(w.ends)-w.ats == w.same {
		w.buf.Truncate(w.at)
		w.ends = w.ends[:w.ats]
		w.write(w.list.index, w.list.raw)
	}
	w.list = nil
}

// Err is the first object that could not be written, if any.
func (w *Writer) Err() error { return w.err }

// listHead and listTail frame the items of a JSON List as encoding/json
// indents {"apiVersion":"v1","items":[…],"kind":"List","metadata":{…}}.
const (
	listHead = "{\n    \"apiVersion\": \"v1\",\n    \"items\": ["
	listTail = "],\n    \"kind\": \"List\",\n    \"metadata\": {\n        \"resourceVersion\": \"\"\n    }\n}\n"
	// itemIndent is the indentation of an item of the List.
	itemIndent = "        "
)

// Flush writes the objects added: what encoding them together, as one
// YAML stream or with one json.Encoder (four-space indentation, no HTML
// escaping) and escapeJSONControls, wrote.
func (w *Writer) Flush(out io.Writer) error {
	if w.Format != "json" {
		if w.err == nil {
			w.endList()
		}
		_, err := out.Write(w.buf.Bytes())
		return err
	}
	b := bufio.NewWriterSize(out, 64<<10)
	var ind bytes.Buffer
	indent := func(data []byte, prefix string) {
		ind.Reset()
		_ = json.Indent(&ind, data, prefix, "    ") // encoding/json's own output
		_, _ = b.Write(escapeJSONControls(ind.Bytes()))
	}
	start := 0
	if len(w.ends) == 1 {
		indent(w.buf.Bytes()[:w.ends[0]], "")
		return b.Flush()
	}
	_, _ = b.WriteString(listHead)
	for i, end := range w.ends {
		if i > 0 {
			_, _ = b.WriteString(",")
		}
		_, _ = b.WriteString("\n" + itemIndent)
		indent(w.buf.Bytes()[start:end-1], itemIndent) // without its newline
		start = end
	}
	if len(w.ends) > 0 {
		_, _ = b.WriteString("\n    ")
	}
	_, _ = b.WriteString(listTail)
	return b.Flush()
}

// readsBack returns an error when data, obj written as YAML, does not read
// back as obj: a number a float64 cannot hold, or a string sigs.k8s.io/yaml
// garbles (U+0085 becomes a space; a key "<<" is a merge key). Numbers
// compare by value.
func readsBack(obj map[string]interface{}, data []byte) error {
	want, err := jsonTree(json.Marshal(obj))
	if err != nil {
		return err
	}
	got, err := jsonTree(yaml.YAMLToJSON(data))
	if err != nil {
		return fmt.Errorf("its YAML does not read back: %w", err)
	}
	return sameTree(want, got, "")
}

// jsonTree decodes data, one JSON value, with json.Number numbers; err, the
// error of what made data, is returned as it is.
func jsonTree(data []byte, err error) (interface{}, error) {
	if err != nil {
		return nil, err
	}
	var v interface{}
	err = api.DecodeJSON(data, &v)
	return v, err
}

// sameTree returns an error naming the first path where got differs from
// want. It is not api.EqualJSON: it says where, and numbers compare by value
// (sameNumber), since YAML may rewrite how a number is written (1.0 as 1).
func sameTree(want, got interface{}, path string) error {
	switch w := want.(type) {
	case map[string]interface{}:
		g, ok := got.(map[string]interface{})
		if !ok {
			break
		}
		for _, k := range slices.Sorted(maps.Keys(w)) {
			gv, ok := g[k]
			if !ok {
				return fmt.Errorf("%s: missing when YAML is read back", joinPath(path, k))
			}
			if err := sameTree(w[k], gv, joinPath(path, k)); err != nil {
				return err
			}
		}
		for _, k := range slices.Sorted(maps.Keys(g)) {
			if _, ok := w[k]; !ok {
				return fmt.Errorf("%s: added when YAML is read back", joinPath(path, k))
			}
		}
		return nil
	case []interface{}:
		g, ok := got.([]interface{})
		if !ok || len(g) != len(w) {
			break
		}
		for i := range w {
			if err := sameTree(w[i], g[i], fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
		return nil
	case json.Number:
		if g, ok := got.(json.Number); ok && sameNumber(w, g) {
			return nil
		}
	default: // a string, bool or nil
		if want == got {
			return nil
		}
	}
	return fmt.Errorf("%s: %s reads back from YAML as %s", path, show(want), show(got))
}

func sameNumber(a, b json.Number) bool {
	x, okX := new(big.Rat).SetString(a.String())
	y, okY := new(big.Rat).SetString(b.String())
	return okX && okY && x.Cmp(y) == 0
}

func show(v interface{}) string {
	switch v := v.(type) {
	case json.Number:
		return "the number " + v.String()
	case string:
		return fmt.Sprintf("the string %q", v)
	case map[string]interface{}:
		return "an object"
	case []interface{}:
		return "an array"
	case nil:
		return "null"
	}
	return fmt.Sprint(v)
}

// ListWriter encodes objects into one v1 List as each is read, holding
// bytes, not objects: what yaml.Marshal of the whole List writes, or
// json.MarshalIndent's four-space indentation without HTML escaping, as
// kubectl get -o yaml|json.
type ListWriter struct {
	Format string
	buf    bytes.Buffer // the items so far, as they are written
	n      int
}

func (w *ListWriter) Add(obj map[string]interface{}) error {
	defer func() { w.n++ }()
	if w.Format == "json" {
		var data bytes.Buffer
		enc := json.NewEncoder(&data)
		enc.SetEscapeHTML(false)
		enc.SetIndent(itemIndent, "    ")
		if err := enc.Encode(obj); err != nil {
			return err
		}
		if w.n > 0 {
			w.buf.WriteString(",")
		}
		w.buf.WriteString("\n" + itemIndent)
		w.buf.Write(escapeJSONControls(bytes.TrimSuffix(data.Bytes(), []byte("\n"))))
		return nil
	}
	data, err := yaml.Marshal(obj)
	if err == nil {
		err = readsBack(obj, data)
	}
	if err != nil {
		return fmt.Errorf("%s cannot be written as YAML: %w; use -o json", api.Describe(obj), err)
	}
	// An item of the List: "- " before its first line, its other lines
	// indented by two spaces (yaml.Marshal does not indent a sequence
	// under a key).
	for i, line := range bytes.SplitAfter(bytes.TrimSuffix(data, []byte("\n")), []byte("\n")) {
		switch {
		case i == 0:
			w.buf.WriteString("- ")
		case len(line) > 1:
			w.buf.WriteString("  ")
		}
		w.buf.Write(line)
	}
	w.buf.WriteString("\n")
	return nil
}

func (w *ListWriter) Flush(out io.Writer) error {
	head, tail := "apiVersion: v1\nitems:\n", "kind: List\nmetadata:\n  resourceVersion: \"\"\n"
	switch {
	case w.Format == "json" && w.n > 0:
		head, tail = listHead, "\n    "+listTail
	case w.Format == "json":
		head, tail = listHead, listTail
	case w.n == 0:
		head = "apiVersion: v1\nitems: []\n"
	}
	_, err := io.Copy(out, io.MultiReader(strings.NewReader(head), &w.buf, strings.NewReader(tail)))
	return err
}

// escapeJSONControls escapes DEL and the C1 controls (U+007F-U+009F) in
// encoding/json's output as \u00XX: it escapes C0 controls itself but writes
// these raw, and a terminal acts on them (C1's CSI as ESC [). They occur only
// inside strings, where the escape means the same character, so the output
// stays the same JSON.
func escapeJSONControls(data []byte) []byte {
	isControl := func(r rune) bool { return r >= 0x7f && r <= 0x9f }
	i := bytes.IndexFunc(data, isControl)
	if i < 0 {
		return data
	}
	out := make([]byte, 0, len(data)+16)
	out = append(out, data[:i]...)
	for i < len(data) {
		r, size := utf8.DecodeRune(data[i:])
		if isControl(r) {
			out = append(out, fmt.Sprintf(`\u%04x`, r)...)
		} else {
			out = append(out, data[i:i+size]...)
		}
		i += size
	}
	return out
}
