package manifest

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// parseWhole is Parse with every document decoded whole, then its items:
// the reference Parse, which reads a List item by item, must read as.
func parseWhole(source string, data []byte) ([]Document, error) {
	data, err := toUTF8(data)
	if err != nil {
		return nil, &Error{Source: source, Err: err}
	}
	if err := checkUTF8(data); err != nil {
		return nil, &Error{Source: source, Err: err}
	}
	var docs []Document
	for _, chunk := range split(data) {
		if chunk.err != nil {
			return nil, &Error{Source: source, Index: chunk.index, Line: chunk.line, Err: chunk.err}
		}
		var v interface{}
		doc := Document{Source: source, Index: chunk.index, Line: chunk.line, Item: -1}
		if chunk.json {
			v, err = decodeJSON(chunk.data, "")
		} else {
			doc.raw, doc.tail = chunk.raw, chunk.tail
			if v, err = decodeYAML(parseable(chunk.data)); err != nil {
				err = fileLines(err, chunk.line-1)
			}
		}
		l := &list{raw: doc.raw, index: doc.Index}
		if err == nil {
			err = visitObject(doc, v, 0, func(d Document) error {
				if d.Item >= 0 && !chunk.json {
					d.list, d.tail = l, 0
					l.objects++
				}
				docs = append(docs, d)
				return nil
			})
		}
		if err != nil {
			return nil, &Error{Source: source, Index: chunk.index, Line: chunk.line, Err: err}
		}
	}
	return docs, nil
}

// checkParseEach checks that Parse (ParseEach, with the items of a List
// given one at a time, and a List whose later item needs it read whole
// read on from there) reads data as parseWhole does: the same objects at
// the same positions, or the same error.
func checkParseEach(t *testing.T, data []byte) {
	t.Helper()
	want, wantErr := parseWhole("f.yaml", data)
	got, err := Parse("f.yaml", data)
	if fmt.Sprint(err) != fmt.Sprint(wantErr) {
		t.Fatalf("error %v, read whole %v", err, wantErr)
	}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(Document{}, list{})); diff != "" {
		t.Errorf("read one object at a time (+) is not read whole (-):\n%s", diff)
	}
}

// TestParseEachListReadWhole: a List read item by item whose later item
// needs it read whole gives the objects of the whole List, each once; an
// item refused is refused as in the whole List, after the items before it.
func TestParseEachListReadWhole(t *testing.T) {
	const head, tail = "apiVersion: v1\nitems:\n", "kind: List\n"
	item := func(name string) string {
		return "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: " + name + "\n"
	}
	for _, c := range []struct{ name, data string }{
		{"items read one at a time", head + item("a") + item("b") + tail},
		{"an alias of an anchor in an earlier item", head + "- apiVersion: v1\n  kind: ConfigMap\n  data: &d {x: \"1\"}\n- apiVersion: v1\n  kind: ConfigMap\n  data: *d\n" + tail},
		{"a quoted value spanning an item's start", head + item("a") + "- apiVersion: v1\n  kind: ConfigMap\n  data: {x: \"1\n- y\"}\n" + tail},
		{"the first item needs the List whole", head + "- apiVersion: v1\n  kind: ConfigMap\n  data: *d\n" + item("b") + tail},
		{"an item without kind after one read", head + item("a") + "- apiVersion: v1\n" + item("c") + tail},
		{"an item without kind, then one that needs the List whole", head + item("a") + "- apiVersion: v1\n- apiVersion: v1\n  kind: ConfigMap\n  data: {x: \"1\n- y\"}\n" + tail},
		{"a nested List among the items", head + item("a") + "- apiVersion: v1\n  kind: List\n  items:\n  - apiVersion: v1\n    kind: A\n  - apiVersion: v1\n    kind: B\n" + item("c") + tail},
		{"a nested List before an item that needs the List whole", head + "- apiVersion: v1\n  kind: List\n  items:\n  - apiVersion: v1\n    kind: A\n  - apiVersion: v1\n    kind: B\n" + item("c") + "- {\"x\": *y}\n" + tail},
		{"a document after the List", head + item("a") + tail + "---\napiVersion: v1\nkind: Secret\n"},
		{"a List after a List read whole", head + item("a") + "- {\"x\": *y}\n" + tail + "---\n" + head + item("b") + tail},
		{"a List read whole after its first items", head + item("a") + "- &x {apiVersion: v1, kind: B}\n- *x\n" + item("c") + tail},
	} {
		t.Run(c.name, func(t *testing.T) {
			checkParseEach(t, []byte(c.data))
		})
	}
}

// FuzzParseEach: whatever the input, ParseEach gives the objects (or the
// error) that reading each document whole gives. TestCorpusParseEach
// (-tags corpus) checks the same of every file of the real-world corpus.
func FuzzParseEach(f *testing.F) {
	for _, glob := range []string{"../examples/*.yaml", "../examples/*/*.yaml", "../test/manifests/exports/*/*.yaml", "../test/manifests/drivers/*.yaml"} {
		files, _ := filepath.Glob(glob)
		for _, file := range files {
			data, err := os.ReadFile(file)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(data)
		}
	}
	f.Add([]byte("apiVersion: v1\nitems:\n- apiVersion: v1\n  kind: A\n- apiVersion: v1\n  kind: B\n  a: \"x\n- z\"\nkind: List\n"))
	f.Add([]byte(strings.Repeat("apiVersion: v1\nitems:\n- apiVersion: v1\n  kind: A\n  b: &x 1\n- apiVersion: v1\n  kind: A\n  b: *x\nkind: List\n---\n", 2)))
	f.Fuzz(func(t *testing.T, data []byte) {
		checkParseEach(t, data)
	})
}

// splitYAMLCopying is splitYAML as it was before it cut data into pieces
// instead of copying each line into its chunk.
func splitYAMLCopying(data []byte, linesBefore, chunksBefore int) []chunk {
	data = bytes.ReplaceAll(bytes.ReplaceAll(data, []byte("\r\n"), []byte("\n")), []byte("\r"), []byte("\n"))
	var (
		chunks              []chunk
		cur                 bytes.Buffer
		start               = linesBefore + 1
		line                = linesBefore
		prelude, directives = true, false
	)
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64*1024), MaxInputBytes+1)
	for sc.Scan() {
		line++
		text := sc.Text()
		sep, content := isSeparator(text)
		switch {
		case sep && prelude && directives:
			prelude = false
		case sep && prelude && len(chunks) == 0 && content == "":
			cur.Reset()
			start = line + 1
			prelude = false
			continue
		case sep:
			chunks = append(chunks, chunk{index: chunksBefore + len(chunks) + 1, line: start, data: append([]byte(nil), cur.Bytes()...)})
			if content != "" {
				err := fmt.Errorf(`a "---" line separates documents and may be followed only by a comment, not by %q`, content)
				return append(chunks, chunk{index: chunksBefore + len(chunks) + 1, line: line, err: err})
			}
			cur.Reset()
			start = line + 1
			prelude, directives = true, false
			continue
		case strings.HasPrefix(text, "%"):
			directives = true
		default:
			if t := strings.TrimSpace(text); t != "" && !strings.HasPrefix(t, "#") {
				prelude = false
			}
		}
		cur.WriteString(text)
		cur.WriteByte('\n')
	}
	chunks = append(chunks, chunk{index: chunksBefore + len(chunks) + 1, line: start, data: cur.Bytes()})
	return chunks
}

// FuzzSplitYAML: splitYAML cuts any stream into the chunks it cut when it
// copied each line, once they are made parseable, but for the pieces with
// no object; and the chunks' raw texts are the stream.
func FuzzSplitYAML(f *testing.F) {
	for _, s := range []string{"a: 1\n---\nb: 2", "# c\n---\na: 1\n", "%YAML 1.1\n---\na\n--- x\n", "a\r\n---\r\nb\rc\n", "---\n---\n", "\n", "---x\n--- # c\n...",
		"# c\n---\n# d\n---\na: 1\n---\n\n---\nb: 2\n---\n# e\n", "--- 0", "---\n%000000\n---"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got, want := splitYAML(data, 3, 1), splitYAMLCopying(data, 3, 1)
		checkRaws(t, data, got)
		for i := range got {
			got[i].data = parseable(got[i].data)
		}
		var objects []chunk // a piece before a "---" with content after it is a chunk
		for i, c := range want {
			if c.err != nil || !noObject(c.data) || i+1 < len(want) && want[i+1].err != nil {
				objects = append(objects, c)
			}
		}
		if len(objects) > 0 || len(want) == 0 {
			want = objects
		} else {
			want = want[len(want)-1:] // no object in the stream
		}
		if diff := cmp.Diff(want, got, cmp.AllowUnexported(chunk{}), cmpopts.IgnoreFields(chunk{}, "raw", "tail"),
			cmp.Comparer(func(a, b error) bool { return fmt.Sprint(a) == fmt.Sprint(b) }),
			cmp.Transformer("text", func(b []byte) string { return string(b) })); diff != "" {
			t.Errorf("chunks (+) are not those copied (-):\n%s", diff)
		}
	})
}

// noObject reports whether a chunk's data is only blank and comment lines.
func noObject(data []byte) bool {
	for _, line := range strings.Split(string(data), "\n") {
		if t := strings.TrimSpace(line); t != "" && t[0] != '#' {
			return false
		}
	}
	return true
}

// checkRaws checks that the raw texts of chunks, each ending with its
// object's text and its tail, and each but the first starting with a "---"
// line, are data.
func checkRaws(t *testing.T, data []byte, chunks []chunk) {
	t.Helper()
	pos := 0
	for i, c := range chunks {
		if c.err != nil {
			return
		}
		if !bytes.HasPrefix(data[pos:], c.raw) || !bytes.HasSuffix(c.raw[:len(c.raw)-c.tail], c.data) || i > 0 && !bytes.HasPrefix(c.raw, []byte("---")) {
			t.Fatalf("chunk %d: raw %q, tail %d, data %q: not the stream's text from %d: %q", i, c.raw, c.tail, c.data, pos, data[pos:])
		}
		pos += len(c.raw)
	}
	if len(chunks) > 0 && pos != len(data) {
		t.Fatalf("the chunks' texts end at %d of %d: %q left", pos, len(data), data[pos:])
	}
}
