package conversion

import (
	"fmt"

	"github.com/claimbridge/claimbridge/api"
)

// mapping converts the sections of a claim between neighbouring versions.
// The functions never modify their input and build their output from
// copies (see lossReport.copy). They leave out fields the target cannot
// hold, and report to r each one a consumer of the target release would
// have acted on.
type mapping struct {
	// spec maps a ResourceClaimSpec.
	spec func(in map[string]interface{}, r *lossReport) map[string]interface{}
	// status maps a ResourceClaimStatus. targetSpec is the claim's spec in
	// the target version, for request names.
	status func(in, targetSpec map[string]interface{}, r *lossReport) map[string]interface{}
	// object, if set, reports losses that depend on more than one section,
	// such as the allocation and the finalizers. Its paths start at the
	// object.
	object func(obj map[string]interface{}, kind string, r *lossReport)
}

var mappings = map[[2]string]mapping{
	{api.V1alpha1, api.V1alpha2}: {spec: specV1V2, status: statusV1ToV2},
	{api.V1alpha2, api.V1alpha1}: {spec: specV1V2, status: statusV2ToV1},
	{api.V1alpha2, api.V1alpha3}: {spec: specV2ToV3, status: statusV2ToV3, object: finalizerLossesV2ToV3},
	{api.V1alpha3, api.V1alpha2}: {spec: specV3ToV2, status: statusV3ToV2, object: finalizerLossesV3ToV2},
	{api.V1alpha3, api.V1beta1}:  {spec: specV3B1, status: statusV3ToB1, object: warningsV3ToB1},
	{api.V1beta1, api.V1alpha3}:  {spec: specV3B1, status: statusV3B1, object: warningsB1ToV3},
	{api.V1beta1, api.V1beta2}:   {spec: mapRequests(requestB1ToB2), status: identityMapping.status},
	{api.V1beta2, api.V1beta1}:   {spec: mapRequests(requestB2ToB1), status: identityMapping.status},
	{api.V1beta2, api.V1}:        identityMapping,
	{api.V1, api.V1beta2}:        identityMapping,
}

// sections returns the names of the sections conversion maps for kind. The
// result is shared: callers must not modify it.
func sections(kind string) []string {
	if kind == api.KindTemplate {
		return templateSections
	}
	return claimSections
}

var (
	claimSections    = []string{"spec", "status"}
	templateSections = []string{"spec"}
)

// mapSection maps one section with m. context is the target spec, for the
// status mapping. r is nil only when mapping back; the result may then
// share values with in.
//
// A null section, and a template's null spec.spec, stay null: null stands
// for absent in every version, and mapped as {} it would not come back.
func mapSection(m mapping, kind, name string, in interface{}, context map[string]interface{}, r *lossReport) interface{} {
	if isNull(in) {
		return nil
	}
	switch {
	case name == "status":
		return m.status(asMap(in), context, r)
	case kind == api.KindTemplate:
		// The template's metadata is the same in every version.
		tmpl := asMap(in)
		out := map[string]interface{}{}
		r.copyKeys(out, tmpl, "metadata")
		if spec, ok := tmpl["spec"]; ok {
			out["spec"] = nil
			if !isNull(spec) {
				out["spec"] = m.spec(asMap(spec), r.at("spec"))
			}
		}
		return out
	default:
		return m.spec(asMap(in), r)
	}
}

// isNull reports whether v is JSON null: nil, or a nil object.
func isNull(v interface{}) bool {
	m, isMap := v.(map[string]interface{})
	return v == nil || isMap && m == nil
}

// stepOptions are doStep's variants.
type stepOptions struct {
	// skipInvertible skips mapping back the sections exactInverse allows.
	skipInvertible bool
	// keepRestore writes the restore annotation of from. Losses does not.
	keepRestore bool
	// share lets a forward mapping share values with obj (ConvertShared),
	// except in a section that a restore patch modifies in place.
	share bool
}

// doStep converts obj in place from version from to its neighbour to:
//
//  1. it removes the restore annotations of to and from;
//  2. it maps each section forward and applies the patch of to's restore
//     annotation;
//  3. it maps the sections back and records their difference to the
//     original as from's restore annotation, so that converting back gives
//     obj exactly.
//
// losses, if not nil, receives what the forward mapping reports.
func doStep(obj map[string]interface{}, kind, from, to string, losses *[]loss, opts stepOptions) error {
	forward, okF := mappings[[2]string{from, to}]
	backward, okB := mappings[[2]string{to, from}]
	if !okF || !okB {
		return fmt.Errorf("no conversion from %s to %s", from, to)
	}
	if forward.object != nil && losses != nil {
		forward.object(obj, kind, &lossReport{losses: losses})
	}
	restoreTo := popRestore(obj, to)
	// Conversion never leaves a restore annotation of from on an object of
	// from: a client wrote it. Kept, it would set a spec and status that
	// validation never saw once the object comes back to from.
	delete(api.Annotations(obj), api.RestoreAnnotation(from))
	srcSpec := obj["spec"]

	out := map[string]interface{}{}
	older := map[string]bool{} // sections an older build mapped (applySection)
	for _, name := range sections(kind) {
		if in, ok := obj[name]; ok {
			share := opts.share && (restoreTo == nil || *restoreTo.section(name) == nil)
			r := silentReport
			switch {
			case losses != nil:
				r = &lossReport{prefix: name, losses: losses, share: share}
			case share:
				r = silentSharedReport
			}
			out[name] = mapSection(forward, kind, name, in, asMap(out["spec"]), r)
		}
		if restoreTo != nil {
			var dropped string
			older[name], dropped = restoreTo.applySection(name, out, kind, from, to)
			if dropped != "" && losses != nil && opts.keepRestore {
				// Not by Losses: validation would then warn on every
				// status write that replaces an allocation.
				restoreTo.reportDropped(name, to, dropped, losses)
			}
		}
	}

	restoreFrom := &restore{}
	for _, name := range sections(kind) {
		if !opts.keepRestore || opts.skipInvertible && exactInverse(obj, kind, name, from, to, restoreTo) {
			continue
		}
		mapped, mappedOK := out[name]
		var back interface{}
		if mappedOK {
			back = mapSection(backward, kind, name, mapped, asMap(srcSpec), nil)
		}
		orig, origOK := obj[name]
		if older[name] {
			// An older build's output lacks this build's defaults:
			// their absence is no content to keep.
			orig = withStepDefaults(name, orig, kind, from, to)
		}
		restoreFrom.diffSection(name, back, mappedOK, orig, origOK)
	}

	for _, name := range sections(kind) {
		if v, ok := out[name]; ok {
			obj[name] = v
		} else {
			delete(obj, name)
		}
	}
	if restoreFrom.empty() {
		return nil
	}
	if err := pushRestore(obj, from, restoreFrom); err != nil {
		return fmt.Errorf("keeping the fields of %s that %s cannot hold: %w", from, to, err)
	}
	return nil
}
