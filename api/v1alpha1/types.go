package v1alpha1

import (
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// ResourceClaim describes which resources are needed by a resource consumer.
// Its status tracks whether the resource has been allocated and what the
// resulting attributes are.
//
// This is the resource.k8s.io/v1alpha1 shape of Kubernetes 1.26 (as of 1.26.2),
// served by claimbridge as resource.claimbridge.dev/v1alpha1.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:path=resourceclaims,singular=resourceclaim,scope=Namespaced,categories=claimbridge
// +kubebuilder:printcolumn:name="ResourceClassName",type=string,JSONPath=`.spec.resourceClassName`
// +kubebuilder:printcolumn:name="AllocationMode",type=string,JSONPath=`.spec.allocationMode`
// +kubebuilder:printcolumn:name="Driver",type=string,JSONPath=`.status.driverName`
// +kubebuilder:printcolumn:name="ReservedFor",type=string,JSONPath=`.status.reservedFor[*].name`
// +kubebuilder:printcolumn:name="Deallocating",type=boolean,JSONPath=`.status.deallocationRequested`,priority=1
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type ResourceClaim struct {
	metav1.TypeMeta `json:",inline"`
	// Standard object metadata
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec describes the desired attributes of a resource that then needs
	// to be allocated. It can only be set once when creating the
	// ResourceClaim.
	Spec ResourceClaimSpec `json:"spec"`

	// Status describes whether the resource is available and with which
	// attributes.
	// +optional
	Status ResourceClaimStatus `json:"status,omitempty"`
}

// ResourceClaimSpec defines how a resource is to be allocated.
type ResourceClaimSpec struct {
	// ResourceClassName references the driver and additional parameters
	// via the name of a ResourceClass that was created as part of the
	// driver deployment.
	ResourceClassName string `json:"resourceClassName"`

	// ParametersRef references a separate object with arbitrary parameters
	// that will be used by the driver when allocating a resource for the
	// claim.
	//
	// The object must be in the same namespace as the ResourceClaim.
	// +optional
	ParametersRef *ResourceClaimParametersReference `json:"parametersRef,omitempty"`

	// Allocation can start immediately or when a Pod wants to use the
	// resource. "WaitForFirstConsumer" is the default.
	// +optional
	// +kubebuilder:default=WaitForFirstConsumer
	AllocationMode AllocationMode `json:"allocationMode,omitempty"`
}

// AllocationMode describes whether a ResourceClaim gets allocated immediately
// when it gets created (AllocationModeImmediate) or whether allocation is
// delayed until it is needed for a Pod
// (AllocationModeWaitForFirstConsumer). Other modes might get added in the
// future.
type AllocationMode string

const (
	// AllocationModeWaitForFirstConsumer delays allocation until a Pod needs the claim.
	AllocationModeWaitForFirstConsumer AllocationMode = "WaitForFirstConsumer"

	// AllocationModeImmediate allocates as soon as the claim is created.
	AllocationModeImmediate AllocationMode = "Immediate"
)

// ResourceClaimStatus tracks whether the resource has been allocated and what
// the resulting attributes are.
type ResourceClaimStatus struct {
	// DriverName is a copy of the driver name from the ResourceClass at
	// the time when allocation started.
	// +optional
	DriverName string `json:"driverName,omitempty"`

	// Allocation is set by the resource driver once a resource has been
	// allocated successfully. If this is not specified, the resource is
	// not yet allocated.
	// +optional
	Allocation *AllocationResult `json:"allocation,omitempty"`

	// ReservedFor indicates which entities are currently allowed to use
	// the claim. A Pod which references a ResourceClaim which is not
	// reserved for that Pod will not be started.
	//
	// There can be at most 32 such reservations. This may get increased in
	// the future, but not reduced.
	//
	// +listType=map
	// +listMapKey=uid
	// +kubebuilder:validation:MaxItems=32
	// +optional
	ReservedFor []ResourceClaimConsumerReference `json:"reservedFor,omitempty"`

	// DeallocationRequested indicates that a ResourceClaim is to be
	// deallocated.
	//
	// The driver then must deallocate this claim and reset the field
	// together with clearing the Allocation field.
	//
	// While DeallocationRequested is set, no new consumers may be added to
	// ReservedFor.
	//
	// +optional
	DeallocationRequested bool `json:"deallocationRequested,omitempty"`
}

// ResourceClaimReservedForMaxSize is the maximum number of entries in
// claim.status.reservedFor.
const ResourceClaimReservedForMaxSize = 32

// AllocationResult contains attributes of an allocated resource.
type AllocationResult struct {
	// ResourceHandle contains arbitrary data returned by the driver after a
	// successful allocation. This is opaque for
	// Kubernetes. Driver documentation may explain to users how to
	// interpret this data if needed.
	//
	// The maximum size of this field is 16KiB. This may get
	// increased in the future, but not reduced.
	//
	// +kubebuilder:validation:MaxLength=16384
	// +optional
	ResourceHandle string `json:"resourceHandle,omitempty"`

	// This field will get set by the resource driver after it has
	// allocated the resource to inform the scheduler where it can
	// schedule Pods using the ResourceClaim.
	//
	// Setting this field is optional. If null, the resource is available
	// everywhere.
	// +optional
	AvailableOnNodes *v1.NodeSelector `json:"availableOnNodes,omitempty"`

	// Shareable determines whether the resource supports more
	// than one consumer at a time.
	// +optional
	Shareable bool `json:"shareable,omitempty"`
}

// ResourceHandleMaxSize is the maximum size of allocation.resourceHandle.
const ResourceHandleMaxSize = 16 * 1024

// ResourceClaimParametersReference contains enough information to let you
// locate the parameters for a ResourceClaim. The object must be in the same
// namespace as the ResourceClaim.
type ResourceClaimParametersReference struct {
	// APIGroup is the group for the resource being referenced. It is
	// empty for the core API. This matches the group in the APIVersion
	// that is used when creating the resources.
	// +optional
	APIGroup string `json:"apiGroup,omitempty"`
	// Kind is the type of resource being referenced. This is the same
	// value as in the parameter object's metadata, for example "ConfigMap".
	Kind string `json:"kind"`
	// Name is the name of resource being referenced.
	Name string `json:"name"`
}

// ResourceClaimConsumerReference contains enough information to let you
// locate the consumer of a ResourceClaim. The user must be a resource in the same
// namespace as the ResourceClaim.
type ResourceClaimConsumerReference struct {
	// APIGroup is the group for the resource being referenced. It is
	// empty for the core API. This matches the group in the APIVersion
	// that is used when creating the resources.
	// +optional
	APIGroup string `json:"apiGroup,omitempty"`
	// Resource is the type of resource being referenced, for example "pods".
	Resource string `json:"resource"`
	// Name is the name of resource being referenced.
	Name string `json:"name"`
	// UID identifies exactly one incarnation of the resource.
	UID types.UID `json:"uid"`
}

// ResourceClaimList is a collection of claims.
//
// +kubebuilder:object:root=true
type ResourceClaimList struct {
	metav1.TypeMeta `json:",inline"`
	// Standard list metadata
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`

	// Items is the list of resource claims.
	Items []ResourceClaim `json:"items"`
}

// ResourceClaimTemplate is used to produce ResourceClaim objects.
//
// This is the resource.k8s.io/v1alpha1 shape of Kubernetes 1.26 (as of 1.26.2),
// served by claimbridge as resource.claimbridge.dev/v1alpha1.
//
// +kubebuilder:object:root=true
// +kubebuilder:resource:path=resourceclaimtemplates,singular=resourceclaimtemplate,scope=Namespaced,categories=claimbridge
// +kubebuilder:printcolumn:name="ResourceClassName",type=string,JSONPath=`.spec.spec.resourceClassName`
// +kubebuilder:printcolumn:name="AllocationMode",type=string,JSONPath=`.spec.spec.allocationMode`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type ResourceClaimTemplate struct {
	metav1.TypeMeta `json:",inline"`
	// Standard object metadata
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Describes the ResourceClaim that is to be generated.
	//
	// This field is immutable. A ResourceClaim will get created by the
	// control plane for a Pod when needed and then not get updated
	// anymore.
	Spec ResourceClaimTemplateSpec `json:"spec"`
}

// ResourceClaimTemplateSpec contains the metadata and fields for a ResourceClaim.
type ResourceClaimTemplateSpec struct {
	// The CRD gives this ObjectMeta the full schema of metav1.ObjectMeta
	// (hack/crdmeta, run by make generate), not only the fields
	// controller-gen's embedded ObjectMeta has: so that generateName,
	// ownerReferences … reach the validating webhook, which refuses them as
	// upstream does ("cannot be set"), and creationTimestamp: null, which
	// every export writes, is accepted under strict field validation.

	// ObjectMeta may contain labels and annotations that will be copied into the ResourceClaim
	// when creating it. No other fields are allowed and will be rejected during
	// validation.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec for the ResourceClaim. The entire content is copied unchanged
	// into the ResourceClaim that gets created from this template. The
	// same fields as in a ResourceClaim are also valid here.
	Spec ResourceClaimSpec `json:"spec"`
}

// ResourceClaimTemplateList is a collection of claim templates.
//
// +kubebuilder:object:root=true
type ResourceClaimTemplateList struct {
	metav1.TypeMeta `json:",inline"`
	// Standard list metadata
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`

	// Items is the list of resource claim templates.
	Items []ResourceClaimTemplate `json:"items"`
}
