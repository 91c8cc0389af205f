package judge

import (
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/claimbridge/claimbridge/api"
)

// NotServed is the error for an object of kind in version that c does not
// serve, in the words of its apiVersion; nil when c serves it.
func NotServed(c api.Cluster, version, kind string) error {
	if c.Serves(version, kind) {
		return nil
	}
	served := api.CreatedIn(kind, c.Minor)
	if rel, ok := api.ParseRelease(fmt.Sprintf("1.%d", c.Minor)); ok && served == "" {
		served = rel.Version
	}
	switch {
	case api.FirstRelease(kind) > c.Minor:
		return fmt.Errorf("kind: Kubernetes 1.%d has no %s in %s (1.%d+): its apiserver rejects this object", c.Minor, kind, api.UpstreamGroup, api.FirstRelease(kind))
	case c.Has(version, kind):
		byDefault := "by default none"
		if v := api.CreatedIn(kind, c.Minor); api.Defaults(c.Minor).Serves(v, kind) {
			byDefault = "by default " + api.UpstreamGroup + "/" + v
			if sketch := api.Defaults(c.Minor).Sketch(); sketch != "" { // DRA is off by default
				byDefault = "with DRA on as its users turn it on (" + sketch + "), " + api.UpstreamGroup + "/" + v
			}
		}
		return fmt.Errorf("apiVersion: Kubernetes 1.%d serves %s/%s %s only with --runtime-config=%s/%s=true, and %s: its apiserver rejects this object",
			c.Minor, api.UpstreamGroup, version, kind, api.UpstreamGroup, version, byDefault)
	}
	return fmt.Errorf("apiVersion: Kubernetes 1.%d serves %s/%s, not %s: its apiserver rejects this object", c.Minor, api.UpstreamGroup, served, version)
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
		case r.Minor < f.Added:
			*unknown = append(*unknown, field.Forbidden(path.Child(f.Name), fmt.Sprintf("unknown field: Kubernetes 1.%d does not have it (1.%d+)", r.Minor, f.Added)))
		case r.Minor >= f.DropFrom && !r.Enabled(f.Gate):
			*dropped = append(*dropped, fmt.Sprintf("%s: Kubernetes 1.%d drops it on a create: %s", path.Child(f.Name), r.Minor, r.GateOff(f.Gate)))
		default:
			continue
		}
		delete(m, f.Name)
	}
}
