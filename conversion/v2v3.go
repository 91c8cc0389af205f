package conversion

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/claimbridge/claimbridge/api"
)

// v1alpha2 and v1alpha3 differ in almost every field: a claim for one
// resource class became a list of device requests, and resource handles
// became allocated devices plus opaque configuration. docs/conversion.md
// has the field-by-field table.

// DefaultRequestName names the single device request that stands for the
// resource class of a v1alpha1 or v1alpha2 claim.
const DefaultRequestName = "request"

// HandleDevicePrefix starts the device name of a result that stands for
// the opaque resource handle i: "handle-<i>".
const HandleDevicePrefix = "handle-"

// Handle data that is not a JSON object is wrapped in an object of this
// apiVersion and kind to become configuration parameters.
const (
	HandleDataAPIVersion = api.Group + "/" + api.V1alpha2
	HandleDataKind       = "ResourceHandle"
)

// Values of DeviceAllocationConfiguration.source.
const (
	sourceClass = "FromClass"
	sourceClaim = "FromClaim"
)

// specV2ToV3: the resource class becomes the device class of one request
// for one device, with the defaults 1.31 needs. parametersRef and
// allocationMode are lost.
func specV2ToV3(in map[string]interface{}, r *lossReport) map[string]interface{} {
	out := map[string]interface{}{}
	if class, ok := in["resourceClassName"]; ok {
		out["devices"] = map[string]interface{}{
			"requests": []interface{}{map[string]interface{}{
				"name":            DefaultRequestName,
				"deviceClassName": api.DeepCopyJSONValue(class),
				"allocationMode":  exactCount,
				"count":           one,
			}},
		}
	}
	if ref := in["parametersRef"]; ref != nil {
		m := asMap(ref)
		group, kind := asString(m["apiGroup"]), asString(m["kind"])
		if kind == api.KindClaimParameters {
			r.lose("parametersRef", "ResourceClaimParameters have no v1alpha3 equivalent: a 1.31 scheduler allocates one device of class %q without the parameters' selectors and counts", asString(in["resourceClassName"]))
		} else {
			// A driver's own parameters object: name it as it is.
			what := strings.TrimSpace(fmt.Sprintf("%s %q", kind, asString(m["name"])))
			if group != "" {
				what += fmt.Sprintf(" (apiGroup %q)", group)
			}
			r.lose("parametersRef", "the claim parameters %s have no v1alpha3 equivalent: a 1.31 scheduler allocates one device of class %q without them", what, asString(in["resourceClassName"]))
		}
	}
	if mode := asString(in["allocationMode"]); mode != "" && mode != waitForFirstConsumer {
		r.lose("allocationMode", "1.31 has no allocation mode %q: the claim is allocated only when the first pod that uses it is scheduled", mode)
	}
	return out
}

// specV3ToV2: the device class of the first request becomes the resource
// class, with allocationMode WaitForFirstConsumer, 1.31's only mode. The
// rest is lost.
func specV3ToV2(in map[string]interface{}, r *lossReport) map[string]interface{} {
	out := map[string]interface{}{"allocationMode": waitForFirstConsumer}
	devices := asMap(in["devices"])
	requests := asSlice(devices["requests"])
	if len(requests) > 0 {
		first := asMap(requests[0])
		if class, ok := first["deviceClassName"]; ok {
			out["resourceClassName"] = api.DeepCopyJSONValue(class)
		}
		lossesOfRequest(first, r)
	}
	for i := 1; i < len(requests); i++ {
		r.lose(fmt.Sprintf("devices.requests[%d]", i), "a 1.27–1.30 claim asks for one resource class: this request is not allocated")
	}
	if len(asSlice(devices["constraints"])) > 0 {
		r.lose("devices.constraints", "1.27–1.30 has no constraints between devices")
	}
	if len(asSlice(devices["config"])) > 0 {
		r.lose("devices.config", "1.27–1.30 has no configuration in the claim spec: drivers get it from ResourceClaimParameters")
	}
	if asString(in["controller"]) != "" {
		r.lose("controller", "1.27–1.30 has no spec.controller: the resource class decides whether a control-plane driver or the scheduler allocates")
	}
	return out
}

// lossesOfRequest reports the settings of the first request that 1.30
// ignores: it allocates one device of the class.
func lossesOfRequest(req map[string]interface{}, r *lossReport) {
	if len(asSlice(req["selectors"])) > 0 {
		r.lose("devices.requests[0].selectors", "1.27–1.30 has no device selectors in the claim: any device of the class may be allocated")
	}
	mode := asString(req["allocationMode"])
	if mode != "" && mode != exactCount {
		r.lose("devices.requests[0].allocationMode", "1.27–1.30 allocates one device of the class, not %q", mode)
	} else if count, ok := req["count"]; ok && count != nil && !printsAs(count, 1) && !printsAs(count, 0) {
		// 1.31 defaults count 0 to 1.
		r.lose("devices.requests[0].count", "1.27–1.30 allocates one device of the class, not %v", count)
	}
	if req["adminAccess"] == true {
		r.lose("devices.requests[0].adminAccess", "1.27–1.30 has no admin access: the device is allocated exclusively")
	}
}

// printsAs reports whether fmt.Sprint(v) is the decimal n.
func printsAs(v interface{}, n int) bool {
	if f, ok := v.(float64); ok {
		return f == float64(n) // -0 too
	}
	return fmt.Sprint(v) == strconv.Itoa(n)
}

// statusV2ToV3 maps resource handles to allocated devices:
//   - every handle gives at least one result of its driver; a structured
//     handle gives one per named resource, in pool structuredData.nodeName;
//   - each driver's configuration becomes its devices.config entries;
//   - availableOnNodes becomes nodeSelector, and status.driverName becomes
//     allocation.controller for a classic allocation only: a 1.31
//     scheduler deallocates a claim without a controller itself, as a 1.30
//     one did structured allocations.
func statusV2ToV3(in, targetSpec map[string]interface{}, r *lossReport) map[string]interface{} {
	out, alloc, allocated := startStatus(in, r)
	if !allocated {
		return out
	}
	outAlloc := map[string]interface{}{}
	if ns, ok := alloc["availableOnNodes"]; ok {
		outAlloc["nodeSelector"] = r.copy(ns)
	}
	if alloc["shareable"] != true {
		// Absent is false.
		r.lose("allocation.shareable", "a 1.31 claim may be reserved by up to 32 consumers; this allocation was for one consumer only")
	}
	handles := asSlice(alloc["resourceHandles"])
	driverName := asString(in["driverName"])
	if driverName != "" && !anyStructured(handles) {
		outAlloc["controller"] = driverName
	}
	request := firstRequestName(targetSpec)
	var results []interface{}
	if len(handles) == 0 && driverName != "" {
		// No handles: the driver's kubelet plugin, without data.
		results = append(results, deviceResult(request, driverName, driverName, HandleDevicePrefix+"0"))
	}
	var params []*driverParams
	paramsOf := func(driver string) *driverParams {
		if i := slices.IndexFunc(params, func(p *driverParams) bool { return p.driver == driver }); i >= 0 {
			return params[i]
		}
		params = append(params, &driverParams{driver: driver})
		return params[len(params)-1]
	}
	for i, h := range handles {
		handle := asMap(h)
		driver := asString(handle["driverName"])
		p := paramsOf(driver)
		p.handles++
		reporting := r.reporting()
		path := "" // built only when losses are reported
		at := func(sub string) string {
			if !reporting {
				return ""
			}
			return path + sub
		}
		if reporting {
			path = fmt.Sprintf("allocation.resourceHandles[%d]", i)
		}
		structured, isStructured := handle["structuredData"].(map[string]interface{})
		if !isStructured || structured == nil {
			device := HandleDevicePrefix + strconv.Itoa(i)
			results = append(results, deviceResult(request, driver, driver, device))
			if data := asString(handle["data"]); data != "" {
				params := dataParameters(data)
				if asMap(params)["kind"] == HandleDataKind && asMap(params)["apiVersion"] == HandleDataAPIVersion {
					r.lose(at(".data"), "not a JSON object (or over %d bytes of JSON whose numbers are not canonical): a 1.31 driver receives it as opaque parameters wrapped in {apiVersion: %s, kind: %s, data: <the text>}, which it must unwrap", maxNonCanonicalDataBytes, HandleDataAPIVersion, HandleDataKind)
				}
				p.addDevice(device, params, at(".data"))
			}
			continue
		}
		p.structured = true
		pool := cmp.Or(asString(structured["nodeName"]), driver)
		p.class = keepParameters(p.class, structured["vendorClassParameters"], r, at(".structuredData.vendorClassParameters"))
		p.claim = keepParameters(p.claim, structured["vendorClaimParameters"], r, at(".structuredData.vendorClaimParameters"))
		named := 0
		for j, res := range asSlice(structured["results"]) {
			result := asMap(res)
			name := asString(asMap(result["namedResources"])["name"])
			if name != "" {
				results = append(results, deviceResult(request, driver, pool, name))
				named++
			}
			rp := result["vendorRequestParameters"]
			rpath := ""
			if reporting {
				rpath = fmt.Sprintf("%s.structuredData.results[%d].vendorRequestParameters", path, j)
			}
			switch m, isObj := rp.(map[string]interface{}); {
			case rp == nil:
			case !isObj || m == nil || name == "":
				r.lose(rpath, "only an object for a named resource can be device configuration in v1alpha3 (kept in the restore annotation only)")
			default:
				p.addDevice(name, r.copy(m), rpath)
			}
		}
		if named == 0 {
			results = append(results, deviceResult(request, driver, pool, HandleDevicePrefix+strconv.Itoa(i)))
		}
	}
	var config []interface{}
	for _, p := range params {
		config = append(config, p.config(request, r)...)
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

// anyStructured reports whether some handle has structuredData, which makes
// the allocation structured for a 1.30 scheduler.
func anyStructured(handles []interface{}) bool {
	return slices.ContainsFunc(handles, func(h interface{}) bool { return asMap(h)["structuredData"] != nil })
}

// keepParameters returns a driver's class or claim parameters: the first
// object found. Others are lost.
func keepParameters(kept, params interface{}, r *lossReport, path string) interface{} {
	m, isObj := params.(map[string]interface{})
	switch {
	case params == nil:
	case !isObj || m == nil:
		r.lose(path, "v1alpha3 configuration parameters must be an object (kept in the restore annotation only)")
	case kept == nil:
		return r.copy(m)
	case !api.EqualJSON(kept, m):
		r.lose(path, "differs from the parameters of the driver's first handle, which a 1.31 driver receives (kept in the restore annotation only)")
	}
	return kept
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

// dataParameters turns opaque handle data into configuration parameters: a
// JSON object as it is, anything else wrapped. Numbers are made canonical,
// as the apiserver stores them, so that the stored object maps back without
// a restore annotation. The exact text of non-canonical JSON travels in the
// restore annotation; to bound that, such JSON longer than
// maxNonCanonicalDataBytes is wrapped like non-JSON data.
func dataParameters(data string) interface{} {
	v, err := decodeJSONText(data, MaxHandleDataDepth)
	if m, ok := v.(map[string]interface{}); err == nil && ok && m != nil && !outOfRange(m) {
		if len(data) <= maxNonCanonicalDataBytes {
			c, _ := canonicalTree(m)
			return c
		}
		if canonical, err := CanonicalJSON(m); err == nil && string(canonical) == data {
			return m // its numbers are canonical
		}
	}
	return map[string]interface{}{"apiVersion": HandleDataAPIVersion, "kind": HandleDataKind, "data": data}
}

// outOfRange reports whether v holds a number the apiserver cannot store as
// written: beyond float64's range, which it refuses, or an integer beyond
// int64, which it stores as another value. As text it is kept as written.
func outOfRange(v interface{}) bool {
	switch v := v.(type) {
	case map[string]interface{}:
		for _, c := range v {
			if outOfRange(c) {
				return true
			}
		}
	case []interface{}:
		return slices.ContainsFunc(v, outOfRange)
	case json.Number:
		if _, err := strconv.ParseFloat(string(v), 64); err != nil {
			return true
		}
		if !strings.ContainsAny(string(v), ".eE") {
			_, err := strconv.ParseInt(string(v), 10, 64)
			return err != nil
		}
	}
	return false
}

// decodeJSONText decodes data, one JSON value, with UseNumber. Nesting
// deeper than maxDepth is an error, as is anything after the value.
func decodeJSONText(data string, maxDepth int) (interface{}, error) {
	if api.JSONNestsDeeper(data, maxDepth) {
		return nil, fmt.Errorf("JSON nests more than %d arrays and objects", maxDepth)
	}
	dec := json.NewDecoder(strings.NewReader(data))
	dec.UseNumber()
	var v interface{}
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if rest := strings.TrimLeft(data[dec.InputOffset():], " \t\r\n"); rest != "" {
		return nil, errors.New("invalid JSON: data after the value")
	}
	return v, nil
}

// MaxHandleDataDepth bounds the nesting of handle data that becomes a
// parameters object; deeper JSON stays wrapped text. As an object it could
// nest the claim deeper than the webhook accepts, and a 1.30 status write
// would fail.
const MaxHandleDataDepth = 64

// maxNonCanonicalDataBytes bounds the handle data whose exact text may travel
// in the restore annotation: 32 handles × 4 KiB stay below the size limit.
const maxNonCanonicalDataBytes = 4 << 10

// parametersData is the inverse of dataParameters.
func parametersData(params interface{}) string {
	m := asMap(params)
	if len(m) == 3 && m["apiVersion"] == HandleDataAPIVersion && m["kind"] == HandleDataKind {
		if data, ok := m["data"].(string); ok {
			return data
		}
	}
	data, _ := CanonicalJSON(params) // nil, so "", when params do not encode
	return string(bytes.TrimSpace(data))
}
