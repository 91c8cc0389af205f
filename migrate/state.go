package migrate

import (
	"github.com/claimbridge/claimbridge/api"
)

// clusterState are the resource.k8s.io kinds that a cluster's own
// components create and own, with who creates them on the new cluster.
var clusterState = map[string]string{
	// 1.30+: a driver's kubelet plugin publishes its node's devices.
	api.KindResourceSlice: "each node's DRA driver publishes its own ResourceSlices on the new cluster (these describe the old cluster's nodes and devices)",
	// 1.27–1.31: the scheduler's negotiation with classic DRA drivers.
	"PodSchedulingContext": "the new cluster's scheduler creates a pod's PodSchedulingContext when it schedules the pod (this one holds the old cluster's node choices)",
}

// clusterStateNote reports whether obj is a resource.k8s.io object that the
// cluster's components create for themselves, which migrate leaves out:
// it describes the old cluster's nodes and devices. note says why.
func clusterStateNote(obj map[string]interface{}) (note string, ok bool) {
	_, group, _, kind, found := api.TypeOf(obj)
	if !found || group != api.UpstreamGroup {
		return "", false
	}
	note, ok = clusterState[kind]
	return note, ok
}
