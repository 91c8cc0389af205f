package conversion

import (
	"maps"
	"strings"

	"github.com/claimbridge/claimbridge/api"
)

// The shapes of the objects claimbridge migrate reads beside claims: the
// v1alpha2 (1.30) ResourceClaimParameters, ResourceClassParameters and
// ResourceClass, and the v1alpha1 (1.26) ResourceClass.
var (
	classParametersRefShape = object(map[string]*shape{"apiGroup": str, "kind": str, "name": str, "namespace": str})
	resourceClass126Shape   = map[string]*shape{
		"metadata": metadataShape, "driverName": str, "parametersRef": classParametersRefShape, "suitableNodes": object(nil),
	}
	parameterShapes = map[[2]string]*shape{
		{api.V1alpha1, api.KindResourceClass}: object(resourceClass126Shape),
		{api.V1alpha2, api.KindResourceClass}: object(func() map[string]*shape {
			fields := map[string]*shape{"structuredParameters": boolean}
			maps.Copy(fields, resourceClass126Shape)
			return fields
		}()),
		{api.V1alpha2, api.KindClaimParameters}: object(map[string]*shape{
			"metadata":      metadataShape,
			"generatedFrom": parametersRefShape,
			"shareable":     boolean,
			"driverRequests": arrayOf(object(map[string]*shape{
				"driverName": str, "vendorParameters": anyJSON,
				"requests": arrayOf(object(map[string]*shape{
					"vendorParameters": anyJSON,
					"namedResources":   object(map[string]*shape{"selector": str}),
				})),
			})),
		}),
		{api.V1alpha2, api.KindClassParameters}: object(map[string]*shape{
			"metadata":         metadataShape,
			"generatedFrom":    classParametersRefShape,
			"vendorParameters": arrayOf(object(map[string]*shape{"driverName": str, "parameters": anyJSON})),
			"filters": arrayOf(object(map[string]*shape{
				"driverName":     str,
				"namedResources": object(map[string]*shape{"selector": str}),
			})),
		}),
	}
)

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
