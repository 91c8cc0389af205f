//go:build k134

package main

import drapb "k8s.io/kubelet/pkg/apis/dra/v1"

// claim is the claim to unprepare in 1.34's gogo-generated API.
func claim() *drapb.Claim {
	return &drapb.Claim{Namespace: namespace, Name: claimName, UID: claimUID}
}
