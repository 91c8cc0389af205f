package validation

import (
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

// StorageVersion is the version claimbridge stores; every other version is a view of it.
const StorageVersion = "v1alpha3"

// convert is conversion.Convert; a variable only so that the dependency is
// visible in one place.
var convert = conversion.Convert

// One object, one set of invariants: an update that arrives in version X is
// also looked at through every other version Y (old and new converted to
// Y), so that a rule protecting the stored object holds whichever version
// the client speaks:
//
//   - main update: the spec of every view is unchanged (X may not be able to
//     show all of it: what it cannot hold lives in the
//     claimbridge.dev/restore-* annotations), and so is its status (the
//     apiserver keeps the stored status; edited annotations could otherwise
//     write another version's status without the status subresource);
//   - status update: a set allocation is unchanged in the stored v1alpha3
//     form (X itself checks its own view); the
//     reservedFor, deletion and deallocation rules hold in every view; a
//     claim whose v1alpha1/v1alpha2 view was allocated as not shareable keeps
//     at most one consumer, even when updated through v1alpha3.
//
// Findings that X already reported are not repeated.

// crossVersionErrors returns the findings of the other versions' views.
// deriveOld is crossViews'; maxDepth is Request.MaxViewDepth.
func crossVersionErrors(t target, subResource string, deriveOld bool, newObj, oldObj map[string]interface{}, reported field.ErrorList, maxDepth int) field.ErrorList {
	var allErrs field.ErrorList
	add := func(errs ...*field.Error) {
		for _, e := range errs {
			if !alreadyReported(e, reported) && !alreadyReported(e, allErrs) {
				allErrs = append(allErrs, e)
			}
		}
	}
	annotationsPath := field.NewPath("metadata", "annotations")
	statusPath := field.NewPath("status")
	all := crossViews(t, subResource == "status", deriveOld, newObj, oldObj)
	statusChanged := false // in some view, on a main update
	hint := ""
	if subResource == "" {
		hint = restoreAnnotationsHint(newObj, oldObj)
	}
	for _, version := range versions {
		if version == t.version || all[version].sameAs != "" {
			continue
		}
		newView, oldView, err := all[version].newView, all[version].oldView, all[version].err
		switch {
		case err != nil && version == StorageVersion:
			return append(allErrs, field.InternalError(annotationsPath, err))
		case err != nil && newlyUnreadable(newObj, oldObj, version):
			// What this version cannot hold no longer fits the annotations
			// (the client's own annotations or spec on a main update, the
			// allocation on a status write: e.g. 32 handles of 16 KiB as
			// v1alpha1): every read through it would fail, and every list
			// and watch through it, for every client (unreadable).
			path := annotationsPath
			if subResource == "status" {
				path = statusPath
			}
			add(unreadable(path, version, err))
			continue
		case err != nil:
			// An object that could not be shown in this version before
			// the write either has no view to protect here; reads in that
			// version fail with conversion's own message.
			continue
		}
		if subResource == "" {
			// The restore annotations may nest a view deeper than the
			// conversion webhook returns (tooDeep; without them no view
			// nests deeper than the object); one already so before the
			// write is not refused for it.
			if maxDepth > 0 && api.HasRestoreAnnotation(newObj) && nestsDeeper(all[version].newObj, maxDepth) && !nestsDeeper(all[version].oldObj, maxDepth) {
				add(tooDeep(newObj, version, maxDepth))
			}
			// They may also add fields the version does not have, which its
			// typed view below does not see; a create is refused for them
			// (createViewErrors), and so is an update that adds them.
			if api.HasRestoreAnnotation(newObj) {
				add(addedUnknownFields(t.kind, version, all[version])...)
			}
			// Only metadata can hide a change that X does not show.
			if !apiequality.Semantic.DeepEqual(newView.spec, oldView.spec) && !reportedAt(field.ErrorTypeInvalid, "spec", reported) {
				add(field.Invalid(annotationsPath, common.OmittedValue,
					fmt.Sprintf("%s: the update changes the spec as seen through %s%s", common.FieldImmutableErrorMsg, version, hint)))
			}
			switch {
			case allocationChanged(newView, oldView):
				statusChanged = true
				if !reportedAt(field.ErrorTypeInvalid, "status.allocation", reported) {
					add(field.Invalid(annotationsPath, common.OmittedValue,
						fmt.Sprintf("%s: the update changes status.allocation as seen through %s%s", common.FieldImmutableErrorMsg, version, hint)))
				}
			case !apiequality.Semantic.DeepEqual(newView.rawStatus, oldView.rawStatus):
				// The apiserver keeps the stored status on a main update
				// (prepareForUpdate), so only the restore annotations can
				// change a view's status here: an allocation set or
				// cleared, consumers or a deallocation request added or
				// hidden, written without the status subresource.
				statusChanged = true
				add(field.Forbidden(annotationsPath,
					fmt.Sprintf("the update changes status as seen through %s: status is written through the status subresource%s", version, hint)))
			}
			continue
		}
		// On a status write only the stored (v1alpha3) form is compared: a
		// v1alpha1/v1alpha2 view of a changed status drops the restore data
		// of the old status (shareable, handle data) by design, which is no
		// change of the stored allocation.
		if version == StorageVersion && allocationChanged(newView, oldView) && !reportedAt(field.ErrorTypeInvalid, "status.allocation", reported) {
			add(field.Invalid(statusPath.Child("allocation"), common.OmittedValue,
				fmt.Sprintf("%s: the update changes the allocation as seen through %s", common.FieldImmutableErrorMsg, version)))
		}
		if version == StorageVersion && newView.allocation != nil && oldView.allocation == nil && len(reported) == 0 {
			// (A write its own version's rules refuse gets their findings
			// alone, as upstream's.)
			add(storageStatusErrors(t.kind, all[version])...)
		}
		shareableRule := version != StorageVersion
		deleted := newView.meta.DeletionTimestamp != nil
		reservationErrs := common.ValidateReservedForInvariants(newView.status, oldView.status, deleted, shareableRule, statusPath)
		// Upstream checks shareable only while the claim is allocated;
		// without an allocation its reservations are refused anyway.
		if shareableRule && newView.status.Allocated && oldView.status.NotShareable && len(newView.status.ReservedFor) > 1 {
			reservationErrs = append(reservationErrs, field.Forbidden(statusPath.Child("reservedFor"), notShareableMsg))
		}
		if t.version == StorageVersion {
			explainNotShareable(reservationErrs) // a v1alpha3 client sees no shareable field
		}
		add(reservationErrs...)
		add(common.ValidateDeallocation(newView.status, oldView.status, statusPath)...)
	}
	if subResource == "" && !statusChanged && t.kind == KindResourceClaim {
		// Status data that changes no view today may change one later.
		add(pendingStatusErrors(t, newObj, oldObj)...)
	}
	return mergeSeenThrough(allErrs)
}

// storageStatusErrors are the storage version's own rules on the
// allocation a v1alpha1 or v1alpha2 status write sets, as stored: what those
// versions let a driver write (a device name with a dot, 40 results in one
// handle, a result for a claim whose v1alpha3 spec has no request) can break
// a v1alpha3 rule, which every 1.31 consumer of the stored claim relies on,
// and which a write through v1alpha3 could not break. Each is reported at
// status.allocation with the storage version's path and message.
func storageStatusErrors(kind string, pair viewPair) field.ErrorList {
	if pair.newObj == nil || pair.oldObj == nil {
		return nil
	}
	result, err := shapes[StorageVersion].run(kind, Update, "status", pair.newObj, pair.oldObj)
	if err != nil {
		return nil // the stored form does not decode: conversion's errors say so
	}
	var out field.ErrorList
	for _, e := range result.errs {
		if e.Field != "status.allocation" && !strings.HasPrefix(e.Field, "status.allocation.") {
			continue
		}
		out = append(out, field.Invalid(field.NewPath("status", "allocation"), common.OmittedValue,
			fmt.Sprintf("the allocation breaks a rule as seen through %s, the storage version: %s", StorageVersion, e.Error())))
	}
	return out
}

// notShareableMsg is upstream's refusal of a second consumer of an
// allocation that is not shareable.
const notShareableMsg = "may not be reserved more than once"

// notShareableWhy ends notShareableMsg when the view of another version than
// the written one refuses (the same words whichever older view it is, so
// that every way to the verdict gives the same error).
var notShareableWhy = fmt.Sprintf(": the allocation is not shareable as seen through %s and %s (status.allocation.shareable: false, "+
	"kept in the %s* annotations for the 1.26–1.30 driver that allocated it), whose consumers allow it one consumer only",
	api.V1alpha1, api.V1alpha2, api.RestoreAnnotationPrefix)

// explainNotShareable says, in the refusals of a second consumer that an
// older version's view gives a v1alpha3 write, where the rule comes from:
// v1alpha3 has no shareable field. (A v1alpha1 or v1alpha2 write is refused
// in its own version's words, as upstream.)
func explainNotShareable(errs field.ErrorList) {
	for _, e := range errs {
		if e.Type == field.ErrorTypeForbidden && e.Detail == notShareableMsg {
			e.Detail += notShareableWhy
		}
	}
}

// newlyUnreadable reports whether newObj cannot be converted to version
// while oldObj can.
func newlyUnreadable(newObj, oldObj map[string]interface{}, version string) bool {
	if _, err := convert(newObj, version); err == nil {
		return false
	}
	_, err := convert(oldObj, version)
	return err == nil
}

func allocationChanged(newView, oldView objectView) bool {
	return newView.allocation != nil && oldView.allocation != nil &&
		!apiequality.Semantic.DeepEqual(newView.allocation, oldView.allocation)
}

// alreadyReported: same type, path and detail (the value may differ between views).
func alreadyReported(e *field.Error, errs field.ErrorList) bool {
	for _, r := range errs {
		if r.Type == e.Type && r.Field == e.Field && r.Detail == e.Detail {
			return true
		}
	}
	return false
}

func reportedAt(errType field.ErrorType, path string, errs field.ErrorList) bool {
	for _, r := range errs {
		if r.Type == errType && r.Field == path {
			return true
		}
	}
	return false
}

// restoreAnnotationsHint is said after a main update's cross-version
// findings when the update's restore annotations are not the old object's:
// most often a client that wrote an object it built itself (`kubectl
// replace -f` of the original manifest) rather than one it read, whose
// older shape alone no longer says what the stored object holds.
//
// A server-side apply by a field manager that applied through another
// version before is told apart: kube-apiserver removes the fields the
// manager applied then and does not apply now (structured-merge-diff's
// prune, through the former version's view), among them what the new
// version cannot show and the restore annotations held, so that the
// manager's new manifest, whatever it says, changes the spec the former
// one wrote.
func restoreAnnotationsHint(newObj, oldObj map[string]interface{}) string {
	if apiequality.Semantic.DeepEqual(restoreAnnotations(newObj), restoreAnnotations(oldObj)) {
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

// applyVersionSwitch reports the field manager whose server-side apply of
// the main resource newObj is, when its former apply (in oldObj's
// managedFields) was through another version of the group: the manager and
// both versions.
func applyVersionSwitch(newObj, oldObj map[string]interface{}) (manager, from, to string, ok bool) {
	applies := func(obj map[string]interface{}) map[string]string {
		meta, _ := obj["metadata"].(map[string]interface{})
		entries, _ := meta["managedFields"].([]interface{})
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

// restoreAnnotations returns obj's restore annotations (nil if none).
func restoreAnnotations(obj map[string]interface{}) map[string]interface{} {
	meta, _ := obj["metadata"].(map[string]interface{})
	ann, _ := meta["annotations"].(map[string]interface{})
	var out map[string]interface{}
	for k, v := range ann {
		if strings.HasPrefix(k, api.RestoreAnnotationPrefix) {
			if out == nil {
				out = map[string]interface{}{}
			}
			out[k] = v
		}
	}
	return out
}
