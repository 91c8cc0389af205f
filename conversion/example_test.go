package conversion_test

import (
	"encoding/json"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/api/v1alpha2"
	"github.com/claimbridge/claimbridge/api/v1alpha3"
	"github.com/claimbridge/claimbridge/conversion"
)

// exampleClaim130 is a claim of Kubernetes 1.30 as a driver's Go code
// holds it (read through a client: no TypeMeta).
func exampleClaim130() *v1alpha2.ResourceClaim {
	return &v1alpha2.ResourceClaim{
		ObjectMeta: metav1.ObjectMeta{Name: "gpu", Namespace: "ml"},
		Spec: v1alpha2.ResourceClaimSpec{
			ResourceClassName: "gpu.example.com",
			ParametersRef:     &v1alpha2.ResourceClaimParametersReference{APIGroup: "gpu.example.com", Kind: "GpuClaimParameters", Name: "two-gpus"},
			AllocationMode:    v1alpha2.AllocationModeWaitForFirstConsumer,
		},
	}
}

// A typed 1.30 claim in the 1.31 shape, with what 1.31's consumers cannot
// see. The apiVersion and kind come from the Go types; the group is kept.
func ExampleConvertTyped() {
	var claim131 v1alpha3.ResourceClaim
	warnings, err := conversion.ConvertTyped(exampleClaim130(), &claim131)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, w := range warnings {
		fmt.Printf("%s (%s→%s): %s\n", w.Path, w.From, w.To, w.Message)
	}
	r := claim131.Spec.Devices.Requests[0]
	fmt.Println(claim131.APIVersion, r.Name, r.DeviceClassName, r.AllocationMode, r.Count)
	// What v1alpha3 cannot hold travels in an annotation, so that the way
	// back is exact.
	back := &v1alpha2.ResourceClaim{}
	if _, err := conversion.ConvertTyped(&claim131, back); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(back.Spec.ParametersRef.Name)
	// Output:
	// spec.parametersRef (v1alpha2→v1alpha3): the claim parameters GpuClaimParameters "two-gpus" (apiGroup "gpu.example.com") have no v1alpha3 equivalent: a 1.31 scheduler allocates one device of class "gpu.example.com" without them
	// resource.claimbridge.dev/v1alpha3 request gpu.example.com ExactCount 1
	// two-gpus
}

// A claim of resource.k8s.io/v1alpha3 (Kubernetes 1.31; k8s.io/api's
// resource/v1alpha3 no longer has its ResourceClaim, only later alpha kinds
// such as DeviceTaintRule: claimbridge's api/v1alpha3 is its shape) as
// today's resource.k8s.io/v1 ResourceClaim. Only resource.k8s.io objects
// reach the GA versions: a claim of the claimbridge group
// (resource.claimbridge.dev) is given the apiVersion
// resource.k8s.io/<its version> first.
func ExampleConvertTyped_toV1() {
	claim131 := &v1alpha3.ResourceClaim{
		TypeMeta: metav1.TypeMeta{APIVersion: "resource.k8s.io/v1alpha3", Kind: "ResourceClaim"},
		// The finalizer a 1.31 scheduler adds when it allocates: without it
		// a 1.32+ resourceclaim controller never deallocates the claim,
		// which a warning would say.
		ObjectMeta: metav1.ObjectMeta{Name: "gpu", Namespace: "ml", Finalizers: []string{api.FinalizerV1alpha3}},
		Spec: v1alpha3.ResourceClaimSpec{Devices: v1alpha3.DeviceClaim{Requests: []v1alpha3.DeviceRequest{{
			Name:            "gpu",
			DeviceClassName: "gpu.example.com",
			AllocationMode:  v1alpha3.DeviceAllocationModeExactCount,
			Count:           2,
		}}}},
		Status: v1alpha3.ResourceClaimStatus{Allocation: &v1alpha3.AllocationResult{
			Devices: v1alpha3.DeviceAllocationResult{Results: []v1alpha3.DeviceRequestAllocationResult{
				{Request: "gpu", Driver: "gpu.example.com", Pool: "worker-1", Device: "gpu-0"},
				{Request: "gpu", Driver: "gpu.example.com", Pool: "worker-1", Device: "gpu-1"},
			}},
			NodeSelector: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{
				MatchFields: []corev1.NodeSelectorRequirement{{Key: "metadata.name", Operator: corev1.NodeSelectorOpIn, Values: []string{"worker-1"}}},
			}}},
		}},
	}
	var claim resourcev1.ResourceClaim
	warnings, err := conversion.ConvertTyped(claim131, &claim)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, w := range warnings {
		fmt.Printf("%s (%s→%s): %s\n", w.Path, w.From, w.To, w.Message)
	}
	exactly := claim.Spec.Devices.Requests[0].Exactly
	fmt.Println(claim.APIVersion, exactly.DeviceClassName, exactly.Count, len(claim.Status.Allocation.Devices.Results))
	// Output:
	// status (v1alpha3→v1): an apiserver discards the status when the claim is created: create the claim, then write the status through the status subresource (e.g. kubectl replace --subresource=status; from Kubernetes 1.36, whose DRAResourceClaimGranularStatusAuthorization is on by default, writing allocation or reservedFor also needs the write's own verb (update, or patch) on resourceclaims/binding cluster-wide, and status.devices a per-driver permission on resourceclaims/driver)
	// resource.k8s.io/v1 gpu.example.com 2 2
}

// The JSON trees Convert and ConvertWithWarnings work on, from a typed
// object and back, without ConvertTyped: the tree needs apiVersion and kind
// (TypeMeta is empty in typed objects), and the result is decoded with
// encoding/json, since runtime.DefaultUnstructuredConverter.FromUnstructured
// refuses the json.Number values conversion writes.
func ExampleConvertWithWarnings() {
	claim := exampleClaim130()
	claim.SetGroupVersionKind(v1alpha2.GroupVersion.WithKind(api.KindClaim))
	tree, err := runtime.DefaultUnstructuredConverter.ToUnstructured(claim)
	if err != nil {
		fmt.Println(err)
		return
	}
	converted, warnings, err := conversion.ConvertWithWarnings(tree, api.V1alpha3)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(len(warnings), "warning:", warnings[0])
	data, err := json.Marshal(converted)
	if err != nil {
		fmt.Println(err)
		return
	}
	var claim131 v1alpha3.ResourceClaim
	if err := json.Unmarshal(data, &claim131); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(claim131.Spec.Devices.Requests[0].Count)
	// Output:
	// 1 warning: ResourceClaim ml/gpu: spec.parametersRef: the claim parameters GpuClaimParameters "two-gpus" (apiGroup "gpu.example.com") have no v1alpha3 equivalent: a 1.31 scheduler allocates one device of class "gpu.example.com" without them (v1alpha2→v1alpha3)
	// 1
}
