package v1alpha2_test

import (
	"fmt"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"

	"github.com/claimbridge/claimbridge/api/v1alpha1"
	"github.com/claimbridge/claimbridge/api/v1alpha2"
	"github.com/claimbridge/claimbridge/api/v1alpha3"
)

// The three shapes registered in a scheme, as a client-go or
// controller-runtime client takes it (client.Options{Scheme: scheme}): each
// Go type reads and writes claims through its version of
// resource.claimbridge.dev, which the conversion webhook converts, and the
// scheme's codecs decode a manifest into the type of its apiVersion.
func Example_scheme() {
	scheme := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{v1alpha1.AddToScheme, v1alpha2.AddToScheme, v1alpha3.AddToScheme} {
		if err := add(scheme); err != nil {
			fmt.Println(err)
			return
		}
	}
	gvks, _, err := scheme.ObjectKinds(&v1alpha2.ResourceClaim{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(gvks[0])

	manifest := []byte(`apiVersion: resource.claimbridge.dev/v1alpha2
kind: ResourceClaim
metadata:
  name: gpu
  namespace: ml
spec:
  resourceClassName: gpu.example.com
`)
	obj, gvk, err := serializer.NewCodecFactory(scheme).UniversalDeserializer().Decode(manifest, nil, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	claim := obj.(*v1alpha2.ResourceClaim)
	fmt.Println(gvk.Version, claim.Name, claim.Spec.ResourceClassName)
	// Output:
	// resource.claimbridge.dev/v1alpha2, Kind=ResourceClaim
	// v1alpha2 gpu gpu.example.com
}
