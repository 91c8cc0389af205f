package main

import (
	"context"

	"k8s.io/dynamic-resource-allocation/kubeletplugin"

	_ "example.com/gpu-driver/driver"
)

func main() {
	_, _ = kubeletplugin.Start(context.Background(), nil)
}
