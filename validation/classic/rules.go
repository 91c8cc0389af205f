package classic

import (
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/claimbridge/claimbridge/validation/common"
)

// ValidateResourceClaim validates a new claim (ValidateClaim).
func (b *Binding[C, CL, T, TL, TS, S, A, M]) ValidateResourceClaim(claim *C) field.ErrorList {
	meta, spec, _ := b.Claim(claim)
	allErrs := common.ValidateObjectMeta(meta, field.NewPath("metadata"))
	allErrs = append(allErrs, b.validateSpec(spec, field.NewPath("spec"))...)
	return allErrs
}

// ValidateResourceClaimUpdate validates an update of the main resource
// (ValidateClaimUpdate): metadata update rules, the immutable spec, then
// every create rule again.
func (b *Binding[C, CL, T, TL, TS, S, A, M]) ValidateResourceClaimUpdate(claim, oldClaim *C) field.ErrorList {
	meta, spec, _ := b.Claim(claim)
	oldMeta, oldSpec, _ := b.Claim(oldClaim)
	return common.ValidateUpdate(meta, oldMeta, *spec, *oldSpec, b.ValidateResourceClaim(claim))
}

// ValidateResourceClaimTemplate validates a new template
// (ValidateClaimTemplate): metadata, the embedded metadata (labels and
// annotations only) and the claim spec at spec.spec.
func (b *Binding[C, CL, T, TL, TS, S, A, M]) ValidateResourceClaimTemplate(template *T) field.ErrorList {
	fldPath := field.NewPath("spec")
	meta, tspec := b.Template(template)
	specMeta, spec := b.TemplateSpec(tspec)
	allErrs := common.ValidateObjectMeta(meta, field.NewPath("metadata"))
	allErrs = append(allErrs, common.ValidateTemplateObjectMeta(specMeta, fldPath.Child("metadata"))...)
	allErrs = append(allErrs, b.validateSpec(spec, fldPath.Child("spec"))...)
	return allErrs
}

// ValidateResourceClaimTemplateUpdate validates a template update
// (ValidateClaimTemplateUpdate): metadata update, immutable spec, then the
// create rules again.
func (b *Binding[C, CL, T, TL, TS, S, A, M]) ValidateResourceClaimTemplateUpdate(template, oldTemplate *T) field.ErrorList {
	meta, spec := b.Template(template)
	oldMeta, oldSpec := b.Template(oldTemplate)
	return common.ValidateUpdate(meta, oldMeta, *spec, *oldSpec, b.ValidateResourceClaimTemplate(template))
}

func (b *Binding[C, CL, T, TL, TS, S, A, M]) validateSpec(spec *S, fldPath *field.Path) field.ErrorList {
	s := b.Spec(spec)
	return common.ValidateClaimSpec(s.ResourceClassName, s.ParametersRef, *s.AllocationMode, fldPath)
}

// ValidateResourceClaimStatusUpdate validates a write to the status
// subresource (ValidateClaimStatusUpdate), plus allocation immutability,
// which 1.26 lacked and claimbridge enforces in every version.
func (b *Binding[C, CL, T, TL, TS, S, A, M]) ValidateResourceClaimStatusUpdate(claim, oldClaim *C) field.ErrorList {
	meta, _, status := b.Claim(claim)
	oldMeta, _, oldStatus := b.Claim(oldClaim)
	allErrs := common.ValidateObjectMetaUpdate(meta, oldMeta, field.NewPath("metadata"))
	fldPath := field.NewPath("status")
	allErrs = append(allErrs, common.ValidateStatusDriverName(status.DriverName, status.Allocation != nil, fldPath.Child("driverName"))...)
	if status.Allocation != nil {
		allErrs = append(allErrs, b.ValidateAllocation(status.Allocation, fldPath.Child("allocation"))...)
	}
	allErrs = append(allErrs, common.ValidateStatusReservations(status.View, oldStatus.View,
		status.Allocation, oldStatus.Allocation, meta.DeletionTimestamp != nil, fldPath)...)
	return allErrs
}

// StatusView extracts what the version-neutral status invariants need.
func (b *Binding[C, CL, T, TL, TS, S, A, M]) StatusView(claim *C) common.StatusView {
	_, _, status := b.Claim(claim)
	return status.View
}

// SetDefaults applies upstream defaulting (SetDefaults_ResourceClaimSpec) to
// a *C, *T or their lists: an empty allocationMode becomes
// WaitForFirstConsumer. Other types are ignored.
func (b *Binding[C, CL, T, TL, TS, S, A, M]) SetDefaults(obj interface{}) {
	switch o := obj.(type) {
	case *C:
		b.setDefaultsClaim(o)
	case *T:
		b.setDefaultsTemplate(o)
	case *CL:
		items := b.ClaimItems(o)
		for i := range items {
			b.setDefaultsClaim(&items[i])
		}
	case *TL:
		items := b.TemplateItems(o)
		for i := range items {
			b.setDefaultsTemplate(&items[i])
		}
	}
}

func (b *Binding[C, CL, T, TL, TS, S, A, M]) setDefaultsClaim(claim *C) {
	_, spec, _ := b.Claim(claim)
	b.setDefaultsSpec(spec)
}

func (b *Binding[C, CL, T, TL, TS, S, A, M]) setDefaultsTemplate(template *T) {
	_, tspec := b.Template(template)
	_, spec := b.TemplateSpec(tspec)
	b.setDefaultsSpec(spec)
}

func (b *Binding[C, CL, T, TL, TS, S, A, M]) setDefaultsSpec(spec *S) {
	if mode := b.Spec(spec).AllocationMode; *mode == "" {
		*mode = b.WaitForFirstConsumer
	}
}

// Warnings returns admission warnings for a *C or *T: findings the API
// server accepted but that are likely mistakes or cannot be carried
// forward. Other types yield none.
func (b *Binding[C, CL, T, TL, TS, S, A, M]) Warnings(obj interface{}) []string {
	switch o := obj.(type) {
	case *C:
		_, spec, _ := b.Claim(o)
		return b.specWarnings(spec, field.NewPath("spec"))
	case *T:
		_, tspec := b.Template(o)
		_, spec := b.TemplateSpec(tspec)
		return b.specWarnings(spec, field.NewPath("spec", "spec"))
	}
	return nil
}

func (b *Binding[C, CL, T, TL, TS, S, A, M]) specWarnings(spec *S, fldPath *field.Path) []string {
	s := b.Spec(spec)
	return common.ClaimSpecWarnings(s.ParametersRef, *s.AllocationMode, fldPath)
}
