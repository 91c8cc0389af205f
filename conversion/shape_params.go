package conversion

import (
	"maps"
	"reflect"
	"strings"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/api/v1alpha2"
)

// The shapes of the objects claimbridge migrate reads beside claims: the
// v1alpha2 (1.30) ResourceClaimParameters, ResourceClassParameters and
// ResourceClass, and the v1alpha1 (1.26) ResourceClass, which is 1.30's but
// for structuredParameters. They are derived from their Go types, with the
// metadata of a claim.
var parameterShapes = func() map[[2]string]*shape {
	shapes := map[[2]string]*shape{}
	for key, t := range map[[2]string]reflect.Type{
		{api.V1alpha1, api.KindResourceClass}:   reflect.TypeOf(v1alpha2.ResourceClass{}),
		{api.V1alpha2, api.KindResourceClass}:   reflect.TypeOf(v1alpha2.ResourceClass{}),
		{api.V1alpha2, api.KindClaimParameters}: reflect.TypeOf(v1alpha2.ResourceClaimParameters{}),
		{api.V1alpha2, api.KindClassParameters}: reflect.TypeOf(v1alpha2.ResourceClassParameters{}),
	} {
		fields := maps.Clone(shapeOfType(t).fields)
		fields["metadata"] = metadataShape
		if key[0] == api.V1alpha1 {
			delete(fields, "structuredParameters")
		}
		shapes[key] = object(fields)
	}
	return shapes
}()

// CheckParametersShape returns a *MalformedError naming the first field of
// the wrong JSON type in a resource.k8s.io ResourceClass,
// ResourceClaimParameters or ResourceClassParameters; nil for another kind.
func CheckParametersShape(obj map[string]interface{}) error {
	version, ok := strings.CutPrefix(asString(obj["apiVersion"]), api.UpstreamGroup+"/")
	kind := asString(obj["kind"])
	s := parameterShapes[[2]string{version, kind}]
	if !ok || s == nil {
		return nil
	}
	return checkObject(obj, s, kind)
}
