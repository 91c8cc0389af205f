// The kubeletplugin of the qat driver.
package main

import (
	"context"

	"k8s.io/dynamic-resource-allocation/kubeletplugin"

	"example.com/drivers/pkg/qat"
)

func main() {
	qat.Run()
	_, _ = kubeletplugin.Start(context.Background(), nil)
}
