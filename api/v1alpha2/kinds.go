package v1alpha2

import (
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// ResourceClass is upstream's resource.k8s.io/v1alpha2 ResourceClass (1.30),
// for a strict decode; without a TypeMeta, controller-gen makes no CRD of it.
type ResourceClass struct {
	APIVersion           string `json:"apiVersion,omitempty"`
	Kind                 string `json:"kind,omitempty"`
	metav1.ObjectMeta    `json:"metadata,omitempty"`
	DriverName           string                            `json:"driverName"`
	ParametersRef        *ResourceClassParametersReference `json:"parametersRef,omitempty"`
	SuitableNodes        *v1.NodeSelector                  `json:"suitableNodes,omitempty"`
	StructuredParameters *bool                             `json:"structuredParameters,omitempty"`
}

// ResourceClassParametersReference locates the parameters of a ResourceClass.
type ResourceClassParametersReference struct {
	APIGroup  string `json:"apiGroup,omitempty"`
	Kind      string `json:"kind"`
	Name      string `json:"name"`
	Namespace string `json:"namespace,omitempty"`
}

// ResourceSlice is upstream's v1alpha2 ResourceSlice (1.30), as ResourceClass.
type ResourceSlice struct {
	APIVersion        string `json:"apiVersion,omitempty"`
	Kind              string `json:"kind,omitempty"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	NodeName          string                   `json:"nodeName,omitempty"`
	DriverName        string                   `json:"driverName"`
	NamedResources    *NamedResourcesResources `json:"namedResources,omitempty"`
}

// NamedResourcesResources are the instances of a ResourceSlice.
type NamedResourcesResources struct {
	Instances []NamedResourcesInstance `json:"instances"`
}

// NamedResourcesInstance is an instance and its attributes.
type NamedResourcesInstance struct {
	Name       string                    `json:"name"`
	Attributes []NamedResourcesAttribute `json:"attributes,omitempty"`
}

// NamedResourcesAttribute is a name and one value (upstream's value inline).
type NamedResourcesAttribute struct {
	Name             string                     `json:"name"`
	QuantityValue    *resource.Quantity         `json:"quantity,omitempty"`
	BoolValue        *bool                      `json:"bool,omitempty"`
	IntValue         *int64                     `json:"int,omitempty"`
	IntSliceValue    *NamedResourcesIntSlice    `json:"intSlice,omitempty"`
	StringValue      *string                    `json:"string,omitempty"`
	StringSliceValue *NamedResourcesStringSlice `json:"stringSlice,omitempty"`
	VersionValue     *string                    `json:"version,omitempty"`
}

// NamedResourcesIntSlice is a list of integers.
type NamedResourcesIntSlice struct {
	Ints []int64 `json:"ints"`
}

// NamedResourcesStringSlice is a list of strings.
type NamedResourcesStringSlice struct {
	Strings []string `json:"strings"`
}

// ResourceClaimParameters is upstream's v1alpha2 ResourceClaimParameters
// (1.30 only), as ResourceClass.
type ResourceClaimParameters struct {
	APIVersion        string `json:"apiVersion,omitempty"`
	Kind              string `json:"kind,omitempty"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	GeneratedFrom     *ResourceClaimParametersReference `json:"generatedFrom,omitempty"`
	Shareable         bool                              `json:"shareable,omitempty"`
	DriverRequests    []DriverRequests                  `json:"driverRequests,omitempty"`
}

// DriverRequests are the requests of a ResourceClaimParameters for one driver.
type DriverRequests struct {
	DriverName       string               `json:"driverName,omitempty"`
	VendorParameters runtime.RawExtension `json:"vendorParameters,omitempty"`
	Requests         []ResourceRequest    `json:"requests,omitempty"`
}

// ResourceRequest is one request of named resources.
type ResourceRequest struct {
	VendorParameters runtime.RawExtension    `json:"vendorParameters,omitempty"`
	NamedResources   *NamedResourcesSelector `json:"namedResources,omitempty"`
}

// NamedResourcesSelector is upstream's NamedResourcesRequest and
// NamedResourcesFilter: a CEL expression over an instance's attributes.
type NamedResourcesSelector struct {
	Selector string `json:"selector"`
}

// ResourceClassParameters is upstream's v1alpha2 ResourceClassParameters
// (1.30 only), as ResourceClass.
type ResourceClassParameters struct {
	APIVersion        string `json:"apiVersion,omitempty"`
	Kind              string `json:"kind,omitempty"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	GeneratedFrom     *ResourceClassParametersReference `json:"generatedFrom,omitempty"`
	VendorParameters  []VendorParameters                `json:"vendorParameters,omitempty"`
	Filters           []ResourceFilter                  `json:"filters,omitempty"`
}

// VendorParameters are a driver's opaque parameters.
type VendorParameters struct {
	DriverName string               `json:"driverName,omitempty"`
	Parameters runtime.RawExtension `json:"parameters,omitempty"`
}

// ResourceFilter selects the named resources of one driver.
type ResourceFilter struct {
	DriverName     string                  `json:"driverName,omitempty"`
	NamedResources *NamedResourcesSelector `json:"namedResources,omitempty"`
}
