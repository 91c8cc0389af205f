package conversion

import "github.com/claimbridge/claimbridge/api"

// pick returns a copy of the object v with only the named keys. Other
// values are copied as they are.
func pick(v interface{}, keys ...string) interface{} {
	m, ok := v.(map[string]interface{})
	if !ok || m == nil {
		return api.DeepCopyJSONValue(v)
	}
	out := map[string]interface{}{}
	silentReport.copyKeys(out, m, keys...)
	return out
}

// pickEach applies pick to every element of the array v. Other values are
// copied as they are.
func pickEach(v interface{}, keys ...string) interface{} {
	s, ok := v.([]interface{})
	if !ok || s == nil {
		return api.DeepCopyJSONValue(v)
	}
	out := make([]interface{}, len(s))
	for i, e := range s {
		out[i] = pick(e, keys...)
	}
	return out
}

// identityMapping maps between versions with the same fields.
var identityMapping = mapping{
	spec:   func(in map[string]interface{}, _ *lossReport) map[string]interface{} { return api.DeepCopyJSON(in) },
	status: func(in, _ map[string]interface{}, _ *lossReport) map[string]interface{} { return api.DeepCopyJSON(in) },
}
