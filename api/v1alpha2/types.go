package v1alpha2

import (
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
)

// ResourceClaim describes which resources are needed by a resource consumer.
// Its status tracks whether the resource has been allocated and what the
// resulting attributes are.
//
// This is the resource.k8s.io/v1alpha2 shape of Kubernetes 1.27–1.30 (as of 1.30),
// served by claimbridge as resource.claimbridge.dev/v1alpha2.
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

	// Allocation is set by the resource driver once a resource or set of
	// resources has been allocated successfully. If this is not specified, the
	// resources have not been allocated yet.
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
	// +patchStrategy=merge
	// +patchMergeKey=uid
	// +kubebuilder:validation:MaxItems=32
	// +optional
	ReservedFor []ResourceClaimConsumerReference `json:"reservedFor,omitempty" patchStrategy:"merge" patchMergeKey:"uid"`

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
	// ResourceHandles contain the state associated with an allocation that
	// should be maintained throughout the lifetime of a claim. Each
	// ResourceHandle contains data that should be passed to a specific kubelet
	// plugin once it lands on a node. This data is returned by the driver
	// after a successful allocation and is opaque to Kubernetes. Driver
	// documentation may explain to users how to interpret this data if needed.
	//
	// Setting this field is optional. It has a maximum size of 32 entries.
	// If null (or empty), it is assumed this allocation will be processed by a
	// single kubelet plugin with no ResourceHandle data attached. The name of
	// the kubelet plugin invoked will match the DriverName set in the
	// ResourceClaimStatus this AllocationResult is embedded in.
	//
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=32
	// +optional
	ResourceHandles []ResourceHandle `json:"resourceHandles,omitempty"`

	// This field will get set by the resource driver after it has allocated
	// the resource to inform the scheduler where it can schedule Pods using
	// the ResourceClaim.
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

// AllocationResultResourceHandlesMaxSize represents the maximum number of
// entries in allocation.resourceHandles.
const AllocationResultResourceHandlesMaxSize = 32

// ResourceHandle holds opaque resource data for processing by a specific kubelet plugin.
type ResourceHandle struct {
	// DriverName specifies the name of the resource driver whose kubelet
	// plugin should be invoked to process this ResourceHandle's data once it
	// lands on a node. This may differ from the DriverName set in
	// ResourceClaimStatus this ResourceHandle is embedded in.
	DriverName string `json:"driverName,omitempty"`

	// Data contains the opaque data associated with this ResourceHandle. It is
	// set by the controller component of the resource driver whose name
	// matches the DriverName set in the ResourceClaimStatus this
	// ResourceHandle is embedded in. It is set at allocation time and is
	// intended for processing by the kubelet plugin whose name matches
	// the DriverName set in this ResourceHandle.
	//
	// The maximum size of this field is 16KiB. This may get increased in the
	// future, but not reduced.
	// +kubebuilder:validation:MaxLength=16384
	// +optional
	Data string `json:"data,omitempty"`

	// If StructuredData is set, then it needs to be used instead of Data.
	//
	// +optional
	StructuredData *StructuredResourceHandle `json:"structuredData,omitempty"`
}

// ResourceHandleDataMaxSize represents the maximum size of resourceHandle.data.
const ResourceHandleDataMaxSize = 16 * 1024

// StructuredResourceHandle is the in-tree representation of the allocation result.
type StructuredResourceHandle struct {
	// The vendor parameters are schemaless, as upstream's: 1.30 accepts any
	// JSON value (a scheduler copies a ResourceClassParameters' or
	// ResourceClaimParameters' vendorParameters, never checked to be an
	// object); conversion keeps one that is not an object in the restore
	// annotation.

	// VendorClassParameters are the per-claim configuration parameters
	// from the resource class at the time that the claim was allocated.
	//
	// +kubebuilder:validation:Schemaless
	// +kubebuilder:pruning:PreserveUnknownFields
	// +optional
	VendorClassParameters runtime.RawExtension `json:"vendorClassParameters,omitempty"`

	// VendorClaimParameters are the per-claim configuration parameters
	// from the resource claim parameters at the time that the claim was
	// allocated.
	//
	// +kubebuilder:validation:Schemaless
	// +kubebuilder:pruning:PreserveUnknownFields
	// +optional
	VendorClaimParameters runtime.RawExtension `json:"vendorClaimParameters,omitempty"`

	// NodeName is the name of the node providing the necessary resources
	// if the resources are local to a node.
	//
	// +optional
	NodeName string `json:"nodeName,omitempty"`

	// Optional, as upstream's: it has no omitempty, so a 1.30 client sends
	// "results": null for a nil list, which the apiserver prunes.

	// Results lists all allocated driver resources.
	//
	// +listType=atomic
	// +optional
	Results []DriverAllocationResult `json:"results"`
}

// DriverAllocationResult contains vendor parameters and the allocation result for
// one request.
type DriverAllocationResult struct {
	// VendorRequestParameters are the per-request configuration parameters
	// from the time that the claim was allocated.
	//
	// +kubebuilder:validation:Schemaless
	// +kubebuilder:pruning:PreserveUnknownFields
	// +optional
	VendorRequestParameters runtime.RawExtension `json:"vendorRequestParameters,omitempty"`

	AllocationResultModel `json:",inline"`
}

// AllocationResultModel must have one and only one field set.
type AllocationResultModel struct {
	// NamedResources describes the allocation result when using the named resources model.
	//
	// +optional
	NamedResources *NamedResourcesAllocationResult `json:"namedResources,omitempty"`
}

// NamedResourcesAllocationResult is used in AllocationResultModel.
type NamedResourcesAllocationResult struct {
	// Name is the name of the selected resource instance.
	Name string `json:"name"`
}

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
// This is the resource.k8s.io/v1alpha2 shape of Kubernetes 1.27–1.30 (as of 1.30),
// served by claimbridge as resource.claimbridge.dev/v1alpha2.
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
