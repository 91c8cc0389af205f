// Package v1alpha3 holds the ResourceClaim shape of Kubernetes 1.31
// (resource.k8s.io/v1alpha3), served as resource.claimbridge.dev/v1alpha3.
//
// +kubebuilder:object:generate=true
// +groupName=resource.claimbridge.dev
package v1alpha3

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/claimbridge/claimbridge/api"
)

var (
	// GroupVersion is the group and version of this package's types.
	GroupVersion = api.GroupVersion(api.V1alpha3)

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
