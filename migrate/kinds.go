package migrate

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/conversion"
	"github.com/claimbridge/claimbridge/judge"
	"github.com/claimbridge/claimbridge/report"
)

// basicVersions hold a ResourceSlice device's fields under device.basic;
// v1beta2 and v1 hold them on the device itself.
var basicVersions = []string{api.V1alpha3, api.V1beta1}

// convertKind gives obj, a DeviceClass, ResourceSlice or DeviceTaintRule
// of version from (judge.KindOf), the version to. What to cannot hold
// is kept in a restore annotation, as for claims, and named in lost;
// converting back restores it. errs name, at obj's paths, the fields that
// from does not have: then nothing is converted.
func convertKind(obj map[string]interface{}, from, kind, to string) (out map[string]interface{}, lost, errs []string) {
	// What the newest k8s.io/api types decode: 1.31's quantities in the
	// shape of later versions, without the v1alpha3 fields they lack.
	own := api.DeepCopyJSON(obj)
	if from == api.V1alpha3 {
		for _, e := range judge.V1alpha3Capacities(own) {
			errs = append(errs, e.Error())
		}
		ownSpec, _ := own["spec"].(map[string]interface{})
		ownSelector, _ := ownSpec["deviceSelector"].(map[string]interface{})
		delete(ownSpec, "suitableNodes")
		delete(ownSelector, "deviceClassName")
		delete(ownSelector, "selectors")
	}
	unknown, err := judge.UnknownFields(own, from, kind)
	if err != nil {
		return nil, nil, []string{err.Error()}
	}
	for _, e := range unknown {
		msg := fmt.Sprintf("%s: a field that %s/%s does not have", e.Field, api.UpstreamGroup, from)
		if kind == api.KindResourceSlice && strings.HasSuffix(e.Field, "].basic") {
			msg += fmt.Sprintf(" (%s has the fields of basic on the device: remove the basic wrapper)", from)
		}
		errs = append(errs, msg)
	}
	if len(errs) > 0 || from == to {
		return obj, nil, errs
	}
	// Only v1alpha3 and the later versions hold different fields. A
	// v1alpha3 object converted from a later version gets back what it
	// kept of that version first.
	src, stale := obj, ""
	for _, v := range []string{api.V1beta1, api.V1beta2, api.V1} {
		if from == api.V1alpha3 && api.HasRestoreData(obj, v) {
			src, _ = mapKind(obj, kind, from, v)
			if conversion.RestoreSpec(src, v) {
				stale = v
			}
			from = v
			break
		}
	}
	out, lost = mapKind(src, kind, from, to)
	if to == api.V1alpha3 && conversion.RestoreSpec(out, to) {
		stale = to
	}
	if stale != "" {
		lost = append(lost, fmt.Sprintf("metadata.annotations[%s]: made for another spec (changed since it was converted): not applied, removed", api.RestoreAnnotation(stale)))
	}
	if to == api.V1alpha3 || from == api.V1alpha3 {
		back, _ := mapKind(out, kind, to, from)
		if err := conversion.KeepSpec(out, from, back["spec"], src["spec"]); err != nil {
			return nil, nil, []string{err.Error()}
		}
	}
	return out, lost, nil
}

// mapKind maps obj, a DeviceClass, ResourceSlice or DeviceTaintRule of
// version from, to version to, without what to cannot hold: lost names it.
// obj is not modified.
func mapKind(obj map[string]interface{}, kind, from, to string) (out map[string]interface{}, lost []string) {
	out = api.DeepCopyJSON(obj)
	out["apiVersion"] = api.UpstreamGroup + "/" + to
	spec, _ := out["spec"].(map[string]interface{})
	drop := func(m map[string]interface{}, path, why string, fields ...string) {
		for _, f := range fields {
			if _, ok := m[f]; ok && from == api.V1alpha3 && to != api.V1alpha3 {
				delete(m, f)
				lost = append(lost, fmt.Sprintf("%s.%s: a field that %s/%s does not have%s: kept only in a restore annotation", path, f, api.UpstreamGroup, to, why))
			}
		}
	}
	switch kind {
	case api.KindDeviceClass:
		drop(spec, "spec", " (classic DRA)", "suitableNodes")
	case api.KindDeviceTaintRule:
		selector, _ := spec["deviceSelector"].(map[string]interface{})
		drop(selector, "spec.deviceSelector", " (1.35 removed it from the rules): without it the rule would taint other devices", "deviceClassName", "selectors")
	case api.KindResourceSlice:
		lost = convertDevices(spec, from, to)
	}
	return out, lost
}

// convertDevices gives the devices of spec, a ResourceSlice's of version
// from, the shape of version to: their fields under basic in v1alpha3 and
// v1beta1, on the device in v1beta2 and v1; in v1alpha3 a capacity is a
// quantity, later {value: quantity}. lost names, at from's paths, what a
// v1alpha3 capacity cannot hold (dropped).
func convertDevices(spec map[string]interface{}, from, to string) (lost []string) {
	toBasic, fromBasic := slices.Contains(basicVersions, to), slices.Contains(basicVersions, from)
	devices, _ := spec["devices"].([]interface{})
	for i, d := range devices {
		device, _ := d.(map[string]interface{})
		fields, path := device, fmt.Sprintf("spec.devices[%d]", i)
		if fromBasic {
			fields, _ = device["basic"].(map[string]interface{})
			path += ".basic"
		}
		capacity, _ := fields["capacity"].(map[string]interface{})
		for _, name := range slices.Sorted(maps.Keys(capacity)) {
			c, _ := capacity[name].(map[string]interface{})
			switch {
			case from == api.V1alpha3:
				capacity[name] = map[string]interface{}{"value": capacity[name]}
			case to == api.V1alpha3:
				for _, f := range slices.Sorted(maps.Keys(c)) {
					if f != "value" {
						lost = append(lost, fmt.Sprintf("%s.capacity[%s].%s: a field that %s/%s does not have (a 1.31 capacity is a quantity alone): kept only in a restore annotation", path, name, f, api.UpstreamGroup, to))
					}
				}
				capacity[name] = c["value"]
			}
		}
		if toBasic == fromBasic {
			continue
		}
		moved := map[string]interface{}{}
		maps.Copy(moved, fields)
		delete(moved, "name")
		converted := map[string]interface{}{"basic": moved}
		if !toBasic {
			converted = moved
		}
		if name, ok := device["name"]; ok {
			converted["name"] = name
		}
		devices[i] = converted
	}
	return lost
}

// judgeKind converts obj, a DeviceClass, ResourceSlice or DeviceTaintRule
// of version from, to the version in which the target release creates
// kind, and judges it by that release's rules as validate does
// (judge.CheckKind). What cannot be converted refuses obj; what the
// release rejects is an error, and refuses obj when refuseRejected
// (migrate), as for claims; what it drops is a warning. v holds what was
// said before.
func judgeKind(v report.Verdict, obj map[string]interface{}, from, kind string, target Target, refuseRejected bool) report.Verdict {
	to := api.CreatedIn(kind, target.Minor)
	out, lost, errs := convertKind(obj, from, kind, to)
	if len(errs) > 0 && from != to {
		return refuse(&v, obj, fmt.Sprintf("not converted to %s/%s: ", api.UpstreamGroup, to)+strings.Join(errs, "; "), false)
	}
	var refusals []string
	for _, l := range lost {
		if kind == api.KindDeviceTaintRule && !strings.HasPrefix(l, "metadata.") { // a rule without its selectors taints more devices
			refusals = append(refusals, l)
		} else {
			say(&v, report.Warning, obj, l)
		}
	}
	if len(errs) == 0 {
		var warnings []string
		errs, warnings = judge.CheckKind(out, target.Cluster, kind)
		say(&v, report.Warning, obj, warnings...)
	}
	if len(errs) > 0 {
		refusals = append(refusals, rejectedBy(target, errs))
	}
	if refuseRejected && len(refusals) > 0 {
		return refuse(&v, obj, strings.Join(refusals, "; "), false)
	}
	say(&v, report.Error, obj, refusals...)
	v.Object = out
	return v
}

// migrateTaintRule migrates a DeviceTaintRule as judgeKind converts it,
// without the metadata the old cluster set and its status.
func migrateTaintRule(obj map[string]interface{}, from string, target Target, opts Options) report.Verdict {
	var r changes
	in := api.DeepCopyJSON(obj)
	dropServerSet(api.Metadata(in), opts, &r)
	r.drop(in, "status", "status (the rule's conditions, set again by the new cluster)")
	if to := api.CreatedIn(api.KindDeviceTaintRule, target.Minor); to != from {
		r.Changed = append(r.Changed, fmt.Sprintf("apiVersion: %s/%s -> %s/%s (Kubernetes %s)", api.UpstreamGroup, from, api.UpstreamGroup, to, target.Releases))
	}
	v := judgeKind(report.Verdict{Outcome: report.Converted}, in, from, api.KindDeviceTaintRule, target, true)
	if v.Outcome != report.Refused {
		var said report.Verdict
		addReport(&said, obj, r)
		v.Findings = append(said.Findings, v.Findings...)
	}
	return v
}
