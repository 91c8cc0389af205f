package conversion

import (
	"fmt"
	"slices"

	"github.com/claimbridge/claimbridge/api"
)

// The built-in finalizers: a 1.27–1.30 scheduler adds api.FinalizerV1alpha2
// to a claim it allocates from structured parameters, and 1.31 renamed it
// to api.FinalizerV1alpha3, which the built-in resourceclaim controller
// deallocates by.
//
// The 1.30 and 1.31 scheduler and resourceclaim controller tell their own
// structured allocations from a control-plane driver's by their release's
// built-in finalizer. A conversion may not change finalizers (kube-apiserver
// refuses it), so a structured allocation with the other release's
// finalizer is reported.

func finalizerLossesV2ToV3(obj map[string]interface{}, kind string, r *lossReport) {
	alloc := asMap(asMap(obj["status"])["allocation"])
	if kind != api.KindClaim || alloc == nil {
		return
	}
	handles := asSlice(alloc["resourceHandles"])
	if anyStructured(handles) {
		builtinFinalizerLoss(obj, api.FinalizerV1alpha2, api.FinalizerV1alpha3, "1.31", r)
		return
	}
	// No handles and the 1.30 scheduler's finalizer: a structured
	// allocation of no device, which maps as a classic one.
	if driver := asString(asMap(obj["status"])["driverName"]); len(handles) == 0 && driver != "" && hasFinalizer(obj, api.FinalizerV1alpha2) {
		r.lose("status.allocation", "the 1.30 scheduler made this allocation from structured parameters asking for no device (finalizer %s), but without handles it maps as driver %q's classic allocation (controller): a 1.31 scheduler and resourceclaim controller ask that driver to deallocate it instead of clearing it themselves, and no 1.31 component does", api.FinalizerV1alpha2, driver)
	}
}

func hasFinalizer(obj map[string]interface{}, name string) bool {
	return slices.ContainsFunc(asSlice(api.Metadata(obj)["finalizers"]), func(f interface{}) bool { return asString(f) == name })
}

func finalizerLossesV3ToV2(obj map[string]interface{}, kind string, r *lossReport) {
	alloc := asMap(asMap(obj["status"])["allocation"])
	if kind == api.KindClaim && alloc != nil && asString(alloc["controller"]) == "" {
		builtinFinalizerLoss(obj, api.FinalizerV1alpha3, api.FinalizerV1alpha2, "1.27–1.30", r)
	}
}

// builtinFinalizerLoss reports the source release's finalizer from when the
// claim lacks the target release's finalizer to.
func builtinFinalizerLoss(obj map[string]interface{}, from, to, release string, r *lossReport) {
	at := -1
	for i, f := range asSlice(api.Metadata(obj)["finalizers"]) {
		switch asString(f) {
		case to:
			return
		case from:
			at = i
		}
	}
	if at >= 0 {
		r.lose(fmt.Sprintf("metadata.finalizers[%d]", at), "a %s scheduler and resourceclaim controller recognise a structured allocation by finalizer %s: with %s they take it for a control-plane driver's, request its deallocation instead of clearing it (its pods are not scheduled meanwhile) and never remove this finalizer; a conversion keeps finalizers (claimbridge migrate drops it with the allocation)", release, to, from)
	}
}
