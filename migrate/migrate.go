// Package migrate turns exported claims and templates (`kubectl get -o yaml`)
// into manifests that re-create them on a cluster serving the target version.
// It converts them, drops what the old cluster set (server-set metadata,
// status, owner references) and the restore annotations, renames the built-in
// finalizer, and translates 1.30 parameters into device requests.
package migrate

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/conversion"
	"github.com/claimbridge/claimbridge/judge"
	"github.com/claimbridge/claimbridge/validation"
)

// Options tune a migration.
type Options struct {
	// KeepOwnerReferences keeps metadata.ownerReferences. Default false: they
	// name the old cluster's uids, and the garbage collector deletes objects
	// whose owners are all gone.
	KeepOwnerReferences bool
	// Parameters are the ResourceClaimParameters, ResourceClassParameters and
	// ResourceClasses found in the input; nil when there are none.
	Parameters *Index
}

// changes says what a migration changed in one object.
type changes struct {
	// Dropped lists the dropped fields, e.g. "metadata.uid", "status".
	Dropped []string
	// Changed lists rewritten fields, e.g. a renamed finalizer.
	Changed []string
	// Lost lists, per dropped restore annotation, the fields it held: what
	// the target version cannot hold and re-creation loses.
	Lost []string
	// Warnings are changes of meaning the user must know about: the
	// conversion's (see conversionWarnings), then migrate's own.
	Warnings []string
}

// serverSet are the metadata fields the apiserver sets; a create must not
// carry them (uid, resourceVersion: rejected or ignored; the rest reset).
var serverSet = []string{
	"uid", "resourceVersion", "generation", "creationTimestamp", "deletionTimestamp",
	"deletionGracePeriodSeconds", "managedFields", "selfLink",
}

// LastApplied is the annotation in which kubectl apply keeps what it sent.
const LastApplied = "kubectl.kubernetes.io/last-applied-configuration"

// clientStale are client annotations that describe the object in its old shape.
var clientStale = []string{LastApplied}

// migrateObject migrates one ResourceClaim or ResourceClaimTemplate of
// group, version from and kind (as Migrate identified it) to version to.
// obj is not modified. An object the target apiserver would reject is an
// error; the Report's losses and warnings usually explain why.
func migrateObject(obj map[string]interface{}, group, from, kind string, target Target, opts Options) (map[string]interface{}, changes, error) {
	var r changes
	to := target.Version
	// Unknown fields would be dropped, so the output would ask for less
	// (a 1.31 claim labelled v1alpha2 would lose its requests).
	if paths := unknownFields(obj); len(paths) > 0 {
		return nil, r, fmt.Errorf("%s: unknown field in %s/%s, which migrating would drop: %s%s",
			api.Describe(obj), group, from, strings.Join(paths, ", "), shapeHint(paths))
	}
	ga := isGA(to)
	if ga && group != api.UpstreamGroup {
		return nil, r, fmt.Errorf("target version %s is a version of %s (Kubernetes %s), not of %s; give the manifest apiVersion %s/%s to migrate it to the upstream API",
			to, api.UpstreamGroup, target.Releases, group, api.UpstreamGroup, from)
	}
	// 1.30 parameters are translated into the 1.31 (v1alpha3) requests;
	// for a GA target the translated object is converted on from there.
	via := to
	if ga && api.VersionIndex(from) <= api.VersionIndex(api.V1alpha3) {
		via = api.V1alpha3
	}
	// Convert without the client annotations dropped anyway: the restore data
	// must fit beside them, and last-applied-configuration can hold the whole object.
	in, stale := withoutClientStale(obj)
	out, ws, err := conversion.ConvertWithWarnings(in, via)
	if err != nil {
		return nil, r, err
	}
	meta, _ := out["metadata"].(map[string]interface{})
	if meta == nil {
		meta = map[string]interface{}{}
		out["metadata"] = meta
	}
	dropServerSet(meta, opts, &r)
	dropAnnotations(out, api.Annotations(obj), to, coveredFields(obj, from, kind, target), &r)
	for _, k := range stale { // after the restore annotations, as they sort
		r.Dropped = append(r.Dropped, "metadata.annotations["+k+"]")
	}
	dropFinalizers(meta, out, kind, target, &r)
	if status, ok := out["status"]; ok {
		delete(out, "status")
		r.Dropped = append(r.Dropped, statusNote(status))
	}
	translated := false
	if target.Devices {
		translated = translateParameters(obj, from, kind, out, opts.Parameters, &r)
	} else if to == api.V1alpha1 && from == api.V1alpha2 {
		// Kept by the conversion, but 1.26 has no 1.30 parameter kinds.
		if ref, _ := api.ClaimSpec(out, kind)["parametersRef"].(map[string]interface{}); str(ref, "apiGroup") == api.UpstreamGroup && str(ref, "kind") == api.KindClaimParameters {
			r.Warnings = append(r.Warnings, fmt.Sprintf("%s.parametersRef: %s %s: 1.26 has no %s (1.30 structured parameters), so no 1.26 component reads it",
				api.ClaimSpecPath(kind), api.KindClaimParameters, refOf(str(api.Metadata(out), "namespace"), str(ref, "name")), api.KindClaimParameters))
		}
	}
	r.Warnings = append(conversionWarnings(ws, kind, translated, obj, to), r.Warnings...)
	if w := classicWarningOf(obj, from, kind, to, opts.Parameters, true); w != "" {
		r.Warnings = append(r.Warnings, w)
	}
	if via != to {
		if out, ws, err = conversion.ConvertWithWarnings(out, to); err != nil {
			return nil, r, err
		}
		r.Warnings = append(r.Warnings, conversionWarnings(ws, kind, false, obj, to)...)
		// The restore annotation of the steps after via holds what the
		// warnings above say is lost: re-creation is one-way.
		dropAnnotations(out, nil, to, nil, &r)
	}
	if ga {
		errs, warnings := judge.Check(out, target.Cluster, kind)
		if api.VersionIndex(from) > api.VersionIndex(api.V1alpha3) {
			// The v1alpha3→v1beta1 step, which warns about the same, did not run.
			r.Warnings = append(r.Warnings, warnings...)
		}
		if len(errs) > 0 {
			return nil, r, refusal(kind, out, target, errs)
		}
		return out, r, nil
	}
	errs, warnings, err := checkAlpha(out, target)
	if err != nil {
		return nil, r, fmt.Errorf("%s %s: validating the migrated object: %w", kind, api.Ref(out), err)
	}
	for _, w := range warnings {
		if !slices.Contains(r.Warnings, w) {
			r.Warnings = append(r.Warnings, w)
		}
	}
	if len(errs) > 0 {
		return nil, r, refusal(kind, out, target, errs)
	}
	return out, r, nil
}

// targetErrors checks out, a claim or template of version to, with the rules
// migrate refuses by: validate's create rules for v1alpha1-v1alpha3, judge's
// for v1beta1, v1beta2 and v1. Each error names a path of version to.
func targetErrors(out map[string]interface{}, target Target, kind string) ([]string, error) {
	if isGA(target.Version) {
		errs, _ := judge.Check(out, target.Cluster, kind)
		return errs, nil
	}
	errs, _, err := checkAlpha(out, target)
	return errs, err
}

// refusal is the error for a migrated object the target release rejects;
// errs name paths of the target version.
func refusal(kind string, out map[string]interface{}, target Target, errs []string) error {
	return fmt.Errorf("%s %s: a Kubernetes %s apiserver would reject the migrated object: %s",
		kind, api.Ref(out), target.Releases, strings.Join(errs, "; "))
}

// checkAlpha validates a migrated v1alpha1-v1alpha3 object as a create, in
// namespace "default" if it has none (kubectl create takes it from its
// context). A claim without a class gets classRequired.
func checkAlpha(out map[string]interface{}, target Target) (errs, warnings []string, err error) {
	resp, err := validation.Admit(validation.Request{Operation: validation.Create, Object: out, CEL: target.cel})
	if err != nil {
		return nil, nil, err
	}
	for _, e := range resp.Errors {
		if strings.HasSuffix(e.Field, "spec.resourceClassName") && (e.Type == field.ErrorTypeRequired || e.Type == field.ErrorTypeInvalid && e.BadValue == "") {
			e = classRequired(e.Field, target)
		}
		errs = append(errs, e.Error())
	}
	for _, w := range resp.Warnings {
		// Warnings about claimbridge's storage are not about the created object.
		if !strings.HasPrefix(w, validation.StorageWarningPrefix) && !strings.HasSuffix(w, validation.ImmediateAllocationWarning) {
			warnings = append(warnings, w)
		}
	}
	return errs, warnings, nil
}

// classRequired is the error for a 1.26–1.30 claim without a resource class,
// as converting a 1.31+ claim whose first request has no device class gives.
func classRequired(path string, target Target) *field.Error {
	return field.Required(field.NewPath(path), fmt.Sprintf("a Kubernetes %s claim must name a resource class, and this one names none: "+
		"a 1.31+ claim's class is its first request's deviceClassName, which the input lacks (it has no request, or its first request has only firstAvailable); "+
		"give that request a deviceClassName, or set %s in the output", target.Releases, path))
}

// unknownFields returns the paths of obj's fields that its own version does
// not have, which strict field validation (kubectl's default since 1.27) rejects.
func unknownFields(obj map[string]interface{}) []string {
	var unknown field.ErrorList
	var err error
	if gaVersion, gaKind := judge.Version(obj); gaVersion != "" {
		unknown, err = judge.UnknownFields(obj, gaVersion, gaKind)
	} else {
		unknown, err = validation.UnknownFields(obj)
	}
	if err != nil {
		return nil // conversion reports what cannot be read
	}
	paths := make([]string, 0, len(unknown))
	for _, e := range unknown {
		paths = append(paths, e.Field)
	}
	return paths
}

// shapeHint names the version an unknown field belongs to: the usual cause
// is an apiVersion changed without the body.
func shapeHint(paths []string) string {
	for _, p := range paths {
		switch {
		case strings.HasSuffix(p, "spec.devices"):
			return "; spec.devices is the shape of v1alpha3 (Kubernetes 1.31) and later: is the apiVersion right?"
		case strings.HasSuffix(p, "spec.resourceClassName"), strings.HasSuffix(p, "spec.parametersRef"), strings.HasSuffix(p, "spec.allocationMode"):
			return "; " + p[strings.LastIndex(p, ".")+1:] + " is a field of v1alpha1 and v1alpha2 (Kubernetes 1.26–1.30): is the apiVersion right?"
		}
	}
	return ""
}

// conversionWarnings formats the conversion's warnings for the report,
// without those about the status, which migrate drops, or about a
// parametersRef that translateParameters reported on.
func conversionWarnings(ws []conversion.Warning, kind string, translated bool, input map[string]interface{}, to string) []string {
	parametersRef := api.ClaimSpecPath(kind) + ".parametersRef"
	// dropFinalizers drops the built-in finalizers: skip warnings on them.
	renamed := map[string]bool{}
	finalizers, _ := api.Metadata(input)["finalizers"].([]interface{})
	for i, f := range finalizers {
		if f == api.FinalizerV1alpha2 || f == api.FinalizerV1alpha3 {
			renamed[fmt.Sprintf("metadata.finalizers[%d]", i)] = true
		}
	}
	var out []string
	for _, w := range ws {
		if w.Path == "status" || strings.HasPrefix(w.Path, "status.") || renamed[w.Path] {
			continue
		}
		if translated && w.Path == parametersRef {
			continue
		}
		// Phrased for the target release, each field once.
		text := w.Text(to)
		path, _, _ := strings.Cut(text, ": ")
		if !slices.ContainsFunc(out, func(s string) bool { return strings.HasPrefix(s, path+": ") }) {
			out = append(out, text)
		}
	}
	return out
}

// isGA reports whether version is one of upstream's v1beta1, v1beta2 and v1.
func isGA(version string) bool { return slices.Contains(api.UpstreamOnlyVersions, version) }

// dropAnnotations removes the restore annotations, reporting their spec
// fields as lost, and the stale client annotations. Only those the input had
// are reported as dropped; conversion added the others. A lost line names the
// annotation, not a version: a 1.26 claim's allocationMode is in v1alpha2's.
func dropAnnotations(obj, input map[string]interface{}, to string, covered map[string]bool, r *changes) {
	ann := api.Annotations(obj)
	for _, k := range slices.Sorted(maps.Keys(ann)) {
		version, restore := strings.CutPrefix(k, api.RestoreAnnotationPrefix)
		if !restore && !slices.Contains(clientStale, k) {
			continue
		}
		if restore {
			fields := slices.DeleteFunc(conversion.RestoredSpecFields(obj, version), func(f string) bool { return covered[f] })
			if len(fields) > 0 {
				r.Lost = append(r.Lost, fmt.Sprintf("%s: fields that %s cannot hold (convert keeps them in annotation %s)",
					strings.Join(fields, ", "), to, k))
			}
		}
		delete(ann, k)
		if _, had := input[k]; had {
			r.Dropped = append(r.Dropped, "metadata.annotations["+k+"]")
		}
	}
	api.PruneAnnotations(obj)
}

// withoutClientStale returns obj without its clientStale annotations (a
// copy, sharing the rest) and their keys; obj itself when it has none.
func withoutClientStale(obj map[string]interface{}) (map[string]interface{}, []string) {
	meta, ann := api.Metadata(obj), api.Annotations(obj)
	stale := slices.DeleteFunc(slices.Clone(clientStale), func(k string) bool { _, ok := ann[k]; return !ok })
	if len(stale) == 0 {
		return obj, nil
	}
	a := maps.Clone(ann)
	maps.DeleteFunc(a, func(k string, _ interface{}) bool { return slices.Contains(stale, k) })
	m := maps.Clone(meta)
	m["annotations"] = a
	o := maps.Clone(obj)
	o["metadata"] = m
	return o, stale
}

// coveredFields are the spec fields a restore annotation holds that are not
// lost. From v1alpha1/v1alpha2 to 1.31+, parametersRef is translated (or
// warned about) and WaitForFirstConsumer is what 1.31+ always does.
func coveredFields(obj map[string]interface{}, from, kind string, target Target) map[string]bool {
	specPath, spec := api.ClaimSpecPath(kind), api.ClaimSpec(obj, kind)
	if !target.Devices && devicesIn(from) {
		return downgradeCovered(spec, specPath)
	}
	if !target.Devices || (from != api.V1alpha1 && from != api.V1alpha2) {
		return nil
	}
	covered := map[string]bool{}
	if spec["parametersRef"] != nil {
		covered[specPath+".parametersRef"] = true
	}
	if spec["allocationMode"] == "WaitForFirstConsumer" {
		covered[specPath+".allocationMode"] = true
	}
	return covered
}

// downgradeCovered are the fields of a 1.31 claim's single request that
// say what a 1.26–1.30 claim does anyway, so are not lost (docs/conversion.md
// §2): the name, ExactCount with a count of 1, and adminAccess false.
func downgradeCovered(spec map[string]interface{}, specPath string) map[string]bool {
	devices, _ := spec["devices"].(map[string]interface{})
	requests, _ := devices["requests"].([]interface{})
	if len(requests) != 1 {
		return nil
	}
	req, _ := requests[0].(map[string]interface{})
	if exactly, ok := req["exactly"].(map[string]interface{}); ok {
		req = exactly // v1beta2 and v1
	}
	path := specPath + ".devices.requests[0]." // the v1alpha3 path the annotation names
	covered := map[string]bool{path + "name": true}
	mode, count := req["allocationMode"], req["count"]
	if (mode == nil || mode == "ExactCount") && (count == nil || fmt.Sprint(count) == "1") {
		covered[path+"allocationMode"], covered[path+"count"] = true, true
	}
	if req["adminAccess"] == false {
		covered[path+"adminAccess"] = true
	}
	return covered
}

// classicFinalizerSuffix ends the finalizer that classic DRA drivers (up to
// 1.31) put on the claims they allocate: "<driver name>/deletion-protection".
const classicFinalizerSuffix = "/deletion-protection"

// dropFinalizers drops the finalizers of a claim's allocation, which
// migrate drops: the built-in one (the target's scheduler adds its own
// when it allocates the claim again; kept on a claim not allocated again,
// 1.32's resourceclaim controller never removes it, and the claim outlives
// its deletion), and, for a GA target, a classic driver's: 1.32+ runs no
// classic driver, so deleting the claim would wait for ever.
func dropFinalizers(meta, claim map[string]interface{}, kind string, target Target, r *changes) {
	spec, _ := claim["spec"].(map[string]interface{})
	status, _ := claim["status"].(map[string]interface{})
	allocation, _ := status["allocation"].(map[string]interface{})
	drivers := map[string]bool{}
	for _, d := range []string{str(spec, "controller"), str(allocation, "controller")} {
		if d != "" && isGA(target.Version) && kind == api.KindClaim {
			drivers[d+classicFinalizerSuffix] = true
		}
	}
	list, _ := meta["finalizers"].([]interface{})
	var keep []interface{}
	for _, f := range list {
		switch name, _ := f.(string); {
		case name == api.FinalizerV1alpha2 || name == api.FinalizerV1alpha3:
			r.Dropped = append(r.Dropped, fmt.Sprintf("metadata.finalizers[%s] (the allocation's: the scheduler adds its own when it allocates the claim again)", name))
		case drivers[name]:
			r.Dropped = append(r.Dropped, fmt.Sprintf("metadata.finalizers[%s] (classic DRA driver's: Kubernetes %s runs no classic driver that would remove it)", name, target.Releases))
		default:
			keep = append(keep, f)
		}
	}
	switch {
	case len(keep) == len(list):
	case len(keep) == 0:
		delete(meta, "finalizers")
	default:
		meta["finalizers"] = keep
	}
}

// statusNote reports the dropped status of a claim: an allocated claim will
// be allocated again, maybe to other devices or nodes.
func statusNote(status interface{}) string {
	m, _ := status.(map[string]interface{})
	if m["allocation"] == nil {
		return "status (reset on create; the claim was not allocated)"
	}
	what := "the old cluster's allocation"
	if list, _ := m["reservedFor"].([]interface{}); len(list) > 0 {
		var names []string
		for _, c := range list {
			ref, _ := c.(map[string]interface{})
			names = append(names, strings.TrimSuffix(str(ref, "resource"), "s")+" "+str(ref, "name"))
		}
		what += " and reservation for " + strings.Join(names, ", ")
	}
	return "status (reset on create: " + what + " is dropped; the claim will be allocated again, possibly to other devices)"
}
