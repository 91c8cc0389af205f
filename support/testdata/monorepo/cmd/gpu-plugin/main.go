// The kubeletplugin of the gpu driver.
package main

import (
	"context"

	"k8s.io/dynamic-resource-allocation/kubeletplugin"

	"example.com/drivers/pkg/gpu"
)

func main() {
	gpu.Run()
	_, _ = kubeletplugin.Start(context.Background(), nil)
}
