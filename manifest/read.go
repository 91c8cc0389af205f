// Package manifest reads Kubernetes manifests — YAML or JSON, multi-document
// streams, kind: List, files and standard input — into JSON object trees,
// remembering where each object came from so errors can point at it.
package manifest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
)

// Stdin is the name of standard input in -f flags and in Document.Source.
const Stdin = "-"

// Document is one object read from a manifest.
type Document struct {
	// Source is the file name, or "-" for standard input.
	Source string
	// Index is the 1-based position of the YAML document (or JSON value) in Source.
	Index int
	// Line is the 1-based line on which the document starts.
	Line int
	// Item is the 0-based index in the items of a kind: List document (with
	// the items of a List among them in its place), or -1.
	Item int
	// Object is the decoded object; numbers are json.Number.
	Object map[string]interface{}
	// typedItems is the path, below Item, of an item of a typed list
	// (ResourceClaimList) in the document (Item): see InItem.
	typedItems []int
	// raw is the YAML document as read: see Raw. Its last tail bytes
	// follow the object: the text of no object at the end of the stream.
	raw  []byte
	tail int
	// list is the List the document is an item of, when read from YAML.
	list *list
}

// list is a YAML kind: List document: its text, and how many objects were
// read from it so far (all of them once the next document is read).
type list struct {
	raw            []byte
	index, objects int
}

// Raw returns the document as it was read, when it is a YAML document of
// its own: its comments, key order, quoting and line breaks, with the
// "---" line before it and the comments and empty documents between that
// and the last document (and, at the end of the stream, after it). It is
// nil for JSON and for an item of a list.
func (d Document) Raw() []byte { return d.raw }

// Head returns the comment, blank and "---" lines at the top of Raw: what
// a document that is rewritten keeps above its object (Helm's "# Source:"
// line). It keeps what follows its object too (tail).
func (d Document) Head() []byte {
	end := 0
	for {
		n := bytes.IndexByte(d.raw[end:], '\n')
		if n < 0 {
			break // the last line: the object's
		}
		line := d.raw[end : end+n]
		if t := bytes.TrimSpace(line); len(t) > 0 && t[0] != '#' && !separates(line) {
			break
		}
		end += n + 1
	}
	return d.raw[:end]
}

// InItem returns the document of item i of d's typed list
// (ResourceClaimList, ResourceClaimTemplateList), obj: its Position names the
// item below d's ("…, items[0]", or "…, items[2].items[0]" in a kind: List).
func (d Document) InItem(i int, obj map[string]interface{}) Document {
	d.typedItems = append(slices.Clone(d.typedItems), i)
	d.Object, d.raw, d.tail = obj, nil, 0
	return d
}

// Position describes where the document is, for messages: "file.yaml: document 2 (line 14)",
// and for an item of a List "file.yaml: document 2 (line 14), items[0]" (the path of the item, 0-based
// as every path is; documents and lines count from 1 as editors do).
func (d Document) Position() string {
	if d.Index == 0 { // not a document: a setting of its source
		return DisplayName(d.Source)
	}
	pos := fmt.Sprintf("%s: document %d (line %d)", DisplayName(d.Source), d.Index, d.Line)
	if path := d.ItemPath(); path != "" {
		pos += ", " + path
	}
	return pos
}

// ItemPath is the path of the document's item in a List ("items[0]",
// "items[2].items[0]"), or "".
func (d Document) ItemPath() string {
	var path []string
	for _, i := range append([]int{d.Item}, d.typedItems...) {
		if i >= 0 { // Item is -1 outside a List
			path = append(path, fmt.Sprintf("items[%d]", i))
		}
	}
	return strings.Join(path, ".")
}

// Error is a document that cannot be read, with its position.
type Error struct {
	Source string // the file name, or "-" for standard input
	Index  int    // the 1-based document in Source; 0 when the whole source is unusable
	Line   int    // the 1-based line the document starts on
	Err    error  // what is wrong
}

// Error is "<file>: document N (line L): <what>", or "<file>: <what>".
func (e *Error) Error() string {
	if e.Index == 0 {
		return fmt.Sprintf("%s: %v", DisplayName(e.Source), e.Err)
	}
	return fmt.Sprintf("%s: document %d (line %d): %v", DisplayName(e.Source), e.Index, e.Line, e.Err)
}

// DisplayName is source as messages name it: <stdin> for standard input.
func DisplayName(source string) string {
	if source == Stdin {
		return "<stdin>"
	}
	return source
}

// Unwrap returns what is wrong, for errors.Is and errors.As.
func (e *Error) Unwrap() error { return e.Err }

// ErrStdinTwice is the error for standard input given as more than one
// source (kubectl refuses that too).
var ErrStdinTwice = errors.New(`standard input ("-") can be read only once`)

// ErrStreamTwice is the error for a pipe or terminal given twice under two
// names ("-" and /dev/stdin, or a FIFO): read again, it would be empty.
var ErrStreamTwice = errors.New("this pipe or terminal was read already (as another source): read again, it would be empty")

// MaxInputBytes bounds what is read from one source, so that a runaway pipe
// cannot exhaust memory.
const MaxInputBytes = 64 << 20

// ReadAll reads every source in order (a path, a directory of *.yaml, *.yml
// and *.json files, or "-" for stdin) and returns its objects in order, with
// kind: List documents expanded into their items. It stops at the first
// unreadable document and returns an *Error naming it. Standard input can
// be one of the sources only once: read again, it would be empty.
func ReadAll(sources []string, stdin io.Reader) ([]Document, error) {
	var docs []Document
	if err := EachIn(sources, false, stdin, func(d Document) error { docs = append(docs, d); return nil }); err != nil {
		return nil, err
	}
	return docs, nil
}

// EachIn reads the sources as ReadAll does, but gives each object to visit
// as soon as it is read instead of returning them all, so that a caller
// that is done with an object before the next holds one decoded object at
// a time, not every one of them (decoded, an object is about 5 times its
// YAML). Each source is read whole, as bytes. An error of visit stops the
// reading and is returned as it is; a source or document that cannot be
// read is returned as an *Error, as ReadAll returns it, after the objects
// before it (those of its own List too) were given to visit. With
// recursive (kubectl's -R), a directory gives the *.yaml, *.yml and *.json
// files of its subdirectories too, hidden ones included, all in the order
// of their paths. A symlink to a directory is not followed, as kubectl
// does not, so no tree loops.
func EachIn(sources []string, recursive bool, stdin io.Reader, visit func(Document) error) error {
	if i := slices.Index(sources, Stdin); i >= 0 && slices.Contains(sources[i+1:], Stdin) {
		return &Error{Source: Stdin, Err: ErrStdinTwice}
	}
	var streams []os.FileInfo // the pipes and terminals read so far
	for _, src := range sources {
		files, err := expand(src, recursive)
		if err != nil {
			return &Error{Source: src, Err: err}
		}
		for _, f := range files {
			if st := streamInfo(f, stdin); st != nil {
				if slices.ContainsFunc(streams, func(s os.FileInfo) bool { return os.SameFile(s, st) }) {
					return &Error{Source: f, Err: ErrStreamTwice}
				}
				streams = append(streams, st)
			}
			data, err := readSource(f, stdin)
			if err != nil {
				return &Error{Source: f, Err: err}
			}
			if err := ParseEach(f, data, visit); err != nil {
				return err
			}
		}
	}
	return nil
}

// streamInfo describes source when it is not a regular file (a pipe, a
// terminal, a FIFO: what a second read would find empty); nil otherwise,
// and for standard input that is not an *os.File.
func streamInfo(source string, stdin io.Reader) os.FileInfo {
	var st os.FileInfo
	var err error
	if source == Stdin {
		f, ok := stdin.(*os.File)
		if !ok {
			return nil
		}
		st, err = f.Stat()
	} else {
		st, err = os.Stat(source)
	}
	if err != nil || st.Mode().IsRegular() {
		return nil
	}
	return st
}

func expand(src string, recursive bool) ([]string, error) {
	if src == Stdin {
		return []string{src}, nil
	}
	if lower := strings.ToLower(src); strings.HasPrefix(lower, "http://") || strings.HasPrefix(lower, "https://") {
		return nil, errors.New("URLs are not read: download the file first (curl -fsSL URL | claimbridge ... -f -)")
	}
	st, err := os.Stat(src)
	if err != nil {
		return nil, errors.Unwrap(err) // the *PathError's cause: the caller names src
	}
	if !st.IsDir() {
		return []string{src}, nil
	}
	files, err := manifestFiles(src, recursive)
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, errors.New("no .yaml, .yml or .json file in the directory" + map[bool]string{true: " or its subdirectories"}[recursive])
	}
	sort.Strings(files)
	return files, nil
}

// manifestFiles lists the *.yaml, *.yml and *.json files in dir, and with
// recursive those of its subdirectories (a symlink to one is not one).
func manifestFiles(dir string, recursive bool) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var files []string
	for _, e := range entries {
		path := filepath.Join(dir, e.Name())
		if e.IsDir() {
			if recursive {
				sub, err := manifestFiles(path, true)
				if err != nil {
					return nil, err
				}
				files = append(files, sub...)
			}
			continue
		}
		switch strings.ToLower(filepath.Ext(e.Name())) {
		case ".yaml", ".yml", ".json":
			// A FIFO or device named like a manifest would block the read
			// or never end: refused, named (a symlink counts as what it
			// points to, as kubectl reads it).
			if st, err := os.Stat(path); err == nil && !st.Mode().IsRegular() {
				return nil, fmt.Errorf("%s: not a regular file (%s)", path, st.Mode().Type())
			}
			files = append(files, path)
		}
	}
	return files, nil
}

func readSource(name string, stdin io.Reader) ([]byte, error) {
	var r io.Reader
	if name == Stdin {
		if stdin == nil {
			return nil, errors.New("no standard input")
		}
		r = stdin
	} else {
		f, err := os.Open(name)
		if err != nil {
			return nil, errors.Unwrap(err) // as in expand
		}
		defer f.Close()
		r = f
	}
	// A regular file is read into one buffer of its size, as os.ReadFile
	// reads it, not into pieces copied together at the end.
	var buf bytes.Buffer
	if f, ok := r.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
			buf.Grow(int(min(st.Size(), MaxInputBytes+1)) + bytes.MinRead)
		}
	}
	if _, err := buf.ReadFrom(io.LimitReader(r, MaxInputBytes+1)); err != nil {
		return nil, err
	}
	data := buf.Bytes()
	if len(data) > MaxInputBytes {
		return nil, fmt.Errorf("input is larger than %d bytes (64 MiB, the limit of one file or stream): split it into several files in a directory and give the directory (-f DIR reads every *.yaml, *.yml and *.json in it, in order), e.g. one kubectl get per namespace or per kind", MaxInputBytes)
	}
	return data, nil
}

// Parse splits data (YAML documents or a JSON stream, in UTF-8 or, with a
// byte order mark, UTF-16) into objects.
func Parse(source string, data []byte) ([]Document, error) {
	var docs []Document
	if err := ParseEach(source, data, func(d Document) error { docs = append(docs, d); return nil }); err != nil {
		return nil, err
	}
	return docs, nil
}

// ParseEach splits data as Parse does, giving each object to visit as it is
// read (see EachIn).
func ParseEach(source string, data []byte, visit func(Document) error) error {
	data, err := toUTF8(data)
	if err == nil {
		err = checkUTF8(data)
	}
	if err != nil {
		return &Error{Source: source, Err: err}
	}
	var visitErr error
	v := func(d Document) error { visitErr = visit(d); return visitErr }
	chunks := split(data)
	for _, c := range chunks {
		err := c.err
		if err == nil {
			doc := Document{Source: source, Index: c.index, Line: c.line, Item: -1}
			if c.json {
				err = eachJSON(doc, c.data, v)
			} else {
				doc.raw, doc.tail = c.raw, c.tail
				err = eachYAML(doc, parseable(c.data), v)
			}
		}
		if visitErr != nil {
			return visitErr
		}
		if err != nil {
			return &Error{Source: source, Index: c.index, Line: c.line, Err: err}
		}
	}
	return nil
}

type chunk struct {
	index, line int
	data        []byte
	raw         []byte // data with the text of no object around it (see splitYAML)
	tail        int    // how much of raw follows data
	json        bool   // data is one JSON value (decoded as JSON, not YAML)
	err         error  // the document cannot be read: err says why
}

// split cuts a YAML stream at "---" lines, or a JSON stream at value
// boundaries, keeping each piece's first line number. As kubectl's
// YAMLOrJSONDecoder reads a stream that starts with a JSON value: JSON
// values as long as they parse, and when the second does not, the rest as
// YAML (so the first keeps its JSON numbers); a stream whose first value
// does not parse as JSON is YAML. A "---" line with content after it ends
// the chunks with an error chunk, as kubectl refuses it: the content would
// start a document that the splitter cannot see.
func split(data []byte) []chunk {
	if trimmed := bytes.TrimLeft(data, " \t\r\n"); len(trimmed) > 0 && (trimmed[0] == '{' || trimmed[0] == '[') {
		chunks, end, ok := splitJSON(data)
		if ok {
			return chunks
		}
		if len(chunks) == 1 {
			// kubectl eats the blanks after the value, up to and
			// including the first newline, and reads on as YAML.
			rest := end + len(data[end:]) - len(bytes.TrimLeft(data[end:], " \t\r"))
			if rest < len(data) && data[rest] == '\n' {
				rest++
			}
			return append(chunks, splitYAML(data[rest:], countLines(data[:rest]), len(chunks))...)
		}
	}
	return splitYAML(data, 0, 0)
}

// splitYAML cuts a YAML stream at "---" lines; lines and documents before
// it in the file are counted in the chunks' line numbers and indexes. The
// chunks are pieces of data as read, not copies (a 37 MB export would be
// held three times over while it is read): see parseable. A piece with
// nothing but comments and blank lines is no chunk: its text is kept in
// the next chunk's raw, or in the last chunk's at the end of the stream.
// A chunk's raw starts with the "---" line before it.
func splitYAML(data []byte, linesBefore, chunksBefore int) []chunk {
	// A lone CR ends a line for YAML too: a "---" after one must be seen.
	hasCR := bytes.IndexByte(data, '\r') >= 0
	var (
		chunks []chunk
		docs   = chunksBefore // documents so far, those with no object too
		keep   int            // where the next chunk's raw starts in data
		// Where the last chunk's raw starts, and where its object ends.
		lastKeep, lastEnd int
		begin             int // where the chunk being read starts in data
		start             = linesBefore + 1
		line              = linesBefore
		// The chunk so far is only comments and %-directives: its "---"
		// starts its document instead of ending it when there is a
		// directive (not after the stream's first "---").
		prelude, directives, opened = true, false, false
	)
	for off := 0; off < len(data); {
		text, next := data[off:], len(data)
		if i := bytes.IndexByte(text, '\n'); i >= 0 {
			text, next = text[:i], off+i+1
		}
		if i := bytes.IndexByte(text, '\r'); hasCR && i >= 0 {
			next = off + i + 1
			if len(text) == i+1 && next < len(data) {
				next++ // "\r\n"
			}
			text = text[:i]
		}
		line++
		sep, content := false, ""
		if bytes.HasPrefix(text, []byte("---")) {
			sep, content = isSeparator(string(text))
		}
		switch {
		case sep && prelude && directives:
			prelude = false
		case sep && prelude && content == "":
			// No object since the last "---": a document, but for the
			// stream's first piece (helm template's "# Source:" lines).
			if begin > 0 {
				docs++
			}
			opened = begin == 0 // no directive before the next "---"
			begin, start = next, line+1
		case sep:
			docs++
			chunks = append(chunks, chunk{index: docs, line: start, data: data[begin:off:off], raw: data[keep:off:off]})
			lastKeep, lastEnd = keep, off
			if content != "" {
				err := fmt.Errorf(`a "---" line separates documents and may be followed only by a comment, not by %q`, content)
				return append(chunks, chunk{index: docs + 1, line: line, err: err})
			}
			keep, begin, start = off, next, line+1
			prelude, directives, opened = true, false, false
		case bytes.HasPrefix(text, []byte("%")) && !opened:
			directives = true
		default:
			if t := bytes.TrimSpace(text); len(t) > 0 && t[0] != '#' {
				prelude = false
			}
		}
		off = next
	}
	if last := len(chunks) - 1; last >= 0 && prelude && !directives {
		// The stream ends with no object since the last chunk.
		chunks[last].raw = data[lastKeep:len(data):len(data)]
		chunks[last].tail = len(data) - lastEnd
		return chunks
	}
	return append(chunks, chunk{index: docs + 1, line: start, data: data[begin:len(data):len(data)], raw: data[keep:len(data):len(data)]})
}

// parseable is raw, a chunk of a YAML stream, as the YAML parser is given
// it: its line breaks "\n", and its last line ended. Only a chunk that is
// not so already is copied.
func parseable(raw []byte) []byte {
	if bytes.IndexByte(raw, '\r') >= 0 {
		raw = bytes.ReplaceAll(bytes.ReplaceAll(raw, []byte("\r\n"), []byte("\n")), []byte("\r"), []byte("\n"))
	}
	if len(raw) > 0 && raw[len(raw)-1] != '\n' {
		raw = append(raw[:len(raw):len(raw)], '\n')
	}
	return raw
}

// isSeparator reports whether line is a document separator: "---" alone or
// followed by blanks and a comment; content is what follows "---" and a
// blank when it is not a comment (YAML would start the next document with
// it).
func isSeparator(line string) (sep bool, content string) {
	if !strings.HasPrefix(line, "---") {
		return false, ""
	}
	rest := strings.TrimSpace(line[3:])
	switch {
	case rest == "" || strings.HasPrefix(rest, "#"):
		return true, ""
	case line[3] == ' ' || line[3] == '\t':
		return true, rest
	}
	return false, "" // "---x" is not a marker, but a scalar's text
}

// separates reports whether text starts with a "---" line that only
// separates documents.
func separates(text []byte) bool {
	if i := bytes.IndexAny(text, "\r\n"); i >= 0 {
		text = text[:i]
	}
	sep, content := isSeparator(string(text))
	return sep && content == ""
}

// countLines counts the newlines in p; a variable so that a test can count
// the bytes it looks at.
var countLines = func(p []byte) int { return bytes.Count(p, []byte("\n")) }

// visitObject gives v, a decoded document, to visit: the object, or the
// items of a kind: List from the skip-th on (the items of a List among them
// in its place, as kubectl flattens them). Nothing for nil, an empty
// document.
func visitObject(doc Document, v interface{}, skip int, visit func(Document) error) error {
	if v == nil {
		return nil
	}
	obj, err := typedObject(v)
	if err != nil {
		return err
	}
	if !isList(obj) {
		doc.Object = obj
		return visit(doc)
	}
	items, err := appendItems(nil, obj, "")
	if err != nil {
		return err
	}
	clear(obj) // the List no longer holds its items: each is garbage once visited
	for i := skip; i < len(items); i++ {
		doc.Item, doc.Object, doc.raw = i, items[i], nil
		items[i] = nil
		if err := visit(doc); err != nil {
			return err
		}
	}
	return nil
}

// typedObject returns v as an object, which must have a kind and an
// apiVersion.
func typedObject(v interface{}) (map[string]interface{}, error) {
	obj, ok := v.(map[string]interface{})
	if !ok {
		return nil, fmt.Errorf("expected an object, got %s", describe(v))
	}
	for _, key := range []string{"kind", "apiVersion"} {
		if _, ok := obj[key].(string); !ok {
			return nil, missingKey(obj, key)
		}
	}
	return obj, nil
}

// missingKey is the error of an object without key; it names a key of another case ("apiversion").
func missingKey(obj map[string]interface{}, key string) error {
	for k := range obj {
		if k != key && strings.EqualFold(k, key) {
			return fmt.Errorf("object has no %q (it has %q: keys are case-sensitive)", key, k)
		}
	}
	return fmt.Errorf("object has no %q", key)
}

func isList(obj map[string]interface{}) bool {
	return obj["kind"] == "List" && obj["apiVersion"] == "v1"
}

// appendItems appends the items of list, found at path ("" for the
// document), to items.
func appendItems(items []map[string]interface{}, list map[string]interface{}, path string) ([]map[string]interface{}, error) {
	raw, _ := list["items"].([]interface{})
	if _, present := list["items"]; present && raw == nil && list["items"] != nil {
		err := errors.New(`"items" of a List must be an array`)
		if path != "" {
			err = fmt.Errorf("%s: %w", path, err)
		}
		return nil, err
	}
	for i, it := range raw {
		at := joinPath(path, fmt.Sprintf("items[%d]", i))
		var err error
		if items, err = appendItem(items, it, at); err != nil {
			return nil, err
		}
	}
	return items, nil
}

// appendItem appends it, the item of a List at path at, or its items when
// it is a List itself.
func appendItem(items []map[string]interface{}, it interface{}, at string) ([]map[string]interface{}, error) {
	m, err := typedObject(it)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", at, err)
	}
	if !isList(m) {
		return append(items, m), nil
	}
	return appendItems(items, m, at)
}

func describe(v interface{}) string {
	switch v.(type) {
	case []interface{}:
		return "an array"
	case string:
		return "a string"
	case json.Number:
		return "a number"
	case bool:
		return "a boolean"
	case nil:
		return "null"
	default:
		return fmt.Sprintf("%T", v)
	}
}
