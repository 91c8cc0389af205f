package gacheck

import (
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/claimbridge/claimbridge/api"
)

// Oldest is the first release gacheck has the create rules of (a minor
// number): the first that serves v1beta1.
func Oldest() int { return api.Oldest(api.V1beta1).Minor }

// Newest is the newest release of api.Releases (a minor number).
func Newest() int { return api.Releases[len(api.Releases)-1].Minor }

// Serves reports whether release (a minor number) has version, one of
// api.UpstreamOnlyVersions, from the first release whose claims are written
// in it. From 1.34 the beta versions need --runtime-config; 1.32 and 1.33
// need it for every version.
func Serves(release int, version string) bool {
	first := api.Oldest(version).Minor
	return slices.Contains(api.UpstreamOnlyVersions, version) && first <= release && release <= Newest()
}

func notServed(release int, version string) error {
	var first []string
	for _, v := range api.UpstreamOnlyVersions {
		first = append(first, fmt.Sprintf("%s: %s+", v, api.Oldest(v)))
	}
	return fmt.Errorf("resource.k8s.io/%s is not served by Kubernetes 1.%d (%s; gacheck knows 1.%d to 1.%d)", version, release, strings.Join(first, ", "), Oldest(), Newest())
}

// Where a field of releaseFields is.
const (
	inRequest     = iota // a request
	inExact              // an exact request: a v1beta1 request, exactly in v1beta2 and v1
	inExactAndSub        // an exact request and each subrequest
	inConstraint         // a constraint
	inClass              // a DeviceClass's spec
	inSliceSpec          // a ResourceSlice's spec
	inDevice             // a ResourceSlice's device, or its basic in v1alpha3 and v1beta1
	inAttribute          // the value of a device's attribute
	inConsumption        // a device's consumption of a counter set
	inCapacity           // the value of a device's capacity
)

// A releaseField is a field that not every release creates: a release
// before added does not have it; one from dropFrom until on (the first
// release whose default enables gate; 0: none yet) drops it on a create.
type releaseField struct {
	name         string
	in           int
	added        int
	gate         string
	dropFrom, on int
}

// releaseFields are the fields of claims, templates and DeviceClasses that
// not every release from 1.32 creates, the same in each version that has
// them. A release before added does not have the field: strict field
// validation rejects it. A release from dropFrom until on (the first
// release whose default enables gate; 0: none yet) drops it on a create.
// Sources: k8s.io/api resource/{v1beta1,v1beta2,v1}/types.go, and in
// k8s.io/kubernetes pkg/features/kube_features.go and the dropDisabledFields
// of pkg/registry/resource/{resourceclaim,resourceclaimtemplate,deviceclass}
// (pkg/api/resourceclaimspec from 1.35).
var releaseFields = []releaseField{
	{"firstAvailable", inRequest, 33, "DRAPrioritizedList", 33, 34},
	{"adminAccess", inExact, 32, "DRAAdminAccess", 32, 34},
	// 1.33 and 1.34 keep tolerations with the gate off; 1.35 drops them.
	{"tolerations", inExactAndSub, 33, "DRADeviceTaints", 35, 36},
	{"capacity", inExactAndSub, 34, "DRAConsumableCapacity", 34, 36},
	{"derivedAttributes", inExactAndSub, 37, "DRADerivedAttributes", 37, 0},
	// 1.34 keeps distinctAttribute: its drop clears a copy of each constraint.
	{"distinctAttribute", inConstraint, 34, "DRAConsumableCapacity", 35, 36},
	{"extendedResourceName", inClass, 34, "DRAExtendedResource", 34, 36},
}

// strip returns a copy of obj, of version and kind, without the fields of
// releaseFields that r does not create: those it does not have (unknown,
// Forbidden "unknown field" at their paths) and those it drops (one
// warning each).
func (r rules) strip(obj map[string]interface{}, version, kind string) (out map[string]interface{}, unknown field.ErrorList, dropped []string) {
	out = deepCopy(obj)
	visit := func(m map[string]interface{}, path *field.Path, in ...int) {
		r.dropFields(releaseFields, m, path, in, &unknown, &dropped)
	}
	if kind == kindDeviceClass {
		visit(asObject(out["spec"]), field.NewPath("spec"), inClass)
		return out, unknown, dropped
	}
	path, spec := field.NewPath("spec"), asObject(out["spec"])
	if kind == api.KindTemplate {
		path, spec = path.Child("spec"), asObject(spec["spec"])
	}
	path, devices := path.Child("devices"), asObject(spec["devices"])
	for i, req := range asArray(devices["requests"]) {
		req, reqPath := asObject(req), path.Child("requests").Index(i)
		visit(req, reqPath, inRequest)
		if version == api.V1beta1 {
			visit(req, reqPath, inExact, inExactAndSub)
		} else {
			visit(asObject(req["exactly"]), reqPath.Child("exactly"), inExact, inExactAndSub)
		}
		for j, sub := range asArray(req["firstAvailable"]) {
			visit(asObject(sub), reqPath.Child("firstAvailable").Index(j), inExactAndSub)
		}
	}
	for i, c := range asArray(devices["constraints"]) {
		visit(asObject(c), path.Child("constraints").Index(i), inConstraint)
	}
	return out, unknown, dropped
}

// dropFields deletes from m, at path, the fields of fields in one of in
// that r does not create: each it does not have is added to unknown
// (Forbidden "unknown field"), each it drops to dropped (a warning).
func (r rules) dropFields(fields []releaseField, m map[string]interface{}, path *field.Path, in []int, unknown *field.ErrorList, dropped *[]string) {
	for _, f := range fields {
		if _, ok := m[f.name]; !ok || !slices.Contains(in, f.in) {
			continue
		}
		switch {
		case r.minor < f.added:
			*unknown = append(*unknown, field.Forbidden(path.Child(f.name), fmt.Sprintf("unknown field: Kubernetes 1.%d does not have it (1.%d+)", r.minor, f.added)))
		case r.minor >= f.dropFrom && (f.on == 0 || r.minor < f.on):
			w := fmt.Sprintf("%s: Kubernetes 1.%d drops it on a create: its %s feature gate is off by default", path.Child(f.name), r.minor, f.gate)
			if f.on != 0 {
				w += fmt.Sprintf(" (on from 1.%d)", f.on)
			}
			*dropped = append(*dropped, w)
		default:
			continue
		}
		delete(m, f.name)
	}
}
