package migrate

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/claimbridge/claimbridge/api"
)

//go:generate go run ../hack/podfields podfields_generated.go

// podFieldErrors returns, for a Pod or workload, every pod spec field that
// the release serving version to does not have, as "<path>: <message>"; nil
// for other objects. See PodFieldConsequence for what such a field does.
func podFieldErrors(obj map[string]interface{}, target Target) []string {
	spec, prefix := podSpecOf(obj)
	var errs []string
	checkPodFields(spec, "", strings.TrimSuffix(prefix, "."), func(p string) string { return podFieldMessage(p, target) }, &errs)
	return errs
}

// podFieldGates are the pod spec fields that a release having them drops on
// a create while their feature gate is off.
var podFieldGates = map[string]string{"resources": "PodLevelResources"}

// podFieldWarnings returns, for a Pod or workload, every pod spec field that
// the target drops (podFieldGates) and every one that the newest release
// serving version to has and an older one serving it lacks (v1alpha2:
// 1.27–1.30, v1: 1.34 on), as "<path>: <message>".
func podFieldWarnings(obj map[string]interface{}, target Target) []string {
	spec, prefix := podSpecOf(obj)
	var warnings []string
	for _, p := range slices.Sorted(maps.Keys(podFieldGates)) {
		if _, ok := spec[p]; ok && podFieldReleases[p] <= target.Minor && !target.Enabled(podFieldGates[p]) {
			warnings = append(warnings, fmt.Sprintf("%s%s: Kubernetes 1.%d drops it on a create: %s", prefix, p, target.Minor, target.GateOff(podFieldGates[p])))
		}
	}
	if target.Oldest == 0 {
		return warnings
	}
	checkPodFields(spec, "", strings.TrimSuffix(prefix, "."), func(p string) string {
		since := podFieldReleases[p]
		if since <= target.Oldest || since > target.Minor {
			return ""
		}
		lacking := fmt.Sprintf("1.%d–1.%d", target.Oldest, since-1)
		if since-1 == target.Oldest {
			lacking = fmt.Sprintf("1.%d", target.Oldest)
		}
		return fmt.Sprintf("Kubernetes %s has no such field (it came in 1.%d): %s", lacking, since, podFieldConsequence)
	}, &warnings)
	return warnings
}

// podSpecOf is the pod spec of a Pod or workload (podSpecPaths) and its
// path in obj, ending in "."; nil when obj has none.
func podSpecOf(obj map[string]interface{}) (spec map[string]interface{}, prefix string) {
	apiVersion, _, _, kind, _ := api.TypeOf(obj)
	path, known := podSpecPaths[apiVersion+"/"+kind]
	if !known {
		return nil, ""
	}
	spec = obj
	for _, p := range path {
		if spec, _ = spec[p].(map[string]interface{}); spec == nil {
			return nil, ""
		}
		prefix += p + "."
	}
	return spec, prefix
}

// podFieldParents are the paths of podFieldReleases and podFieldsGone and
// their ancestors, without a list's "[]": those checkPodFields looks into.
var podFieldParents = func() map[string]bool {
	parents := map[string]bool{}
	for _, table := range []map[string]int{podFieldReleases, podFieldsGone} {
		for p := range table {
			for {
				parents[strings.TrimSuffix(p, "[]")] = true
				i := strings.LastIndex(p, ".")
				if i < 0 {
					break
				}
				p = p[:i]
			}
		}
	}
	return parents
}()

// checkPodFields adds to errs the fields in v, at table path tablePath and
// object path path, for which message gives a message.
func checkPodFields(v interface{}, tablePath, path string, message func(tablePath string) string, errs *[]string) {
	switch v := v.(type) {
	case map[string]interface{}:
		for _, k := range slices.Sorted(maps.Keys(v)) {
			tp, at := k, path+"."+k
			if tablePath != "" {
				tp = tablePath + "." + k
			} else if k == "initContainers" || k == "ephemeralContainers" {
				tp = "containers" // the table lists a container's fields as containers[]'s
			}
			if !podFieldParents[tp] {
				continue
			}
			if msg := message(tp); msg != "" {
				*errs = append(*errs, at+": "+msg)
				continue
			}
			checkPodFields(v[k], tp, at, message, errs)
		}
	case []interface{}:
		for i, e := range v {
			checkPodFields(e, tablePath+"[]", fmt.Sprintf("%s[%d]", path, i), message, errs)
		}
	}
}

// podFieldConsequence is what a PodFieldErrors field does to the target
// release's apiserver, for a message about output that is written anyway.
const podFieldConsequence = "its apiserver rejects it with strict field validation (kubectl's default) and drops it otherwise"

// podFieldMessage says, in target's terms, that its release has no field
// at PodSpec path p; "" when it has it.
func podFieldMessage(p string, target Target) string {
	since, gone := podFieldReleases[p], podFieldsGone[p]
	switch {
	case since > target.Minor:
		return fmt.Sprintf("Kubernetes %s has no such field (it came in 1.%d)", target.Releases, since)
	case gone != 0 && gone <= target.Minor:
		had := fmt.Sprintf("1.%d–1.%d", max(since, 26), gone-1)
		if max(since, 26) == gone-1 {
			had = fmt.Sprintf("1.%d", gone-1)
		}
		return fmt.Sprintf("Kubernetes 1.%d has no such field (%s had it)", target.Minor, had)
	}
	return ""
}
