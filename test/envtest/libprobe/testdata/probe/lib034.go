//go:build lib034

package main

import (
	"context"

	resourceapi "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	draclient "k8s.io/dynamic-resource-allocation/client"
	"k8s.io/dynamic-resource-allocation/resourceslice"
)

// publish starts the controller of v0.34 and later as its kubeletplugin
// does: owned by the Node, one pool of one slice of one device. It writes
// through the library's client, which falls back from v1 to v1beta2 to
// v1beta1.
func publish(ctx context.Context, client kubernetes.Interface, driver, node string) (stop func(), err error) {
	c, err := resourceslice.StartController(ctx, resourceslice.Options{
		DriverName: driver,
		KubeClient: client,
		Owner:      &resourceslice.Owner{APIVersion: "v1", Kind: "Node", Name: node},
		Resources: &resourceslice.DriverResources{Pools: map[string]resourceslice.Pool{
			node: {Slices: []resourceslice.Slice{{Devices: []resourceapi.Device{{Name: "gpu-0"}}}}},
		}},
	})
	if err != nil {
		return nil, err
	}
	return c.Stop, nil
}

// read is the call the kubeletplugin of v0.34 and later makes for each
// claim it prepares: through the library's client, with its fallback.
func read(ctx context.Context, client kubernetes.Interface, namespace, name string) (bool, error) {
	_, err := draclient.New(client).ResourceClaims(namespace).Get(ctx, name, metav1.GetOptions{})
	return true, err
}
