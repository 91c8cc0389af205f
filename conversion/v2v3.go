package conversion

import (
	"bytes"
	"encoding/json"
	"io"
	"strconv"
	"strings"
)

// v1alpha2 (1.27–1.30) and v1alpha3 (1.31) differ in almost every field: a
// claim for one resource class became a list of device requests, and per
// driver resource handles became a list of allocated devices plus opaque
// configuration. docs/conversion.md has the field-by-field table.

// DefaultRequestName names the single device request that stands for the
// resource class of a v1alpha1 or v1alpha2 claim.
const DefaultRequestName = "request"

// HandleDevicePrefix starts the device name of an allocation result that
// stands for an opaque resource handle (there is no device): "handle-<i>",
// with i the handle's index.
const HandleDevicePrefix = "handle-"

// Handle data that is not a JSON object cannot be opaque configuration
// parameters as it is; it travels wrapped in this object.
const (
	HandleDataAPIVersion = Group + "/" + V1alpha2
	HandleDataKind       = "ResourceHandle"
)

// Values of DeviceAllocationConfiguration.source.
const (
	sourceClass = "FromClass"
	sourceClaim = "FromClaim"
)

// specV2ToV3: the resource class becomes the device class of one request.
// parametersRef and allocationMode have no place in v1alpha3.
func specV2ToV3(in map[string]interface{}) map[string]interface{} {
	out := map[string]interface{}{}
	if class, ok := in["resourceClassName"]; ok {
		out["devices"] = map[string]interface{}{
			"requests": []interface{}{map[string]interface{}{
				"name":            DefaultRequestName,
				"deviceClassName": deepCopy(class),
			}},
		}
	}
	return out
}

// specV3ToV2: the device class of the first request becomes the resource
// class. Further requests, selectors, counts, constraints, configuration and
// the controller have no place in v1alpha2.
func specV3ToV2(in map[string]interface{}) map[string]interface{} {
	out := map[string]interface{}{}
	if requests := asSlice(asMap(in["devices"])["requests"]); len(requests) > 0 {
		if class, ok := asMap(requests[0])["deviceClassName"]; ok {
			out["resourceClassName"] = deepCopy(class)
		}
	}
	return out
}

// statusV2ToV3 maps an allocation of resource handles to allocated devices:
//   - every handle yields at least one result whose driver is the handle's
//     driverName; a structured handle yields one result per named resource
//     (device = name, pool = structuredData.nodeName);
//   - opaque handle data and vendor parameters become devices.config opaque
//     entries for the handle's driver;
//   - availableOnNodes becomes nodeSelector, status.driverName becomes
//     allocation.controller; shareable has no place (every v1alpha3 claim is
//     shareable).
func statusV2ToV3(in, targetSpec map[string]interface{}) map[string]interface{} {
	out := map[string]interface{}{}
	copyKeys(out, in, statusCommonKeys...)
	a, ok := in["allocation"]
	if !ok || a == nil {
		if ok {
			out["allocation"] = nil // null: not allocated
		}
		return out
	}
	alloc := asMap(a)
	outAlloc := map[string]interface{}{}
	if ns, ok := alloc["availableOnNodes"]; ok {
		outAlloc["nodeSelector"] = deepCopy(ns)
	}
	driverName := asString(in["driverName"])
	if driverName != "" {
		outAlloc["controller"] = driverName
	}
	request := firstRequestName(targetSpec)
	var results, config []interface{}
	handles := asSlice(alloc["resourceHandles"])
	if len(handles) == 0 && driverName != "" {
		// No handles: one kubelet plugin, named after the driver, without data.
		results = append(results, deviceResult(request, driverName, driverName, HandleDevicePrefix+"0"))
	}
	for i, h := range handles {
		handle := asMap(h)
		driver := asString(handle["driverName"])
		structured, isStructured := handle["structuredData"].(map[string]interface{})
		if !isStructured || structured == nil {
			results = append(results, deviceResult(request, driver, driver, HandleDevicePrefix+strconv.Itoa(i)))
			if data := asString(handle["data"]); data != "" {
				config = append(config, opaqueConfig(sourceClaim, request, driver, dataParameters(data)))
			}
			continue
		}
		pool := asString(structured["nodeName"])
		if pool == "" {
			pool = driver
		}
		config = appendParameters(config, sourceClass, request, driver, structured["vendorClassParameters"])
		config = appendParameters(config, sourceClaim, request, driver, structured["vendorClaimParameters"])
		named := 0
		for _, r := range asSlice(structured["results"]) {
			result := asMap(r)
			if name := asString(asMap(result["namedResources"])["name"]); name != "" {
				results = append(results, deviceResult(request, driver, pool, name))
				named++
			}
			config = appendParameters(config, sourceClaim, request, driver, result["vendorRequestParameters"])
		}
		if named == 0 {
			results = append(results, deviceResult(request, driver, pool, HandleDevicePrefix+strconv.Itoa(i)))
		}
	}
	devices := map[string]interface{}{}
	if len(results) > 0 {
		devices["results"] = results
	}
	if len(config) > 0 {
		devices["config"] = config
	}
	if len(devices) > 0 {
		outAlloc["devices"] = devices
	}
	out["allocation"] = outAlloc
	return out
}

// statusV3ToV2 maps allocated devices back to resource handles, one per
// driver (in order of first appearance): results of a controller-managed
// allocation whose devices are all "handle-<i>" become opaque handles with
// their configuration as data; other results become a structured handle with
// one named resource per device. The first FromClass and FromClaim
// configuration of a driver become its vendor class and claim parameters.
func statusV3ToV2(in, _ map[string]interface{}) map[string]interface{} {
	out := map[string]interface{}{}
	copyKeys(out, in, statusCommonKeys...)
	a, ok := in["allocation"]
	if !ok || a == nil {
		if ok {
			out["allocation"] = nil // null: not allocated
		}
		return out
	}
	alloc := asMap(a)
	outAlloc := map[string]interface{}{"shareable": true}
	if ns, ok := alloc["nodeSelector"]; ok {
		outAlloc["availableOnNodes"] = deepCopy(ns)
	}
	controller := asString(alloc["controller"])
	devices := asMap(alloc["devices"])
	results := asSlice(devices["results"])
	config := asSlice(devices["config"])

	driverName := controller
	if driverName == "" && len(results) > 0 {
		driverName = asString(asMap(results[0])["driver"])
	}
	if driverName != "" {
		out["driverName"] = driverName
	}

	var handles []interface{}
	for _, g := range groupByDriver(results) {
		if controller != "" && allHandleDevices(g.results) {
			claimConfigs := configsFor(config, sourceClaim, g.driver)
			for k := range g.results {
				handle := map[string]interface{}{"driverName": g.driver}
				if k < len(claimConfigs) {
					handle["data"] = parametersData(asMap(claimConfigs[k]["opaque"])["parameters"])
				}
				handles = append(handles, handle)
			}
			continue
		}
		structured := map[string]interface{}{}
		named := make([]interface{}, 0, len(g.results))
		pool, samePool := "", true
		for k, r := range g.results {
			named = append(named, map[string]interface{}{
				"namedResources": map[string]interface{}{"name": deepCopy(r["device"])},
			})
			p := asString(r["pool"])
			if k == 0 {
				pool = p
			} else if p != pool {
				samePool = false
			}
		}
		if samePool && pool != "" {
			structured["nodeName"] = pool
		}
		structured["results"] = named
		if c := configsFor(config, sourceClass, g.driver); len(c) > 0 {
			structured["vendorClassParameters"] = deepCopy(asMap(c[0]["opaque"])["parameters"])
		}
		if c := configsFor(config, sourceClaim, g.driver); len(c) > 0 {
			structured["vendorClaimParameters"] = deepCopy(asMap(c[0]["opaque"])["parameters"])
		}
		handles = append(handles, map[string]interface{}{"driverName": g.driver, "structuredData": structured})
	}
	if len(handles) > 0 {
		outAlloc["resourceHandles"] = handles
	}
	out["allocation"] = outAlloc
	return out
}

func firstRequestName(spec map[string]interface{}) string {
	if requests := asSlice(asMap(spec["devices"])["requests"]); len(requests) > 0 {
		if name, ok := asMap(requests[0])["name"].(string); ok {
			return name
		}
	}
	return DefaultRequestName
}

func deviceResult(request, driver, pool, device string) map[string]interface{} {
	return map[string]interface{}{"request": request, "driver": driver, "pool": pool, "device": device}
}

func opaqueConfig(source, request, driver string, parameters interface{}) map[string]interface{} {
	return map[string]interface{}{
		"source":   source,
		"requests": []interface{}{request},
		"opaque":   map[string]interface{}{"driver": driver, "parameters": parameters},
	}
}

// appendParameters adds vendor parameters as opaque configuration when they
// are a JSON object, the only kind of parameters v1alpha3 accepts.
func appendParameters(config []interface{}, source, request, driver string, params interface{}) []interface{} {
	if m, ok := params.(map[string]interface{}); ok && m != nil {
		return append(config, opaqueConfig(source, request, driver, deepCopy(m)))
	}
	return config
}

// dataParameters turns opaque handle data into configuration parameters: a
// JSON object as it is, anything else wrapped. The exact text of JSON that is
// not in canonical form (sorted keys, no spaces) travels in the restore
// annotation; to keep that bounded (32 handles of up to 16 KiB would not fit
// the annotation limit), non-canonical JSON longer than
// maxNonCanonicalDataBytes is wrapped like non-JSON data.
func dataParameters(data string) interface{} {
	dec := json.NewDecoder(strings.NewReader(data))
	dec.UseNumber()
	var v interface{}
	if err := dec.Decode(&v); err == nil {
		if m, ok := v.(map[string]interface{}); ok && m != nil {
			if _, err := dec.Token(); err == io.EOF { // nothing but whitespace follows
				if len(data) <= maxNonCanonicalDataBytes {
					return m
				}
				if canonical, err := canonicalJSON(m); err == nil && string(canonical) == data {
					return m
				}
			}
		}
	}
	return map[string]interface{}{"apiVersion": HandleDataAPIVersion, "kind": HandleDataKind, "data": data}
}

// maxNonCanonicalDataBytes bounds the handle data whose exact text may travel
// in the restore annotation: 32 handles × 4 KiB stay well below 256 KiB.
const maxNonCanonicalDataBytes = 4 << 10

// parametersData is the inverse of dataParameters.
func parametersData(params interface{}) string {
	m := asMap(params)
	if len(m) == 3 && m["apiVersion"] == HandleDataAPIVersion && m["kind"] == HandleDataKind {
		if data, ok := m["data"].(string); ok {
			return data
		}
	}
	data, err := canonicalJSON(params)
	if err != nil {
		return ""
	}
	return string(bytes.TrimSpace(data))
}

type driverResults struct {
	driver  string
	results []map[string]interface{}
}

func groupByDriver(results []interface{}) []driverResults {
	var groups []driverResults
	index := map[string]int{}
	for _, r := range results {
		result := asMap(r)
		driver := asString(result["driver"])
		i, ok := index[driver]
		if !ok {
			i = len(groups)
			index[driver] = i
			groups = append(groups, driverResults{driver: driver})
		}
		groups[i].results = append(groups[i].results, result)
	}
	return groups
}

func allHandleDevices(results []map[string]interface{}) bool {
	for _, r := range results {
		n, ok := strings.CutPrefix(asString(r["device"]), HandleDevicePrefix)
		if !ok {
			return false
		}
		if _, err := strconv.Atoi(n); err != nil {
			return false
		}
	}
	return true
}

func configsFor(config []interface{}, source, driver string) []map[string]interface{} {
	var out []map[string]interface{}
	for _, c := range config {
		entry := asMap(c)
		if asString(entry["source"]) == source && asString(asMap(entry["opaque"])["driver"]) == driver {
			out = append(out, entry)
		}
	}
	return out
}
