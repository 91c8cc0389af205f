//go:build lib033

package main

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// read is the call v0.33's kubeletplugin makes for each claim it prepares
// (nodePluginImplementation.getResourceClaims, not exported).
func read(ctx context.Context, client kubernetes.Interface, namespace, name string) (bool, error) {
	_, err := client.ResourceV1beta1().ResourceClaims(namespace).Get(ctx, name, metav1.GetOptions{})
	return true, err
}
