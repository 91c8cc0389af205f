package migrate

import (
	"fmt"

	"github.com/claimbridge/claimbridge/api"
)

// classicWarningOf says, for a 1.26–1.30 claim or template migrated to
// 1.31+, that its devices came from a classic DRA driver, which the target's
// scheduler no longer uses: it allocates from ResourceSlices, which a classic
// driver does not publish. Empty when the input does not show a classic
// allocation, a classic class or a 1.26 claim, and for a target before 1.31.
// With unsure, also for a v1alpha2 claim or template that may be classic
// (maybeClassic), saying so. Without idx, it judges obj alone, without its
// class.
func classicWarningOf(obj map[string]interface{}, from, kind, to string, idx *Index, unsure bool) string {
	if from != api.V1alpha1 && from != api.V1alpha2 || api.VersionIndex(to) < api.VersionIndex(api.V1alpha3) {
		return ""
	}
	driver, classic := classicDriver(obj, from, kind, idx)
	if classic {
		unsure = false
	} else if !unsure || !maybeClassic(obj, from, kind, idx) {
		return ""
	}
	specPath := api.ClaimSpecPath(kind)
	who := "a classic DRA driver (1.26–1.30 control-plane controller)"
	if driver != "" {
		who = fmt.Sprintf("the classic DRA driver %q (1.26–1.30 control-plane controller)", driver)
	}
	if unsure {
		// 1.27–1.29 had only classic DRA; a 1.30 class may be either.
		who = fmt.Sprintf("a classic DRA driver (1.26–1.30 control-plane controller) unless its ResourceClass %q has structuredParameters: true (1.30; the input has no such class to tell: 1.27–1.29 have only classic DRA)", str(api.ClaimSpec(obj, kind), "resourceClassName"))
	}
	if to == api.V1alpha3 {
		set := "set " + specPath + ".controller to the class's driver name"
		if driver != "" {
			set = fmt.Sprintf("set %s.controller: %s", specPath, driver)
		}
		return fmt.Sprintf("%s.controller: the claim's devices come from %s; a 1.31 claim without controller is allocated by the scheduler from ResourceSlices, which a classic driver does not publish: %s (1.31 keeps it with the DRAControlPlaneController feature gate), or use the driver's structured-parameters version",
			specPath, who, set)
	}
	return fmt.Sprintf("%s: the claim's devices come from %s; Kubernetes 1.32+ has no classic DRA and allocates every claim in the scheduler from ResourceSlices, which a classic driver does not publish: install the driver's structured-parameters version",
		specPath, who)
}

// maybeClassic reports whether a v1alpha2 claim or template whose class is
// not in the input may be classic: it has no parameters and no allocation,
// as a 1.27–1.29 claim (classic DRA only) may have.
func maybeClassic(obj map[string]interface{}, from, kind string, idx *Index) bool {
	if from != api.V1alpha2 {
		return false
	}
	spec := api.ClaimSpec(obj, kind)
	class := str(spec, "resourceClassName")
	if class == "" || idx.anyClass(class) != nil {
		return false
	}
	if _, ok := spec["parametersRef"]; ok {
		// Structured parameters, or a classic driver's own, which the
		// warning about parametersRef names.
		return false
	}
	status, _ := obj["status"].(map[string]interface{})
	alloc, _ := status["allocation"].(map[string]interface{})
	return alloc == nil // classicDriver told a classic allocation; an allocated one is structured
}

// classicDriver reports whether obj's devices come from a classic driver,
// and which one when the input says.
func classicDriver(obj map[string]interface{}, from, kind string, idx *Index) (driver string, classic bool) {
	if kind == api.KindClaim {
		status, _ := obj["status"].(map[string]interface{})
		alloc, _ := status["allocation"].(map[string]interface{})
		if d := str(status, "driverName"); alloc != nil && d != "" {
			if from == api.V1alpha1 {
				return d, true
			}
			handles, _ := alloc["resourceHandles"].([]interface{})
			for _, h := range handles {
				if hm, _ := h.(map[string]interface{}); hm["structuredData"] != nil {
					return "", false
				}
			}
			return d, true
		}
	}
	class := str(api.ClaimSpec(obj, kind), "resourceClassName")
	if c := idx.anyClass(class); c != nil {
		if c["apiVersion"] == parametersAPI && c["structuredParameters"] == true {
			return "", false
		}
		return str(c, "driverName"), true
	}
	return "", from == api.V1alpha1
}
