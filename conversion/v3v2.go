package conversion

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/claimbridge/claimbridge/api"
)

// statusV3ToV2 maps allocated devices back to resource handles so that 1.30
// consumers read the allocation as 1.31 consumers do:
//   - with a controller, it is classic: opaque handles of status.driverName
//     = controller. A driver whose devices are all "handle-<i>", or that has
//     DeviceParameters, gets one handle per result, others one per driver;
//   - without one, it is structured: one handle per driver, with a named
//     resource per device, on the node of the nodeSelector or the pool the
//     driver's results share.
func statusV3ToV2(in, _ map[string]interface{}, r *lossReport) map[string]interface{} {
	out, alloc, allocated := startStatus(in, r)
	if !allocated {
		return out
	}
	outAlloc := map[string]interface{}{"shareable": true}
	if ns, ok := alloc["nodeSelector"]; ok {
		outAlloc["availableOnNodes"] = r.copy(ns)
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

	used := map[int]bool{}
	var handles []interface{}
	for _, g := range groupByDriver(results) {
		dc := readDriverConfig(config, g.driver, used)
		switch {
		case controller != "" && (dc.hasDevices || allHandleDevices(g.results)):
			handles = append(handles, handlePerResult(g, &dc, r)...)
		case controller != "":
			handles = append(handles, classicHandle(g, &dc, r))
			loseWidenedScope(config, used, g, r)
		default:
			handles = append(handles, structuredHandle(g, &dc, nodeOfSelector(alloc["nodeSelector"]), r))
			loseWidenedScope(config, used, g, r)
		}
	}
	loseUnused(config, used, r)
	if len(results) == 0 {
		loseNoResults(driverName, r)
	}
	if len(handles) > 0 {
		outAlloc["resourceHandles"] = handles
	}
	out["allocation"] = outAlloc
	return out
}

// loseNoResults reports an allocation without results. A 1.27–1.30 kubelet
// reads it as one handle without data for status.driverName.
func loseNoResults(driverName string, r *lossReport) {
	if driverName == "" {
		r.lose("allocation.devices.results", "a 1.31 kubelet prepares nothing for an allocation without results; a 1.27–1.30 kubelet looks for the kubelet plugin named status.driverName, which this allocation has none of, and does not start the pod")
		return
	}
	r.lose("allocation.devices.results", "a 1.31 kubelet prepares nothing for an allocation without results; a 1.27–1.30 kubelet calls the kubelet plugin of %q with an empty handle", driverName)
}

// handlePerResult gives one opaque handle per result of the driver. Its
// data is its device's DeviceParameters entry, else the k-th plain FromClaim
// entry. A handle is reported when its data's entry does not apply to its
// request, or when it has no data although a FromClaim entry applies. A
// classic handle never carries the class's parameters.
func handlePerResult(g driverResults, dc *driverConfig, r *lossReport) []interface{} {
	loseDeviceClaimParameters(g, dc, r)
	var handles []interface{}
	for k, res := range g.results {
		handle := map[string]interface{}{"driverName": g.driver}
		request := asString(res["request"])
		var params interface{}
		var scope []interface{}
		if dc.hasDevices {
			params, scope = dc.devices[asString(res["device"])], dc.devicesReq
		} else if params = dc.useClaim(k); params != nil {
			scope = dc.claimReqs[k]
		}
		path := fmt.Sprintf("allocation.devices.results[%d]", g.index[k])
		switch {
		case params != nil:
			handle["data"] = parametersData(params)
			if !inScope(scope, request) {
				r.lose(path, "a 1.31 driver does not apply the parameters its 1.27–1.30 classic handle carries to this device: their configuration entry does not name its request %q", request)
			}
		case !dc.hasDevices && dc.claimReaches(request):
			r.lose(path, "a 1.31 driver applies the claim's configuration for %q to this device as well; its 1.27–1.30 classic handle carries no data (one FromClaim entry per handle)", g.driver)
		}
		handles = append(handles, handle)
	}
	return handles
}

// classicHandle gives the one opaque handle of a driver. Its data is the
// first plain FromClaim entry.
func classicHandle(g driverResults, dc *driverConfig, r *lossReport) map[string]interface{} {
	loseDeviceClaimParameters(g, dc, r)
	handle := map[string]interface{}{"driverName": g.driver}
	if params := dc.useClaim(0); params != nil {
		handle["data"] = parametersData(params)
	}
	for _, k := range g.index {
		r.lose(fmt.Sprintf("allocation.devices.results[%d]", k), "a 1.27–1.30 classic allocation has one opaque handle per driver: the kubelet plugin of %q is not told which devices were allocated", g.driver)
	}
	return handle
}

// loseDeviceClaimParameters reports the claimParameters of a
// DeviceParameters entry, which no classic handle carries.
func loseDeviceClaimParameters(g driverResults, dc *driverConfig, r *lossReport) {
	if dc.hasDevices && dc.claim != nil {
		r.lose(fmt.Sprintf("allocation.devices.config[%d].opaque.parameters.claimParameters", dc.devicesIdx),
			"a 1.27–1.30 classic handle carries one device's parameters: the kubelet plugin of %q does not receive these claim parameters (kept in the restore annotation only)", g.driver)
	}
}

// structuredHandle gives the structured handle of one driver's results.
func structuredHandle(g driverResults, dc *driverConfig, node string, r *lossReport) map[string]interface{} {
	structured := map[string]interface{}{}
	named := make([]interface{}, 0, len(g.results))
	for _, res := range g.results {
		result := map[string]interface{}{
			"namedResources": map[string]interface{}{"name": api.DeepCopyJSONValue(res["device"])},
		}
		if params := dc.devices[asString(res["device"])]; params != nil {
			result["vendorRequestParameters"] = r.copy(params)
		}
		named = append(named, result)
	}
	pool := asString(g.results[0]["pool"]) // a group has a result
	samePool := !slices.ContainsFunc(g.results, func(res map[string]interface{}) bool { return asString(res["pool"]) != pool })
	switch {
	case node != "":
		structured["nodeName"] = node
	case samePool && pool != "":
		structured["nodeName"] = pool
	}
	structured["results"] = named
	if dc.class != nil {
		structured["vendorClassParameters"] = r.copy(dc.class)
		dc.used[dc.classIdx] = true
		for _, i := range dc.classDups { // the same parameters: nothing a 1.30 driver misses
			dc.used[i] = true
		}
	}
	claim := dc.claim
	if !dc.hasDevices {
		claim = dc.useClaim(0)
	}
	if claim != nil {
		structured["vendorClaimParameters"] = r.copy(claim)
	}
	return map[string]interface{}{"driverName": g.driver, "structuredData": structured}
}

// loseWidenedScope reports the used configuration entries of g's driver
// that name requests some of g's results do not belong to: a 1.27–1.30
// handle's parameters reach every device of the handle.
func loseWidenedScope(config []interface{}, used map[int]bool, g driverResults, r *lossReport) {
	for i, c := range config {
		entry := asMap(c)
		scope := asSlice(entry["requests"])
		if !used[i] || len(scope) == 0 || asString(asMap(entry["opaque"])["driver"]) != g.driver {
			continue
		}
		// Copies of the entry (1.31 writes class configuration once per
		// request) scope it together.
		named, everywhere := map[string]bool{}, false
		for j, d := range config {
			other := asMap(d)
			if j != i && (!used[j] || asString(other["source"]) != asString(entry["source"]) || !api.DeepEqualJSON(other["opaque"], entry["opaque"])) {
				continue
			}
			requests := asSlice(other["requests"])
			everywhere = everywhere || len(requests) == 0
			for _, q := range requests {
				named[asString(q)] = true
			}
		}
		if everywhere {
			continue
		}
		var others []string
		for _, res := range g.results {
			if q := asString(res["request"]); !named[q] && !slices.Contains(others, q) {
				others = append(others, q)
			}
		}
		if len(others) > 0 {
			r.lose(fmt.Sprintf("allocation.devices.config[%d].requests", i),
				"a 1.31 driver applies these parameters to the devices of the requests named here only; the 1.27–1.30 handle of %q gives them to its devices of request(s) %s too", g.driver, strings.Join(others, ", "))
		}
	}
}

// nodeOfSelector returns the node a node selector names, if it selects
// exactly one node by name, else "".
func nodeOfSelector(ns interface{}) string {
	terms := asSlice(asMap(ns)["nodeSelectorTerms"])
	if len(terms) != 1 {
		return ""
	}
	term := asMap(terms[0])
	fields := asSlice(term["matchFields"])
	if len(asSlice(term["matchExpressions"])) > 0 || len(fields) != 1 {
		return ""
	}
	f := asMap(fields[0])
	values := asSlice(f["values"])
	if f["key"] != "metadata.name" || f["operator"] != "In" || len(values) != 1 {
		return ""
	}
	return asString(values[0])
}

type driverResults struct {
	driver  string
	results []map[string]interface{}
	index   []int // of each result in devices.results
}

func groupByDriver(results []interface{}) []driverResults {
	var groups []driverResults
	index := map[string]int{}
	for k, r := range results {
		result := asMap(r)
		driver := asString(result["driver"])
		i, ok := index[driver]
		if !ok {
			i = len(groups)
			index[driver] = i
			groups = append(groups, driverResults{driver: driver})
		}
		groups[i].results = append(groups[i].results, result)
		groups[i].index = append(groups[i].index, k)
	}
	return groups
}

func allHandleDevices(results []map[string]interface{}) bool {
	return !slices.ContainsFunc(results, func(r map[string]interface{}) bool {
		n, ok := strings.CutPrefix(asString(r["device"]), HandleDevicePrefix)
		_, err := strconv.Atoi(n)
		return !ok || err != nil
	})
}
