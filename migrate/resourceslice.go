package migrate

import (
	"maps"
	"slices"

	"github.com/claimbridge/claimbridge/api"
)

// basicVersions hold a ResourceSlice device's fields under device.basic;
// v1beta2 and v1 hold them on the device itself.
var basicVersions = []string{api.V1alpha3, api.V1beta1}

// convertResourceSlice gives a ResourceSlice version to, keeping every
// field: between v1beta1 and v1beta2 a device's fields move from under
// basic to the device. ok is false for a device of another shape (nothing
// is converted).
func convertResourceSlice(obj map[string]interface{}, from, to string) (out map[string]interface{}, ok bool) {
	out = api.DeepCopyJSON(obj)
	out["apiVersion"] = api.UpstreamGroup + "/" + to
	toBasic, fromBasic := slices.Contains(basicVersions, to), slices.Contains(basicVersions, from)
	spec, _ := out["spec"].(map[string]interface{})
	devices, _ := spec["devices"].([]interface{})
	for i, d := range devices {
		device, isMap := d.(map[string]interface{})
		if !isMap || toBasic == fromBasic {
			continue
		}
		name, hasName := device["name"]
		moved := maps.Clone(device)
		delete(moved, "name")
		if fromBasic {
			basic, isBasic := device["basic"].(map[string]interface{})
			if !isBasic || len(moved) != 1 { // basic and at most a name
				return nil, false
			}
			moved = basic
		}
		converted := map[string]interface{}{"basic": moved}
		if !toBasic {
			converted = maps.Clone(moved)
		}
		if hasName {
			converted["name"] = name
		}
		devices[i] = converted
	}
	return out, true
}
