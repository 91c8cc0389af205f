package manifest

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// splitJSON cuts data, a stream of JSON values, into one chunk per value;
// ok is false when a value is not valid JSON, and end is then where the
// values before it end. Each chunk is a piece of data, not a copy; the
// decoder holds one item of a List at a time, not the whole value.
func splitJSON(data []byte) (chunks []chunk, end int, ok bool) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber() // 1e400 is valid JSON, but no float64
	// The lines before data[counted:]: each value's line is counted on from
	// the one before, not from the start (a stream of n values would be
	// read n/2 times).
	line, counted := 1, 0
	for {
		// The value starts at the first non-space byte after the previous
		// value (the decoder's spaces are these four).
		start := len(data) - len(bytes.TrimLeft(data[end:], " \t\r\n"))
		if start == len(data) {
			return chunks, end, true
		}
		if skipJSON(dec, 2) != nil {
			return chunks, end, false
		}
		end = int(dec.InputOffset())
		line += countLines(data[counted:start])
		counted = start
		chunks = append(chunks, chunk{index: len(chunks) + 1, line: line, data: data[start:end:end], json: true})
	}
}

// skipJSON reads the next value of dec, which must be valid JSON: token by
// token for the first levels, each value below them whole.
func skipJSON(dec *json.Decoder, levels int) error {
	if levels == 0 {
		var raw json.RawMessage
		return dec.Decode(&raw)
	}
	tok, err := dec.Token()
	if err != nil || tok != json.Delim('{') && tok != json.Delim('[') {
		return err
	}
	for dec.More() {
		if tok == json.Delim('{') {
			if _, err := dec.Token(); err != nil { // the key
				return err
			}
		}
		if err := skipJSON(dec, levels-1); err != nil {
			return err
		}
	}
	_, err = dec.Token()
	return err
}

// eachJSON gives the objects of data, one JSON value, to visit. A kind:
// List is read item by item, so that the tree of a List of thousands of
// objects (`kubectl get -o json`, 2.3 times its JSON) is never held whole:
// only its bytes are.
func eachJSON(doc Document, data []byte, visit func(Document) error) error {
	frame, items, ok := jsonFrame(data)
	if !ok {
		// Read whole, to say what is wrong.
		v, err := decodeJSON(data, "")
		if err != nil {
			return err
		}
		return visitObject(doc, v, 0, visit)
	}
	if items == nil || !isList(frame) {
		if items != nil {
			all := make([]interface{}, len(items))
			for i, span := range items {
				var err error
				if all[i], err = decodeJSON(data[span[0]:span[1]], fmt.Sprintf("items[%d]", i)); err != nil {
					return err
				}
			}
			frame["items"] = all
		}
		return visitObject(doc, frame, 0, visit)
	}
	// The first item appendItem refuses; a key given twice in an item after
	// it is still the error, as decoding whole finds it first.
	var refused error
	given := 0
	for i, span := range items {
		at := fmt.Sprintf("items[%d]", i)
		it, err := decodeJSON(data[span[0]:span[1]], at)
		if err != nil {
			return err
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
			if err := visit(d); err != nil {
				return err
			}
		}
	}
	return refused
}

// jsonFrame decodes data, one JSON value, as decodeJSON does, but for the
// elements of its top-level "items" array, whose places in data it returns
// instead (nil when there is no such array). ok is false when data is not
// an object, or decoding it would fail outside the items (a key given
// twice, "items" among them): the caller decodes it whole.
func jsonFrame(data []byte) (frame map[string]interface{}, items [][2]int, ok bool) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, nil, false
	}
	frame = map[string]interface{}{}
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			return nil, nil, false
		}
		key := kt.(string)
		if _, dup := frame[key]; dup || key == "items" && items != nil {
			return nil, nil, false
		}
		tok, err := dec.Token()
		if err != nil {
			return nil, nil, false
		}
		if key != "items" || tok != json.Delim('[') {
			if frame[key], err = jsonValue(dec, tok, key); err != nil {
				return nil, nil, false
			}
			continue
		}
		items = [][2]int{}
		for dec.More() {
			// Read as bytes, not decoded: a copy of the element's, garbage
			// at once.
			var raw json.RawMessage
			if err := dec.Decode(&raw); err != nil {
				return nil, nil, false
			}
			end := int(dec.InputOffset())
			items = append(items, [2]int{end - len(raw), end})
		}
		if _, err := dec.Token(); err != nil { // ']'
			return nil, nil, false
		}
	}
	return frame, items, true
}

// decodeJSON decodes data, one JSON value (found at path in its document:
// "" for a document), as JSON, not through YAML: a number keeps its text
// even where YAML would not read it as one (1e400 is a number to
// kube-apiserver's JSON decoder and to kubectl, but a string to YAML), and
// a key given twice in one object is an error, as in the YAML path,
// because one of its values would be lost. data is a value splitJSON has
// read, so it is valid.
func decodeJSON(data []byte, path string) (interface{}, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	return nextJSONValue(dec, path)
}

// jsonValue decodes the value at path that starts with tok, dec's last token.
func jsonValue(dec *json.Decoder, tok json.Token, path string) (interface{}, error) {
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
			if m[key], err = nextJSONValue(dec, joinPath(path, key)); err != nil {
				return nil, err
			}
		}
		_, err := dec.Token() // '}'
		return m, err
	case json.Delim('['):
		s := []interface{}{}
		for i := 0; dec.More(); i++ {
			e, err := nextJSONValue(dec, fmt.Sprintf("%s[%d]", path, i))
			if err != nil {
				return nil, err
			}
			s = append(s, e)
		}
		_, err := dec.Token() // ']'
		return s, err
	}
	return tok, nil // a string, json.Number, bool or nil
}

func nextJSONValue(dec *json.Decoder, path string) (interface{}, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	return jsonValue(dec, tok, path)
}

func joinPath(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func describePath(path string) string {
	if path == "" {
		return "the top-level object"
	}
	return "the object at " + path
}
