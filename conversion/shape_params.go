package conversion

import "strings"

// The shapes of the objects that claimbridge migrate reads beside claims:
// the 1.30 (resource.k8s.io/v1alpha2) ResourceClaimParameters,
// ResourceClassParameters and ResourceClass, and the 1.26 (v1alpha1)
// ResourceClass. Field for field k8s.io/api v0.30's and v0.26's
// resource types; vendor parameters and node selectors are not looked into.
var (
	classParametersRefShape = object(map[string]*shape{"apiGroup": str, "kind": str, "name": str, "namespace": str})
	resourceClass126Shape   = map[string]*shape{
		"metadata": metadataShape, "driverName": str, "parametersRef": classParametersRefShape, "suitableNodes": object(nil),
	}
	parameterShapes = map[[2]string]*shape{
		{V1alpha1, "ResourceClass"}: object(resourceClass126Shape),
		{V1alpha2, "ResourceClass"}: object(func() map[string]*shape {
			fields := map[string]*shape{"structuredParameters": boolean}
			for k, v := range resourceClass126Shape {
				fields[k] = v
			}
			return fields
		}()),
		{V1alpha2, "ResourceClaimParameters"}: object(map[string]*shape{
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
		{V1alpha2, "ResourceClassParameters"}: object(map[string]*shape{
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
// a resource.k8s.io ResourceClass (v1alpha1, v1alpha2),
// ResourceClaimParameters or ResourceClassParameters (v1alpha2) whose JSON
// type is wrong; nil for a well-formed object or another kind.
func CheckParametersShape(obj map[string]interface{}) error {
	version, ok := strings.CutPrefix(asString(obj["apiVersion"]), UpstreamGroup+"/")
	kind := asString(obj["kind"])
	s := parameterShapes[[2]string{version, kind}]
	if !ok || s == nil {
		return nil
	}
	return checkObject(obj, s, kind)
}
