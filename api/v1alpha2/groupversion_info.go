// Package v1alpha2 holds the ResourceClaim shape of Kubernetes 1.27–1.30 (as of 1.30, with structured results)
// (resource.k8s.io/v1alpha2), served as resource.claimbridge.dev/v1alpha2.
//
// +kubebuilder:object:generate=true
// +groupName=resource.claimbridge.dev
package v1alpha2

import "github.com/claimbridge/claimbridge/api"

var (
	// GroupVersion is the group and version of this package's types.
	GroupVersion = api.GroupVersion(api.V1alpha2)

	// SchemeBuilder registers this package's types.
	SchemeBuilder = api.NewSchemeBuilder(GroupVersion, &ResourceClaim{}, &ResourceClaimList{}, &ResourceClaimTemplate{}, &ResourceClaimTemplateList{})

	// AddToScheme adds this package's types to a scheme.
	AddToScheme = SchemeBuilder.AddToScheme
)
