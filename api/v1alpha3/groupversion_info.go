// Package v1alpha3 holds the ResourceClaim shape of Kubernetes 1.31
// (resource.k8s.io/v1alpha3), served as resource.claimbridge.dev/v1alpha3.
//
// +kubebuilder:object:generate=true
// +groupName=resource.claimbridge.dev
package v1alpha3

import "github.com/claimbridge/claimbridge/api"

var (
	// GroupVersion is the group and version of this package's types.
	GroupVersion = api.GroupVersion(api.V1alpha3)

	// SchemeBuilder registers this package's types.
	SchemeBuilder = api.NewSchemeBuilder(GroupVersion, &ResourceClaim{}, &ResourceClaimList{}, &ResourceClaimTemplate{}, &ResourceClaimTemplateList{})

	// AddToScheme adds this package's types to a scheme.
	AddToScheme = SchemeBuilder.AddToScheme
)
