//go:build lib037

package main

import (
	"context"

	"k8s.io/dynamic-resource-allocation/kubeletplugin"
)

// WatchHealthStatus is required from v0.37: no device ever changes.
func (driver) WatchHealthStatus(ctx context.Context, _ chan<- kubeletplugin.DeviceHealthReport) error {
	<-ctx.Done()
	return nil
}
