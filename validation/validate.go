package validation

import (
	"fmt"
	"slices"
	"strings"

	"github.com/claimbridge/claimbridge/conversion"
	"github.com/claimbridge/claimbridge/validation/classic"
	"github.com/claimbridge/claimbridge/validation/common"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Validate decodes req.Object by apiVersion and kind, emulates the CRD's
// registry strategy, applies upstream defaulting and runs the version's
// rules plus, for the CRD's group, the cross-version checks. err is returned
// only for unusable input (an unsupported type, an undecodable object, a
// status write to a template, an update without a matching old object); an
// invalid object yields Response.Errors.
func Validate(req Request) (Response, error) {
	t, err := parseObjectType(req.Object)
	if err != nil {
		return Response{}, err
	}
	resp := Response{GroupKind: schema.GroupKind{Group: t.group, Kind: t.kind}}
	if meta, ok := req.Object["metadata"].(map[string]interface{}); ok {
		resp.Name, _ = meta["name"].(string)
	}
	switch req.SubResource {
	case "":
	case "status":
		if t.kind != KindResourceClaim {
			return resp, fmt.Errorf("%s has no status subresource", t.kind)
		}
		if req.Operation != Update {
			return resp, fmt.Errorf("the status subresource can only be updated, not %s", req.Operation)
		}
	default:
		return resp, fmt.Errorf("unsupported subresource %q", req.SubResource)
	}

	var newObj, oldObj map[string]interface{}
	switch req.Operation {
	case Create:
		newObj = prepareForCreate(req.Object, t.kind)
	case Update:
		if oldObj, err = oldInVersion(req.OldObject, t); err != nil {
			return resp, err
		}
		if req.SubResource == "status" {
			newObj = prepareForStatusUpdate(req.Object, oldObj)
		} else {
			newObj = prepareForUpdate(req.Object, oldObj, t.kind)
		}
	default:
		return resp, fmt.Errorf("unsupported operation %q", req.Operation)
	}

	ownNew, ownOld := newObj, oldObj
	if req.Operation == Update && req.SubResource == "" && t.kind == KindResourceClaimTemplate && sameTemplateMetadata(newObj, oldObj) {
		// An unchanged template spec.metadata is not validated again,
		// nor decoded (see withoutTemplateMetadata).
		ownNew, ownOld = withoutTemplateMetadata(newObj), withoutTemplateMetadata(oldObj)
	}
	result, err := rulesFor[t.version].run(t.kind, req.Operation, req.SubResource, ownNew, ownOld)
	if err != nil {
		return resp, err
	}
	resp.Errors, resp.Warnings = result.errs, result.warnings
	if t.group == GroupUpstream {
		if req.SubResource == "status" && t.version == conversion.V1alpha1 {
			resp.Errors = withoutAllocationImmutable(resp.Errors)
		}
		resp.Warnings = collapseIndexedWarnings(resp.Warnings)
		return resp, nil
	}
	switch {
	case req.Operation != Update:
	case req.SubResource == "status":
		resp.Errors = withoutUnchangedAllocationErrors(resp.Errors, newObj, oldObj)
	default:
		resp.Errors = withoutStoredSpecErrors(t, resp.Errors, newObj, oldObj)
	}
	// See unchanged.go.
	unchanged := false
	switch {
	case req.Operation != Update:
	case req.SubResource == "status":
		unchanged = sameConversionInput(newObj, oldObj, statusCommonFields...)
	default:
		unchanged = sameConversionInput(newObj, oldObj)
	}
	switch {
	case req.Operation == Create:
		resp.Errors = append(resp.Errors, otherVersionCreateErrors(t, newObj, req.MaxViewDepth)...)
	case unchanged && req.SubResource == "":
	default:
		resp.Errors = append(resp.Errors, otherVersionUpdateErrors(t, req.SubResource, unchanged, newObj, oldObj, resp.Errors, req.MaxViewDepth)...)
	}
	// Storage losses are said only for a write that is stored.
	if !unchanged && len(resp.Errors) == 0 {
		resp.Warnings = append(resp.Warnings, storageWarnings(t, req.SubResource, newObj, oldObj, resp.Warnings)...)
	}
	resp.Warnings = collapseIndexedWarnings(resp.Warnings)
	return resp, nil
}

// withoutAllocationImmutable drops the status.allocation immutability
// finding, which 1.26 did not have. The CRD keeps it for its v1alpha1, whose
// allocation the other versions show (docs/validation.md).
func withoutAllocationImmutable(errs field.ErrorList) field.ErrorList {
	out := slices.DeleteFunc(slices.Clone(errs), func(e *field.Error) bool {
		return e.Type == field.ErrorTypeInvalid && e.Field == "status.allocation" && e.Detail == common.FieldImmutableErrorMsg
	})
	if len(out) == 0 {
		return nil
	}
	return out
}

// oldInVersion checks the old object and converts it to the new one's
// version when they differ, as the CLI may pair them.
func oldInVersion(old map[string]interface{}, t objectType) (map[string]interface{}, error) {
	if old == nil {
		return nil, fmt.Errorf("an update needs the old object")
	}
	ot, err := parseObjectType(old)
	if err != nil {
		return nil, fmt.Errorf("old object: %w", err)
	}
	if ot.kind != t.kind {
		return nil, fmt.Errorf("old object is a %s, new object a %s", ot.kind, t.kind)
	}
	if ot.version == t.version {
		return old, nil
	}
	converted, err := conversion.Convert(old, t.version)
	if err != nil {
		return nil, fmt.Errorf("the old object: %w", err) // err names both versions
	}
	return converted, nil
}

// ImmediateAllocationWarning ends the warning about a v1alpha1 or v1alpha2
// allocationMode: Immediate, which v1alpha3, the storage version, lacks.
const ImmediateAllocationWarning = classic.ImmediateAllocationWarning

// StorageWarningPrefix starts the warnings of storageWarnings.
const StorageWarningPrefix = "stored as " + StorageVersion + ": "

// storageWarnings are the losses of converting a write to the storage
// version, in the section the write changes, that neither the old object nor
// the version's own warnings already name.
func storageWarnings(t objectType, subResource string, newObj, oldObj map[string]interface{}, reported []string) []string {
	if t.version == StorageVersion {
		return nil
	}
	ws, err := lossesInStorage(newObj, subResource)
	if err != nil {
		return nil // the cross-version checks report conversion failures
	}
	var had []string
	if oldObj != nil {
		had, _ = lossesInStorage(oldObj, subResource)
	}
	var out []string
next:
	for _, w := range ws {
		for _, r := range append(had, reported...) {
			if r == w || strings.HasPrefix(r, strings.SplitN(w, ": ", 2)[0]+":") {
				continue next
			}
		}
		out = append(out, StorageWarningPrefix+w)
	}
	return out
}

// lossesInStorage lists "<path>: <message>" for the losses of converting obj
// to the storage version in the section a write of subResource changes.
func lossesInStorage(obj map[string]interface{}, subResource string) ([]string, error) {
	ws, err := conversion.Losses(obj, StorageVersion)
	if err != nil {
		return nil, err
	}
	_, written, _, _ := conversion.Identify(obj)
	var out []string
	for _, w := range ws {
		if statusLoss(w.Path) == (subResource == "status") {
			text := w.Path + ": " + w.Message
			if w.From != written {
				// The path is in the version of a later step.
				text += " (" + w.From + "→" + w.To + ")"
			}
			out = append(out, text)
		}
	}
	return out, nil
}

// statusLoss reports whether a loss at path is one a status write causes:
// a status field, or a built-in finalizer, whose meaning depends on the
// allocation the status write sets (a main write cannot set it).
func statusLoss(path string) bool {
	return strings.HasPrefix(path, "status.") || strings.HasPrefix(path, "metadata.finalizers[")
}

// UnknownFields returns the fields of obj, a claim or template of
// v1alpha1-v1alpha3, that its version does not have, as Validate reports
// them, without running any rule.
func UnknownFields(obj map[string]interface{}) (field.ErrorList, error) {
	t, err := parseObjectType(obj)
	if err != nil {
		return nil, err
	}
	return rulesFor[t.version].unknownFields(t.kind, obj)
}
