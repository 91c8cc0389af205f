package manifest

import (
	"bytes"
	"fmt"
	"regexp"
)

// eachListItem reads data, the YAML document doc, item by item when it is
// a kind: List as kubectl writes it (`kubectl get -A -o yaml`: the items a
// block sequence at the start of the line, the list's other fields on lines
// of their own), giving each item to visit as soon as it is decoded (the
// items of a List among them in its place). The YAML parser holds a node
// for every value of what it is given, and its decoded copies, until it is
// done: reading an export of 16,000 objects (37 MB) whole took 1.0 GB at
// its peak; item by item, 0.5 GB.
//
// done is false, and the caller decodes data whole, when data is not in
// that form (the list's own lines must be simple "key: value" lines, so
// that the items: line is the list's key), or as soon as an item does not
// decode alone into an object: an alias of an anchor in another item, a
// quoted or flow value that spans an item's start. The caller then gives
// the objects from the given-th on: the items before the one that failed
// mean in the whole what they meant alone. err is what reading data whole
// returns (an item without its kind or apiVersion), or visit's error.
func eachListItem(doc Document, data []byte, visit func(Document) error) (given int, done bool, err error) {
	if !isListFrame(data) {
		return 0, false, nil
	}
	i := 0
	var refused error // the first item appendItem refuses: no more items are given
	done = cutListItems(data, func(item []byte) bool {
		v, decodeErr := decodeYAML(item)
		m, isMap := v.(map[string]interface{})
		if decodeErr != nil || !isMap {
			return false
		}
		at := fmt.Sprintf("items[%d]", i)
		i++
		if refused != nil {
			return true // decoded only to know whether the List is read whole
		}
		items, itemErr := appendItem(nil, m, at)
		if itemErr != nil {
			refused = itemErr
			return true
		}
		for _, it := range items {
			d := doc
			d.Item, d.Object, d.raw = given, it, nil
			given++
			if err = visit(d); err != nil {
				return false
			}
		}
		return true
	}) != nil
	if err == nil && done {
		err = refused
	}
	return given, done, err
}

// isListFrame reports whether data is a List that eachListItem may read
// item by item (see there).
func isListFrame(data []byte) bool {
	if !bytes.HasPrefix(data, []byte("items:")) && !bytes.Contains(data, []byte("\nitems:")) {
		return false // no list: not worth looking at every line
	}
	if bytes.ContainsAny(data, yamlBreaksButNewline) {
		return false // lines are cut at "\n" only
	}
	// The frame first: a document that is no List is not decoded twice.
	frame := cutListItems(data, nil)
	if frame == nil {
		return false
	}
	v, err := decodeYAML(frame)
	list, isMap := v.(map[string]interface{})
	if err != nil || !isMap || !isList(list) {
		return false
	}
	empty, isSlice := list["items"].([]interface{})
	return isSlice && len(empty) == 0
}

// yamlBreaksButNewline are the characters besides "\n" that YAML 1.1 (the
// parser's) takes for line breaks: carriage return (a CRLF file too), NEL,
// LS and PS. cutListItems cuts lines at "\n" only, so a document with any of
// them is read whole (FuzzListByItems found "- \r0: " read as an item of
// its own).
const yamlBreaksButNewline = "\r\u0085\u2028\u2029"

var (
	// itemsKey is the line that starts the items, at the start of the line.
	itemsKey = regexp.MustCompile(`^items:[ \t]*(#.*)?$`)
	// frameLine is a line the list's frame may have besides items: a key
	// with a value that ends on its line (a plain word, a quoted string
	// without escapes, an empty flow collection) or none (a mapping below),
	// a comment, or a blank line.
	frameLine = regexp.MustCompile(`^(( *[A-Za-z0-9_./-]+:( +("[^"\\]*"|'[^']*'|[A-Za-z0-9_./=+-]+|\{\}|\[\]))?)?[ \t]*( #.*)?|[ \t]*#.*)$`)
)

// cutListItems cuts data at the lines of its items and gives each item to
// each, as it is cut: its lines without the sequence's "- " and the two
// columns of its indentation (the bytes are reused for the next item; a nil
// each only checks the form). frame is data with the items replaced by an
// empty flow sequence ("items: []"); nil when data is not in that form, or
// as soon as each returns false.
func cutListItems(data []byte, each func(item []byte) bool) (frame []byte) {
	var (
		out     bytes.Buffer
		item    bytes.Buffer
		started bool // an item is being read
		items   int  // items given to each
		inItems bool // between the items: line and the first line after the items
		seen    bool // an items: line was seen
	)
	// end gives the item being read to each.
	end := func() bool {
		if !started {
			return true
		}
		started = false
		items++
		return each == nil || each(item.Bytes())
	}
	for len(data) > 0 {
		var line []byte
		line, data, _ = bytes.Cut(data, []byte("\n"))
		if inItems {
			switch {
			case len(line) > 0 && line[0] == '-':
				// A new item: "- " or "-" alone; anything else ("-x", "-\t",
				// "---") is no item start that cuts cleanly.
				if len(line) > 1 && line[1] != ' ' || !end() {
					return nil
				}
				started = true
				item.Reset()
				if len(line) > 2 {
					item.Write(line[2:])
				}
				item.WriteByte('\n')
				continue
			case len(bytes.Trim(line, " ")) == 0:
				// Blank: two columns fewer, as the other lines of the item.
				if started {
					item.Write(bytes.TrimPrefix(bytes.TrimPrefix(line, []byte(" ")), []byte(" ")))
					item.WriteByte('\n')
				}
				continue
			case line[0] == '#':
				// A comment at the start of the line: kept as it is, where
				// it means what it meant (inside a quoted value, text).
				if started {
					item.Write(line)
					item.WriteByte('\n')
				}
				continue
			case bytes.HasPrefix(line, []byte("  ")):
				if !started {
					return nil // the sequence is not at the start of the line
				}
				rest := line[2:]
				if bytes.HasPrefix(rest, []byte("---")) || bytes.HasPrefix(rest, []byte("...")) || bytes.HasPrefix(rest, []byte("%")) || rest[0] == '\t' {
					// At the start of a line, these would mean a document
					// marker or a directive, which they do not here; a tab
					// there would be indentation, which YAML refuses.
					return nil
				}
				item.Write(rest)
				item.WriteByte('\n')
				continue
			case line[0] == ' ' || line[0] == '\t':
				return nil // one column: not cut cleanly
			}
			// The first line of the frame after the items.
			inItems = false
			if !end() {
				return nil
			}
		}
		if itemsKey.Match(line) {
			if seen {
				return nil // two items: lines, decodeYAML refuses them
			}
			seen, inItems = true, true
			out.WriteString("items: []\n")
			continue
		}
		if !frameLine.Match(line) {
			return nil
		}
		out.Write(line)
		out.WriteByte('\n')
	}
	if !end() || items == 0 {
		return nil
	}
	return out.Bytes()
}
