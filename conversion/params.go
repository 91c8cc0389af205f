package conversion

import (
	"fmt"
	"slices"

	"github.com/claimbridge/claimbridge/api"
)

// A v1alpha2 allocation can carry configuration per device; v1alpha3 only
// per request and driver, where a later entry overrides an earlier one. So
// each driver gets at most one FromClaim entry, which lists any per-device
// configuration:
//
//	opaque:
//	  driver: <driver>
//	  parameters:
//	    apiVersion: resource.claimbridge.dev/v1alpha2
//	    kind: DeviceParameters
//	    claimParameters: <vendorClaimParameters>   # if any: for all devices of the driver
//	    devices:                                    # in the order of the results
//	    - device: <device of the result>            # handle-<i> or the named resource
//	      parameters: <its configuration>           # an object; non-JSON data wrapped as ResourceHandle
//
// Otherwise the parameters are the configuration itself.
const DeviceParametersKind = "DeviceParameters"

// driverParams gathers the configuration of one driver's handles.
type driverParams struct {
	driver     string
	handles    int
	structured bool
	class      interface{}   // vendorClassParameters (an object)
	claim      interface{}   // vendorClaimParameters (an object)
	devices    []interface{} // {device, parameters}
	devicePath []string      // the v1alpha2 field of each device entry
}

// addDevice records per-device configuration; params must be an object.
func (p *driverParams) addDevice(device string, params interface{}, path string) {
	p.devices = append(p.devices, map[string]interface{}{"device": device, "parameters": params})
	p.devicePath = append(p.devicePath, path)
}

// config returns the driver's configuration entries: FromClass, then
// FromClaim.
func (p *driverParams) config(request string, r *lossReport) []interface{} {
	var out []interface{}
	if p.class != nil {
		out = append(out, opaqueConfig(sourceClass, request, p.driver, p.class))
	}
	switch {
	case len(p.devices) == 0 && p.claim != nil:
		out = append(out, opaqueConfig(sourceClaim, request, p.driver, p.claim))
	case len(p.devices) == 1 && p.claim == nil && !p.structured && p.handles == 1:
		out = append(out, opaqueConfig(sourceClaim, request, p.driver, asMap(p.devices[0])["parameters"]))
	case len(p.devices) > 0:
		params := map[string]interface{}{"apiVersion": HandleDataAPIVersion, "kind": DeviceParametersKind, "devices": p.devices}
		if p.claim != nil {
			params["claimParameters"] = p.claim
		}
		out = append(out, opaqueConfig(sourceClaim, request, p.driver, params))
		for i, path := range p.devicePath {
			r.lose(path, "configuration of device %q only; a 1.31 driver has no per-device configuration and finds it in the one %s configuration of driver %q (docs/conversion.md)",
				asString(asMap(p.devices[i])["device"]), DeviceParametersKind, p.driver)
		}
	}
	return out
}

// driverConfig is what the v1alpha3 configuration says for one driver.
type driverConfig struct {
	class      interface{}            // parameters of the first FromClass entry
	classIdx   int                    // its index in devices.config
	classDups  []int                  // further FromClass entries with the same parameters (1.31's allocator writes one per request)
	claims     []interface{}          // parameters of the FromClaim entries that are not DeviceParameters
	claimIdx   []int                  // their index in devices.config
	claimReqs  [][]interface{}        // their requests (devices.config[].requests)
	claim      interface{}            // claimParameters of the DeviceParameters entry
	devices    map[string]interface{} // its per-device parameters
	devicesIdx int                    // its index in devices.config
	devicesReq []interface{}          // its requests
	hasDevices bool
	used       map[int]bool // entries represented in v1alpha2
}

// readDriverConfig reads driver's entries of devices.config and marks the
// first DeviceParameters entry used. The caller marks the others it uses.
func readDriverConfig(config []interface{}, driver string, used map[int]bool) driverConfig {
	dc := driverConfig{used: used}
	for i, c := range config {
		entry := asMap(c)
		opaque := asMap(entry["opaque"])
		if opaque == nil || asString(opaque["driver"]) != driver {
			continue
		}
		params := opaque["parameters"]
		switch asString(entry["source"]) {
		case sourceClass:
			switch {
			case dc.class == nil && params != nil:
				dc.class, dc.classIdx = params, i
			case params != nil && api.DeepEqualJSON(params, dc.class):
				dc.classDups = append(dc.classDups, i)
			}
		case sourceClaim:
			if devices, claim, ok := deviceParameters(params); ok {
				if !dc.hasDevices {
					dc.hasDevices, dc.devices, dc.claim, dc.devicesIdx = true, devices, claim, i
					dc.devicesReq = asSlice(entry["requests"])
					used[i] = true
				}
				continue
			}
			dc.claims = append(dc.claims, params)
			dc.claimIdx = append(dc.claimIdx, i)
			dc.claimReqs = append(dc.claimReqs, asSlice(entry["requests"]))
		}
	}
	return dc
}

// useClaim returns the k-th plain FromClaim parameters and marks the entry
// used, or nil.
func (dc *driverConfig) useClaim(k int) interface{} {
	if k >= len(dc.claims) {
		return nil
	}
	dc.used[dc.claimIdx[k]] = true
	return dc.claims[k]
}

// inScope reports whether a configuration entry naming requests applies to
// request. An entry that names none applies to every request.
func inScope(requests []interface{}, request string) bool {
	return len(requests) == 0 || slices.ContainsFunc(requests, func(q interface{}) bool { return asString(q) == request })
}

// claimReaches reports whether a 1.31 driver applies one of the plain
// FromClaim entries to the devices of request.
func (dc *driverConfig) claimReaches(request string) bool {
	return slices.ContainsFunc(dc.claimReqs, func(reqs []interface{}) bool { return inScope(reqs, request) })
}

// deviceParameters returns the per-device parameters, by device, and the
// claim parameters of a DeviceParameters object.
func deviceParameters(params interface{}) (map[string]interface{}, interface{}, bool) {
	m := asMap(params)
	if m["apiVersion"] != HandleDataAPIVersion || m["kind"] != DeviceParametersKind {
		return nil, nil, false
	}
	devices := map[string]interface{}{}
	for _, d := range asSlice(m["devices"]) {
		entry := asMap(d)
		name := asString(entry["device"])
		if _, dup := devices[name]; !dup && entry["parameters"] != nil {
			devices[name] = entry["parameters"]
		}
	}
	return devices, m["claimParameters"], true
}

// loseUnused reports the configuration entries not used in v1alpha2.
func loseUnused(config []interface{}, used map[int]bool, r *lossReport) {
	for i := range config {
		if !used[i] {
			r.lose(fmt.Sprintf("allocation.devices.config[%d]", i), "a 1.27–1.30 driver receives no configuration for it (kept in the restore annotation only)")
		}
	}
}
