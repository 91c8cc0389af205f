package classic

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v1 "github.com/claimbridge/claimbridge/api/v1alpha1"
	v2 "github.com/claimbridge/claimbridge/api/v1alpha2"
	"github.com/claimbridge/claimbridge/validation/common"
)

// object is a v1alpha1 or v1alpha2 claim or template as the rules read it.
// The two versions declare both kinds alike, field for field, but for the
// allocation result, so objectOf reads either into one object.
type object struct {
	meta *metav1.ObjectMeta
	// spec is the typed spec (a ResourceClaimSpec or
	// ResourceClaimTemplateSpec), which an update may not change.
	spec interface{}
	// templateMeta is a template's spec.metadata; nil for a claim.
	templateMeta *metav1.ObjectMeta
	// The claim spec (a template's spec.spec). allocationMode points into
	// the typed spec, so that defaulting can set it.
	resourceClassName string
	parametersRef     *paramsRef
	allocationMode    *string
	// status is a claim's status; nil for a template.
	status *status
}

// paramsRef is the ResourceClaimParametersReference of either version.
type paramsRef struct {
	APIGroup string
	Kind     string
	Name     string
}

type status struct {
	driverName string
	// allocation is the version's *AllocationResult, or nil.
	allocation interface{}
	view       common.StatusView
}

// objectOf reads a *ResourceClaim or *ResourceClaimTemplate of v1alpha1 or
// v1alpha2; ok is false for other types.
func objectOf(obj interface{}) (o object, ok bool) {
	switch obj := obj.(type) {
	case *v1.ResourceClaim:
		o = claimSpec1(&obj.ObjectMeta, obj.Spec, &obj.Spec)
		o.status = newStatus(obj.Status.DriverName, common.Consumers(obj.Status.ReservedFor), obj.Status.DeallocationRequested)
		if a := obj.Status.Allocation; a != nil {
			o.status.setAllocation(a, a.Shareable)
		}
	case *v2.ResourceClaim:
		o = claimSpec2(&obj.ObjectMeta, obj.Spec, &obj.Spec)
		o.status = newStatus(obj.Status.DriverName, common.Consumers(obj.Status.ReservedFor), obj.Status.DeallocationRequested)
		if a := obj.Status.Allocation; a != nil {
			o.status.setAllocation(a, a.Shareable)
		}
	case *v1.ResourceClaimTemplate:
		o = claimSpec1(&obj.ObjectMeta, obj.Spec, &obj.Spec.Spec)
		o.templateMeta = &obj.Spec.ObjectMeta
	case *v2.ResourceClaimTemplate:
		o = claimSpec2(&obj.ObjectMeta, obj.Spec, &obj.Spec.Spec)
		o.templateMeta = &obj.Spec.ObjectMeta
	default:
		return o, false
	}
	return o, true
}

func claimSpec1(meta *metav1.ObjectMeta, spec interface{}, s *v1.ResourceClaimSpec) object {
	return object{meta: meta, spec: spec, resourceClassName: s.ResourceClassName,
		parametersRef: (*paramsRef)(s.ParametersRef), allocationMode: (*string)(&s.AllocationMode)}
}

func claimSpec2(meta *metav1.ObjectMeta, spec interface{}, s *v2.ResourceClaimSpec) object {
	return object{meta: meta, spec: spec, resourceClassName: s.ResourceClassName,
		parametersRef: (*paramsRef)(s.ParametersRef), allocationMode: (*string)(&s.AllocationMode)}
}

func newStatus(driverName string, reservedFor []common.Consumer, deallocationRequested bool) *status {
	return &status{driverName: driverName, view: common.StatusView{ReservedFor: reservedFor, DeallocationRequested: deallocationRequested}}
}

func (s *status) setAllocation(allocation interface{}, shareable bool) {
	s.allocation = allocation
	s.view.Allocated = true
	s.view.NotShareable = !shareable
}

// typedAllocationMode is the allocation mode in its version's type, as
// findings report it.
func (o object) typedAllocationMode() interface{} {
	switch o.spec.(type) {
	case v1.ResourceClaimSpec, v1.ResourceClaimTemplateSpec:
		return v1.AllocationMode(*o.allocationMode)
	}
	return v2.AllocationMode(*o.allocationMode)
}
