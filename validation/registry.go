package validation

import "github.com/claimbridge/claimbridge/api"

// The apiserver prepares a write to a custom resource with a status
// subresource before validating admission sees it
// (apiextensions-apiserver customResourceStrategy and statusStrategy). The
// functions below do the same to the JSON trees so that offline validation
// sees what the webhook would see. They never modify their arguments.

// prepareForCreate drops the status of a new claim: it cannot be set on
// create.
func prepareForCreate(obj map[string]interface{}, kind string) map[string]interface{} {
	out := api.DeepCopyJSON(obj)
	if kind == api.KindClaim {
		delete(out, "status")
	}
	return out
}

// prepareForUpdate keeps the old status on an update of the main resource:
// status changes sent there are discarded.
func prepareForUpdate(obj, old map[string]interface{}, kind string) map[string]interface{} {
	out := api.DeepCopyJSON(obj)
	if kind != api.KindClaim {
		return out
	}
	if status, ok := old["status"]; ok {
		out["status"] = api.DeepCopyJSONValue(status)
	} else {
		delete(out, "status")
	}
	return out
}

// prepareForStatusUpdate takes only the status (and managedFields, which
// track the write) from a status update; everything else, spec and
// metadata included, stays as stored.
func prepareForStatusUpdate(obj, old map[string]interface{}) map[string]interface{} {
	out := api.DeepCopyJSON(old)
	if status, ok := obj["status"]; ok {
		out["status"] = api.DeepCopyJSONValue(status)
	} else {
		delete(out, "status")
	}
	newMeta, _ := obj["metadata"].(map[string]interface{})
	outMeta, _ := out["metadata"].(map[string]interface{})
	if outMeta == nil {
		outMeta = map[string]interface{}{}
		out["metadata"] = outMeta
	}
	if mf, ok := newMeta["managedFields"]; ok {
		outMeta["managedFields"] = api.DeepCopyJSONValue(mf)
	} else {
		delete(outMeta, "managedFields")
	}
	return out
}
