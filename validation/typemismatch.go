package validation

import (
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/claimbridge/claimbridge/conversion"
)

// typeMismatch finds where the JSON tree v does not fit the Go type t as a
// JSON decoder reads it (sigs.k8s.io/json, case-sensitive): the first
// field, in the order of t's fields and then of list indices, whose value
// has a JSON type t cannot hold there. It names what the conversion shape
// check (conversion.CheckShape) does not know: metadata, and fields of
// types conversion does not look into. A null fits everything.
func typeMismatch(v interface{}, t reflect.Type, path string) (at, want, got string, found bool) {
	if v == nil {
		return "", "", "", false
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if accepts, known := unmarshalerJSON(t); known {
		if accepts == nil || slices.Contains(accepts, conversion.JSONType(v)) {
			return "", "", "", false
		}
		return path, strings.Join(accepts, " or "), conversion.JSONType(v), true
	}
	switch t.Kind() {
	case reflect.Struct, reflect.Map:
		m, ok := v.(map[string]interface{})
		if !ok {
			return path, "object", conversion.JSONType(v), true
		}
		if t.Kind() == reflect.Struct {
			return structMismatch(m, t, path)
		}
		for _, k := range slices.Sorted(maps.Keys(m)) {
			if at, want, got, found := typeMismatch(m[k], t.Elem(), path+"["+k+"]"); found {
				return at, want, got, true
			}
		}
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 { // []byte: base64 in a string
			return scalar(v, path, "string")
		}
		l, ok := v.([]interface{})
		if !ok {
			return path, "array", conversion.JSONType(v), true
		}
		for i, e := range l {
			if at, want, got, found := typeMismatch(e, t.Elem(), fmt.Sprintf("%s[%d]", path, i)); found {
				return at, want, got, true
			}
		}
	case reflect.String:
		return scalar(v, path, "string")
	case reflect.Bool:
		return scalar(v, path, "boolean")
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Float32, reflect.Float64:
		return scalar(v, path, "number")
	}
	return "", "", "", false
}

func structMismatch(m map[string]interface{}, t reflect.Type, path string) (at, want, got string, found bool) {
	for i := range t.NumField() {
		f := t.Field(i)
		name, inline := jsonName(f)
		if inline {
			if at, want, got, found := structMismatch(m, f.Type, path); found {
				return at, want, got, true
			}
			continue
		}
		if name == "" || !f.IsExported() {
			continue
		}
		if v, ok := m[name]; ok {
			if at, want, got, found := typeMismatch(v, f.Type, strings.TrimPrefix(path+"."+name, ".")); found {
				return at, want, got, true
			}
		}
	}
	return "", "", "", false
}

// jsonName is f's JSON name, or inline for an embedded struct without one
// (metav1.TypeMeta, ObjectMeta with `json:",inline"`).
func jsonName(f reflect.StructField) (name string, inline bool) {
	tag := f.Tag.Get("json")
	if tag == "-" {
		return "", false
	}
	name, opts, _ := strings.Cut(tag, ",")
	if name == "" && (f.Anonymous || strings.Contains(opts, "inline")) && f.Type.Kind() == reflect.Struct {
		return "", true
	}
	return cmp.Or(name, f.Name), false
}

// unmarshalerJSON returns the JSON types a type with its own decoding
// accepts (nil: any); known is false for types decoded by their kind.
func unmarshalerJSON(t reflect.Type) (accepts []string, known bool) {
	switch t {
	case reflect.TypeOf(metav1.Time{}), reflect.TypeOf(metav1.MicroTime{}):
		return []string{"string"}, true
	case reflect.TypeOf(resource.Quantity{}), reflect.TypeOf(intstr.IntOrString{}):
		return []string{"string", "number"}, true
	}
	// Others (RawExtension, FieldsV1 ...) judge their own input.
	return nil, reflect.PointerTo(t).Implements(reflect.TypeOf((*json.Unmarshaler)(nil)).Elem())
}

func scalar(v interface{}, path, want string) (string, string, string, bool) {
	if got := conversion.JSONType(v); got != want {
		return path, want, got, true
	}
	return "", "", "", false
}
