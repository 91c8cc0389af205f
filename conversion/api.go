package conversion

// Convert returns obj converted to version toVersion ("v1alpha1", "v1alpha2"
// or "v1alpha3"). obj must be a ResourceClaim, ResourceClaimTemplate or their
// List kinds; its apiVersion group is kept (resource.claimbridge.dev or
// resource.k8s.io). obj is not modified. Converting to the version obj already
// has returns a deep copy.
func Convert(obj map[string]interface{}, toVersion string) (map[string]interface{}, error) {
	return convert(obj, toVersion)
}
