//go:build k134 || k135 || k136 || k137

package main

import (
	"context"

	drapb "k8s.io/kubelet/pkg/apis/dra/v1"
	"k8s.io/kubernetes/pkg/kubelet/cm/dra/plugin"
)

// call unprepares the claim through the DRA plugin manager's client of
// 1.34 and later, which speaks v1 or v1beta1 as the driver registered.
func call(ctx context.Context, m *plugin.DRAPluginManager, name string) error {
	p, err := m.GetPlugin(name)
	if err != nil {
		return err
	}
	resp, err := p.NodeUnprepareResources(ctx, &drapb.NodeUnprepareResourcesRequest{Claims: []*drapb.Claim{claim()}})
	claims := map[string]string{}
	for uid, c := range resp.GetClaims() {
		claims[uid] = c.GetError()
	}
	return unprepared(claims, err)
}
