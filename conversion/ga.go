package conversion

import (
	"slices"

	"github.com/claimbridge/claimbridge/api"
)

// The versions upstream Kubernetes serves today, oldest first: v1beta1
// (1.32), v1beta2 (1.33) and v1 (GA in 1.34). claimbridge converts to and
// from them for group resource.k8s.io only; its CRD keeps serving the three
// alpha versions (docs/conversion.md says why).
const (
	V1beta1 = api.V1beta1
	V1beta2 = api.V1beta2
	V1      = api.V1
)

// GAVersions lists the upstream versions that Convert reaches from the alpha
// shapes, oldest first (api.UpstreamOnlyVersions).
var GAVersions = slices.Clone(api.UpstreamOnlyVersions) // a copy: changing it changes nothing else

// ChainVersions is the conversion chain, oldest first: every conversion goes
// through the neighbours between its two versions (api.ConversionVersions).
var ChainVersions = slices.Clone(api.ConversionVersions) // a copy: changing it changes nothing else

// chainVersions and servedVersions are what the package itself uses.
var (
	chainVersions  = slices.Clone(api.ConversionVersions)
	servedVersions = slices.Clone(api.ServedVersions)
)

// pick returns a copy of the object v with only the named keys; a value that
// is not an object is copied as it is.
func pick(v interface{}, keys ...string) interface{} {
	m, ok := v.(map[string]interface{})
	if !ok || m == nil {
		return deepCopy(v)
	}
	out := map[string]interface{}{}
	copyKeys(out, m, keys...)
	return out
}

// pickEach applies pick to every element of the array v; a value that is not
// an array is copied as it is.
func pickEach(v interface{}, keys ...string) interface{} {
	s, ok := v.([]interface{})
	if !ok || s == nil {
		return deepCopy(v)
	}
	out := make([]interface{}, len(s))
	for i, e := range s {
		out[i] = pick(e, keys...)
	}
	return out
}

// identityMapping is the step between two versions whose claims and templates
// have the same fields.
var identityMapping = mapping{
	spec:   func(in map[string]interface{}, _ *lossReport) map[string]interface{} { return deepCopyMap(in) },
	status: func(in, _ map[string]interface{}, _ *lossReport) map[string]interface{} { return deepCopyMap(in) },
}
