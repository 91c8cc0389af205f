package validation

import "github.com/claimbridge/claimbridge/api"

// The prepareFor functions do to the JSON trees what the CRD's registry
// strategy does to a write before admission, so that offline validation sees
// what the webhook would. Results share the arguments' subtrees, unmodified.

// prepareForCreate drops the status of a new claim: create cannot set it.
func prepareForCreate(obj map[string]interface{}, kind string) map[string]interface{} {
	out := shallowCopy(obj)
	if kind == api.KindClaim {
		delete(out, "status")
	}
	return out
}

// prepareForUpdate keeps the old status on an update of the main resource:
// status changes sent there are discarded.
func prepareForUpdate(obj, old map[string]interface{}, kind string) map[string]interface{} {
	out := shallowCopy(obj)
	if kind != api.KindClaim {
		return out
	}
	if status, ok := old["status"]; ok {
		out["status"] = status
	} else {
		delete(out, "status")
	}
	return out
}

// prepareForStatusUpdate takes only the status and managedFields from a
// status update; everything else stays as stored.
func prepareForStatusUpdate(obj, old map[string]interface{}) map[string]interface{} {
	out := shallowCopy(old)
	if status, ok := obj["status"]; ok {
		out["status"] = status
	} else {
		delete(out, "status")
	}
	newMeta, _ := obj["metadata"].(map[string]interface{})
	oldMeta, _ := out["metadata"].(map[string]interface{})
	outMeta := shallowCopy(oldMeta) // a new map: managedFields is set below
	out["metadata"] = outMeta
	if mf, ok := newMeta["managedFields"]; ok {
		outMeta["managedFields"] = mf
	} else {
		delete(outMeta, "managedFields")
	}
	return out
}

// shallowCopy copies the top level of obj (nil gives an empty map).
func shallowCopy(obj map[string]interface{}) map[string]interface{} {
	out := make(map[string]interface{}, len(obj)+1)
	for k, v := range obj {
		out[k] = v
	}
	return out
}

// GeneratedNameSuffix stands for the five random characters the apiserver
// appends to a generateName; any five of its alphabet give the same errors.
const GeneratedNameSuffix = "xxxxx"

// WithGeneratedName returns obj with the name the apiserver would give it
// before validating a create (generateName cut to 58 bytes, then
// GeneratedNameSuffix) when it has a generateName and no name, else obj
// itself. Offline validation needs it: the webhook always sees a name.
func WithGeneratedName(obj map[string]interface{}) map[string]interface{} {
	meta, ok := obj["metadata"].(map[string]interface{})
	if !ok {
		return obj
	}
	base, _ := meta["generateName"].(string)
	if name, set := meta["name"]; base == "" || set && name != nil && name != "" {
		return obj
	}
	const maxGeneratedNameLength = 63 - len(GeneratedNameSuffix)
	if len(base) > maxGeneratedNameLength {
		base = base[:maxGeneratedNameLength]
	}
	m := shallowCopy(meta)
	m["name"] = base + GeneratedNameSuffix
	out := shallowCopy(obj)
	out["metadata"] = m
	return out
}
