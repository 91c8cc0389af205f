package main

import (
	"context"

	"k8s.io/dynamic-resource-allocation/kubeletplugin"
)

func main() {
	_, _ = kubeletplugin.Start(context.Background(), nil)
}
