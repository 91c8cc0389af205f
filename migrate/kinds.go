package migrate

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/gacheck"
	"github.com/claimbridge/claimbridge/report"
)

const (
	kindResourceSlice   = "ResourceSlice"
	kindDeviceTaintRule = "DeviceTaintRule"
)

// basicVersions hold a ResourceSlice device's fields under device.basic;
// v1beta2 and v1 hold them on the device itself.
var basicVersions = []string{api.V1alpha3, api.V1beta1}

// convertKind gives obj, a DeviceClass, ResourceSlice or DeviceTaintRule
// of version from (gacheck.KindOf), the version to, keeping every field.
// errs name, at obj's paths, the fields that from does not have or that to
// cannot hold: then nothing is converted.
func convertKind(obj map[string]interface{}, from, kind, to string) (out map[string]interface{}, errs []string) {
	// What the newest k8s.io/api types decode: 1.31's quantities in the
	// shape of later versions, without the v1alpha3 fields they lack.
	own := api.DeepCopyJSON(obj)
	if from == api.V1alpha3 {
		for _, e := range gacheck.V1alpha3Capacities(own) {
			errs = append(errs, e.Error())
		}
		ownSpec, _ := own["spec"].(map[string]interface{})
		ownSelector, _ := ownSpec["deviceSelector"].(map[string]interface{})
		delete(ownSpec, "suitableNodes")
		delete(ownSelector, "deviceClassName")
		delete(ownSelector, "selectors")
	}
	unknown, err := gacheck.UnknownFields(own, from, kind)
	if err != nil {
		return nil, []string{err.Error()}
	}
	for _, e := range unknown {
		msg := fmt.Sprintf("%s: a field that %s/%s does not have", e.Field, api.UpstreamGroup, from)
		if kind == kindResourceSlice && strings.HasSuffix(e.Field, "].basic") {
			msg += fmt.Sprintf(" (%s has the fields of basic on the device: remove the basic wrapper)", from)
		}
		errs = append(errs, msg)
	}
	if len(errs) > 0 || from == to {
		return obj, errs
	}
	out = api.DeepCopyJSON(obj)
	spec, _ := out["spec"].(map[string]interface{})
	selector, _ := spec["deviceSelector"].(map[string]interface{})
	out["apiVersion"] = api.UpstreamGroup + "/" + to
	switch kind {
	case kindDeviceClass:
		if _, lacking := convertDeviceClass(obj, to); lacking != "" {
			errs = append(errs, fmt.Sprintf("spec.%s: a field that %s/%s does not have", lacking, api.UpstreamGroup, to))
		}
	case kindDeviceTaintRule:
		for _, f := range []string{"deviceClassName", "selectors"} {
			if _, ok := selector[f]; ok && to != api.V1alpha3 {
				errs = append(errs, fmt.Sprintf("spec.deviceSelector.%s: a field that %s/%s does not have (1.35 removed it from the rules): without it the rule would taint other devices",
					f, api.UpstreamGroup, to))
			}
		}
	case kindResourceSlice:
		errs = convertDevices(spec, from, to)
	}
	return out, errs
}

// convertDevices gives the devices of spec, a ResourceSlice's of version
// from, the shape of version to: their fields under basic in v1alpha3 and
// v1beta1, on the device in v1beta2 and v1; in v1alpha3 a capacity is a
// quantity, later {value: quantity}. errs name, at from's paths,
// what a v1alpha3 capacity cannot hold.
func convertDevices(spec map[string]interface{}, from, to string) (errs []string) {
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
						errs = append(errs, fmt.Sprintf("%s.capacity[%s].%s: a field that %s/%s does not have (a 1.31 capacity is a quantity alone)", path, name, f, api.UpstreamGroup, to))
					}
				}
				capacity[name] = c["value"]
			}
		}
		if toBasic == fromBasic {
			continue
		}
		moved := maps.Clone(fields)
		if moved == nil {
			moved = map[string]interface{}{}
		}
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
	return errs
}

// judgeKind converts obj, a DeviceClass, ResourceSlice or DeviceTaintRule
// of version from, to the version in which the target release creates
// kind, and judges it by that release's rules as validate does
// (gacheck.CheckKind). What cannot be converted refuses obj; what the
// release rejects is an error, and refuses obj when refuseRejected
// (migrate), as for claims; what it drops is a warning. v holds what was
// said before.
func judgeKind(v report.Verdict, obj map[string]interface{}, from, kind string, target Target, refuseRejected bool) report.Verdict {
	to := gacheck.ServedVersion(target.Minor, kind)
	out, errs := convertKind(obj, from, kind, to)
	if len(errs) > 0 && from != to {
		return refuse(&v, obj, fmt.Sprintf("not converted to %s/%s: ", api.UpstreamGroup, to)+strings.Join(errs, "; "), false)
	}
	if len(errs) == 0 {
		var warnings []string
		errs, warnings = gacheck.CheckKind(out, target.Minor, kind)
		for _, w := range warnings {
			say(&v, report.Warning, obj, "", w)
		}
	}
	if len(errs) > 0 {
		rejected := fmt.Sprintf("a Kubernetes 1.%d apiserver would reject it: %s", target.Minor, strings.Join(errs, "; "))
		if refuseRejected {
			return refuse(&v, obj, rejected, false)
		}
		say(&v, report.Error, obj, "", rejected)
	}
	v.Object = out
	return v
}

// migrateTaintRule migrates a DeviceTaintRule as judgeKind converts it,
// without the metadata the old cluster set and its status.
func migrateTaintRule(obj map[string]interface{}, from string, target Target, opts Options) report.Verdict {
	var r changes
	in := api.DeepCopyJSON(obj)
	if meta, ok := in["metadata"].(map[string]interface{}); ok {
		dropServerSet(meta, opts, &r)
	}
	if _, ok := in["status"]; ok {
		delete(in, "status")
		r.Dropped = append(r.Dropped, "status (the rule's conditions, set again by the new cluster)")
	}
	if to := gacheck.ServedVersion(target.Minor, kindDeviceTaintRule); to != from {
		r.Changed = append(r.Changed, fmt.Sprintf("apiVersion: %s/%s -> %s/%s (Kubernetes %s)", api.UpstreamGroup, from, api.UpstreamGroup, to, target.Releases))
	}
	v := judgeKind(report.Verdict{Outcome: report.Converted}, in, from, kindDeviceTaintRule, target, true)
	if v.Outcome != report.Refused {
		var said report.Verdict
		addReport(&said, obj, r)
		v.Findings = append(said.Findings, v.Findings...)
	}
	return v
}
