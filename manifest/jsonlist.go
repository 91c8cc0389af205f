package manifest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
)

// eachJSONListItem reads data, the JSON value of doc, item by item when it
// is a kind: List, giving each item to v as soon as it is decoded (with the
// items of a List among them in its place), so that the tree of a List of
// thousands of objects (`kubectl get -o json`, 2.3 times its JSON) is
// never held whole: only its bytes are. read is false, and the caller
// decodes data whole, when data is not such a List or its frame (what is
// not an item) is anything but clean: the whole reading then says what is
// wrong, as before. err is what decoding data whole returns (a key given
// twice in an item, an item that is no object or lacks its kind or
// apiVersion), or v.Visit's error; before an error of the document, the
// items given are taken back with v.Rewind, as reading it whole gives none.
func eachJSONListItem(doc Document, data []byte, v Visitor) (read bool, err error) {
	frame, items, ok := jsonListFrame(data)
	if !ok || !isList(frame) {
		return false, nil
	}
	given := 0
	fail := func(err error) (bool, error) {
		if given > 0 && v.Rewind != nil {
			v.Rewind()
		}
		return true, &Error{Source: doc.Source, Index: doc.Index, Line: doc.Line, Err: err}
	}
	// The first item appendItems refuses; a key given twice in an item
	// after it is still the error, as decoding whole finds it first.
	var refused error
	for i, span := range items {
		at := fmt.Sprintf("items[%d]", i)
		it, err := decodeJSONAt(data[span[0]:span[1]], at)
		if err != nil {
			return fail(err)
		}
		if refused != nil {
			continue
		}
		objs, err := appendItem(nil, it, at)
		if err != nil {
			refused = err
			continue
		}
		for _, obj := range objs {
			d := doc
			d.Item, d.Object = given, obj
			given++
			if err := v.Visit(d); err != nil {
				return true, err
			}
		}
	}
	if refused != nil {
		return fail(refused)
	}
	return true, nil
}

// jsonListFrame decodes data, one JSON value, as decodeJSON does, but for
// the elements of its top-level "items" array, whose places in data it
// returns instead. ok is false when data is not an object with an "items"
// array, when decoding it would fail (a key given twice outside the items,
// "items" among them), and as soon as its apiVersion or kind shows it is no
// List: the caller decodes it whole.
func jsonListFrame(data []byte) (frame map[string]interface{}, items [][2]int, ok bool) {
	if !bytes.Contains(data, []byte(`"items"`)) && !bytes.Contains(data, []byte(`\u`)) {
		return nil, nil, false // no items key: not worth decoding twice
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, nil, false
	}
	frame = map[string]interface{}{}
	seenItems := false
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			return nil, nil, false
		}
		key := kt.(string)
		if _, dup := frame[key]; dup || key == "items" && seenItems {
			return nil, nil, false
		}
		if key == "items" {
			seenItems = true
			if items, ok = jsonArrayElements(dec, data); !ok {
				return nil, nil, false
			}
			continue
		}
		if frame[key], err = jsonValue(dec, key); err != nil {
			return nil, nil, false
		}
		if key == "apiVersion" && frame[key] != "v1" || key == "kind" && frame[key] != "List" {
			return nil, nil, false
		}
	}
	if _, err := dec.Token(); err != nil { // '}'
		return nil, nil, false
	}
	if _, err := dec.Token(); err != io.EOF || !seenItems {
		return nil, nil, false
	}
	return frame, items, true
}

// jsonArrayElements reads the array dec is at, in data, and returns where
// each element is in data; ok is false when the value is no array.
func jsonArrayElements(dec *json.Decoder, data []byte) (elems [][2]int, ok bool) {
	if tok, err := dec.Token(); err != nil || tok != json.Delim('[') {
		return nil, false
	}
	for dec.More() {
		// Read as bytes, not decoded: a copy of the element's, garbage at
		// once.
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, false
		}
		end := int(dec.InputOffset())
		elems = append(elems, [2]int{end - len(raw), end})
	}
	if _, err := dec.Token(); err != nil { // ']'
		return nil, false
	}
	return elems, true
}

// decodeJSONAt decodes data, one JSON value found at path in the document,
// as decodeJSON decodes it there.
func decodeJSONAt(data []byte, path string) (interface{}, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	return jsonValue(dec, path)
}
