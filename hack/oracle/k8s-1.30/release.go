package main

import (
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/kubernetes/pkg/apis/resource"
)

const release = "1.30"

const featureGates = "DynamicResourceAllocation=true"

// facts are what 1.30 consumers read: the scheduler treats an allocation as
// structured exactly when some resourceHandles[] entry has structuredData;
// otherwise it is a classic allocation of status.driverName.
func facts(obj runtime.Object) map[string]string {
	f := map[string]string{}
	claim, ok := obj.(*resource.ResourceClaim)
	if !ok {
		return f
	}
	f["finalizers"] = strings.Join(claim.Finalizers, ",")
	f["driverName"] = claim.Status.DriverName
	if a := claim.Status.Allocation; a != nil {
		structured := false
		for _, h := range a.ResourceHandles {
			if h.StructuredData != nil {
				structured = true
			}
		}
		f["allocated"] = "true"
		f["structured"] = strconv.FormatBool(structured)
		f["handles"] = strconv.Itoa(len(a.ResourceHandles))
	}
	return f
}
