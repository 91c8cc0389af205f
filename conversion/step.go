package conversion

import "fmt"

// mapping converts the sections of a claim between two neighbouring
// versions. Both functions are pure: they read their input, never modify it,
// and build the output from copies (lossReport.copy: a mapping back, and
// ConvertShared's forward mappings, share the values they move unchanged). Fields the target has no place for are
// left out; the step records them in the restore annotation.
type mapping struct {
	// spec maps a ResourceClaimSpec.
	spec func(in map[string]interface{}, r *lossReport) map[string]interface{}
	// status maps a ResourceClaimStatus. targetSpec is the claim's spec in the
	// target version; status fields that refer to requests use its names.
	status func(in, targetSpec map[string]interface{}, r *lossReport) map[string]interface{}
	// object, if set, reports what the consumer of the target version acts
	// on differently in obj (a claim or template in the source version)
	// where that depends on more than one section (for example a status
	// allocation together with metadata.finalizers). Its report is rooted
	// at the object: paths start with spec, status or metadata.
	object func(obj map[string]interface{}, kind string, r *lossReport)
}

// Every mapping reports to r (which may be nil) each field it leaves out or
// reshapes although a consumer of the target release would have acted on
// it; the step turns these into Warnings. A mapping of a future version
// reports its losses the same way.

var mappings = map[[2]string]mapping{
	{V1alpha1, V1alpha2}: {spec: specV1V2, status: statusV1ToV2},
	{V1alpha2, V1alpha1}: {spec: specV1V2, status: statusV2ToV1},
	{V1alpha2, V1alpha3}: {spec: specV2ToV3, status: statusV2ToV3, object: finalizerLossesV2ToV3},
	{V1alpha3, V1alpha2}: {spec: specV3ToV2, status: statusV3ToV2, object: finalizerLossesV3ToV2},
	{V1alpha3, V1beta1}:  {spec: specV3B1, status: statusV3ToB1, object: warningsV3ToB1},
	{V1beta1, V1alpha3}:  {spec: specV3B1, status: statusB1ToV3, object: warningsB1ToV3},
	{V1beta1, V1beta2}:   {spec: specB1ToB2, status: identityMapping.status},
	{V1beta2, V1beta1}:   {spec: specB2ToB1, status: identityMapping.status},
	{V1beta2, V1}:        identityMapping,
	{V1, V1beta2}:        identityMapping,
}

// sections returns the names of the sections conversion maps for kind: a
// claim has spec and status, a template only spec (whose "spec" is a claim
// spec).
// The result is shared: callers must not modify it.
func sections(kind string) []string {
	if kind == KindTemplate {
		return templateSections
	}
	return claimSections
}

var (
	claimSections    = []string{"spec", "status"}
	templateSections = []string{"spec"}
)

// mapSection maps one section with m. context is the target spec, used by
// the status mapping. r collects the losses; it is nil only when mapping
// back, and then the result may share values with in.
//
// A null section, and a template's null spec.spec, map to null: null stands
// for absent in every version (see checkShape) and is kept as an absent
// section is. Handed to a mapping as an empty object, it would come out as
// {} (or, from a mapping that copies its input, as a nil object, which the
// restore diff compares as an object), and its way back would depend on
// the restore annotation of every step it passed.
func mapSection(m mapping, kind, name string, in interface{}, context map[string]interface{}, r *lossReport) interface{} {
	if isNull(in) {
		return nil
	}
	switch {
	case name == "status":
		return m.status(asMap(in), context, r)
	case kind == KindTemplate:
		// ResourceClaimTemplateSpec: metadata is the same in every version.
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

// isNull reports whether v is JSON null: nil, or a nil object (which
// encodes as null).
func isNull(v interface{}) bool {
	m, isMap := v.(map[string]interface{})
	return v == nil || isMap && m == nil
}

// stepOptions are doStep's variants.
type stepOptions struct {
	// skipInvertible skips mapping back the sections exactInverse says map
	// back unchanged.
	skipInvertible bool
	// keepRestore false leaves out the third part: obj gets the sections of
	// to (with to's restore annotation applied) and losses what the forward
	// mapping reports, but no restore annotation of from. For callers that
	// want only the warnings of a conversion (see Losses).
	keepRestore bool
	// share lets a forward mapping share values with obj's sections instead
	// of copying them (ConvertShared: neither the input nor the result is
	// modified afterwards), except in a section the restore annotation of to
	// patches, where the patch is applied to the mapped section in place.
	share bool
}

// doStep converts obj in place from version from to its neighbour to:
//
//  1. the restore annotation of to (if obj came from to earlier) is removed,
//     and so is one of from (see dropRestore);
//  2. each section is mapped to the target version, and the patch of the
//     restore annotation brings back what the target version had;
//  3. the sections are mapped back, and the difference to the original
//     sections becomes the restore annotation of from, so that converting the
//     result back to from gives obj exactly.
//
// losses (if not nil) receives what the forward mapping reported. Step 3
// is skipped for a section that exactInverse says maps back unchanged (its
// diff would be empty); opts selects the variants (stepOptions).
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
	dropRestore(obj, from)
	srcSpec := obj["spec"]

	out := map[string]interface{}{}
	older := map[string]bool{} // sections an older build mapped from to (applySection)
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
				// Said by ConvertWithWarnings (convert, migrate), not by
				// Losses: validation's storage warnings would otherwise
				// report every status write that legitimately drops the
				// restore data of the allocation it replaces.
				restoreTo.reportDropped(name, to, dropped, losses)
			}
		}
	}

	restoreFrom := &restore{}
	for _, name := range sections(kind) {
		if !opts.keepRestore {
			break
		}
		if opts.skipInvertible && exactInverse(obj, kind, name, from, to, restoreTo) {
			continue
		}
		mapped, mappedOK := out[name]
		var back interface{}
		if mappedOK {
			back = mapSection(backward, kind, name, mapped, asMap(srcSpec), nil)
		}
		orig, origOK := obj[name]
		if older[name] {
			// The section is an older build's output, which lacks the
			// defaults this build writes: their absence is no content to
			// keep.
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
