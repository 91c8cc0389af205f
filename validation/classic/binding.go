package classic

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/claimbridge/claimbridge/validation/common"
)

// Spec is a claim spec as the shared rules read it. AllocationMode points
// into the typed spec so that defaulting can set it.
type Spec[M ~string] struct {
	ResourceClassName string
	ParametersRef     *common.ParametersRef
	AllocationMode    *M
}

// Status is a claim status as the shared rules read it; A is the version's
// AllocationResult.
type Status[A any] struct {
	DriverName string
	Allocation *A
	View       common.StatusView
}

// Binding connects one version's types to the shared rules: C and CL are
// the claim and its list, T and TL the template and its list, TS the
// template's spec, S the claim spec, A the allocation result and M the
// allocation mode.
type Binding[C, CL, T, TL, TS, S, A any, M ~string] struct {
	// Claim returns a claim's metadata, spec and status.
	Claim func(*C) (*metav1.ObjectMeta, *S, Status[A])
	// Template returns a template's metadata and spec.
	Template func(*T) (*metav1.ObjectMeta, *TS)
	// TemplateSpec returns the embedded metadata and claim spec of a
	// template's spec.
	TemplateSpec func(*TS) (*metav1.ObjectMeta, *S)
	// Spec returns what the spec rules read.
	Spec func(*S) Spec[M]
	// Items return the items of the list kinds.
	ClaimItems    func(*CL) []C
	TemplateItems func(*TL) []T
	// ValidateAllocation validates a non-nil allocation result: the rules
	// that differ between the versions.
	ValidateAllocation func(allocation *A, fldPath *field.Path) field.ErrorList
	// WaitForFirstConsumer is the default allocation mode.
	WaitForFirstConsumer M
}
