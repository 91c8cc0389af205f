package classic

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	v1 "github.com/claimbridge/claimbridge/api/v1alpha1"
	"github.com/claimbridge/claimbridge/validation/common"
)

// Rules are the rules of v1alpha1 and v1alpha2. They take a *ResourceClaim
// or *ResourceClaimTemplate of either version.
type Rules struct{}

// The allocation modes of the v1alpha1 and v1alpha2 claim spec (1.26–1.30),
// the same in both versions.
const (
	allocationModeImmediate            = string(v1.AllocationModeImmediate)
	allocationModeWaitForFirstConsumer = string(v1.AllocationModeWaitForFirstConsumer)
)

// ImmediateAllocationWarning is the detail of the warning about
// allocationMode: Immediate: 1.26–1.30 allocate such a claim at once, but
// claimbridge stores v1alpha3 (1.31), which has no Immediate allocation.
const ImmediateAllocationWarning = "Immediate allocation does not exist in v1alpha3 (Kubernetes 1.31+); the claim is allocated when a pod needs it"

// ValidateCreate validates a new claim or template (1.26–1.30
// ValidateClaim, ValidateClaimTemplate): metadata, a template's embedded
// metadata (labels and annotations only), then the claim spec.
func (r Rules) ValidateCreate(obj interface{}) field.ErrorList {
	o, _ := objectOf(obj)
	allErrs := common.ValidateObjectMeta(o.meta, true, field.NewPath("metadata"))
	if o.templateMeta != nil {
		allErrs = append(allErrs, common.ValidateTemplateObjectMeta(o.templateMeta, field.NewPath("spec", "metadata"))...)
	}
	specPath := o.claimSpecPath()
	allErrs = append(allErrs, common.ValidateDNS1123Subdomain(o.resourceClassName, specPath.Child("resourceClassName"))...)
	if ref := o.parametersRef; ref != nil {
		allErrs = append(allErrs, common.RequiredEach(specPath.Child("parametersRef"), "kind", ref.Kind, "name", ref.Name)...)
	}
	if mode := *o.allocationMode; mode != allocationModeImmediate && mode != allocationModeWaitForFirstConsumer {
		allErrs = append(allErrs, field.NotSupported(specPath.Child("allocationMode"), o.typedAllocationMode(),
			[]string{allocationModeImmediate, allocationModeWaitForFirstConsumer}))
	}
	return allErrs
}

// ValidateUpdate validates an update of the main resource of a claim or
// template (ValidateClaimUpdate, ValidateClaimTemplateUpdate): metadata
// update rules, the immutable spec, then every create rule again.
func (r Rules) ValidateUpdate(obj, oldObj interface{}) field.ErrorList {
	o, _ := objectOf(obj)
	old, _ := objectOf(oldObj)
	return common.ValidateUpdate(o.meta, old.meta, o.spec, old.spec, r.ValidateCreate(obj))
}

// ValidateStatusUpdate validates a write to a claim's status subresource
// (ValidateClaimStatusUpdate), plus allocation immutability, which 1.26
// lacked and claimbridge enforces in every version (docs/validation.md).
// With allocationStored (the allocation is the old one), neither the
// allocation nor a driverName missing before too is judged again.
func (r Rules) ValidateStatusUpdate(claim, oldClaim interface{}, allocationStored bool) field.ErrorList {
	o, _ := objectOf(claim)
	old, _ := objectOf(oldClaim)
	status, oldStatus := o.status, old.status
	allErrs := common.ValidateObjectMetaUpdate(o.meta, old.meta, field.NewPath("metadata"))
	fldPath := field.NewPath("status")
	switch {
	case status.driverName != "":
		allErrs = append(allErrs, common.ValidateDriverName(status.driverName, fldPath.Child("driverName"))...)
	case status.allocation != nil && !(allocationStored && oldStatus.driverName == ""):
		allErrs = append(allErrs, field.Required(fldPath.Child("driverName"), "must be specified when `allocation` is set"))
	}
	if status.allocation != nil && !allocationStored {
		allErrs = append(allErrs, validateAllocation(status.allocation, fldPath.Child("allocation"))...)
	}
	allErrs = append(allErrs, common.ValidateReservedForLegacy(status.view.ReservedFor, fldPath.Child("reservedFor"))...)
	allErrs = append(allErrs, common.ValidateReservedForInvariants(status.view, oldStatus.view, o.meta.DeletionTimestamp != nil, true, fldPath)...)
	if status.allocation != nil && oldStatus.allocation != nil && !allocationStored {
		allErrs = append(allErrs, common.ValidateImmutableField(status.allocation, oldStatus.allocation, fldPath.Child("allocation"))...)
	}
	return append(allErrs, common.ValidateDeallocation(status.view, oldStatus.view, fldPath)...)
}

// SetDefaults applies upstream defaulting (SetDefaults_ResourceClaimSpec)
// to a claim or template: an empty allocationMode becomes
// WaitForFirstConsumer. Other types are ignored.
func (r Rules) SetDefaults(obj interface{}) {
	if o, ok := objectOf(obj); ok && *o.allocationMode == "" {
		*o.allocationMode = allocationModeWaitForFirstConsumer
	}
}

// Warnings returns admission warnings for a claim or template: what
// 1.26–1.30 accepted but is likely a mistake or cannot be carried forward
// to v1alpha3. Other types yield none.
func (r Rules) Warnings(obj interface{}) []string {
	o, ok := objectOf(obj)
	if !ok {
		return nil
	}
	specPath := o.claimSpecPath()
	var warnings []string
	if *o.allocationMode == allocationModeImmediate {
		warnings = append(warnings, fmt.Sprintf("%s: %s", specPath.Child("allocationMode"), ImmediateAllocationWarning))
	}
	if ref := o.parametersRef; ref != nil && ref.APIGroup != "" {
		if msgs := validation.IsDNS1123Subdomain(ref.APIGroup); len(msgs) > 0 {
			warnings = append(warnings, fmt.Sprintf("%s: %q is not a valid API group (Kubernetes does not check it): %s",
				specPath.Child("parametersRef", "apiGroup"), ref.APIGroup, msgs[0]))
		}
	}
	return warnings
}

// claimSpecPath is the path of the claim spec: spec, or a template's spec.spec.
func (o object) claimSpecPath() *field.Path {
	if o.templateMeta != nil {
		return field.NewPath("spec", "spec")
	}
	return field.NewPath("spec")
}

// StatusWarnings returns no warnings: 1.26–1.30 had none about a status.
func (r Rules) StatusWarnings(interface{}) []string { return nil }

// Parts returns what the cross-version checks compare of a claim or
// template: its metadata, typed spec, typed *AllocationResult (nil when
// unset or for a template) and status.
func (r Rules) Parts(obj interface{}) (meta *metav1.ObjectMeta, spec, allocation interface{}, statusView common.StatusView) {
	o, _ := objectOf(obj)
	if o.status != nil {
		allocation, statusView = o.status.allocation, o.status.view
	}
	return o.meta, o.spec, allocation, statusView
}
