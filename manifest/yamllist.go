package manifest

import (
	"bytes"
	"fmt"
	"regexp"
)

// decodeListByItems decodes a YAML document that is a kind: List as kubectl
// writes it (`kubectl get -A -o yaml`: the items a block sequence at the
// start of the line, the list's other fields on lines of their own) one
// item at a time, and returns what decodeYAML returns for the whole
// document. The YAML parser holds a node for every value of what it is
// given, and its decoded copies, until it is done: reading an export of
// 16,000 objects (37 MB) whole took 1.0 GB at its peak, for objects that
// hold 183 MiB; item by item, 0.5 GB.
//
// ok is false, and the caller decodes the document whole, whenever the
// document is not in that form or a piece of it does not decode, so that
// what cannot be read is reported as before, and when the pieces might not
// mean what the whole does: an alias of an anchor in another item does not
// resolve, a quoted or flow value that spans an item's start fails to
// close, and the list's own lines must be simple "key: value" lines (no
// value spanning lines, so that the items: line is the list's key).
func decodeListByItems(data []byte) (list map[string]interface{}, ok bool) {
	list, ok = listFrame(data)
	if !ok {
		return nil, false
	}
	var items []interface{}
	if _, ok := cutListItems(data, func(item []byte) bool {
		// An item that is not an object is refused (appendItems), and the
		// list read whole says how; the lines of a scalar item might also
		// read otherwise at the start of the line (a comment line inside a
		// block scalar).
		v, err := decodeYAML(item)
		_, isMap := v.(map[string]interface{})
		items = append(items, v)
		return err == nil && isMap
	}); !ok {
		return nil, false
	}
	list["items"] = items
	return list, true
}

// listFrame returns the List data is, without its items, when data is a
// List that decodeListByItems may read item by item (see there); ok is
// false otherwise.
func listFrame(data []byte) (list map[string]interface{}, ok bool) {
	if !bytes.HasPrefix(data, []byte("items:")) && !bytes.Contains(data, []byte("\nitems:")) {
		return nil, false // no list: not worth looking at every line
	}
	if bytes.ContainsAny(data, yamlBreaksButNewline) {
		return nil, false // lines are cut at "\n" only
	}
	// The frame first: a document that is no List is not decoded twice.
	frame, ok := cutListItems(data, nil)
	if !ok {
		return nil, false
	}
	v, err := decodeYAML(frame)
	list, isMap := v.(map[string]interface{})
	if err != nil || !isMap || !isList(list) {
		return nil, false
	}
	if empty, isSlice := list["items"].([]interface{}); !isSlice || len(empty) != 0 {
		return nil, false
	}
	return list, true
}

// eachListItem reads data, the YAML document doc, item by item as
// decodeListByItems does, but gives each item to v as soon as it is decoded
// (with the items of a List among them in its place, as Parse gives them),
// so that a List of thousands of objects is never held decoded whole. read
// is false when data is not such a List, or when an item does not decode
// (then v.Rewind has been called if items were given): the caller reads it
// whole. err is what Parse returns for the document (an item that is no
// object, or lacks its kind or apiVersion), or v.Visit's error.
func eachListItem(doc Document, data []byte, v Visitor) (read bool, err error) {
	if _, ok := listFrame(data); !ok {
		return false, nil
	}
	var (
		i, given int
		refused  error // the first item appendItems refuses: given no more items
		visitErr error
	)
	_, ok := cutListItems(data, func(item []byte) bool {
		obj, err := decodeYAML(item)
		m, isMap := obj.(map[string]interface{})
		if err != nil || !isMap {
			return false // read whole, as decodeListByItems has it
		}
		at := i
		i++
		if refused != nil {
			return true // decoded only to know whether the List is read whole
		}
		// appendItems's checks of one item, at its place in the List.
		items, err := appendItem(nil, m, fmt.Sprintf("items[%d]", at))
		if err != nil {
			refused = err
			return true
		}
		for _, it := range items {
			d := doc
			d.Item, d.Object = given, it
			given++
			if visitErr = v.Visit(d); visitErr != nil {
				return false
			}
		}
		return true
	})
	switch {
	case visitErr != nil:
		return true, visitErr
	case !ok:
		if given > 0 && v.Rewind != nil {
			v.Rewind()
		}
		return false, nil
	case refused != nil:
		return true, &Error{Source: doc.Source, Index: doc.Index, Line: doc.Line, Err: refused}
	}
	return true, nil
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
// empty flow sequence ("items: []"). ok is false when data is not in that
// form, or as soon as each returns false.
func cutListItems(data []byte, each func(item []byte) bool) (frame []byte, ok bool) {
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
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		if inItems {
			switch {
			case len(line) > 0 && line[0] == '-':
				// A new item: "- " or "-" alone; anything else ("-x", "-\t",
				// "---") is no item start that cuts cleanly.
				if len(line) > 1 && line[1] != ' ' || !end() {
					return nil, false
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
					return nil, false // the sequence is not at the start of the line
				}
				rest := line[2:]
				if bytes.HasPrefix(rest, []byte("---")) || bytes.HasPrefix(rest, []byte("...")) || bytes.HasPrefix(rest, []byte("%")) || rest[0] == '\t' {
					// At the start of a line, these would mean a document
					// marker or a directive, which they do not here; a tab
					// there would be indentation, which YAML refuses.
					return nil, false
				}
				item.Write(rest)
				item.WriteByte('\n')
				continue
			case line[0] == ' ' || line[0] == '\t':
				return nil, false // one column: not cut cleanly
			}
			// The first line of the frame after the items.
			inItems = false
			if !end() {
				return nil, false
			}
		}
		if itemsKey.Match(line) {
			if seen {
				return nil, false // two items: lines, decodeYAML refuses them
			}
			seen, inItems = true, true
			out.WriteString("items: []\n")
			continue
		}
		if !frameLine.Match(line) {
			return nil, false
		}
		out.Write(line)
		out.WriteByte('\n')
	}
	if !end() || items == 0 {
		return nil, false
	}
	return out.Bytes(), true
}
