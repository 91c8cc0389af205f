package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"reflect"

	"sigs.k8s.io/yaml"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/manifest"
)

// objectWriter encodes the objects convert and migrate write, each as it
// is made, so that what is held until the output is written is bytes, not
// objects: as a YAML stream, or as JSON (one object as it is, several as a
// v1 List as kubectl prints them; each object is kept as compact JSON, and
// indented as it is written).
type objectWriter struct {
	format string
	buf    bytes.Buffer // YAML: the stream so far; JSON: each object, compact, with a newline
	ends   []int        // where each object ends in buf
	err    error        // the first object that cannot be written
}

// add encodes obj, made of doc. In YAML, an object that is doc's own
// (passed through unchanged) is written as doc was read, and another keeps
// the comments at the top of doc. After an object that cannot be written,
// the others are not encoded: that one is the error.
func (w *objectWriter) add(obj map[string]interface{}, doc manifest.Document) {
	if w.err != nil {
		return
	}
	if w.format == "json" {
		enc := json.NewEncoder(&w.buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(obj); err != nil {
			w.err = err
			return
		}
		w.ends = append(w.ends, w.buf.Len())
		return
	}
	head, data := []byte(nil), doc.Raw()
	if data == nil || !reflect.DeepEqual(obj, doc.Object) {
		var err error
		if data, err = yaml.Marshal(obj); err != nil {
			w.err = fmt.Errorf("%s: %s: cannot be written as YAML: %w; use -o json", doc.Position(), api.Describe(obj), err)
			return
		}
		if err := readsBack(obj, data); err != nil {
			w.err = fmt.Errorf("%s: %s: %w; use -o json", doc.Position(), api.Describe(obj), err)
			return
		}
		head = doc.Head()
	}
	if n := w.buf.Len(); n > 0 && w.buf.Bytes()[n-1] != '\n' {
		w.buf.WriteByte('\n') // a document read without its last line break
	}
	if len(w.ends) > 0 {
		w.buf.WriteString("---\n")
	}
	w.buf.Write(head)
	w.buf.Write(data)
	w.ends = append(w.ends, w.buf.Len())
}

// listHead and listTail frame the items of a JSON List as encoding/json
// indents {"apiVersion":"v1","items":[…],"kind":"List","metadata":{…}}.
const (
	listHead = "{\n    \"apiVersion\": \"v1\",\n    \"items\": ["
	listTail = "],\n    \"kind\": \"List\",\n    \"metadata\": {\n        \"resourceVersion\": \"\"\n    }\n}\n"
	// itemIndent is the indentation of an item of the List.
	itemIndent = "        "
)

// writeTo writes the objects added: what encoding them together, as one
// YAML stream or with one json.Encoder (four-space indentation, no HTML
// escaping) and escapeJSONControls, wrote.
func (w *objectWriter) writeTo(out io.Writer) error {
	if w.format != "json" {
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
