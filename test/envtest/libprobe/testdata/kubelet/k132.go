//go:build k132

package main

import (
	drapb "k8s.io/kubelet/pkg/apis/dra/v1beta1"
	"k8s.io/kubernetes/pkg/kubelet/cm/dra/plugin"
)

// The DRA gRPC of the client of 1.32, and its registration handler.
type (
	unprepareRequest = drapb.NodeUnprepareResourcesRequest
	claimRef         = drapb.Claim
)

func newHandler() *plugin.RegistrationHandler { return plugin.NewRegistrationHandler(nil, getNode) }
