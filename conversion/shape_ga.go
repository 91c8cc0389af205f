package conversion

import (
	"cmp"
	"encoding/json"
	"maps"
	"reflect"
	"strings"

	resourcev1 "k8s.io/api/resource/v1"
	resourcev1beta1 "k8s.io/api/resource/v1beta1"
	resourcev1beta2 "k8s.io/api/resource/v1beta2"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/api/v1alpha1"
	"github.com/claimbridge/claimbridge/api/v1alpha2"
	"github.com/claimbridge/claimbridge/api/v1alpha3"
)

// The shapes of a claim's spec and status in every version are derived
// from their Go types, as their JSON decoder reads them. Values a type
// decodes itself, and node selectors, are not looked into.
var (
	specShapes = shapesOf(map[string]reflect.Type{
		api.V1alpha1: reflect.TypeOf(v1alpha1.ResourceClaimSpec{}),
		api.V1alpha2: reflect.TypeOf(v1alpha2.ResourceClaimSpec{}),
		api.V1alpha3: reflect.TypeOf(v1alpha3.ResourceClaimSpec{}),
		api.V1beta1:  reflect.TypeOf(resourcev1beta1.ResourceClaimSpec{}),
		api.V1beta2:  reflect.TypeOf(resourcev1beta2.ResourceClaimSpec{}),
		api.V1:       reflect.TypeOf(resourcev1.ResourceClaimSpec{}),
	})
	statusShapes = func() map[string]*shape {
		shapes := shapesOf(map[string]reflect.Type{
			api.V1alpha1: reflect.TypeOf(v1alpha1.ResourceClaimStatus{}),
			api.V1alpha2: reflect.TypeOf(v1alpha2.ResourceClaimStatus{}),
			api.V1alpha3: reflect.TypeOf(v1alpha3.ResourceClaimStatus{}),
			api.V1beta1:  reflect.TypeOf(resourcev1beta1.ResourceClaimStatus{}),
			api.V1beta2:  reflect.TypeOf(resourcev1beta2.ResourceClaimStatus{}),
			api.V1:       reflect.TypeOf(resourcev1.ResourceClaimStatus{}),
		})
		// A v1alpha3 status has no driverName, but one there must be a
		// string, as in v1alpha1 and v1alpha2.
		fields := maps.Clone(shapes[api.V1alpha3].fields)
		fields["driverName"] = str
		shapes[api.V1alpha3] = object(fields)
		return shapes
	}()
)

// shapesOf are the shapes of types, by version.
func shapesOf(types map[string]reflect.Type) map[string]*shape {
	shapes := map[string]*shape{}
	for v, t := range types {
		shapes[v] = shapeOfType(t)
	}
	return shapes
}

var (
	jsonUnmarshaler = reflect.TypeOf((*json.Unmarshaler)(nil)).Elem()
	timeType        = reflect.TypeOf(metav1.Time{})
	quantityType    = reflect.TypeOf(resource.Quantity{})
)

// shapeOfType is the shape encoding/json accepts for a value of type t.
func shapeOfType(t reflect.Type) *shape {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch {
	case t == timeType:
		return str
	case t == quantityType:
		return anyJSON // a string or a number
	case t.Name() == "NodeSelector" && t.PkgPath() == "k8s.io/api/core/v1":
		return object(nil)
	case reflect.PointerTo(t).Implements(jsonUnmarshaler):
		return anyJSON // decodes itself
	}
	switch t.Kind() {
	case reflect.String:
		return str
	case reflect.Bool:
		return boolean
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64:
		return number
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return str // base64
		}
		return arrayOf(shapeOfType(t.Elem()))
	case reflect.Map:
		return mapOf(shapeOfType(t.Elem()))
	case reflect.Struct:
		fields := map[string]*shape{}
		addFields(fields, t)
		return object(fields)
	}
	return anyJSON
}

// addFields adds the JSON fields of struct type t, inlined structs
// included, to fields.
func addFields(fields map[string]*shape, t reflect.Type) {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		name, opts, hasOpts := strings.Cut(tag, ",")
		if name == "-" && !hasOpts || !f.IsExported() && !f.Anonymous { // "-," names a field "-"
			continue
		}
		if f.Anonymous && name == "" || strings.Contains(","+opts+",", ",inline,") {
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				addFields(fields, ft)
				continue
			}
		}
		fields[cmp.Or(name, f.Name)] = shapeOfType(f.Type)
	}
}
