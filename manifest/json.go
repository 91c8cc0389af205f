package manifest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
)

// decodeJSON decodes one JSON value as JSON, not through YAML: a number
// keeps its text even where YAML would not read it as one (1e400 is a
// number to kube-apiserver's JSON decoder and to kubectl, but a string to
// YAML), and a key given twice in one object is an error, as in the YAML
// path, because one of its values would be lost. data is a value splitJSON
// has read, so its nesting is within encoding/json's limit.
func decodeJSON(data []byte) (interface{}, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := jsonValue(dec, "")
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("more than one JSON value in the document")
	}
	return v, nil
}

func jsonValue(dec *json.Decoder, path string) (interface{}, error) {
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
			if m[key], err = jsonValue(dec, joinPath(path, key)); err != nil {
				return nil, err
			}
		}
		_, err := dec.Token() // '}'
		return m, err
	case json.Delim('['):
		s := []interface{}{}
		for i := 0; dec.More(); i++ {
			e, err := jsonValue(dec, fmt.Sprintf("%s[%d]", path, i))
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
