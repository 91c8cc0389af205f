package api

// Where a Field is in an object.
const (
	InRequest     = iota // a request
	InExact              // an exact request: a v1beta1 request, exactly in v1beta2 and v1
	InExactAndSub        // an exact request and each subrequest
	InConstraint         // a constraint
	InClass              // a DeviceClass's spec
	InSliceSpec          // a ResourceSlice's spec
	InDevice             // a ResourceSlice's device, or its basic in v1alpha3 and v1beta1
	InAttribute          // the value of a device's attribute
	InConsumption        // a device's consumption of a counter set
	InCapacity           // the value of a device's capacity
	InClaimStatus        // a claim's status
	InAllocation         // a claim's status.allocation
	InResult             // an allocation's result: status.allocation.devices.results[]
)

// A Field is a field of a DRA object that not every release creates: a
// release before Added does not have it (strict field validation rejects
// it); one from DropFrom drops it on a create unless the cluster has Gate
// on (Cluster.Enabled; the releases' defaults are featuregates.tsv's).
type Field struct {
	Name     string
	In       int
	Added    int
	Gate     string
	DropFrom int
}

// Fields are the fields of claims, templates, DeviceClasses and
// ResourceSlices that not every release from 1.31 creates, the same in each
// version that has them, and their feature gates.
// Sources: k8s.io/api resource/*/types.go, and in k8s.io/kubernetes
// pkg/features/kube_features.go and the dropDisabledFields of
// pkg/registry/resource/{resourceclaim,resourceclaimtemplate,deviceclass,resourceslice}
// (pkg/api/resourceclaimspec from 1.35).
var Fields = []Field{
	{"firstAvailable", InRequest, 33, "DRAPrioritizedList", 33},
	{"adminAccess", InExact, 32, "DRAAdminAccess", 32},
	// 1.33 and 1.34 keep tolerations with the gate off; 1.35 drops them.
	{"tolerations", InExactAndSub, 33, "DRADeviceTaints", 35},
	{"capacity", InExactAndSub, 34, "DRAConsumableCapacity", 34},
	{"derivedAttributes", InExactAndSub, 37, "DRADerivedAttributes", 37},
	// 1.34 keeps distinctAttribute: its drop clears a copy of each constraint.
	{"distinctAttribute", InConstraint, 34, "DRAConsumableCapacity", 35},
	{"extendedResourceName", InClass, 34, "DRAExtendedResource", 34},
	{"sharedCounters", InSliceSpec, 33, "DRAPartitionableDevices", 33},
	{"perDeviceNodeSelection", InSliceSpec, 33, "DRAPartitionableDevices", 33},
	{"partitionTypeAttribute", InSliceSpec, 37, "DRAPartitionableDevicesType", 37},
	{"consumesCounters", InDevice, 33, "DRAPartitionableDevices", 33},
	{"nodeName", InDevice, 33, "DRAPartitionableDevices", 33},
	{"nodeSelector", InDevice, 33, "DRAPartitionableDevices", 33},
	{"allNodes", InDevice, 33, "DRAPartitionableDevices", 33},
	{"taints", InDevice, 33, "DRADeviceTaints", 33},
	{"allowMultipleAllocations", InDevice, 34, "DRAConsumableCapacity", 34},
	{"requestPolicy", InCapacity, 34, "DRAConsumableCapacity", 34},
	{"bindingConditions", InDevice, 34, "DRADeviceBindingConditions", 34},
	{"bindingFailureConditions", InDevice, 34, "DRADeviceBindingConditions", 34},
	{"bindsToNode", InDevice, 34, "DRADeviceBindingConditions", 34},
	{"nodeAllocatableResources", InDevice, 36, "DRANodeAllocatableResources", 36},
	{"skipNodeOperations", InSliceSpec, 37, "DRAOptionalNodeOperations", 37},
	{"compatibilityGroups", InConsumption, 37, "DRADeviceCompatibilityGroups", 37},
	{"bools", InAttribute, 36, "DRAListTypeAttributes", 36},
	{"ints", InAttribute, 36, "DRAListTypeAttributes", 36},
	{"strings", InAttribute, 36, "DRAListTypeAttributes", 36},
	{"versions", InAttribute, 36, "DRAListTypeAttributes", 36},
}

// StatusFields are the fields of a claim's status that not every release
// from 1.31 has (k8s.io/api resource/*/types.go of each release): a
// release before Added reads a stored claim without them, and drops them
// at its next write of the status. Gate and DropFrom are not used.
var StatusFields = []Field{
	{"devices", InClaimStatus, 32, "", 0},
	{"tolerations", InResult, 33, "", 0},
	{"consumedCapacity", InResult, 34, "", 0},
	{"shareID", InResult, 34, "", 0},
	{"bindingConditions", InResult, 34, "", 0},
	{"bindingFailureConditions", InResult, 34, "", 0},
	{"allocationTimestamp", InAllocation, 34, "", 0},
}

// FieldOf is the Field of Fields named name; it panics for a name Fields
// does not have, a programming error.
func FieldOf(name string) Field {
	for _, f := range Fields {
		if f.Name == name {
			return f
		}
	}
	panic("api: no field " + name)
}
