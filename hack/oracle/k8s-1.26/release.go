package main

import (
	"strings"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/kubernetes/pkg/apis/resource"
)

const release = "1.26"

const featureGates = "DynamicResourceAllocation=true"

// facts are what 1.26 consumers read: the kubelet hands
// status.allocation.resourceHandle to the plugin named status.driverName.
func facts(obj runtime.Object) map[string]string {
	f := map[string]string{}
	claim, ok := obj.(*resource.ResourceClaim)
	if !ok {
		return f
	}
	f["finalizers"] = strings.Join(claim.Finalizers, ",")
	f["driverName"] = claim.Status.DriverName
	if a := claim.Status.Allocation; a != nil {
		f["allocated"] = "true"
		f["resourceHandle"] = a.ResourceHandle
	}
	return f
}
