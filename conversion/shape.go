package conversion

import (
	"errors"
	"fmt"
	"strings"
)

// ErrNewerV1alpha3 is wrapped by the error for resource.k8s.io/v1alpha3 input
// in the shape of Kubernetes 1.32/1.33 (errors.Is).
var ErrNewerV1alpha3 = errors.New("not the Kubernetes 1.31 shape of resource.k8s.io/v1alpha3")

// Upstream served a resource.k8s.io/v1alpha3 ResourceClaim in three shapes:
// the 1.31 one (claimbridge's v1alpha3) and, in 1.32 and 1.33, a copy of
// v1beta1. claimbridge's v1alpha3 is the 1.31 shape only; these fields exist
// only in the later one and give such input away.
var (
	laterRequestKeys    = []string{"exactly", "firstAvailable", "tolerations", "capacity"}
	laterConstraintKeys = []string{"distinctAttribute"}
	laterResultKeys     = []string{"adminAccess", "tolerations", "shareID", "bindingConditions", "bindingFailureConditions", "consumedCapacity"}
	laterAllocationKeys = []string{"allocationTimestamp"}
	laterStatusKeys     = []string{"devices"}
)

// checkV1alpha3Shape fails for a resource.k8s.io/v1alpha3 object (or list)
// that has fields of the 1.32/1.33 v1alpha3 shape.
func checkV1alpha3Shape(obj map[string]interface{}, kind string) error {
	var found []string
	if strings.HasSuffix(kind, "List") {
		for i, it := range asSlice(obj["items"]) {
			found = laterFields(found, fmt.Sprintf("items[%d].", i), asMap(it), strings.TrimSuffix(kind, "List"))
		}
	} else {
		found = laterFields(nil, "", obj, kind)
	}
	if len(found) == 0 {
		return nil
	}
	return fmt.Errorf("%s/%s %s has %s, which the resource.k8s.io/v1alpha3 of Kubernetes 1.32 and 1.33 had; claimbridge's v1alpha3 is the Kubernetes 1.31 shape only: for a 1.32/1.33 v1alpha3 manifest set apiVersion to %s/%s (the same fields) and convert from there%w",
		UpstreamGroup, V1alpha3, describeObject(obj), strings.Join(found, ", "), UpstreamGroup, V1beta1, quietErr{ErrNewerV1alpha3})
}

func laterFields(found []string, prefix string, obj map[string]interface{}, kind string) []string {
	specPath, spec := prefix+"spec", asMap(obj["spec"])
	if kind == KindTemplate {
		specPath, spec = specPath+".spec", asMap(spec["spec"])
	}
	devices := asMap(spec["devices"])
	found = keysIn(found, specPath+".devices.requests", true, asSlice(devices["requests"]), laterRequestKeys)
	found = keysIn(found, specPath+".devices.constraints", true, asSlice(devices["constraints"]), laterConstraintKeys)
	if kind == KindTemplate {
		return found
	}
	status := asMap(obj["status"])
	found = keysIn(found, prefix+"status", false, []interface{}{status}, laterStatusKeys)
	alloc := asMap(status["allocation"])
	found = keysIn(found, prefix+"status.allocation", false, []interface{}{alloc}, laterAllocationKeys)
	return keysIn(found, prefix+"status.allocation.devices.results", true, asSlice(asMap(alloc["devices"])["results"]), laterResultKeys)
}

// keysIn appends path[i].key (path.key unless indexed) for each of keys
// present in the objects of list.
func keysIn(found []string, path string, indexed bool, list []interface{}, keys []string) []string {
	for i, e := range list {
		m := asMap(e)
		for _, k := range keys {
			if _, ok := m[k]; !ok {
				continue
			}
			if indexed {
				found = append(found, fmt.Sprintf("%s[%d].%s", path, i, k))
			} else {
				found = append(found, path+"."+k)
			}
		}
	}
	return found
}

// quietErr wraps an error for errors.Is without adding to the message.
type quietErr struct{ err error }

func (q quietErr) Error() string { return "" }
func (q quietErr) Unwrap() error { return q.err }
