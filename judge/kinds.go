package judge

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/inf.v0"

	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/sets"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/api/v1alpha2"
	"github.com/claimbridge/claimbridge/validation"
	"github.com/claimbridge/claimbridge/validation/common"
	"github.com/claimbridge/claimbridge/validation/v1alpha3"
)

// kindVersions are the versions CheckKind decodes the kinds of 1.31+ in;
// oldKinds are those of 1.26–1.30 it decodes.
var (
	kindVersions = []string{api.V1alpha3, api.V1beta1, api.V1beta2, api.V1}
	oldKinds     = []string{"v1alpha1/ResourceClass", "v1alpha2/ResourceClass", "v1alpha2/ResourceSlice",
		"v1alpha2/" + api.KindClaimParameters, "v1alpha2/" + api.KindClassParameters}
)

// KindOf returns the version and kind of obj when it is a DeviceClass,
// ResourceSlice or DeviceTaintRule of resource.k8s.io v1alpha3, v1beta1,
// v1beta2 or v1, a ResourceClass of v1alpha1 or v1alpha2, or a v1alpha2
// ResourceSlice, ResourceClaimParameters or ResourceClassParameters (what
// CheckKind checks), or "".
func KindOf(obj map[string]interface{}) (version, kind string) {
	_, group, version, kind, _ := api.TypeOf(obj)
	known := slices.Contains(kindVersions, version) && slices.Contains([]string{api.KindDeviceClass, api.KindResourceSlice, api.KindDeviceTaintRule}, kind) ||
		slices.Contains(oldKinds, version+"/"+kind)
	if group != api.UpstreamGroup || !known {
		return "", ""
	}
	return version, kind
}

// KindRelease is the release that judges an object of version and kind
// when the caller names none: the first that creates it, and for v1 and
// v1alpha2 the newest (api.Judge).
func KindRelease(version, kind string) int {
	if judge, _ := api.Judge(version); version == api.V1 || version == api.V1alpha2 {
		return judge.Minor
	}
	minor, newest := api.FirstRelease(kind), api.Newest().Minor
	for minor < newest && api.CreatedIn(kind, minor) != version {
		minor++
	}
	return minor
}

// CheckKind checks a DeviceClass, ResourceSlice, DeviceTaintRule, or 1.26–
// 1.30's kinds (KindOf) as `kubectl create` would send it to cluster c:
// whether c serves its version, the fields it does not have, what it drops
// (warnings naming the gate) and the release's create validation (Check's
// for a DeviceClass from 1.32).
func CheckKind(obj map[string]interface{}, c api.Cluster, kind string) (errs, warnings []string) {
	version := versionOf(obj)
	if err := NotServed(c, version, kind); err != nil {
		return []string{err.Error()}, nil
	}
	if kind == api.KindDeviceClass && version != api.V1alpha3 {
		return Check(obj, c, kind)
	}
	r := rules{Cluster: c, version: version}
	in := api.DeepCopyJSON(obj)
	if kind == api.KindDeviceClass {
		// 1.31 drops suitableNodes (classic DRA) with its gate off, and has
		// the v1beta1 class otherwise.
		if spec := asObject(in["spec"]); spec["suitableNodes"] != nil && !c.Enabled("DRAControlPlaneController") {
			warnings = append(warnings, "spec.suitableNodes: Kubernetes 1.31 drops it on a create: its DRAControlPlaneController feature gate is off by default")
			delete(spec, "suitableNodes")
		}
		in["apiVersion"] = api.UpstreamGroup + "/" + api.V1beta1
	}
	var shape field.ErrorList
	if kind == api.KindResourceSlice && version == api.V1alpha3 {
		shape = V1alpha3Capacities(in)
	}
	// 1.33 and 1.34 select the devices of a taint rule also by class and
	// CEL selectors, which later releases do not have.
	var older map[string]interface{}
	if selector := asObject(asObject(in["spec"])["deviceSelector"]); kind == api.KindDeviceTaintRule && !api.Has(c.Minor, api.TaintRuleSelectorsRemoved) {
		older = map[string]interface{}{"deviceClassName": selector["deviceClassName"], "selectors": selector["selectors"]}
		delete(selector, "deviceClassName")
		delete(selector, "selectors")
	}
	unknown, err := UnknownFields(in, version, kind)
	if err != nil {
		return []string{fmt.Sprintf("does not decode into %s/%s %s: %v", api.UpstreamGroup, version, kind, err)}, nil
	}
	if _, ok := in["structuredParameters"]; ok && kind == api.KindResourceClass && !api.Has(c.Minor, api.ClassStructuredParameters) {
		unknown = append(unknown, field.Forbidden(field.NewPath("structuredParameters"), fmt.Sprintf("unknown field: Kubernetes 1.%d does not have it (1.%d+)", c.Minor, api.Since(api.ClassStructuredParameters))))
	}
	var invalid field.ErrorList
	in = validation.WithGeneratedName(in) // named as the apiserver names it
	switch {
	case kind == api.KindClaimParameters || kind == api.KindClassParameters:
		invalid, err = r.validateParameterKinds(api.InDefaultNamespace(in), kind)
	case kind == api.KindResourceClass || version == api.V1alpha2:
		invalid, err = r.validateOld(in, kind)
	case kind == api.KindDeviceClass:
		stripped, absent, _ := r.strip(in, api.V1beta1, kind)
		unknown = append(unknown, absent...)
		invalid, err = r.validateClass(stripped)
	case kind == api.KindResourceSlice:
		stripped, absent, dropped := r.stripSlice(in)
		unknown, warnings = append(unknown, absent...), append(warnings, dropped...)
		invalid, err = r.validateResourceSlice(stripped)
	default:
		invalid, err = r.validateTaintRule(in, older)
	}
	if err != nil {
		return []string{err.Error()}, warnings
	}
	for _, e := range slices.Concat(shape, unknown, invalid) {
		errs = append(errs, e.Error())
	}
	return errs, warnings
}

// V1alpha3Capacities gives each capacity of a 1.31 slice's devices, a
// quantity, the shape of later versions' ({value: quantity}); invalid
// names those already of that shape, which 1.31 refuses.
func V1alpha3Capacities(obj map[string]interface{}) (invalid field.ErrorList) {
	for i, d := range asArray(asObject(obj["spec"])["devices"]) {
		capacity := asObject(asObject(asObject(d)["basic"])["capacity"])
		for _, name := range slices.Sorted(maps.Keys(capacity)) {
			if q, isObject := capacity[name].(map[string]interface{}); isObject {
				invalid = append(invalid, field.Invalid(field.NewPath("spec", "devices").Index(i).Child("basic", "capacity").Key(name), q,
					"quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$' (a 1.31 capacity is a quantity, not {value: …})"))
			} else {
				capacity[name] = map[string]interface{}{"value": capacity[name]}
			}
		}
	}
	return invalid
}

// validateClass is upstream's ValidateDeviceClass of release r.Minor for a
// DeviceClass in the JSON shape of v1beta1, without the fields r does not
// create.
func (r rules) validateClass(obj map[string]interface{}) (field.ErrorList, error) {
	var class resourcev1.DeviceClass
	if err := remarshal(obj, &class); err != nil {
		return nil, fmt.Errorf("does not decode into %s/%s DeviceClass: %v", api.UpstreamGroup, r.version, err)
	}
	// The apiserver clears the namespace of a cluster-scoped object.
	class.Namespace = ""
	errs := apimachineryvalidation.ValidateObjectMeta(&class.ObjectMeta, false, apimachineryvalidation.NameIsDNSSubdomain, field.NewPath("metadata"))
	spec := field.NewPath("spec")
	errs = append(errs, r.validateSelectors(class.Spec.Selectors, spec.Child("selectors"))...)
	errs = append(errs, validateSlice(r, class.Spec.Config, resourcev1.DeviceConfigMaxSize, func(config resourcev1.DeviceClassConfiguration, fldPath *field.Path) field.ErrorList {
		return r.validateDeviceConfiguration(config.DeviceConfiguration, fldPath)
	}, spec.Child("config"))...)
	if name := class.Spec.ExtendedResourceName; name != nil && !isExtendedResourceName(*name) {
		errs = append(errs, field.Invalid(spec.Child("extendedResourceName"), *name, "must be a valid extended resource name"))
	}
	return common.Normalize(errs), nil
}

// validateOld is upstream's ValidateClass (1.26–1.30, the same) for a
// ResourceClass and 1.30's ValidateResourceSlice, with namedresources'
// ValidateResources, for a v1alpha2 ResourceSlice.
func (r rules) validateOld(obj map[string]interface{}, kind string) (field.ErrorList, error) {
	// Each ignores the other kind's fields; class holds the metadata of both.
	var class v1alpha2.ResourceClass
	var slice v1alpha2.ResourceSlice
	if err := errors.Join(remarshal(obj, &class), remarshal(obj, &slice)); err != nil {
		return nil, fmt.Errorf("does not decode into %s/%s %s: %v", api.UpstreamGroup, r.version, kind, err)
	}
	class.Namespace = ""
	errs := common.ValidateObjectMeta(&class.ObjectMeta, false, field.NewPath("metadata"))
	if kind == api.KindResourceClass {
		errs = append(errs, common.ValidateDriverName(class.DriverName, field.NewPath("driverName"))...)
		if ref := class.ParametersRef; ref != nil {
			errs = append(errs, validateRef(ref.Kind, ref.Name, ref.Namespace, field.NewPath("parametersRef"))...)
		}
		if class.SuitableNodes != nil {
			errs = append(errs, common.ValidateNodeSelector(class.SuitableNodes, field.NewPath("suitableNodes"))...)
		}
		return common.Normalize(errs), nil
	}
	if slice.NodeName != "" {
		errs = append(errs, common.ValidateDNS1123Subdomain(slice.NodeName, field.NewPath("nodeName"))...)
	}
	errs = append(errs, common.ValidateDriverName(slice.DriverName, field.NewPath("driverName"))...)
	if slice.NamedResources == nil {
		// Upstream's validateResourceModel has no path.
		return common.Normalize(append(errs, field.Required(nil, "exactly one structured model field must be set"))), nil
	}
	unique := func(name string, seen sets.Set[string], path *field.Path) {
		errs = append(errs, common.ValidateDNS1123Subdomain(name, path)...)
		errs = append(errs, duplicate(seen, name, path)...)
	}
	instances := sets.New[string]()
	for i, instance := range slice.NamedResources.Instances {
		path, attributes := field.NewPath("namedResources", "instances").Index(i), sets.New[string]()
		unique(instance.Name, instances, path.Child("name"))
		for j, a := range instance.Attributes {
			path := path.Child("attributes").Index(j)
			unique(a.Name, attributes, path.Child("name"))
			values := map[string]bool{"bool": a.BoolValue != nil, "int": a.IntValue != nil, "intSlice": a.IntSliceValue != nil, "quantity": a.QuantityValue != nil,
				"string": a.StringValue != nil, "stringSlice": a.StringSliceValue != nil, "version": a.VersionValue != nil}
			set := slices.DeleteFunc(slices.Sorted(maps.Keys(values)), func(k string) bool { return !values[k] })
			if a.VersionValue != nil && !semver.MatchString(*a.VersionValue) {
				errs = append(errs, field.Invalid(path.Child("version"), *a.VersionValue, "must be a string compatible with semver.org spec 2.0.0"))
			}
			if len(set) == 0 {
				errs = append(errs, field.Required(path, "exactly one value must be set"))
			} else if len(set) > 1 {
				errs = append(errs, field.Invalid(path, set, "exactly one field must be set, not several"))
			}
		}
	}
	return common.Normalize(errs), nil
}

// validateParameterKinds is 1.30's ValidateResourceClaimParameters and
// ValidateResourceClassParameters for a create, the selectors compiled in
// 1.30's CEL environment.
func (r rules) validateParameterKinds(obj map[string]interface{}, kind string) (field.ErrorList, error) {
	var claim v1alpha2.ResourceClaimParameters
	var class v1alpha2.ResourceClassParameters
	if err := errors.Join(remarshal(obj, &claim), remarshal(obj, &class)); err != nil {
		return nil, fmt.Errorf("does not decode into %s/%s %s: %v", api.UpstreamGroup, r.version, kind, err)
	}
	errs := common.ValidateObjectMeta(&claim.ObjectMeta, true, field.NewPath("metadata"))
	drivers := sets.New[string]()
	driver := func(name string, path *field.Path) {
		errs = append(errs, common.ValidateDriverName(name, path)...)
		errs = append(errs, duplicate(drivers, name, path)...)
	}
	model := func(named *v1alpha2.NamedResourcesSelector, path *field.Path) {
		switch {
		case named == nil:
			errs = append(errs, field.Required(path, "exactly one structured model field must be set"))
		case named.Selector == "":
			errs = append(errs, field.Required(path.Child("namedResources", "selector"), ""))
		default:
			if err := v1alpha3.CompileCEL130(named.Selector); err != nil {
				errs = append(errs, common.CELError(path.Child("namedResources", "selector"), named.Selector, err))
			}
		}
	}
	if kind == api.KindClaimParameters {
		if ref := claim.GeneratedFrom; ref != nil {
			errs = append(errs, validateRef(ref.Kind, ref.Name, "", field.NewPath("generatedFrom"))...)
		}
		for i, request := range claim.DriverRequests {
			path := field.NewPath("driverRequests").Index(i)
			driver(request.DriverName, path.Child("driverName"))
			for j, req := range request.Requests {
				model(req.NamedResources, path.Child("requests").Index(j))
			}
			if len(request.Requests) == 0 {
				errs = append(errs, field.Required(path.Child("requests"), "empty entries with no requests are not allowed"))
			}
		}
		return common.Normalize(errs), nil
	}
	if ref := class.GeneratedFrom; ref != nil {
		errs = append(errs, validateRef(ref.Kind, ref.Name, ref.Namespace, field.NewPath("generatedFrom"))...)
	}
	for i, filter := range class.Filters {
		path := field.NewPath("filters").Index(i)
		driver(filter.DriverName, path.Child("driverName"))
		model(filter.NamedResources, path)
	}
	drivers = sets.New[string]()
	for i, parameters := range class.VendorParameters {
		driver(parameters.DriverName, field.NewPath("vendorParameters").Index(i).Child("driverName"))
	}
	return common.Normalize(errs), nil
}

// validateRef is upstream's validateResourceClaimParametersRef and
// validateClassParameters (with a namespace) of 1.26–1.30 for a reference.
func validateRef(kind, name, namespace string, path *field.Path) field.ErrorList {
	errs := common.RequiredEach(path, "kind", kind, "name", name)
	if namespace != "" {
		errs = append(errs, common.ValidateDNS1123Label(namespace, path.Child("namespace"))...)
	}
	return errs
}

func remarshal(obj map[string]interface{}, into interface{}) error {
	data, err := json.Marshal(obj)
	if err != nil {
		return err
	}
	return json.Unmarshal(data, into)
}

// stripSlice returns obj, a ResourceSlice, in the JSON shape of v1 (a
// device's basic fields on the device) without the fields of api.Fields
// that r does not create: those it does not have (Forbidden "unknown
// field") and those it drops (one warning each). Paths are the version's.
func (r rules) stripSlice(obj map[string]interface{}) (out map[string]interface{}, unknown field.ErrorList, dropped []string) {
	out = api.DeepCopyJSON(obj)
	visit := func(m map[string]interface{}, path *field.Path, in int) {
		r.dropFields(m, path, []int{in}, &unknown, &dropped)
	}
	spec := asObject(out["spec"])
	visit(spec, field.NewPath("spec"), api.InSliceSpec)
	basic := slices.Contains([]string{api.V1alpha3, api.V1beta1}, r.version)
	for i, d := range asArray(spec["devices"]) {
		device, path := asObject(d), field.NewPath("spec", "devices").Index(i)
		fields := device
		if basic {
			fields, path = asObject(device["basic"]), path.Child("basic")
		}
		visit(fields, path, api.InDevice)
		for j, c := range asArray(fields["consumesCounters"]) {
			visit(asObject(c), path.Child("consumesCounters").Index(j), api.InConsumption)
		}
		attributes, capacity := asObject(fields["attributes"]), asObject(fields["capacity"])
		for _, name := range slices.Sorted(maps.Keys(attributes)) {
			visit(asObject(attributes[name]), path.Child("attributes").Key(name), api.InAttribute)
		}
		for _, name := range slices.Sorted(maps.Keys(capacity)) {
			visit(asObject(capacity[name]), path.Child("capacity").Key(name), api.InCapacity)
		}
		if basic {
			delete(device, "basic")
			maps.Copy(device, fields)
		}
	}
	return out, unknown, dropped
}

// devicePath is the path of a device: 1.31 and 1.32 validate all of it
// but its name under its basic (from 1.33 the apiserver validates the flat
// internal type).
var devicePath = regexp.MustCompile(`^spec\.devices\[\d+\]`)

// validateResourceSlice checks a ResourceSlice in the shape of v1 (stripSlice's)
// with the core of upstream's ValidateResourceSlice for a create: its
// name, driver, pool, where its devices are, the number of devices
// (ResourceSliceMaxDevices, or ResourceSliceMaxDevicesWithAdvancedFeatures
// with taints or counters), their names, attributes and
// capacities together and their names, taints, the counters a device
// consumes and counter sets (names and counters), and from 1.35 that a
// slice holds devices or shared counters, not both; the attribute values,
// node selectors, per-device node selection, binding conditions and the
// request policies of capacities.
func (r rules) validateResourceSlice(obj map[string]interface{}) (field.ErrorList, error) {
	var slice resourcev1.ResourceSlice
	if err := remarshal(obj, &slice); err != nil {
		return nil, fmt.Errorf("does not decode into %s/%s ResourceSlice: %v", api.UpstreamGroup, r.version, err)
	}
	slice.Namespace = ""
	spec, fldPath := slice.Spec, field.NewPath("spec")
	errs := apimachineryvalidation.ValidateObjectMeta(&slice.ObjectMeta, false, apimachineryvalidation.NameIsDNSSubdomain, field.NewPath("metadata"))
	errs = append(errs, r.validateDriverName(spec.Driver, fldPath.Child("driver"))...)
	errs = append(errs, validatePool(spec.Pool, fldPath.Child("pool"))...)
	errs = append(errs, r.validateNodeSelection(spec, fldPath)...)
	if r.has(api.SliceSplit) && spec.SharedCounters != nil && spec.Devices != nil {
		errs = append(errs, field.Invalid(fldPath, "", "only one of `sharedCounters` or `devices` is allowed"))
	}
	errs = append(errs, r.validateGatedSliceFields(spec, fldPath)...)
	// Fewer devices with taints or counters, which the releases before 1.36
	// drop (api.Fields).
	split, maxDevices, maxTaints := r.has(api.SliceSplit), resourcev1.ResourceSliceMaxDevices, resourcev1.DeviceTaintsMaxLength
	if split && slices.ContainsFunc(spec.Devices, func(d resourcev1.Device) bool { return len(d.Taints) > 0 || len(d.ConsumesCounters) > 0 }) {
		maxDevices = resourcev1.ResourceSliceMaxDevicesWithAdvancedFeatures
	}
	if !split {
		maxTaints = 4 // 1.33 and 1.34
	}
	errs = append(errs, validateSet(r, spec.Devices, maxDevices, func(device resourcev1.Device, fldPath *field.Path) field.ErrorList {
		allErrs := common.ValidateDNS1123Label(device.Name, fldPath.Child("name"))
		if n := len(device.Attributes) + len(device.Capacity); n > resourcev1.ResourceSliceMaxAttributesAndCapacitiesPerDevice {
			allErrs = append(allErrs, field.Invalid(fldPath, n, fmt.Sprintf("the total number of attributes and capacities must not exceed %d", resourcev1.ResourceSliceMaxAttributesAndCapacitiesPerDevice)))
		}
		for _, name := range slices.Sorted(maps.Keys(device.Attributes)) {
			allErrs = append(allErrs, r.validateQualifiedName(string(name), r.keyPath(fldPath.Child("attributes"), string(name)))...)
		}
		for _, name := range slices.Sorted(maps.Keys(device.Capacity)) {
			allErrs = append(allErrs, r.validateQualifiedName(string(name), r.keyPath(fldPath.Child("capacity"), string(name)))...)
		}
		for _, name := range slices.Sorted(maps.Keys(device.Attributes)) {
			allErrs = append(allErrs, r.validateAttribute(device.Attributes[name], fldPath.Child("attributes").Key(string(name)))...)
		}
		if r.gateOn("requestPolicy") {
			for _, name := range slices.Sorted(maps.Keys(device.Capacity)) {
				allErrs = append(allErrs, r.validateCapacityPolicy(device, device.Capacity[name], fldPath.Child("capacity").Key(string(name)))...)
			}
		}
		allErrs = append(allErrs, r.validateDeviceNodeSelection(device, spec.PerDeviceNodeSelection, fldPath)...)
		allErrs = append(allErrs, validateBindingConditions(device.BindingConditions, device.BindingFailureConditions, fldPath)...)
		allErrs = append(allErrs, validateSlice(r, device.Taints, maxTaints, r.validateTaint, fldPath.Child("taints"))...)
		if !split {
			return append(allErrs, r.validateConsumptionBeforeSplit(device, spec.SharedCounters, fldPath)...)
		}
		return append(allErrs, validateSet(r, device.ConsumesCounters, resourcev1.ResourceSliceMaxDeviceCounterConsumptionsPerDevice, func(c resourcev1.DeviceCounterConsumption, fldPath *field.Path) field.ErrorList {
			return append(validateCounterName(c.CounterSet, fldPath.Child("counterSet")),
				r.validateCounters(c.Counters, resourcev1.ResourceSliceMaxCountersPerDeviceCounterConsumption, fldPath.Child("counters"))...)
		}, func(c resourcev1.DeviceCounterConsumption) string { return c.CounterSet }, "counterSet", fldPath.Child("consumesCounters"))...)
	}, func(device resourcev1.Device) string { return device.Name }, "name", fldPath.Child("devices"))...)
	if !split {
		errs = append(errs, r.validateCountersBeforeSplit(spec, fldPath)...)
	} else {
		errs = append(errs, validateSet(r, spec.SharedCounters, resourcev1.ResourceSliceMaxCounterSets, func(set resourcev1.CounterSet, fldPath *field.Path) field.ErrorList {
			return append(validateCounterName(set.Name, fldPath.Child("name")),
				r.validateCounters(set.Counters, resourcev1.ResourceSliceMaxCountersPerCounterSet, fldPath.Child("counters"))...)
		}, func(set resourcev1.CounterSet) string { return set.Name }, "name", fldPath.Child("sharedCounters"))...)
	}
	for _, e := range errs {
		if device := devicePath.FindString(e.Field); !r.has(api.DevicePathsWithoutBasic) && device != "" && e.Field != device+".name" {
			e.Field = device + ".basic" + e.Field[len(device):]
		}
	}
	return common.Normalize(errs), nil
}

// validateAttribute is upstream's validateDeviceAttribute: exactly one
// value (the lists where the release keeps them, stripSlice), strings and
// versions of at most 64 bytes, versions semantic.
func (r rules) validateAttribute(attribute resourcev1.DeviceAttribute, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	var set []string
	if attribute.IntValue != nil {
		set = append(set, "int")
	}
	if attribute.BoolValue != nil {
		set = append(set, "bool")
	}
	if attribute.StringValue != nil {
		set = append(set, "string")
		allErrs = append(allErrs, validateAttributeString(*attribute.StringValue, fldPath.Child("string"))...)
	}
	if attribute.VersionValue != nil {
		set = append(set, "version")
		allErrs = append(allErrs, r.validateAttributeVersion(*attribute.VersionValue, fldPath.Child("version"))...)
	}
	lists := []struct {
		name     string
		n        int
		isSet    bool
		validate func(string, *field.Path) field.ErrorList
		values   []string
	}{
		{"ints", len(attribute.IntValues), attribute.IntValues != nil, nil, nil},
		{"bools", len(attribute.BoolValues), attribute.BoolValues != nil, nil, nil},
		{"strings", len(attribute.StringValues), attribute.StringValues != nil, validateAttributeString, attribute.StringValues},
		{"versions", len(attribute.VersionValues), attribute.VersionValues != nil, r.validateAttributeVersion, attribute.VersionValues},
	}
	for _, l := range lists {
		if !l.isSet {
			continue
		}
		set = append(set, l.name)
		if l.n == 0 {
			allErrs = append(allErrs, field.Invalid(fldPath.Child(l.name), "[]", "must not be empty if specified"))
		}
		for i, v := range l.values {
			allErrs = append(allErrs, l.validate(v, fldPath.Child(l.name).Index(i))...)
		}
	}
	const one = "exactly one value must be specified"
	return append(allErrs, exactlyOne(set, fldPath, field.Invalid(fldPath, "", one), one)...)
}

// exactlyOne is the finding on set, the fields set at fldPath of which
// exactly one must be: missing when none is, and for several an Invalid of
// them with detail several.
func exactlyOne(set []string, fldPath *field.Path, missing *field.Error, several string) field.ErrorList {
	switch {
	case len(set) == 0:
		return field.ErrorList{missing}
	case len(set) > 1:
		return field.ErrorList{field.Invalid(fldPath, fmt.Sprintf("{%s}", strings.Join(set, ", ")), several)}
	}
	return nil
}

func validateAttributeString(value string, fldPath *field.Path) field.ErrorList {
	if len(value) > resourcev1.DeviceAttributeMaxValueLength {
		return field.ErrorList{field.TooLong(fldPath, "", resourcev1.DeviceAttributeMaxValueLength)}
	}
	return nil
}

// semver is upstream's semverRe: semantic versioning 2.0.0; semver18
// from 1.38, with at most 18 digits in a number.
var semver, semver18 = semverOf(`(0|[1-9]\d*)`), semverOf(`(0|[1-9]\d{0,17})`)

func semverOf(number string) *regexp.Regexp {
	pre := `(` + number + `|\d*[a-zA-Z-][0-9a-zA-Z-]*)`
	return regexp.MustCompile(`^` + number + `\.` + number + `\.` + number +
		`(-` + pre + `(\.` + pre + `)*)?` + `(\+[0-9a-zA-Z-]+(\.[0-9a-zA-Z-]+)*)?$`)
}

func (r rules) validateAttributeVersion(value string, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	switch {
	case r.has(api.SemverDigits) && !semver18.MatchString(value):
		allErrs = append(allErrs, field.Invalid(fldPath, value, "must be a string compatible with semver.org spec 2.0.0, with at most 18 digits in numbers"))
	case !r.has(api.SemverDigits) && !semver.MatchString(value):
		allErrs = append(allErrs, field.Invalid(fldPath, value, "must be a string compatible with semver.org spec 2.0.0"))
	}
	return append(allErrs, validateAttributeString(value, fldPath)...)
}

// validateDeviceNodeSelection is upstream's check of where a device is:
// with perDeviceNodeSelection exactly one of its nodeName, nodeSelector and
// allNodes, without it none (1.33–1.35 drop all four fields, stripSlice);
// from 1.38 a nodeSelector of one term.
func (r rules) validateDeviceNodeSelection(device resourcev1.Device, perDevice *bool, fldPath *field.Path) field.ErrorList {
	if perDevice == nil || !*perDevice {
		if device.NodeName != nil || device.NodeSelector != nil || device.AllNodes != nil {
			return field.ErrorList{field.Invalid(fldPath, nil, "`nodeName`, `nodeSelector` and `allNodes` can only be set if `perDeviceNodeSelection` is set to true in the ResourceSlice spec")}
		}
		return nil
	}
	var allErrs field.ErrorList
	var set []string
	if device.NodeName != nil {
		if *device.NodeName != "" {
			set = append(set, "`nodeName`")
			allErrs = append(allErrs, common.InvalidEach(fldPath.Child("nodeName"), *device.NodeName, apimachineryvalidation.NameIsDNSSubdomain(*device.NodeName, false))...)
		} else {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("nodeName"), "", "must not be empty"))
		}
	}
	if device.NodeSelector != nil {
		set = append(set, "`nodeSelector`")
		allErrs = append(allErrs, common.ValidateNodeSelector(device.NodeSelector, fldPath.Child("nodeSelector"))...)
		if terms := device.NodeSelector.NodeSelectorTerms; r.has(api.OneNodeSelectorTerm) && len(terms) != 1 {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("nodeSelector", "nodeSelectorTerms"), internalTerms(terms), "must have exactly one node selector term"))
		}
	}
	if device.AllNodes != nil {
		if *device.AllNodes {
			set = append(set, "`allNodes`")
		} else {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("allNodes"), false, "must be either unset or set to true"))
		}
	}
	const one = "exactly one of `nodeName`, `nodeSelector`, or `allNodes` is required when `perDeviceNodeSelection` is set to true in the ResourceSlice spec"
	return append(allErrs, exactlyOne(set, fldPath, field.Required(fldPath, one), one)...)
}

// internalTerms are node selector terms as upstream's internal type prints
// them in an error: its fields have no JSON names.
func internalTerms(terms []corev1.NodeSelectorTerm) any {
	type requirement struct {
		Key      string
		Operator corev1.NodeSelectorOperator
		Values   []string
	}
	type term struct{ MatchExpressions, MatchFields []requirement }
	internal := func(in []corev1.NodeSelectorRequirement) (out []requirement) {
		for _, r := range in {
			out = append(out, requirement(r))
		}
		return out
	}
	out := []term{}
	for _, t := range terms {
		out = append(out, term{internal(t.MatchExpressions), internal(t.MatchFields)})
	}
	return out
}

// validateCapacityPolicy is upstream's check of a capacity's request
// policy (1.36+: DRAConsumableCapacity drops it before): only on a device
// that allows multiple allocations, one of validValues and validRange, each
// with a default it admits, within the capacity. Values are whole units
// unless DRAFractionalCapacityRange is on (1.38's default).
func (r rules) validateCapacityPolicy(device resourcev1.Device, capacity resourcev1.DeviceCapacity, fldPath *field.Path) field.ErrorList {
	policy := capacity.RequestPolicy
	if policy == nil {
		return nil
	}
	fldPath = fldPath.Child("requestPolicy")
	if device.AllowMultipleAllocations == nil || !*device.AllowMultipleAllocations {
		return field.ErrorList{field.Forbidden(fldPath, "allowMultipleAllocations must be true")}
	}
	limit := capacity.Value
	switch {
	case len(policy.ValidValues) > 0 && policy.ValidRange != nil:
		return field.ErrorList{field.Forbidden(fldPath, `exactly one policy can be specified, cannot specify "validValues" and "validRange" at the same time`)}
	case len(policy.ValidValues) > 0 && policy.Default == nil:
		return field.ErrorList{field.Required(fldPath.Child("default"), "required when validValues is defined")}
	case policy.ValidRange != nil && policy.Default == nil:
		return field.ErrorList{field.Required(fldPath.Child("default"), "required when validRange is defined")}
	case len(policy.ValidValues) > 0:
		var allErrs field.ErrorList
		values, def := policy.ValidValues, *policy.Default
		path := fldPath.Child("validValues")
		for i := range len(values) - 1 {
			if values[i].Cmp(values[i+1]) > 0 {
				allErrs = append(allErrs, field.Invalid(path.Index(i+1), values[i+1].String(), "values must be sorted in ascending order"))
			}
		}
		if len(values) > capacityRequestPolicyDiscreteMaxOptions {
			allErrs = append(allErrs, field.TooMany(path, len(values), capacityRequestPolicyDiscreteMaxOptions))
		} else {
			seen, found := sets.New[string](), false
			for i, v := range values {
				if v.Cmp(limit) > 0 {
					allErrs = append(allErrs, field.Invalid(path.Index(i), v.String(), fmt.Sprintf("option is larger than capacity value: %s", limit.String())))
				}
				found = found || v.Cmp(def) == 0
				key := strconv.FormatInt(v.Value(), 10) // whole units, unless fractional ranges are on
				if r.Enabled("DRAFractionalCapacityRange") {
					key = v.AsDec().String()
				}
				allErrs = append(allErrs, duplicate(seen, key, path.Index(i))...)
			}
			if !found {
				allErrs = append(allErrs, field.Invalid(path, def.String(), "default value is not valid according to the requestPolicy"))
			}
		}
		return allErrs
	case policy.ValidRange != nil:
		return r.validateCapacityRange(*policy.Default, limit, *policy.ValidRange, fldPath.Child("validRange"))
	}
	return nil
}

// capacityRequestPolicyDiscreteMaxOptions is upstream's
// CapacityRequestPolicyDiscreteMaxOptions (pkg/apis/resource, not in
// k8s.io/api).
const capacityRequestPolicyDiscreteMaxOptions = 10

// validateCapacityRange is upstream's validateRequestPolicyRange: in
// whole units, or in thousandths when DRAFractionalCapacityRange is on and
// a value has a fraction. 1.36 names a default below min at min, 1.37 at
// default.
func (r rules) validateCapacityRange(def, limit resource.Quantity, valueRange resourcev1.CapacityRequestPolicyRange, fldPath *field.Path) field.ErrorList {
	if valueRange.Min == nil {
		return field.ErrorList{field.Required(fldPath.Child("min"), "required when validRange is defined")}
	}
	var allErrs field.ErrorList
	min := *valueRange.Min
	if min.Cmp(limit) > 0 {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("min"), min.String(), fmt.Sprintf("min is larger than capacity value: %s", limit.String())))
	}
	if def.Cmp(min) < 0 {
		at := fldPath.Child("default")
		if !r.has(api.DefaultBelowMinAtDefault) {
			at = fldPath.Child("min")
		}
		allErrs = append(allErrs, field.Invalid(at, def.String(), fmt.Sprintf("default is less than min: %s", min.String())))
	}
	if max := valueRange.Max; max != nil {
		if min.Cmp(*max) > 0 {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("max"), min.String(), fmt.Sprintf("min is larger than max: %s", max.String())))
		}
		if max.Cmp(limit) > 0 {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("max"), max.String(), fmt.Sprintf("max is larger than capacity value: %s", limit.String())))
		}
		if def.Cmp(*max) > 0 {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("default"), def.String(), fmt.Sprintf("default is more than max: %s", max.String())))
		}
	}
	step := valueRange.Step
	type bound struct {
		q    *resource.Quantity
		name string
	}
	values := []bound{{&def, "default"}, {&min, "min"}, {valueRange.Max, "max"}, {step, "step"}}
	milli := r.Enabled("DRAFractionalCapacityRange") && slices.ContainsFunc(values, func(v bound) bool {
		return v.q != nil && v.q.AsDec().Cmp(new(inf.Dec).Round(v.q.AsDec(), 0, inf.RoundDown)) != 0
	})
	unsafe := false
	for _, v := range values {
		switch {
		case v.q == nil:
		case milli && v.q.Cmp(*resource.NewMilliQuantity(v.q.MilliValue(), v.q.Format)) != 0:
			allErrs, unsafe = append(allErrs, field.Invalid(fldPath.Child(v.name), v.q.String(), "value cannot be represented as a milli value")), true
		}
	}
	if step == nil || unsafe {
		return allErrs
	}
	if step.Sign() <= 0 {
		return append(allErrs, field.Invalid(fldPath.Child("step"), step.String(), "must be greater than zero"))
	}
	added := min.DeepCopy()
	added.Add(*step)
	if added.Cmp(limit) > 0 {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("step"), step.String(), fmt.Sprintf("one step %s is larger than capacity value: %s", added.String(), limit.String())))
	}
	for _, v := range values {
		switch {
		case v.q == nil || milli:
		case v.q.Sign() < 0:
			allErrs, unsafe = append(allErrs, field.Invalid(fldPath.Child(v.name), v.q.String(), apimachineryvalidation.IsNegativeErrorMsg)), true
		case v.q.CmpInt64(math.MaxInt64) > 0:
			allErrs, unsafe = append(allErrs, field.Invalid(fldPath.Child(v.name), v.q.String(), "must not be larger than 9223372036854775807")), true
		}
	}
	if unsafe {
		return allErrs
	}
	value := (*resource.Quantity).Value
	if milli {
		value = (*resource.Quantity).MilliValue
	}
	for _, v := range []*resource.Quantity{&def, valueRange.Max} {
		if v != nil && (value(v)-value(&min))%value(step) != 0 {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("step"), v.String(), fmt.Sprintf("value is not a multiple of a given step (%s) from (%s)", step.String(), min.String())))
		}
	}
	return allErrs
}

// validateBindingConditions is upstream's validateDeviceBindingParameters:
// at most 4 of each, condition types, none repeated or in both lists, and
// one list only with the other.
func validateBindingConditions(conditions, failures []string, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	for _, l := range []struct {
		name  string
		items []string
		max   int
	}{{"bindingConditions", conditions, resourcev1.BindingConditionsMaxSize}, {"bindingFailureConditions", failures, resourcev1.BindingFailureConditionsMaxSize}} {
		path := fldPath.Child(l.name)
		if len(l.items) > l.max {
			allErrs = append(allErrs, field.TooMany(path, len(l.items), l.max))
		} else {
			for i, c := range l.items {
				allErrs = append(allErrs, metav1validation.ValidateLabelName(c, path.Index(i))...)
			}
		}
		seen := sets.New[string]()
		for i, c := range l.items {
			allErrs = append(allErrs, duplicate(seen, c, path.Index(i))...)
			if l.name == "bindingFailureConditions" && slices.Contains(conditions, c) {
				allErrs = append(allErrs, field.Invalid(path.Index(i), c, "bindingFailureConditions must not overlap with bindingConditions"))
			}
		}
	}
	if len(conditions) == 0 && len(failures) > 0 {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("bindingConditions"), conditions, "bindingConditions are required to use bindingFailureConditions"))
	}
	if len(failures) == 0 && len(conditions) > 0 {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("bindingFailureConditions"), failures, "bindingFailureConditions are required to use bindingConditions"))
	}
	return allErrs
}

// validateCounterName: a counter set's or counter's name, required and a
// DNS label.
func validateCounterName(name string, fldPath *field.Path) field.ErrorList {
	if name == "" {
		return field.ErrorList{field.Required(fldPath, "")}
	}
	return common.ValidateDNS1123Label(name, fldPath)
}

// validateCounters is upstream's check of the counters of a counter set or
// of a device's consumption: at least one, at most max (only that error
// when there are more), each named by a DNS label (an error at the map, as
// upstream's validateMap). Any quantity is a valid counter.
func (r rules) validateCounters(counters map[string]resourcev1.Counter, max int, fldPath *field.Path) field.ErrorList {
	switch {
	case len(counters) == 0:
		return field.ErrorList{field.Required(fldPath, "")}
	case len(counters) > max:
		return field.ErrorList{field.TooMany(fldPath, len(counters), max)}
	}
	var allErrs field.ErrorList
	for _, name := range slices.Sorted(maps.Keys(counters)) {
		allErrs = append(allErrs, common.ValidateDNS1123Label(name, r.keyPath(fldPath, name))...)
	}
	return allErrs
}

// keyPath is where upstream's validateMap names a bad key of the map at
// fldPath: at the map in 1.31 and from 1.36, at the key in 1.32–1.35.
func (r rules) keyPath(fldPath *field.Path, key string) *field.Path {
	if r.has(api.KeyPathAtKey) && !r.has(api.KeyPathAtMap) {
		return fldPath.Key(key)
	}
	return fldPath
}

// validatePool is upstream's validateResourcePool.
func validatePool(pool resourcev1.ResourcePool, fldPath *field.Path) field.ErrorList {
	allErrs := validatePoolName(pool.Name, fldPath.Child("name"))
	if pool.ResourceSliceCount <= 0 {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("resourceSliceCount"), pool.ResourceSliceCount, "must be greater than zero"))
	}
	if pool.Generation < 0 {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("generation"), pool.Generation, "must be greater than or equal to zero"))
	}
	return allErrs
}

// validatePoolName: required, at most 253 bytes of DNS subdomains
// separated by slashes.
func validatePoolName(name string, fldPath *field.Path) field.ErrorList {
	if name == "" {
		return field.ErrorList{field.Required(fldPath, "")}
	}
	var allErrs field.ErrorList
	if len(name) > resourcev1.PoolNameMaxLength {
		allErrs = append(allErrs, field.TooLong(fldPath, "", resourcev1.PoolNameMaxLength))
	}
	for _, part := range strings.Split(name, "/") {
		allErrs = append(allErrs, common.ValidateDNS1123Subdomain(part, fldPath)...)
	}
	return allErrs
}

// validateNodeSelection: exactly one of the fields that say which nodes
// reach the devices (perDeviceNodeSelection from 1.33, where the release
// keeps it), in 1.37's words.
func (r rules) validateNodeSelection(spec resourcev1.ResourceSliceSpec, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	var set []string
	if spec.NodeName != nil {
		if *spec.NodeName == "" {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("nodeName"), "", "must be either unset or set to a non-empty string"))
		} else {
			set = append(set, "`nodeName`")
			allErrs = append(allErrs, common.InvalidEach(fldPath.Child("nodeName"), *spec.NodeName, apimachineryvalidation.NameIsDNSSubdomain(*spec.NodeName, false))...)
		}
	}
	if spec.NodeSelector != nil {
		set = append(set, "`nodeSelector`")
		allErrs = append(allErrs, common.ValidateNodeSelector(spec.NodeSelector, fldPath.Child("nodeSelector"))...)
		if len(spec.NodeSelector.NodeSelectorTerms) != 1 {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("nodeSelector", "nodeSelectorTerms"), spec.NodeSelector.NodeSelectorTerms, "must have exactly one node selector term"))
		}
	}
	for i, v := range []*bool{spec.AllNodes, spec.PerDeviceNodeSelection} {
		name := []string{"allNodes", "perDeviceNodeSelection"}[i]
		switch {
		case v == nil:
		case *v:
			set = append(set, "`"+name+"`")
		default:
			allErrs = append(allErrs, field.Invalid(fldPath.Child(name), false, "must be either unset or set to true"))
		}
	}
	const one = "exactly one of `nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection` is required"
	return append(allErrs, exactlyOne(set, fldPath, field.Required(fldPath, one), one+", but multiple fields are set")...)
}

// validateTaint is upstream's validateDeviceTaint for a create: a key, a
// label value and an effect of the release (None from 1.35).
func (r rules) validateTaint(taint resourcev1.DeviceTaint, fldPath *field.Path) field.ErrorList {
	allErrs := metav1validation.ValidateLabelName(taint.Key, fldPath.Child("key"))
	if taint.Value != "" {
		allErrs = append(allErrs, common.InvalidEach(fldPath.Child("value"), taint.Value, utilvalidation.IsValidLabelValue(taint.Value))...)
	}
	switch effects := r.taintEffects(); {
	case taint.Effect == "":
		allErrs = append(allErrs, field.Required(fldPath.Child("effect"), ""))
	case !slices.Contains(effects, taint.Effect):
		allErrs = append(allErrs, field.NotSupported(fldPath.Child("effect"), taint.Effect, effects))
	}
	return allErrs
}

// validateTaintRule is upstream's ValidateDeviceTaintRule for a create: its
// name, the class (1.33 and 1.34), driver, pool and device it selects, its
// CEL selectors (1.33 and 1.34: older's), and its taint.
func (r rules) validateTaintRule(obj, older map[string]interface{}) (field.ErrorList, error) {
	var rule resourcev1.DeviceTaintRule
	var selector struct {
		DeviceClassName *string                     `json:"deviceClassName"`
		Selectors       []resourcev1.DeviceSelector `json:"selectors"`
	}
	if err := remarshal(obj, &rule); err != nil {
		return nil, fmt.Errorf("does not decode into %s/%s DeviceTaintRule: %v", api.UpstreamGroup, r.version, err)
	}
	if err := remarshal(older, &selector); err != nil {
		return nil, fmt.Errorf("does not decode into %s/%s DeviceTaintRule: spec.deviceSelector: %v", api.UpstreamGroup, r.version, err)
	}
	rule.Namespace = ""
	errs := apimachineryvalidation.ValidateObjectMeta(&rule.ObjectMeta, false, apimachineryvalidation.NameIsDNSSubdomain, field.NewPath("metadata"))
	path := field.NewPath("spec", "deviceSelector")
	if selector.DeviceClassName != nil {
		errs = append(errs, common.ValidateDNS1123Subdomain(*selector.DeviceClassName, path.Child("deviceClassName"))...)
	}
	if s := rule.Spec.DeviceSelector; s != nil {
		if s.Driver != nil {
			errs = append(errs, r.validateDriverName(*s.Driver, path.Child("driver"))...)
		}
		if s.Pool != nil {
			errs = append(errs, validatePoolName(*s.Pool, path.Child("pool"))...)
		}
		if s.Device != nil {
			errs = append(errs, common.ValidateDNS1123Label(*s.Device, path.Child("device"))...)
		}
	}
	errs = append(errs, r.validateSelectors(selector.Selectors, path.Child("selectors"))...)
	errs = append(errs, r.validateTaint(rule.Spec.Taint, field.NewPath("spec", "taint"))...)
	return common.Normalize(errs), nil
}
