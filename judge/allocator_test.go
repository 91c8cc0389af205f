package judge

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/dynamic-resource-allocation/cel"
	"k8s.io/dynamic-resource-allocation/structured"

	"github.com/claimbridge/claimbridge/api"
)

type classes []*resourceapi.DeviceClass

func (c classes) List() ([]*resourceapi.DeviceClass, error) { return c, nil }
func (c classes) Get(name string) (*resourceapi.DeviceClass, error) {
	for _, class := range c {
		if class.Name == name {
			return class, nil
		}
	}
	return nil, apierrors.NewNotFound(resourceapi.Resource("deviceclasses"), name)
}

// TestUnboundAllocatorParity: upstream's allocator, as kube-scheduler runs
// it (1.37's; 1.34–1.36 hold back the same devices), allocates the devices
// of bindingSlice that have binding conditions exactly when unbound does
// not warn of the slice. A claim wants all of the slice's devices.
func TestUnboundAllocatorParity(t *testing.T) {
	var obj map[string]interface{}
	var slice resourceapi.ResourceSlice
	if err := json.Unmarshal([]byte(bindingSlice), &obj); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(bindingSlice), &slice); err != nil {
		t.Fatal(err)
	}
	claim := &resourceapi.ResourceClaim{
		ObjectMeta: metav1.ObjectMeta{Name: "c", Namespace: "ns", UID: "c"},
		Spec: resourceapi.ResourceClaimSpec{Devices: resourceapi.DeviceClaim{Requests: []resourceapi.DeviceRequest{{
			Name: "gpu", Exactly: &resourceapi.ExactDeviceRequest{DeviceClassName: "gpu", AllocationMode: resourceapi.DeviceAllocationModeAll},
		}}}},
	}
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-1"}}
	for _, minor := range []int{34, 35, 36, 37} {
		for _, on := range []bool{false, true} {
			c := api.Defaults(minor)
			if err := c.Set(fmt.Sprintf("DRADeviceBindingConditions=%t", on), ""); err != nil {
				t.Fatal(err)
			}
			features := structured.Features{DeviceBindingAndStatus: c.Enabled("DRADeviceBindingConditions") && c.Enabled("DRAResourceClaimDeviceStatus")}
			allocator, err := structured.NewAllocator(context.Background(), features, structured.AllocatedState{AllocatedDevices: sets.New[structured.DeviceID]()},
				classes{{ObjectMeta: metav1.ObjectMeta{Name: "gpu"}}}, []*resourceapi.ResourceSlice{&slice}, cel.NewCache(10, cel.Features{}))
			if err != nil {
				t.Fatal(err)
			}
			results, err := allocator.Allocate(context.Background(), node, []*resourceapi.ResourceClaim{claim})
			if err != nil {
				t.Fatal(err)
			}
			var allocated []string
			for _, r := range results {
				for _, d := range r.Devices.Results {
					allocated = append(allocated, d.Device)
				}
			}
			warned := unbound(obj, c, api.KindResourceSlice, minor)
			if (len(allocated) == 3) == (len(warned) > 0) {
				t.Errorf("1.%d, DRADeviceBindingConditions=%t: the allocator gives %v of 3 devices, and unbound says %q", minor, on, allocated, warned)
			}
		}
	}
}
