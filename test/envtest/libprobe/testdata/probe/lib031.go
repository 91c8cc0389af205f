//go:build lib031

package main

import (
	"context"

	resourceapi "k8s.io/api/resource/v1alpha3"
	"k8s.io/client-go/kubernetes"
	"k8s.io/dynamic-resource-allocation/resourceslice"
)

// publish starts v0.31's controller as its kubeletplugin does: owned by
// the Node, one pool of one device.
func publish(ctx context.Context, client kubernetes.Interface, driver, node string) (stop func(), err error) {
	c := resourceslice.StartController(ctx, client, driver,
		resourceslice.Owner{APIVersion: "v1", Kind: "Node", Name: node},
		&resourceslice.DriverResources{Pools: map[string]resourceslice.Pool{
			node: {Devices: []resourceapi.Device{{Name: "gpu-0", Basic: &resourceapi.BasicDevice{}}}},
		}})
	return c.Stop, nil
}

// read: v0.31's kubeletplugin reads no claims (its drivers do, with their
// own clients).
func read(context.Context, kubernetes.Interface, string, string) (bool, error) {
	return false, nil
}
