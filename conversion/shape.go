package conversion

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/claimbridge/claimbridge/api"
)

// Malformed objects are refused, not reshaped: every field the source
// version knows must have its JSON type, or be null. Unknown fields, and
// values conversion copies as they are, are not checked.

// MalformedError says which field of which object has the wrong JSON type.
type MalformedError struct {
	// Kind and Object (namespace/name, or "(unnamed)") name the object.
	Kind, Object string
	// Path is the field path, for example status.reservedFor or
	// items[2].spec.
	Path string
	// Want is a JSON type. Got is the value's JSON type, or its Go type
	// when it has none.
	Want, Got string
	// Hint, when set, says why the value may have that type.
	Hint string
}

// Error names the object, the path and both types.
func (e *MalformedError) Error() string {
	return fmt.Sprintf("%s %s is malformed: %s", e.Kind, e.Object, e.Field())
}

// Field names the path and both types, without the object.
func (e *MalformedError) Field() string {
	msg := fmt.Sprintf("%s must be %s %s, not %s %s", e.Path, article(e.Want), e.Want, article(e.Got), e.Got)
	if e.Hint != "" {
		msg += " (" + e.Hint + ")"
	}
	return msg
}

// numberHint explains a string holding a number beyond a float64's range,
// which YAML reads as a string.
func numberHint(v interface{}) string {
	s, ok := v.(string)
	if !ok || s == "" || !strings.ContainsRune("-0123456789", rune(s[0])) || !json.Valid([]byte(s)) {
		return ""
	}
	if _, err := strconv.ParseFloat(s, 64); errors.Is(err, strconv.ErrRange) {
		return fmt.Sprintf("%q is beyond a float64's range, so YAML reads it as a string; in JSON input it is a number", s)
	}
	return ""
}

func article(t string) string {
	if strings.IndexAny(t[:1], "aeiou") == 0 {
		return "an"
	}
	return "a"
}

// shape is the expected JSON type of a value.
type shape struct {
	typ    string // "object", "array", "map", "string", "boolean", "number", "" (anything)
	fields map[string]*shape
	keys   []string // of fields, sorted
	shapes []*shape // of fields, in the order of keys
	elem   *shape
}

var (
	anyJSON = &shape{}
	str     = &shape{typ: "string"}
	boolean = &shape{typ: "boolean"}
	number  = &shape{typ: "number"}
)

func object(fields map[string]*shape) *shape {
	keys := sortedKeys(fields)
	shapes := make([]*shape, len(keys))
	for i, k := range keys {
		shapes[i] = fields[k]
	}
	return &shape{typ: "object", fields: fields, keys: keys, shapes: shapes}
}
func arrayOf(elem *shape) *shape { return &shape{typ: "array", elem: elem} }
func mapOf(elem *shape) *shape   { return &shape{typ: "map", elem: elem} }

var metadataShape = object(map[string]*shape{
	"name": str, "namespace": str, "annotations": mapOf(str), "labels": mapOf(str), "finalizers": arrayOf(str),
})

// objectShapes holds the shape of a claim and a template of every version.
var objectShapes = func() map[[2]string]*shape {
	m := map[[2]string]*shape{}
	for _, v := range api.ConversionVersions {
		m[[2]string{v, api.KindClaim}] = object(map[string]*shape{
			"metadata": metadataShape, "spec": specShapes[v], "status": statusShapes[v],
		})
		m[[2]string{v, api.KindTemplate}] = object(map[string]*shape{
			"metadata": metadataShape, "spec": object(map[string]*shape{"metadata": metadataShape, "spec": specShapes[v]}),
		})
	}
	return m
}()

// objectShape is the shape of a claim or template of version.
func objectShape(version, kind string) *shape {
	return objectShapes[[2]string{version, kind}]
}

// CheckShape returns the error Convert gives for a malformed obj: a
// *MalformedError naming the first field of the wrong JSON type.
func CheckShape(obj map[string]interface{}) error {
	_, version, kind, err := Identify(obj)
	if err != nil {
		return err
	}
	return checkShape(obj, version, kind)
}

// checkShape returns a *MalformedError for the first field of obj that has
// the wrong JSON type.
func checkShape(obj map[string]interface{}, version, kind string) error {
	if item := strings.TrimSuffix(kind, "List"); item != kind {
		s := objectShape(version, item)
		for i, it := range asSlice(obj["items"]) {
			if err := checkValue(it, s, fmt.Sprintf("items[%d]", i)); err != nil {
				err.Kind, err.Object = item, api.Ref(asMap(it))
				return err
			}
		}
		if err := checkValue(obj["items"], arrayOf(anyJSON), "items"); err != nil {
			err.Kind, err.Object = kind, api.Ref(obj)
			return err
		}
		return nil
	}
	return checkObject(obj, objectShape(version, kind), kind)
}

// checkObject returns a *MalformedError for the first field of obj that
// does not have shape s.
func checkObject(obj map[string]interface{}, s *shape, kind string) error {
	if fits(obj, s) {
		return nil // the common case, fast
	}
	for _, k := range s.keys {
		if err := checkValue(obj[k], s.fields[k], k); err != nil {
			err.Kind, err.Object = kind, api.Ref(obj)
			return err
		}
	}
	return nil
}

func checkValue(v interface{}, s *shape, path string) *MalformedError {
	if v == nil || s.typ == "" {
		return nil
	}
	got := JSONType(v)
	want := s.typ
	if want == "map" {
		want = "object"
	}
	if got != want {
		e := &MalformedError{Path: path, Want: want, Got: got}
		if want == "number" {
			e.Hint = numberHint(v)
		}
		return e
	}
	switch s.typ {
	case "object":
		m := v.(map[string]interface{})
		for _, k := range s.keys {
			if err := checkValue(m[k], s.fields[k], path+"."+k); err != nil {
				return err
			}
		}
	case "map":
		m := v.(map[string]interface{})
		for _, k := range sortedKeys(m) {
			if err := checkValue(m[k], s.elem, path+"["+k+"]"); err != nil {
				return err
			}
		}
	case "array":
		for i, e := range v.([]interface{}) {
			if err := checkValue(e, s.elem, fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
	}
	return nil
}

// fits reports whether checkValue finds no error in v, without building
// paths or errors.
func fits(v interface{}, s *shape) bool {
	if v == nil || s.typ == "" {
		return true
	}
	switch s.typ {
	case "object", "map":
		m, ok := v.(map[string]interface{})
		if !ok {
			return false
		}
		if s.typ == "object" {
			if len(m) < len(s.keys) { // fewer lookups: most fields are absent
				for k, e := range m {
					if f, known := s.fields[k]; known && !fits(e, f) {
						return false
					}
				}
				return true
			}
			for i, k := range s.keys {
				if !fits(m[k], s.shapes[i]) {
					return false
				}
			}
			return true
		}
		for _, e := range m {
			if !fits(e, s.elem) {
				return false
			}
		}
		return true
	case "array":
		a, ok := v.([]interface{})
		return ok && !slices.ContainsFunc(a, func(e interface{}) bool { return !fits(e, s.elem) })
	}
	return JSONType(v) == s.typ
}

// JSONType names the JSON type of a decoded value (object, array, string,
// boolean, number, null), or its Go type when it has none.
func JSONType(v interface{}) string {
	switch v.(type) {
	case nil:
		return "null"
	case map[string]interface{}:
		return "object"
	case []interface{}:
		return "array"
	case string:
		return "string"
	case bool:
		return "boolean"
	case json.Number, float64, float32, int, int64, int32, uint, uint64, uint32:
		return "number"
	}
	return fmt.Sprintf("%T", v)
}

// ErrNewerV1alpha3 is wrapped by the error for resource.k8s.io/v1alpha3 input
// of the Kubernetes 1.32/1.33 shape.
var ErrNewerV1alpha3 = errors.New("not the Kubernetes 1.31 shape of resource.k8s.io/v1alpha3")

// Kubernetes 1.32 and 1.33 served resource.k8s.io/v1alpha3 as a copy of
// v1beta1. claimbridge's v1alpha3 is the 1.31 shape; these fields give the
// later shape away.
var (
	laterRequestKeys    = []string{"exactly", "firstAvailable", "tolerations", "capacity", "derivedAttributes"}
	laterConstraintKeys = []string{"distinctAttribute"}
	laterResultKeys     = []string{"adminAccess", "tolerations", "shareID", "bindingConditions", "bindingFailureConditions", "consumedCapacity"}
	laterAllocationKeys = []string{"allocationTimestamp"}
	laterStatusKeys     = []string{"devices"}
)

// checkV1alpha3Shape fails for a resource.k8s.io/v1alpha3 object or list
// with fields of the 1.32/1.33 shape.
func checkV1alpha3Shape(obj map[string]interface{}, kind string) error {
	var found []string
	if strings.HasSuffix(kind, "List") {
		for i, it := range asSlice(obj["items"]) {
			found = laterFields(found, fmt.Sprintf("items[%d].", i), asMap(it), strings.TrimSuffix(kind, "List"))
		}
	} else {
		found = laterFields(nil, "", obj, kind)
	}
	if len(found) == 0 {
		return nil
	}
	// exactly is the request of v1beta2 and v1 (1.33 on): no release
	// served it as v1alpha3, and v1beta1 has no such field.
	if slices.ContainsFunc(found, func(f string) bool { return strings.HasSuffix(f, ".exactly") }) {
		return fmt.Errorf("%s/%s %s %s has %s, which no release's resource.k8s.io/v1alpha3 had: a request with exactly is the shape of %s/%s and %s: set apiVersion to the one it was written for and convert from there%w",
			api.UpstreamGroup, api.V1alpha3, kind, api.Ref(obj), strings.Join(found, ", "), api.UpstreamGroup, api.V1beta2, api.V1, quietErr{ErrNewerV1alpha3})
	}
	return fmt.Errorf("%s/%s %s %s has %s, which the resource.k8s.io/v1alpha3 of Kubernetes 1.32 and 1.33 had; claimbridge's v1alpha3 is the Kubernetes 1.31 shape only: for a 1.32/1.33 v1alpha3 manifest set apiVersion to %s/%s (the same fields) and convert from there%w",
		api.UpstreamGroup, api.V1alpha3, kind, api.Ref(obj), strings.Join(found, ", "), api.UpstreamGroup, api.V1beta1, quietErr{ErrNewerV1alpha3})
}

func laterFields(found []string, prefix string, obj map[string]interface{}, kind string) []string {
	specPath, spec := prefix+api.ClaimSpecPath(kind), api.ClaimSpec(obj, kind)
	devices := asMap(spec["devices"])
	found = keysIn(found, specPath+".devices.requests", true, asSlice(devices["requests"]), laterRequestKeys)
	found = keysIn(found, specPath+".devices.constraints", true, asSlice(devices["constraints"]), laterConstraintKeys)
	if kind == api.KindTemplate {
		return found
	}
	status := asMap(obj["status"])
	found = keysIn(found, prefix+"status", false, []interface{}{status}, laterStatusKeys)
	alloc := asMap(status["allocation"])
	found = keysIn(found, prefix+"status.allocation", false, []interface{}{alloc}, laterAllocationKeys)
	return keysIn(found, prefix+"status.allocation.devices.results", true, asSlice(asMap(alloc["devices"])["results"]), laterResultKeys)
}

// keysIn appends path[i].key (path.key unless indexed) for each of keys
// in the objects of list.
func keysIn(found []string, path string, indexed bool, list []interface{}, keys []string) []string {
	for i, e := range list {
		m := asMap(e)
		for _, k := range keys {
			if _, ok := m[k]; !ok {
				continue
			}
			if indexed {
				found = append(found, fmt.Sprintf("%s[%d].%s", path, i, k))
			} else {
				found = append(found, path+"."+k)
			}
		}
	}
	return found
}

// quietErr wraps an error for errors.Is without adding to the message.
type quietErr struct{ err error }

func (q quietErr) Error() string { return "" }
func (q quietErr) Unwrap() error { return q.err }
