//go:build lib032

package main

import (
	"context"

	"k8s.io/client-go/kubernetes"
)

// read: v0.32's kubeletplugin reads no claims (its drivers do, with their
// own clients).
func read(context.Context, kubernetes.Interface, string, string) (bool, error) {
	return false, nil
}
