package conversion

import (
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"
)

type (
	shapeTestEmbedded struct {
		E string `json:"e"`
	}
	ShapeTestNamed struct {
		N bool `json:"n"`
	}
	ShapeTestInline struct {
		I string `json:"i"`
	}
	ShapeTestString string
	shapeTestStruct struct {
		shapeTestEmbedded
		*ShapeTestNamed `json:"named"`
		ShapeTestString
		Skipped string `json:"-"`
		//lint:ignore SA5008 encoding/json names a field tagged "-," "-": the case under test
		Dash   int             `json:"-,"`
		hidden string          // unexported: left out
		Plain  bool            // no tag: its Go name
		Nested ShapeTestNamed  // no tag: its Go name
		Meta   ShapeTestInline `json:",inline"`
	}
)

// TestShapeOfTypeFields: shapeOfType takes a struct's fields as
// encoding/json does (and Kubernetes' inline tag): a field tagged "-" and
// an unexported one are left out, a field tagged "-," is named "-", an
// embedded struct without a name in its tag (exported or not) and a field
// tagged inline give their fields, an embedded struct with a name (here by
// pointer) and an embedded non-struct type are a field of that name, and a
// field without a tag is named as in Go.
func TestShapeOfTypeFields(t *testing.T) {
	_ = shapeTestStruct{}.hidden
	named := object(map[string]*shape{"n": boolean})
	want := object(map[string]*shape{
		"e":               str,
		"named":           named,
		"ShapeTestString": str,
		"-":               number,
		"Plain":           boolean,
		"Nested":          named,
		"i":               str,
	})
	got := shapeOfType(reflect.TypeOf(shapeTestStruct{}))
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(shape{})); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

type shapeTestBytesAndPointers struct {
	*ShapeTestInline
	Data []byte `json:"data"`
	List []int8 `json:"list"`
}

// TestShapeOfTypeBytesAndEmbeddedPointers: an embedded struct pointer
// without a name gives its fields, a byte slice is a string (base64) and
// any other slice an array.
func TestShapeOfTypeBytesAndEmbeddedPointers(t *testing.T) {
	want := object(map[string]*shape{"i": str, "data": str, "list": arrayOf(number)})
	got := shapeOfType(reflect.TypeOf(shapeTestBytesAndPointers{}))
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(shape{})); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
