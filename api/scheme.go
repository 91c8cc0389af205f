package api

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// NewSchemeBuilder registers types under gv, with the meta/v1 types every
// group version has (options, WatchEvent): apimachinery's builder, as
// k8s.io/api's packages use it, so that importing the types does not
// import controller-runtime.
func NewSchemeBuilder(gv schema.GroupVersion, types ...runtime.Object) runtime.SchemeBuilder {
	return runtime.NewSchemeBuilder(func(scheme *runtime.Scheme) error {
		scheme.AddKnownTypes(gv, types...)
		metav1.AddToGroupVersion(scheme, gv)
		return nil
	})
}
