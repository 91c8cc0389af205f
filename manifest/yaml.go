package manifest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"regexp"
	"strconv"
	"unicode/utf8"

	goyaml "go.yaml.in/yaml/v2"
	"sigs.k8s.io/yaml"
)

// eachYAML gives the objects of data, one YAML document, to visit: a kind:
// List item by item when it can (eachListItem), else decoded whole, from
// the first object not given yet.
func eachYAML(doc Document, data []byte, visit func(Document) error) error {
	l, each := &list{raw: doc.raw, index: doc.Index}, visit
	visit = func(d Document) error {
		if d.Item >= 0 { // an item of a List
			d.list, d.tail = l, 0
			l.objects++
		}
		return each(d)
	}
	given, done, err := eachListItem(doc, data, visit)
	if done || err != nil {
		return err
	}
	v, err := decodeYAML(data)
	if err != nil {
		return fileLines(err, doc.Line-1)
	}
	return visitObject(doc, v, given, visit)
}

// yamlToJSON is sigs.k8s.io/yaml's YAMLToJSON; a variable so that a test can
// see what the YAML parser is given.
var yamlToJSON = yaml.YAMLToJSON

// decodeYAML decodes one YAML document as kubectl reads it (merge keys
// too), refusing what it would lose in silence (checkYAML): its v when
// exact and no merge key ("<<", or escaped) can be in data, else YAMLToJSON's.
func decodeYAML(data []byte) (interface{}, error) {
	v, exact, checkErr := checkYAML(data)
	if checkErr == nil && exact && !bytes.Contains(data, []byte("<<")) && !bytes.Contains(data, []byte(`\`)) {
		return v, nil
	}
	j, err := yamlToJSON(data)
	if err != nil && bytes.Contains(data, []byte("{{")) {
		return nil, fmt.Errorf("%w (the document holds {{ … }}: if it is a template, render it first)", err)
	}
	if err != nil {
		return nil, err
	}
	return jsonTree(j, checkErr)
}

// yamlLine matches the line numbers in the YAML parser's errors: "yaml:
// line 5: ..." and, for each problem of a yaml.TypeError, "\n  line 5: ...".
var yamlLine = regexp.MustCompile(`(yaml: line |\n  line )([0-9]+):`)

// fileLines returns err with the YAML parser's line numbers, which count
// from the start of the document, made lines of the file (offset is the
// number of lines before the document).
func fileLines(err error, offset int) error {
	if offset == 0 || !yamlLine.MatchString(err.Error()) {
		return err
	}
	msg := yamlLine.ReplaceAllStringFunc(err.Error(), func(m string) string {
		sub := yamlLine.FindStringSubmatch(m)
		n, _ := strconv.Atoi(sub[2])
		return sub[1] + strconv.Itoa(n+offset) + ":"
	})
	return lineError{msg: msg, err: err}
}

// lineError is an error of the YAML parser with the lines of the file.
type lineError struct {
	msg string
	err error
}

func (e lineError) Error() string { return e.msg }
func (e lineError) Unwrap() error { return e.err }

// checkYAML returns an error for what sigs.k8s.io/yaml.YAMLToJSON reads
// from data, a piece of the stream between "---" lines, without an error
// but loses:
//
//   - a second YAML document (after "...", or a JSON stream with comments,
//     read as YAML): YAMLToJSON reads only the first;
//   - a key given twice in one mapping, or two keys that YAML reads as
//     different values but that become the same JSON key (on and "true",
//     1 and "1"): one value would be lost, and which one is random.
//
// Keys merged in with "<<" are not duplicates: the mapping's own keys
// override them, as YAML's merge key means and kubectl reads it
// (yaml.UnmarshalStrict refuses that). v is the object YAMLToJSON reads,
// but for merged keys, unless exact is false (fromMapSlice; no object).
func checkYAML(data []byte) (v interface{}, exact bool, err error) {
	dec := goyaml.NewDecoder(bytes.NewReader(data))
	// Decoded into a MapSlice, every mapping keeps its own keys in order,
	// duplicates included, and none of the merged ones.
	var top goyaml.MapSlice
	err = dec.Decode(&top)
	var typeErr *goyaml.TypeError
	switch {
	case err == io.EOF:
		return nil, true, nil // an empty document
	case errors.As(err, &typeErr):
		// Not a mapping: typedObject refuses it.
	case err != nil:
		return nil, false, err
	default:
		exact = len(top) > 0 // else null or {}
		if v, err = fromMapSlice(top, "", &exact); err != nil {
			return nil, false, err
		}
	}
	var next interface{}
	if err := dec.Decode(&next); err != io.EOF {
		msg := `more than one YAML document: a document after "..." or after another must start with a "---" line`
		if err != nil {
			return nil, false, fmt.Errorf("%s (%v)", msg, err)
		}
		return nil, false, errors.New(msg)
	}
	return v, exact, nil
}

// fromMapSlice returns v, decoded at path as a MapSlice, as YAMLToJSON
// reads it, or the error for a key given twice; *exact is made false where
// they differ: a key without a JSON string, a NaN, bytes not UTF-8.
func fromMapSlice(v interface{}, path string, exact *bool) (_ interface{}, err error) {
	switch v := v.(type) {
	case goyaml.MapSlice:
		seen := make(map[string]interface{}, len(v))
		obj := make(map[string]interface{}, len(v))
		for _, item := range v {
			key, ok := jsonKey(item.Key)
			if *exact = *exact && ok && utf8.ValidString(key); !ok {
				continue // YAMLToJSON has refused it
			}
			if first, dup := seen[key]; dup {
				err := fmt.Errorf("key %q appears twice in %s", key, describePath(path))
				if s, isString := first.(string); !isString || s != key {
					err = fmt.Errorf("%w (once as %s)", err, describeKey(first))
				} else if s, isString := item.Key.(string); !isString || s != key {
					err = fmt.Errorf("%w (once as %s)", err, describeKey(item.Key))
				}
				return nil, err
			}
			seen[key] = item.Key
			if obj[key], err = fromMapSlice(item.Value, joinPath(path, key), exact); err != nil {
				return nil, err
			}
		}
		return obj, nil
	case []interface{}:
		for i := range v {
			if v[i], err = fromMapSlice(v[i], fmt.Sprintf("%s[%d]", path, i), exact); err != nil {
				return nil, err
			}
		}
	case string:
		*exact = *exact && utf8.ValidString(v)
	case int, int64, uint64, float64:
		b, err := json.Marshal(v)
		*exact = *exact && err == nil
		return json.Number(b), nil
	}
	return v, nil // a string, bool, nil or []interface{}
}

// jsonKey is the JSON key sigs.k8s.io/yaml makes of a YAML key (its
// convertToJSONableObject); ok is false for a key it refuses.
func jsonKey(k interface{}) (key string, ok bool) {
	switch k := k.(type) {
	case string:
		return k, true
	case int:
		return strconv.Itoa(k), true
	case int64:
		return strconv.FormatInt(k, 10), true
	case float64:
		switch {
		case math.IsInf(k, 1):
			return ".inf", true
		case math.IsInf(k, -1):
			return "-.inf", true
		case math.IsNaN(k):
			return ".nan", true
		}
		return strconv.FormatFloat(k, 'g', -1, 32), true
	case bool:
		return strconv.FormatBool(k), true
	}
	return "", false
}

func describeKey(k interface{}) string {
	switch k := k.(type) {
	case bool:
		if k {
			return "the boolean true, which YAML reads from an unquoted y, yes or on too"
		}
		return "the boolean false, which YAML reads from an unquoted n, no or off too"
	case string:
		return fmt.Sprintf("the string %q", k)
	}
	return fmt.Sprintf("the number %v", k)
}
