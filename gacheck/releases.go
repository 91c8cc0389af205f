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

// strip returns a copy of obj, of version and kind, without the fields of
// api.Fields that r does not create: those it does not have (unknown,
// Forbidden "unknown field" at their paths) and those it drops (one
// warning each).
func (r rules) strip(obj map[string]interface{}, version, kind string) (out map[string]interface{}, unknown field.ErrorList, dropped []string) {
	out = api.DeepCopyJSON(obj)
	visit := func(m map[string]interface{}, path *field.Path, in ...int) {
		r.dropFields(m, path, in, &unknown, &dropped)
	}
	if kind == api.KindDeviceClass {
		visit(asObject(out["spec"]), field.NewPath("spec"), api.InClass)
		return out, unknown, dropped
	}
	path, spec := field.NewPath("spec"), asObject(out["spec"])
	if kind == api.KindTemplate {
		path, spec = path.Child("spec"), asObject(spec["spec"])
	}
	path, devices := path.Child("devices"), asObject(spec["devices"])
	for i, req := range asArray(devices["requests"]) {
		req, reqPath := asObject(req), path.Child("requests").Index(i)
		visit(req, reqPath, api.InRequest)
		if version == api.V1beta1 {
			visit(req, reqPath, api.InExact, api.InExactAndSub)
		} else {
			visit(asObject(req["exactly"]), reqPath.Child("exactly"), api.InExact, api.InExactAndSub)
		}
		for j, sub := range asArray(req["firstAvailable"]) {
			visit(asObject(sub), reqPath.Child("firstAvailable").Index(j), api.InExactAndSub)
		}
	}
	for i, c := range asArray(devices["constraints"]) {
		visit(asObject(c), path.Child("constraints").Index(i), api.InConstraint)
	}
	return out, unknown, dropped
}

// dropFields deletes from m, at path, the fields of fields in one of in
// that r does not create: each it does not have is added to unknown
// (Forbidden "unknown field"), each it drops to dropped (a warning).
func (r rules) dropFields(m map[string]interface{}, path *field.Path, in []int, unknown *field.ErrorList, dropped *[]string) {
	for _, f := range api.Fields {
		if _, ok := m[f.Name]; !ok || !slices.Contains(in, f.In) {
			continue
		}
		switch {
		case r.minor < f.Added:
			*unknown = append(*unknown, field.Forbidden(path.Child(f.Name), fmt.Sprintf("unknown field: Kubernetes 1.%d does not have it (1.%d+)", r.minor, f.Added)))
		case r.minor >= f.DropFrom && (f.On == 0 || r.minor < f.On):
			w := fmt.Sprintf("%s: Kubernetes 1.%d drops it on a create: its %s feature gate is off by default", path.Child(f.Name), r.minor, f.Gate)
			if f.On != 0 {
				w += fmt.Sprintf(" (on from 1.%d)", f.On)
			}
			*dropped = append(*dropped, w)
		default:
			continue
		}
		delete(m, f.Name)
	}
}
