package manifest

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"regexp"
	"strconv"

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
// too), refusing what it would lose in silence: see checkYAML.
func decodeYAML(data []byte) (interface{}, error) {
	j, err := yamlToJSON(data)
	if err != nil {
		return nil, err
	}
	if err := checkYAML(data); err != nil {
		return nil, err
	}
	j = bytes.TrimSpace(j)
	if len(j) == 0 || bytes.Equal(j, []byte("null")) {
		return nil, nil
	}
	return jsonTree(j, nil)
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
// (yaml.UnmarshalStrict refuses that).
func checkYAML(data []byte) error {
	dec := goyaml.NewDecoder(bytes.NewReader(data))
	// Decoded into a MapSlice, every mapping keeps its own keys in order,
	// duplicates included, and none of the merged ones.
	var top goyaml.MapSlice
	err := dec.Decode(&top)
	var typeErr *goyaml.TypeError
	switch {
	case err == io.EOF:
		return nil // an empty document
	case errors.As(err, &typeErr):
		// Not a mapping: typedObject refuses it.
	case err != nil:
		return err
	default:
		if err := duplicateKeys(top, ""); err != nil {
			return err
		}
	}
	var next interface{}
	if err := dec.Decode(&next); err != io.EOF {
		msg := `more than one YAML document: a document after "..." or after another must start with a "---" line`
		if err != nil {
			return fmt.Errorf("%s (%v)", msg, err)
		}
		return errors.New(msg)
	}
	return nil
}

func duplicateKeys(v interface{}, path string) error {
	switch v := v.(type) {
	case goyaml.MapSlice:
		seen := make(map[string]interface{}, len(v))
		for _, item := range v {
			key, ok := jsonKey(item.Key)
			if !ok {
				continue // YAMLToJSON has refused it
			}
			if first, dup := seen[key]; dup {
				err := fmt.Errorf("key %q appears twice in %s", key, describePath(path))
				if s, isString := first.(string); !isString || s != key {
					err = fmt.Errorf("%w (once as %s)", err, describeKey(first))
				} else if s, isString := item.Key.(string); !isString || s != key {
					err = fmt.Errorf("%w (once as %s)", err, describeKey(item.Key))
				}
				return err
			}
			seen[key] = item.Key
			if err := duplicateKeys(item.Value, joinPath(path, key)); err != nil {
				return err
			}
		}
	case []interface{}:
		for i, e := range v {
			if err := duplicateKeys(e, fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
	}
	return nil
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
