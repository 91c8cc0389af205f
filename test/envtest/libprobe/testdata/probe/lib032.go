//go:build lib032 || lib033

package main

import (
	"context"

	resourceapi "k8s.io/api/resource/v1beta1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/dynamic-resource-allocation/resourceslice"
)

// publish starts v0.32's or v0.33's controller as its kubeletplugin does:
// owned by the Node, one pool of one slice of one device.
func publish(ctx context.Context, client kubernetes.Interface, driver, node string) (stop func(), err error) {
	c, err := resourceslice.StartController(ctx, resourceslice.Options{
		DriverName: driver,
		KubeClient: client,
		Owner:      &resourceslice.Owner{APIVersion: "v1", Kind: "Node", Name: node},
		Resources: &resourceslice.DriverResources{Pools: map[string]resourceslice.Pool{
			node: {Slices: []resourceslice.Slice{{Devices: []resourceapi.Device{{Name: "gpu-0", Basic: &resourceapi.BasicDevice{}}}}}},
		}},
	})
	if err != nil {
		return nil, err
	}
	return c.Stop, nil
}
