// Package v1alpha2 holds the ResourceClaim shape of Kubernetes 1.27–1.30 (as of 1.30, with structured results)
// (resource.k8s.io/v1alpha2), served as resource.claimbridge.dev/v1alpha2.
//
// +kubebuilder:object:generate=true
// +groupName=resource.claimbridge.dev
package v1alpha2

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/claimbridge/claimbridge/api"
)

var (
	// GroupVersion is the group and version of this package's types.
	GroupVersion = api.GroupVersion(api.V1alpha2)

	// SchemeBuilder registers this package's types (apimachinery's, as
	// k8s.io/api's packages do, so that importing the types does not
	// import controller-runtime).
	SchemeBuilder = runtime.NewSchemeBuilder(addKnownTypes)

	// AddToScheme adds this package's types to a scheme.
	AddToScheme = SchemeBuilder.AddToScheme
)

// addKnownTypes adds this package's types to scheme under GroupVersion,
// with the meta/v1 types every group version has (options, WatchEvent).
func addKnownTypes(scheme *runtime.Scheme) error {
	scheme.AddKnownTypes(GroupVersion, &ResourceClaim{}, &ResourceClaimList{}, &ResourceClaimTemplate{}, &ResourceClaimTemplateList{})
	metav1.AddToGroupVersion(scheme, GroupVersion)
	return nil
}
