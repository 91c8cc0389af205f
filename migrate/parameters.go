package migrate

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"

	"github.com/claimbridge/claimbridge/api"
)

// parametersAPI is the apiVersion of the 1.30 parameter kinds the input may carry.
const parametersAPI = api.UpstreamGroup + "/" + api.V1alpha2

// Index holds the 1.30 parameter objects and classes of the input, so that
// claims referring to them can be translated into device requests. Lookups
// use maps: an export has one parameters object per claim.
type Index struct {
	objects   []map[string]interface{}
	classes26 []map[string]interface{} // 1.26 (v1alpha1) ResourceClasses

	// The position in objects (or classes26) of the first object per key.
	direct    map[objectKey]int // kind, namespace, name
	generated map[generatedKey]int
	classes   map[string]int // 1.30 ResourceClasses by name
	classes1  map[string]int // 1.26 ResourceClasses by name
}

type objectKey struct{ kind, namespace, name string }

// generatedKey names an object by the vendor object it was generated from.
type generatedKey struct {
	kind, namespace          string
	group, fromKind, srcName string
}

// Add records obj when it is one of the 1.30 parameter kinds and reports
// whether it was; a 1.26 ResourceClass is recorded for classicDriver only.
func (x *Index) Add(obj map[string]interface{}) bool {
	if obj["apiVersion"] == api.UpstreamGroup+"/"+api.V1alpha1 && obj["kind"] == api.KindResourceClass {
		firstAt(&x.classes1, str(api.Metadata(obj), "name"), len(x.classes26))
		x.classes26 = append(x.classes26, obj) // for classicDriver only
		return false
	}
	if !isParameters(obj) || obj["apiVersion"] != parametersAPI {
		return false
	}
	meta := api.Metadata(obj)
	kind, _ := obj["kind"].(string)
	namespace, name := str(meta, "namespace"), str(meta, "name")
	at := len(x.objects)
	firstAt(&x.direct, objectKey{kind, namespace, name}, at)
	if gen, ok := obj["generatedFrom"].(map[string]interface{}); ok {
		firstAt(&x.generated, generatedKey{kind, namespace, str(gen, "apiGroup"), str(gen, "kind"), str(gen, "name")}, at)
	}
	if kind == api.KindResourceClass {
		firstAt(&x.classes, name, at)
	}
	x.objects = append(x.objects, obj)
	return true
}

// firstAt records at under key in *m unless a position is recorded there.
func firstAt[K comparable](m *map[K]int, key K, at int) {
	if *m == nil {
		*m = map[K]int{}
	}
	if _, ok := (*m)[key]; !ok {
		(*m)[key] = at
	}
}

// isParameters reports whether obj is a 1.30 ResourceClaimParameters,
// ResourceClassParameters or ResourceClass, or a 1.26 ResourceClass: kinds
// that 1.31 and later no longer serve.
func isParameters(obj map[string]interface{}) bool {
	switch obj["apiVersion"] {
	case parametersAPI:
		switch obj["kind"] {
		case api.KindClaimParameters, api.KindClassParameters, api.KindResourceClass:
			return true
		}
	case api.UpstreamGroup + "/" + api.V1alpha1:
		return obj["kind"] == api.KindResourceClass
	}
	return false
}

// find returns the object of kind in namespace that ref names, directly or
// through generatedFrom, as the 1.30 scheduler looks it up: of several, the
// first in the input.
func (x *Index) find(kind, namespace string, ref map[string]interface{}) map[string]interface{} {
	if x == nil || ref == nil {
		return nil
	}
	group, refKind, name := str(ref, "apiGroup"), str(ref, "kind"), str(ref, "name")
	direct, isDirect := x.direct[objectKey{kind, namespace, name}]
	isDirect = isDirect && group == api.UpstreamGroup && refKind == kind
	generated, isGenerated := x.generated[generatedKey{kind, namespace, group, refKind, name}]
	switch {
	case isDirect && (!isGenerated || direct < generated):
		return x.objects[direct]
	case isGenerated:
		return x.objects[generated]
	}
	return nil
}

func (x *Index) class(name string) map[string]interface{} {
	if x == nil {
		return nil
	}
	if i, ok := x.classes[name]; ok {
		return x.objects[i]
	}
	return nil
}

// anyClass returns the 1.30 or 1.26 ResourceClass named name in the input.
func (x *Index) anyClass(name string) map[string]interface{} {
	if c := x.class(name); c != nil || x == nil {
		return c
	}
	if i, ok := x.classes1[name]; ok {
		return x.classes26[i]
	}
	return nil
}

// refOf names an object by namespace and name as api.Ref does: without a
// namespace (kubectl takes it from its context) by its name alone.
func refOf(namespace, name string) string {
	if namespace == "" {
		return name
	}
	return namespace + "/" + name
}

func str(m map[string]interface{}, key string) string {
	s, _ := m[key].(string)
	return s
}

// request is one 1.31 device request being built.
type request struct {
	driver, selector string
	parameters       interface{} // per-request vendorParameters or nil
	count            int
}

func (r request) key() string {
	p, _ := json.Marshal(r.parameters)
	return r.driver + "\x00" + r.selector + "\x00" + string(p)
}

// translateParameters replaces the device requests derived from the class
// alone by those the 1.30 claim parameters asked for. It reports whether it
// handled a parametersRef, reporting on it in place of the conversion.
func translateParameters(src map[string]interface{}, from, kind string, out map[string]interface{}, idx *Index, r *changes) bool {
	srcSpec, outSpec := api.ClaimSpec(src, kind), api.ClaimSpec(out, kind)
	ref, _ := srcSpec["parametersRef"].(map[string]interface{})
	if ref == nil || outSpec == nil || (from != api.V1alpha1 && from != api.V1alpha2) {
		return false
	}
	specPath := api.ClaimSpecPath(kind)
	className := str(srcSpec, "resourceClassName")
	ns := str(api.Metadata(src), "namespace")
	lost := fmt.Sprintf("the migrated claim asks for one device of class %s with no selector and no configuration", className)
	// The referenced object is in the claim's namespace, if it has one.
	refName := fmt.Sprintf("%s %s (apiGroup %q)", str(ref, "kind"), refOf(ns, str(ref, "name")), str(ref, "apiGroup"))
	if from == api.V1alpha1 {
		// 1.26 has no in-tree parameters: the reference names a driver's
		// own object, which only that driver's 1.26 controller reads.
		r.Warnings = append(r.Warnings, fmt.Sprintf("%s.parametersRef: %s is a 1.26 driver's own claim parameters, which no 1.31+ component reads and migrate cannot translate; the reference is dropped and %s",
			specPath, refName, lost))
		return true
	}
	params := idx.find(api.KindClaimParameters, ns, ref)
	if params == nil {
		missing := "no 1.30 ResourceClaimParameters generated from it is in the input (add them from kubectl get resourceclaimparameters -A -o yaml if its driver uses structured parameters; a classic driver's own parameters cannot be translated)"
		if str(ref, "apiGroup") == api.UpstreamGroup && str(ref, "kind") == api.KindClaimParameters {
			missing = "it is not in the input (add it from kubectl get resourceclaimparameters -A -o yaml)"
		}
		r.Warnings = append(r.Warnings, fmt.Sprintf("%s.parametersRef: %s: %s; the reference is dropped and %s",
			specPath, refName, missing, lost))
		return true
	}
	// Findings in the parameters name them and their own field path.
	paramsPath := fmt.Sprintf("%s.parametersRef (ResourceClaimParameters %s/%s) driverRequests", specPath, ns, str(api.Metadata(params), "name"))
	if kind == api.KindClaim && params["shareable"] != true {
		// A 1.30 allocation without shareable had one consumer at a time;
		// 1.31+ claims are always shared. A template's claims have one pod.
		r.Warnings = append(r.Warnings, fmt.Sprintf("%s.parametersRef (ResourceClaimParameters %s/%s) shareable: false: a 1.30 allocation of this claim served one pod at a time; a 1.31+ claim may be reserved by up to 32 pods at once (256 from 1.33) and has no way to say otherwise",
			specPath, ns, str(api.Metadata(params), "name")))
	}
	// The class driver's filter is in the DeviceClass (deviceClassFor), as in
	// 1.30; a request for another driver gets that driver's filter itself.
	class := idx.class(className)
	if class["structuredParameters"] != true {
		class = nil // the 1.30 scheduler applied the filters of a structured class only
	}
	filters := classFilters(idx, class, nil)
	classDriver := str(class, "driverName")
	delete(filters, classDriver)
	var reqs []request
	var driverConfig []map[string]interface{}
	drivers, _ := params["driverRequests"].([]interface{})
	seenDriver := map[string]bool{}
	for i, d := range drivers {
		dr, _ := d.(map[string]interface{})
		driver := str(dr, "driverName")
		first := !seenDriver[driver]
		seenDriver[driver] = true
		items, _ := dr["requests"].([]interface{})
		// The 1.30 scheduler gave a driver the vendorParameters of the first
		// driverRequests entry naming it, and those only.
		if vp := dr["vendorParameters"]; vp != nil {
			if first {
				driverConfig = append(driverConfig, map[string]interface{}{"driver": driver, "parameters": vp})
			} else {
				r.Warnings = append(r.Warnings, fmt.Sprintf("%s[%d].vendorParameters: a further entry for driver %s, whose vendorParameters the 1.30 scheduler did not pass on (it took the first entry's); not configured", paramsPath, i, driver))
			}
		}
		for j, it := range items {
			item, _ := it.(map[string]interface{})
			named, _ := item["namedResources"].(map[string]interface{})
			if named == nil {
				r.Warnings = append(r.Warnings, fmt.Sprintf("%s[%d].requests[%d]: only namedResources requests can be translated; the request is left out", paramsPath, i, j))
				continue
			}
			sel, notes, err := translateSelector(driver, str(named, "selector"))
			if err != nil {
				r.Warnings = append(r.Warnings, fmt.Sprintf("%s[%d].requests[%d].namedResources.selector %q: %v; the device is requested without it", paramsPath, i, j, str(named, "selector"), err))
				sel = ""
			}
			for _, n := range notes {
				r.Warnings = append(r.Warnings, fmt.Sprintf("%s[%d].requests[%d]: %s", paramsPath, i, j, n))
			}
			reqs = addRequest(reqs, request{driver: driver, selector: sel, parameters: item["vendorParameters"], count: 1})
		}
	}
	if len(reqs) == 0 {
		r.Warnings = append(r.Warnings, specPath+".parametersRef: the parameters ask for no translatable device: "+lost)
		return true
	}
	if i := slices.IndexFunc(reqs, func(q request) bool { return q.driver != classDriver }); classDriver != "" && i >= 0 {
		r.Warnings = append(r.Warnings, fmt.Sprintf("%s.parametersRef (ResourceClaimParameters %s/%s): devices of driver %s, requested through class %s, whose DeviceClass selects the devices of driver %s only: a 1.31+ scheduler can never allocate that request, and the pods stay pending; create a DeviceClass for driver %s's devices and name it in the request",
			specPath, ns, str(api.Metadata(params), "name"), reqs[i].driver, className, classDriver, reqs[i].driver))
	}
	names := requestNames(len(reqs))
	devices := map[string]interface{}{"requests": buildRequests(reqs, names, className, filters)}
	if cfg := buildConfig(reqs, names, driverConfig); len(cfg) > 0 {
		devices["config"] = cfg
	}
	outSpec["devices"] = devices
	r.Changed = append(r.Changed, fmt.Sprintf("%s.devices: %d request(s) translated from ResourceClaimParameters %s", specPath, len(reqs), str(api.Metadata(params), "name")))
	return true
}

// addRequest merges identical requests into one with a count.
func addRequest(reqs []request, n request) []request {
	if i := slices.IndexFunc(reqs, func(q request) bool { return q.key() == n.key() }); i >= 0 {
		reqs[i].count++
		return reqs
	}
	return append(reqs, n)
}

func requestNames(n int) []string {
	if n == 1 {
		return []string{"request"}
	}
	names := make([]string, n)
	for i := range names {
		names[i] = "request-" + strconv.Itoa(i)
	}
	return names
}

func buildRequests(reqs []request, names []string, className string, filters map[string]string) []interface{} {
	out := make([]interface{}, 0, len(reqs))
	for i, q := range reqs {
		selectors := []interface{}{cel(fmt.Sprintf("device.driver == %s", strconv.Quote(q.driver)))}
		if f := filters[q.driver]; f != "" {
			selectors = append(selectors, cel(f))
		}
		if q.selector != "" {
			selectors = append(selectors, cel(q.selector))
		}
		out = append(out, map[string]interface{}{
			"name": names[i], "deviceClassName": className,
			"allocationMode": "ExactCount", "count": int64(q.count),
			"selectors": selectors,
		})
	}
	return out
}

func cel(expr string) map[string]interface{} {
	return map[string]interface{}{"cel": map[string]interface{}{"expression": expr}}
}

// buildConfig: a driver's vendorParameters apply to all its requests, then
// per-request vendorParameters to theirs (later entries are more specific;
// 1.31 drivers apply configs in order).
func buildConfig(reqs []request, names []string, driverConfig []map[string]interface{}) []interface{} {
	var out []interface{}
	for _, dc := range driverConfig {
		var rs []interface{}
		for i, q := range reqs {
			if q.driver == dc["driver"] {
				rs = append(rs, names[i])
			}
		}
		if len(rs) > 0 {
			out = append(out, map[string]interface{}{"requests": rs, "opaque": dc})
		}
	}
	for i, q := range reqs {
		if q.parameters != nil {
			out = append(out, map[string]interface{}{"requests": []interface{}{names[i]},
				"opaque": map[string]interface{}{"driver": q.driver, "parameters": q.parameters}})
		}
	}
	return out
}

// classFilters returns per driver the translated first filter of a 1.30
// class's parameters, as the 1.30 scheduler applied it to every claim of
// the class. r (nil for none) gets what cannot be applied.
func classFilters(idx *Index, class map[string]interface{}, r *changes) map[string]string {
	warn := func(format string, args ...interface{}) {
		if r != nil {
			r.Warnings = append(r.Warnings, fmt.Sprintf(format, args...))
		}
	}
	className := str(api.Metadata(class), "name")
	ref, _ := class["parametersRef"].(map[string]interface{})
	params := idx.find(api.KindClassParameters, str(ref, "namespace"), ref)
	if params == nil {
		if ref != nil {
			warn("ResourceClass %s: its parameters %s %s/%s are not in the input; their filters are not applied", className, str(ref, "kind"), str(ref, "namespace"), str(ref, "name"))
		}
		return nil
	}
	if vp, _ := params["vendorParameters"].([]interface{}); len(vp) > 0 {
		warn("ResourceClass %s: the vendorParameters of its parameters belong in the config of the 1.31 DeviceClass %s; they are not copied into it", className, className)
	}
	out, seen := map[string]string{}, map[string]bool{}
	filters, _ := params["filters"].([]interface{})
	for i, f := range filters {
		fm, _ := f.(map[string]interface{})
		named, _ := fm["namedResources"].(map[string]interface{})
		driver := str(fm, "driverName")
		if named == nil {
			continue
		}
		if seen[driver] {
			warn("ResourceClass %s filters[%d]: a further filter for driver %s, which the 1.30 scheduler did not apply (it took the first); not applied", className, i, driver)
			continue
		}
		seen[driver] = true // the first, whether or not it translates
		sel, _, err := translateSelector(driver, str(named, "selector"))
		if err != nil {
			warn("ResourceClass %s filters[%d]: %v; not applied", className, i, err)
			continue
		}
		out[driver] = sel
	}
	return out
}
