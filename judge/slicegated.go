package judge

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/validation/common"
)

// validateGatedSliceFields is upstream's validation (1.37) of the slice
// fields of alpha gates, which a slice keeps only where the cluster has
// their gate on (strip): a partition type attribute, skipped node
// operations, each device's node allocatable resources and compatibility
// groups.
func (r rules) validateGatedSliceFields(spec resourcev1.ResourceSliceSpec, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	if spec.PartitionTypeAttribute != nil {
		allErrs = append(allErrs, r.validatePartitionTypeAttribute(spec, fldPath)...)
	}
	if skip := sets.New(spec.SkipNodeOperations...); skip.Has(resourcev1.SkipNodeOperationNodePrepareResources) &&
		!skip.Has(resourcev1.SkipNodeOperationNodeUnprepareResources) && !skip.Has(resourcev1.SkipNodeOperationAll) {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("skipNodeOperations"), spec.SkipNodeOperations,
			"NodePrepareResources cannot be skipped unless NodeUnprepareResources is also skipped"))
	}
	for i, device := range spec.Devices {
		devicePath := fldPath.Child("devices").Index(i)
		for _, name := range slices.Sorted(maps.Keys(device.NodeAllocatableResources)) {
			allErrs = append(allErrs, r.validateNodeAllocatable(device.NodeAllocatableResources[name], device.Capacity, devicePath.Child("nodeAllocatableResources").Key(string(name)), name)...)
		}
		for j, c := range device.ConsumesCounters {
			groupsPath := devicePath.Child("consumesCounters").Index(j).Child("compatibilityGroups")
			if len(c.CompatibilityGroups) > 2 {
				allErrs = append(allErrs, field.TooMany(groupsPath, len(c.CompatibilityGroups), 2))
			}
			seen := sets.New[string]()
			for k, group := range c.CompatibilityGroups {
				allErrs = append(allErrs, common.ValidateDNS1123Label(group, groupsPath.Index(k))...)
				allErrs = append(allErrs, duplicate(seen, group, groupsPath.Index(k))...)
			}
		}
	}
	return allErrs
}

// validatePartitionTypeAttribute: a fully qualified name (checked
// declaratively, whatever the devices), on a slice whose devices consume
// counters, each of which has it as a string attribute (a name in the
// driver's domain may be given bare).
func (r rules) validatePartitionTypeAttribute(spec resourcev1.ResourceSliceSpec, fldPath *field.Path) field.ErrorList {
	name := string(*spec.PartitionTypeAttribute)
	path := fldPath.Child("partitionTypeAttribute")
	errs := r.validateFullyQualifiedName(name, path)
	if !slices.ContainsFunc(spec.Devices, func(d resourcev1.Device) bool { return len(d.ConsumesCounters) > 0 }) {
		return append(errs, field.Invalid(path, name, "may only be set on a slice which declares devices that consume counters"))
	}
	if len(errs) > 0 {
		return errs
	}
	bare, _ := strings.CutPrefix(name, spec.Driver+"/")
	var allErrs field.ErrorList
	for i, device := range spec.Devices {
		if len(device.ConsumesCounters) == 0 {
			continue
		}
		attrPath := fldPath.Child("devices").Index(i).Child("attributes").Key(name)
		attribute, ok := device.Attributes[resourcev1.QualifiedName(name)]
		if !ok && bare != "" {
			attribute, ok = device.Attributes[resourcev1.QualifiedName(bare)]
		}
		switch {
		case !ok:
			allErrs = append(allErrs, field.Required(attrPath, "device consumes counters and `partitionTypeAttribute` names this attribute, so it must be set"))
		case attribute.StringValue == nil:
			allErrs = append(allErrs, field.Invalid(attrPath, attribute, "must be a string value because `partitionTypeAttribute` names this attribute"))
		}
	}
	return allErrs
}

// validateNodeAllocatable is upstream's validateNodeAllocatableResources of
// one resource: cpu, memory or hugepages; a mapping, an overhead or both.
// From 1.38 a mapping's capacityKey is a qualified name, and its dependent
// fields and its one of capacityKey or deviceMultiplier are checked
// declaratively.
func (r rules) validateNodeAllocatable(res resourcev1.NodeAllocatableResource, capacities map[resourcev1.QualifiedName]resourcev1.DeviceCapacity, keyPath *field.Path, name corev1.ResourceName) field.ErrorList {
	var allErrs field.ErrorList
	if name != corev1.ResourceCPU && name != corev1.ResourceMemory && !strings.HasPrefix(string(name), corev1.ResourceHugePagesPrefix) {
		allErrs = append(allErrs, field.Invalid(keyPath, name, "must be a node allocatable resource name"))
	}
	if res.Mapping == nil && res.Overhead == nil {
		allErrs = append(allErrs, field.Required(keyPath, "at least one of mapping or overhead must be set"))
	}
	if m := res.Mapping; m != nil {
		path, declarative := keyPath.Child("mapping"), r.has(api.NodeAllocatableDeclarative)
		required := func(field, when string) string {
			if declarative {
				return "must be set when " + when + " is set"
			}
			return field + " is required when " + when + " is set"
		}
		if m.CapacityKey != nil {
			keyPath := path.Child("capacityKey")
			nameErrs := r.validateQualifiedName(string(*m.CapacityKey), keyPath)
			if _, ok := capacities[*m.CapacityKey]; *m.CapacityKey == "" {
				allErrs = append(allErrs, field.Invalid(keyPath, "", "capacityKey must not be an empty string"))
			} else if declarative && len(nameErrs) > 0 {
				allErrs = append(allErrs, nameErrs...)
			} else if !ok {
				allErrs = append(allErrs, field.NotFound(keyPath, *m.CapacityKey))
			}
			if m.CapacityMultiplier == nil {
				allErrs = append(allErrs, field.Required(path.Child("capacityMultiplier"), required("capacityMultiplier", "capacityKey")))
			} else if m.CapacityMultiplier.Sign() <= 0 {
				allErrs = append(allErrs, field.Invalid(path.Child("capacityMultiplier"), m.CapacityMultiplier.String(), "must be positive"))
			}
		}
		if m.DeviceMultiplier != nil && m.DeviceMultiplier.Sign() <= 0 {
			allErrs = append(allErrs, field.Invalid(path.Child("deviceMultiplier"), m.DeviceMultiplier.String(), "must be positive"))
		}
		if m.CapacityMultiplier != nil && m.CapacityKey == nil {
			allErrs = append(allErrs, field.Required(path.Child("capacityKey"), required("capacityKey", "capacityMultiplier")))
		}
		const union = "`capacityKey`, `deviceMultiplier`"
		switch {
		case declarative && m.CapacityKey == nil && m.DeviceMultiplier == nil:
			allErrs = append(allErrs, field.Invalid(path, "", "must specify one of: "+union))
		case declarative && m.CapacityKey != nil && m.DeviceMultiplier != nil:
			allErrs = append(allErrs, field.Invalid(path, "{"+union+"}", "must specify exactly one of: "+union))
		}
	}
	if o := res.Overhead; o != nil {
		path := keyPath.Child("overhead")
		if o.PerPod == nil && o.PerContainer == nil {
			allErrs = append(allErrs, field.Invalid(path, "", "at least one of perPod or perContainer must be set"))
		}
		if o.PerPod != nil && o.PerPod.Sign() < 0 {
			allErrs = append(allErrs, field.Invalid(path.Child("perPod"), o.PerPod.String(), "must be non-negative"))
		}
		if o.PerContainer != nil && o.PerContainer.Sign() < 0 {
			allErrs = append(allErrs, field.Invalid(path.Child("perContainer"), o.PerContainer.String(), "must be non-negative"))
		}
	}
	return allErrs
}

// validateConsumptionBeforeSplit is 1.33's and 1.34's validation of a
// device's counter consumption, when a slice held its counter sets and the
// devices that consume them: each names a set and counters of that slice;
// at most 32 counters a device.
func (r rules) validateConsumptionBeforeSplit(device resourcev1.Device, counterSets []resourcev1.CounterSet, fldPath *field.Path) field.ErrorList {
	allErrs := validateSet(r, device.ConsumesCounters, math.MaxInt, func(c resourcev1.DeviceCounterConsumption, fldPath *field.Path) field.ErrorList {
		return append(common.RequiredEach(fldPath, "counterSet", c.CounterSet), r.validateCounters(c.Counters, math.MaxInt, fldPath.Child("counters"))...)
	}, func(c resourcev1.DeviceCounterConsumption) string { return c.CounterSet }, "counterSet", fldPath.Child("consumesCounters"))
	n := 0
	for i, c := range device.ConsumesCounters {
		n += len(c.Counters)
		path := fldPath.Child("consumesCounters").Index(i)
		set := slices.IndexFunc(counterSets, func(s resourcev1.CounterSet) bool { return s.Name == c.CounterSet })
		if set < 0 {
			allErrs = append(allErrs, field.Invalid(path.Child("counterSet"), c.CounterSet, "must reference a counterSet defined in the ResourceSlice sharedCounters"))
			continue
		}
		for _, name := range slices.Sorted(maps.Keys(c.Counters)) {
			if _, ok := counterSets[set].Counters[name]; !ok {
				allErrs = append(allErrs, field.Invalid(path.Child("counters"), name, "must reference a counter defined in the ResourceSlice sharedCounters"))
			}
		}
	}
	if n > resourcev1.ResourceSliceMaxCountersPerDeviceCounterConsumption {
		allErrs = append(allErrs, field.Invalid(fldPath, n, fmt.Sprintf("the total number of counters must not exceed %d", resourcev1.ResourceSliceMaxCountersPerDeviceCounterConsumption)))
	}
	return allErrs
}

// validateCountersBeforeSplit is 1.33's and 1.34's validation of a slice's
// counter sets: at most 32 counters in all, and 1024 consumed by its devices.
func (r rules) validateCountersBeforeSplit(spec resourcev1.ResourceSliceSpec, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	consumed, shared := 0, 0
	for _, d := range spec.Devices {
		for _, c := range d.ConsumesCounters {
			consumed += len(c.Counters)
		}
	}
	for _, set := range spec.SharedCounters {
		shared += len(set.Counters)
	}
	if consumed > 1024 {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("devices"), consumed, "the total number of counters in devices must not exceed 1024"))
	}
	if shared > 32 {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("sharedCounters"), shared, "the total number of shared counters must not exceed 32"))
	}
	return append(allErrs, validateSet(r, spec.SharedCounters, math.MaxInt, func(set resourcev1.CounterSet, fldPath *field.Path) field.ErrorList {
		errs := validateCounterName(set.Name, fldPath.Child("name"))
		return append(errs, r.validateCounters(set.Counters, math.MaxInt, fldPath.Child("counters"))...)
	}, func(set resourcev1.CounterSet) string { return set.Name }, "name", fldPath.Child("sharedCounters"))...)
}
