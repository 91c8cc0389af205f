package conversion

import "fmt"

// BuiltinFinalizer130 is the finalizer a 1.27–1.30 scheduler adds to a claim
// it allocates from structured parameters (resource.k8s.io/v1alpha2's
// Finalizer); 1.31 renamed it to DeleteProtectionFinalizer.
const BuiltinFinalizer130 = "dra.k8s.io/delete-protection"

// The 1.30 and 1.31 scheduler and resourceclaim controller tell an
// allocation they made from structured parameters (and clear themselves)
// from a control-plane driver's (which they ask to deallocate) by their own
// release's built-in finalizer, not by the allocation's shape. A conversion
// may not change finalizers (kube-apiserver refuses a conversion webhook's
// metadata changes other than labels and annotations; claimbridge convert
// keeps them for exact round trips), so a structured allocation that keeps
// the other release's name is reported.

func finalizerLossesV2ToV3(obj map[string]interface{}, kind string, r *lossReport) {
	alloc := asMap(asMap(obj["status"])["allocation"])
	if kind != KindClaim || alloc == nil {
		return
	}
	handles := asSlice(alloc["resourceHandles"])
	if anyStructured(handles) {
		builtinFinalizerLoss(obj, BuiltinFinalizer130, DeleteProtectionFinalizer, "1.31", r)
		return
	}
	// No handles and the 1.30 scheduler's finalizer: its allocation from
	// structured parameters that asked for no device (driverRequests: []).
	// By its shape it maps as a classic allocation of status.driverName.
	if driver := asString(asMap(obj["status"])["driverName"]); len(handles) == 0 && driver != "" && hasFinalizer(obj, BuiltinFinalizer130) {
		r.lose("status.allocation", "the 1.30 scheduler made this allocation from structured parameters asking for no device (finalizer %s), but without handles it maps as driver %q's classic allocation (controller): a 1.31 scheduler and resourceclaim controller ask that driver to deallocate it instead of clearing it themselves, and no 1.31 component does", BuiltinFinalizer130, driver)
	}
}

func hasFinalizer(obj map[string]interface{}, name string) bool {
	for _, f := range asSlice(asMap(obj["metadata"])["finalizers"]) {
		if asString(f) == name {
			return true
		}
	}
	return false
}

func finalizerLossesV3ToV2(obj map[string]interface{}, kind string, r *lossReport) {
	alloc := asMap(asMap(obj["status"])["allocation"])
	if kind == KindClaim && alloc != nil && asString(alloc["controller"]) == "" {
		builtinFinalizerLoss(obj, DeleteProtectionFinalizer, BuiltinFinalizer130, "1.27–1.30", r)
	}
}

// builtinFinalizerLoss reports finalizer from (the source release's
// built-in one) when the claim lacks to (the target release's).
func builtinFinalizerLoss(obj map[string]interface{}, from, to, release string, r *lossReport) {
	at := -1
	for i, f := range asSlice(asMap(obj["metadata"])["finalizers"]) {
		switch asString(f) {
		case to:
			return
		case from:
			at = i
		}
	}
	if at >= 0 {
		r.lose(fmt.Sprintf("metadata.finalizers[%d]", at), "a %s scheduler and resourceclaim controller recognise a structured allocation by finalizer %s: with %s they take it for a control-plane driver's, request its deallocation instead of clearing it (its pods are not scheduled meanwhile) and never remove this finalizer; a conversion keeps finalizers (claimbridge migrate renames it)", release, to, from)
	}
}
