//go:build k131

package main

import (
	drapb "k8s.io/kubelet/pkg/apis/dra/v1alpha4"
	"k8s.io/kubernetes/pkg/kubelet/cm/dra/plugin"
)

// The DRA gRPC of the client of 1.31, and its registration handler.
type (
	unprepareRequest = drapb.NodeUnprepareResourcesRequest
	claimRef         = drapb.Claim
)

func newHandler() *plugin.RegistrationHandler { return plugin.NewRegistrationHandler(nil, getNode) }
