//go:build k131 || k132 || k133

package main

import (
	"context"

	v1 "k8s.io/api/core/v1"
	"k8s.io/kubernetes/pkg/kubelet/cm/dra/plugin"
)

// getNode is the kubelet's Node; the handler never reads it here.
func getNode() (*v1.Node, error) { return &v1.Node{}, nil }

// register is what the plugin manager of 1.31–1.33 does with its
// registration handler, whose client speaks the release's newest DRA gRPC
// (unprepareRequest).
func register(ctx context.Context, name, endpoint string, versions []string) (func(context.Context) error, error) {
	h := newHandler()
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
		resp, err := p.NodeUnprepareResources(ctx, &unprepareRequest{Claims: []*claimRef{{Namespace: namespace, Name: claimName, UID: claimUID}}})
		claims := map[string]string{}
		for uid, c := range resp.GetClaims() {
			claims[uid] = c.GetError()
		}
		return unprepared(claims, err)
	}, nil
}
