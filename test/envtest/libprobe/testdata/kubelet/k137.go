//go:build k137

package main

import (
	"context"

	v1 "k8s.io/api/core/v1"
	"k8s.io/kubernetes/pkg/kubelet/cm/dra/plugin"
)

// register is what the plugin manager of 1.37 does with its DRA plugin
// manager.
func register(ctx context.Context, name, endpoint string, versions []string) (func(context.Context) error, error) {
	m := plugin.NewDRAPluginManager(ctx, nil, func(context.Context) (*v1.Node, error) { return &v1.Node{}, nil }, nil, 0)
	if err := m.ValidatePlugin(ctx, name, endpoint, versions); err != nil {
		return nil, err
	}
	if err := m.RegisterPlugin(ctx, name, endpoint, versions, nil); err != nil {
		return nil, err
	}
	return func(ctx context.Context) error { return call(ctx, m, name) }, nil
}
