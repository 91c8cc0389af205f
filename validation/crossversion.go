package validation

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"

	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/conversion"
	"github.com/claimbridge/claimbridge/validation/common"
)

// otherVersionUpdateErrors checks an update of the main resource as every
// other version sees it, so that a rule protecting the stored object holds
// whichever version the client speaks: the spec and status must look
// unchanged in every version (the client could edit the restore
// annotations). Findings already reported are not repeated; maxDepth is
// Request.MaxViewDepth.
func otherVersionUpdateErrors(t objectType, newObj, oldObj map[string]interface{}, reported field.ErrorList, maxDepth int) field.ErrorList {
	var allErrs field.ErrorList
	add := func(errs ...*field.Error) { allErrs = addNew(allErrs, reported, errs...) }
	annotationsPath := field.NewPath("metadata", "annotations")
	hint := restoreAnnotationsHint(newObj, oldObj)
	statusChanged := false // in some view
	for _, pair := range convertToOtherVersions(t, false, newObj, oldObj) {
		version := pair.version
		if pair.err != nil {
			e, internal := viewError(newObj, oldObj, version, pair.err, annotationsPath)
			if internal {
				return append(allErrs, e)
			}
			add(e)
			continue
		}
		newParts, oldParts := pair.newParts, pair.oldParts
		if maxDepth > 0 && api.HasRestoreAnnotation(newObj) && nestsDeeper(pair.newObj, maxDepth) && !nestsDeeper(pair.oldObj, maxDepth) {
			add(tooDeep(newObj, version, maxDepth))
		}
		// Restore annotations may add fields the version does not have.
		if api.HasRestoreAnnotation(newObj) {
			add(addedUnknownFields(t.kind, version, pair)...)
		}
		// Only metadata can hide a change that X does not show.
		if !apiequality.Semantic.DeepEqual(newParts.spec, oldParts.spec) && !reportedAt(field.ErrorTypeInvalid, "spec", reported) {
			add(field.Invalid(annotationsPath, common.OmittedValue,
				fmt.Sprintf("%s: the update changes the spec as seen through %s%s", common.FieldImmutableErrorMsg, version, hint)))
		}
		switch {
		case allocationChanged(newParts, oldParts):
			statusChanged = true
			if !reportedAt(field.ErrorTypeInvalid, "status.allocation", reported) {
				add(field.Invalid(annotationsPath, common.OmittedValue,
					fmt.Sprintf("%s: the update changes status.allocation as seen through %s%s", common.FieldImmutableErrorMsg, version, hint)))
			}
		case !api.EqualJSON(newParts.rawStatus, oldParts.rawStatus):
			// The apiserver keeps the stored status on a main update,
			// so only the restore annotations can change it here.
			statusChanged = true
			add(field.Forbidden(annotationsPath,
				fmt.Sprintf("the update changes status as seen through %s: status is written through the status subresource%s", version, hint)))
		}
	}
	if !statusChanged && t.kind == api.KindClaim {
		// Status data that changes no view today may change one later.
		add(statusRestoreDataErrors(t, newObj, oldObj)...)
	}
	return mergeAcrossVersions(allErrs)
}

// otherVersionStatusErrors checks a status write as every other version
// sees it: a set allocation must be unchanged as stored, and the
// reservedFor, deletion, deallocation and shareable rules hold in every
// version. Findings already reported are not repeated. With sameInput
// (sameConversionInput) the write cannot change how any version reads the
// object, so a version that cannot show it is no finding.
func otherVersionStatusErrors(t objectType, newObj, oldObj map[string]interface{}, reported field.ErrorList, sameInput bool) field.ErrorList {
	var allErrs field.ErrorList
	add := func(errs ...*field.Error) { allErrs = addNew(allErrs, reported, errs...) }
	statusPath := field.NewPath("status")
	for _, pair := range convertToOtherVersions(t, true, newObj, oldObj) {
		version := pair.version
		if pair.err != nil && sameInput {
			continue
		}
		if pair.err != nil {
			e, internal := viewError(newObj, oldObj, version, pair.err, statusPath)
			if internal {
				return append(allErrs, e)
			}
			add(e)
			continue
		}
		newParts, oldParts := pair.newParts, pair.oldParts
		stored := version == api.StorageVersion
		// Only the stored allocation is compared: the older versions drop
		// the old status's restore data by design.
		if stored && allocationChanged(newParts, oldParts) && !reportedAt(field.ErrorTypeInvalid, "status.allocation", reported) {
			add(field.Invalid(statusPath.Child("allocation"), common.OmittedValue,
				fmt.Sprintf("%s: the update changes the allocation as seen through %s", common.FieldImmutableErrorMsg, version)))
		}
		if stored && newParts.allocation != nil && oldParts.allocation == nil && len(reported) == 0 {
			add(storageStatusErrors(pair)...)
		}
		deleted := newParts.meta.DeletionTimestamp != nil
		reservationErrs := common.ValidateReservedForInvariants(newParts.status, oldParts.status, deleted, !stored, statusPath)
		// Upstream checks shareable only while the claim is allocated;
		// without an allocation its reservations are refused anyway.
		if !stored && newParts.status.Allocated && oldParts.status.NotShareable && len(newParts.status.ReservedFor) > 1 {
			reservationErrs = append(reservationErrs, field.Forbidden(statusPath.Child("reservedFor"), notShareableMsg))
		}
		for _, e := range reservationErrs {
			if t.version == api.StorageVersion && e.Type == field.ErrorTypeForbidden && e.Detail == notShareableMsg {
				e.Detail += notShareableWhy // a v1alpha3 client sees no shareable field
			}
		}
		add(reservationErrs...)
		add(common.ValidateDeallocation(newParts.status, oldParts.status, statusPath)...)
	}
	return mergeAcrossVersions(allErrs)
}

// addNew appends to allErrs the errs that neither it nor reported holds.
func addNew(allErrs, reported field.ErrorList, errs ...*field.Error) field.ErrorList {
	for _, e := range errs {
		if e != nil && !alreadyReported(e, reported) && !alreadyReported(e, allErrs) {
			allErrs = append(allErrs, e)
		}
	}
	return allErrs
}

// viewError is the finding for a version that cannot show the objects of a
// write: at path when the write makes the object unreadable through it, nil
// when it was unreadable before too (nothing to protect there), and an
// internal error when it is the storage version.
func viewError(newObj, oldObj map[string]interface{}, version string, err error, path *field.Path) (e *field.Error, internal bool) {
	switch {
	case version == api.StorageVersion:
		return field.InternalError(field.NewPath("metadata", "annotations"), err), true
	case newlyUnreadable(newObj, oldObj, version):
		return unreadable(path, version, err), false
	}
	return nil, false
}

// storageStatusErrors applies the storage version's rules, at
// status.allocation, to the allocation a v1alpha1 or v1alpha2 status write
// sets: those versions allow what v1alpha3 refuses (a device name with a dot).
func storageStatusErrors(pair convertedPair) field.ErrorList {
	errs, _, err := statusRules(api.StorageVersion, pair.newObj, pair.oldObj, false)
	if err != nil {
		return nil // the stored form does not decode: conversion's errors say so
	}
	var out field.ErrorList
	for _, e := range errs {
		if e.Field == "status.allocation" || strings.HasPrefix(e.Field, "status.allocation.") {
			out = append(out, field.Invalid(field.NewPath("status", "allocation"), common.OmittedValue,
				fmt.Sprintf("the allocation breaks a rule as seen through %s, the storage version: %s", api.StorageVersion, e.Error())))
		}
	}
	return out
}

// notShareableMsg refuses a second consumer of an unshareable allocation.
const notShareableMsg = "may not be reserved more than once"

// notShareableWhy ends notShareableMsg when another version refuses.
var notShareableWhy = fmt.Sprintf(": the allocation is not shareable as seen through %s and %s (status.allocation.shareable: false, "+
	"kept in the %s* annotations for the 1.26–1.30 driver that allocated it), whose consumers allow it one consumer only",
	api.V1alpha1, api.V1alpha2, api.RestoreAnnotationPrefix)

// newlyUnreadable reports whether newObj cannot be converted to version
// while oldObj can.
func newlyUnreadable(newObj, oldObj map[string]interface{}, version string) bool {
	if _, err := conversion.Convert(newObj, version); err == nil {
		return false
	}
	_, err := conversion.Convert(oldObj, version)
	return err == nil
}

func allocationChanged(newParts, oldParts comparedParts) bool {
	return newParts.allocation != nil && oldParts.allocation != nil &&
		!apiequality.Semantic.DeepEqual(newParts.allocation, oldParts.allocation)
}

// alreadyReported: same type, path and detail (the value may differ between views).
func alreadyReported(e *field.Error, errs field.ErrorList) bool {
	return slices.ContainsFunc(errs, func(r *field.Error) bool { return r.Type == e.Type && r.Field == e.Field && r.Detail == e.Detail })
}

func reportedAt(errType field.ErrorType, path string, errs field.ErrorList) bool {
	return slices.ContainsFunc(errs, func(r *field.Error) bool { return r.Type == errType && r.Field == path })
}

// restoreAnnotationsHint ends a main update's cross-version findings when its
// restore annotations differ from the old object's: most often a client wrote
// an object it built (`kubectl replace -f`), or a server-side apply switched
// versions, which prunes the fields applied through the former one.
func restoreAnnotationsHint(newObj, oldObj map[string]interface{}) string {
	if api.EqualJSON(restoreAnnotations(newObj), restoreAnnotations(oldObj)) {
		return ""
	}
	if manager, from, to, ok := applyVersionSwitch(newObj, oldObj); ok {
		return fmt.Sprintf(" (server-side apply by field manager %q through %s removes the fields it applied through %s before and does not apply now, "+
			"among them what %s cannot show, which the %s* annotations held: apply through %s as before, or through %s with another "+
			"field manager, which leaves %q's fields in place (with --force-conflicts where their fields overlap))", manager, to, from, to, api.RestoreAnnotationPrefix, from, to, manager)
	}
	return " (the update's " + api.RestoreAnnotationPrefix + "* annotations differ from the stored object's: they hold what the other versions " +
		"show, and only claimbridge writes them; send them as read: write back the object as read, or patch or apply only the fields you change; " +
		"while claimbridge replicas of two builds serve, during an upgrade, read it again once they are one)"
}

// applyVersionSwitch reports a field manager whose server-side apply went
// through another version in oldObj, and both versions.
func applyVersionSwitch(newObj, oldObj map[string]interface{}) (manager, from, to string, ok bool) {
	applies := func(obj map[string]interface{}) map[string]string {
		entries, _ := api.Metadata(obj)["managedFields"].([]interface{})
		out := map[string]string{}
		for _, e := range entries {
			entry, _ := e.(map[string]interface{})
			m, _ := entry["manager"].(string)
			op, _ := entry["operation"].(string)
			sub, _ := entry["subresource"].(string)
			apiVersion, _ := entry["apiVersion"].(string)
			group, version, found := strings.Cut(apiVersion, "/")
			if op == "Apply" && sub == "" && found && group == api.Group && m != "" {
				out[m] = version
			}
		}
		return out
	}
	before, after := applies(oldObj), applies(newObj)
	for _, m := range slices.Sorted(maps.Keys(after)) { // the same message every time
		if was, ok := before[m]; ok && was != after[m] {
			return m, was, after[m], true
		}
	}
	return "", "", "", false
}

// restoreAnnotations returns obj's restore annotations.
func restoreAnnotations(obj map[string]interface{}) map[string]interface{} {
	out := maps.Clone(api.Annotations(obj))
	maps.DeleteFunc(out, func(k string, _ interface{}) bool { return !strings.HasPrefix(k, api.RestoreAnnotationPrefix) })
	return out
}

// addedUnknownFields reports fields of version's view of the new object that
// the version's type lacks and the old view did not have. Only a client's
// restore data can put them there, and the apiserver would drop them. Each is
// named at version's restore annotation.
func addedUnknownFields(kind, version string, pair convertedPair) field.ErrorList {
	if pair.newObj == nil {
		return nil
	}
	_, added, err := decodeObject(version, kind, pair.newObj, true)
	if err != nil || len(added) == 0 {
		return nil // a view that does not decode is the other checks' to report
	}
	_, had, _ := decodeObject(version, kind, pair.oldObj, true)
	return restoreAnnotationErrors(field.NewPath("metadata", "annotations").Key(api.RestoreAnnotation(version)), version, added, had)
}

// convertedPair is the new and the old object converted to one version.
type convertedPair struct {
	version            string
	newParts, oldParts comparedParts
	// err is why the objects cannot be converted to the version.
	err error
	// newObj and oldObj are the converted objects, kept on a main update
	// (tooDeep, addedUnknownFields) and for the storage version
	// (storageStatusErrors).
	newObj, oldObj map[string]interface{}
}

// convertToOtherVersions returns the pairs of every served version other
// than t.version, oldest first. statusOnly (a status write) decodes only
// metadata.deletionTimestamp and the status of the converted objects.
func convertToOtherVersions(t objectType, statusOnly bool, newObj, oldObj map[string]interface{}) []convertedPair {
	var out []convertedPair
	for _, version := range t.otherVersions() {
		pair := convertedPair{version: version}
		if pair.newObj, pair.err = conversion.Convert(newObj, version); pair.err == nil {
			pair.oldObj, pair.err = conversion.Convert(oldObj, version)
		}
		if pair.err == nil {
			var errNew, errOld error
			pair.newParts, errNew = partsOf(version, t.kind, pair.newObj, statusOnly)
			pair.oldParts, errOld = partsOf(version, t.kind, pair.oldObj, statusOnly)
			if err := cmp.Or(errNew, errOld); err != nil {
				pair.err = fmt.Errorf("decoding the %s conversion: %w", version, err)
			}
		}
		if statusOnly && version != api.StorageVersion {
			pair.newObj, pair.oldObj = nil, nil
		}
		out = append(out, pair)
	}
	return out
}
