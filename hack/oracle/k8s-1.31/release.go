package main

import (
	"fmt"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/kubernetes/pkg/apis/resource"
)

const release = "1.31"

// The gates a 1.31 cluster serving v1alpha3 with control-plane drivers runs with.
const featureGates = "DynamicResourceAllocation=true,DRAControlPlaneController=true"

// facts are what 1.31 consumers read: the scheduler treats an allocation as
// its own ("structured") exactly when status.allocation.controller is empty;
// each request asks for class, mode, count and selectors.
func facts(obj runtime.Object) map[string]string {
	f := map[string]string{}
	var spec *resource.ResourceClaimSpec
	switch o := obj.(type) {
	case *resource.ResourceClaim:
		spec = &o.Spec
		if a := o.Status.Allocation; a != nil {
			f["allocated"] = "true"
			f["structured"] = strconv.FormatBool(a.Controller == "")
			f["controller"] = a.Controller
			f["results"] = strconv.Itoa(len(a.Devices.Results))
			f["configs"] = strconv.Itoa(len(a.Devices.Config))
		}
		f["finalizers"] = strings.Join(o.Finalizers, ",")
	case *resource.ResourceClaimTemplate:
		spec = &o.Spec.Spec
	}
	if spec == nil {
		return f
	}
	f["spec.controller"] = spec.Controller
	for i, r := range spec.Devices.Requests {
		var sel []string
		for _, s := range r.Selectors {
			if s.CEL != nil {
				sel = append(sel, s.CEL.Expression)
			}
		}
		f[fmt.Sprintf("request[%d]", i)] = fmt.Sprintf("name=%s class=%s mode=%s count=%d adminAccess=%v selectors=%q",
			r.Name, r.DeviceClassName, r.AllocationMode, r.Count, r.AdminAccess, sel)
	}
	for i, c := range spec.Devices.Config {
		if c.Opaque != nil {
			f[fmt.Sprintf("config[%d]", i)] = fmt.Sprintf("driver=%s requests=%q parameters=%s",
				c.Opaque.Driver, c.Requests, string(c.Opaque.Parameters.Raw))
		}
	}
	return f
}
