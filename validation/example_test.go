package validation_test

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/claimbridge/claimbridge/api/v1alpha3"
	"github.com/claimbridge/claimbridge/conversion"
	"github.com/claimbridge/claimbridge/validation"
)

// A typed claim checked as the validating webhook checks a create: the
// object as a JSON tree with apiVersion and kind (conversion.ToTree fills
// them from the Go type, since a typed object's TypeMeta is usually empty),
// the verdict a field.ErrorList with the paths of the version written.
func ExampleValidate() {
	claim := &v1alpha3.ResourceClaim{
		ObjectMeta: metav1.ObjectMeta{Name: "gpu", Namespace: "ml"},
		Spec: v1alpha3.ResourceClaimSpec{Devices: v1alpha3.DeviceClaim{Requests: []v1alpha3.DeviceRequest{
			{Name: "gpu", DeviceClassName: "gpu.example.com"},
			{Name: "gpu", Selectors: []v1alpha3.DeviceSelector{{CEL: &v1alpha3.CELDeviceSelector{Expression: "device.driver =="}}}},
		}}},
	}
	tree, err := conversion.ToTree(claim)
	if err != nil {
		fmt.Println(err)
		return
	}
	resp, err := validation.Validate(validation.Request{Operation: validation.Create, Object: tree})
	if err != nil { // not a claim or template, or undecodable
		fmt.Println(err)
		return
	}
	fmt.Println(resp.GroupKind, resp.Name)
	for _, e := range resp.Errors {
		fmt.Println(e.Type, e.Field)
	}
	// Output:
	// ResourceClaim.resource.claimbridge.dev gpu
	// Required value spec.devices.requests[1].deviceClassName
	// Invalid value spec.devices.requests[1].selectors[0].cel.expression
	// Duplicate value spec.devices.requests[1].name
}

// An update is checked against the stored object, which may be of another
// version: here a 1.30-shaped write of a claim stored as v1alpha3, whose
// spec is immutable.
func ExampleValidate_update() {
	stored := map[string]interface{}{
		"apiVersion": "resource.claimbridge.dev/v1alpha3", "kind": "ResourceClaim",
		"metadata": map[string]interface{}{"name": "gpu", "namespace": "ml", "resourceVersion": "1"},
		"spec": map[string]interface{}{"devices": map[string]interface{}{"requests": []interface{}{
			map[string]interface{}{"name": "request", "deviceClassName": "gpu.example.com", "allocationMode": "ExactCount", "count": int64(1)},
		}}},
	}
	update := map[string]interface{}{
		"apiVersion": "resource.claimbridge.dev/v1alpha2", "kind": "ResourceClaim",
		"metadata": map[string]interface{}{"name": "gpu", "namespace": "ml", "resourceVersion": "1"},
		"spec":     map[string]interface{}{"resourceClassName": "other.example.com", "allocationMode": "WaitForFirstConsumer"},
	}
	resp, err := validation.Validate(validation.Request{Operation: validation.Update, Object: update, OldObject: stored})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, e := range resp.Errors {
		fmt.Println(e.Field, e.Type, e.Detail)
	}
	// Output:
	// spec Invalid value field is immutable
}
