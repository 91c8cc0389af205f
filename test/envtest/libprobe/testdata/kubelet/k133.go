//go:build k133

package main

import (
	"context"

	v1 "k8s.io/api/core/v1"
	drapb "k8s.io/kubelet/pkg/apis/dra/v1beta1"
	"k8s.io/kubernetes/pkg/kubelet/cm/dra/plugin"
)

// register is what the plugin manager of 1.33 does with its handler.
func register(ctx context.Context, name, endpoint string, versions []string) (func(context.Context) error, error) {
	h := plugin.NewRegistrationHandler(nil, func() (*v1.Node, error) { return &v1.Node{}, nil }, 0)
	if err := h.ValidatePlugin(name, endpoint, versions); err != nil {
		return nil, err
	}
	if err := h.RegisterPlugin(name, endpoint, versions, nil); err != nil {
		return nil, err
	}
	return func(ctx context.Context) error {
		p, err := plugin.NewDRAPluginClient(name)
		if err != nil {
			return err
		}
		resp, err := p.NodeUnprepareResources(ctx, &drapb.NodeUnprepareResourcesRequest{
			Claims: []*drapb.Claim{{Namespace: namespace, Name: claimName, UID: claimUID}}})
		claims := map[string]string{}
		for uid, c := range resp.GetClaims() {
			claims[uid] = c.GetError()
		}
		return unprepared(claims, err)
	}, nil
}
