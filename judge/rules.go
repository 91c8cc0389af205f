package judge

import (
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/sets"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	apiservercel "k8s.io/apiserver/pkg/cel"
	"k8s.io/apiserver/pkg/cel/environment"
	dracel "k8s.io/dynamic-resource-allocation/cel"
	"k8s.io/utils/lru"
	"k8s.io/utils/ptr"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/validation/common"
)

// rules are the create rules of one cluster (a release with its feature
// gates) for an object of version: upstream's
// pkg/apis/resource/validation of that release. Which fields it creates is
// api.Fields'.
type rules struct {
	api.Cluster
	version string
}

// has reports whether the release has change c of upstream's rules.
func (r rules) has(c api.Change) bool { return api.Has(r.Minor, c) }

// hasField reports whether the release has the field (api.Fields).
func (r rules) hasField(name string) bool { return r.Minor >= api.FieldOf(name).Added }

// gateOn reports whether the cluster has the field's feature gate on.
func (r rules) gateOn(name string) bool { return r.Enabled(api.FieldOf(name).Gate) }

// Validate checks obj, a resource.k8s.io claim or template of v1beta1,
// v1beta2 or v1, with the create rules of release (a minor number,
// 1.32–1.38): upstream's ValidateResourceClaim and
// ValidateResourceClaimTemplate of that release (k8s.io/kubernetes
// pkg/apis/resource/validation), after the fields the release does not
// have or drops are gone (api.Fields). Paths are the release's: a
// v1beta1 request is flat in 1.32 and has exactly from 1.33, as upstream's
// internal type, except for what 1.37 validates declaratively. It checks neither the fields the
// version does not have (UnknownFields) nor what needs the namespace
// (adminAccess), and it validates the object as given (kubectl's default
// namespace is the caller's). The error is for an object that does not
// decode at all or a version the release does not serve.
func Validate(obj map[string]interface{}, c api.Cluster, kind string) (field.ErrorList, error) {
	version := versionOf(obj)
	if err := NotServed(c, version, kind); err != nil {
		return nil, err
	}
	r := rules{Cluster: c, version: version}
	stripped, _, _ := r.strip(r.inV1Shape(obj, version, kind), api.V1, kind)
	var errs field.ErrorList
	switch kind {
	case api.KindClaim:
		var claim resourcev1.ResourceClaim
		if err := remarshal(stripped, &claim); err != nil {
			return nil, fmt.Errorf("does not decode into resource.k8s.io/%s %s: %v", version, kind, err)
		}
		errs = common.ValidateObjectMeta(&claim.ObjectMeta, true, field.NewPath("metadata"))
		errs = append(errs, r.validateDeviceClaim(&claim.Spec.Devices, field.NewPath("spec", "devices"))...)
	case api.KindTemplate:
		var template resourcev1.ResourceClaimTemplate
		if err := remarshal(stripped, &template); err != nil {
			return nil, fmt.Errorf("does not decode into resource.k8s.io/%s %s: %v", version, kind, err)
		}
		errs = common.ValidateObjectMeta(&template.ObjectMeta, true, field.NewPath("metadata"))
		errs = append(errs, common.ValidateTemplateObjectMeta(&template.Spec.ObjectMeta, field.NewPath("spec", "metadata"))...)
		errs = append(errs, r.validateDeviceClaim(&template.Spec.Spec.Devices, field.NewPath("spec", "spec", "devices"))...)
	default:
		return nil, fmt.Errorf("no resource.k8s.io type for %s %s", version, kind)
	}
	errs = common.Normalize(errs)
	for _, e := range errs {
		switch {
		case version == api.V1beta1 && !r.hasField("firstAvailable"):
			e.Field = exactlyInPath.ReplaceAllString(e.Field, "$1")
		case version == api.V1beta1 && r.has(api.DeclarativeV1beta1) && fmt.Sprint(e.BadValue) != "":
			e.Field = declarativeInPath.ReplaceAllString(e.Field, "$1$2")
		}
	}
	return errs, nil
}

// exactlyInPath finds the exactly of a request in a v1 path, which 1.32's
// requests do not have (upstream's ResourceNormalizationRules the other way
// round).
var exactlyInPath = regexp.MustCompile(`(devices\.requests\[\d+\])\.exactly`)

// declarativeInPath finds the fields of a request that 1.37 validates
// declaratively in v1beta1 (the +k8s:beta tags of its types) and so names
// without exactly when they have a value.
var declarativeInPath = regexp.MustCompile(`(devices\.requests\[\d+\])\.exactly(\.(?:selectors|allocationMode|tolerations\[\d+\]\.(?:key|operator|effect)))$`)

// inV1Shape returns obj in the JSON shape of v1, which v1beta2 has, as
// upstream converts it: a v1beta1 request's flat fields move under exactly,
// which 1.33+ creates only when one of them is set (1.32 has only exact
// requests).
func (r rules) inV1Shape(obj map[string]interface{}, version, kind string) map[string]interface{} {
	if version != api.V1beta1 {
		return obj
	}
	out := api.DeepCopyJSON(obj)
	spec := api.ClaimSpec(out, kind)
	for _, r0 := range asArray(asObject(spec["devices"])["requests"]) {
		req := asObject(r0)
		exactly, set := map[string]interface{}{}, !r.hasField("firstAvailable")
		for _, f := range api.ExactRequestFields {
			if v, ok := req[f]; ok {
				exactly[f] = v
				delete(req, f)
				set = set || (v != nil && v != "" && fmt.Sprint(v) != "0")
			}
		}
		if set {
			req["exactly"] = exactly
		}
	}
	return out
}

// requestNames maps each request to the names of its subrequests.
type requestNames map[string]sets.Set[string]

// has reports whether name is a request or (1.33+) request/subrequest.
func (n requestNames) has(name string) bool {
	request, sub, found := strings.Cut(name, "/")
	subs, ok := n[request]
	if !ok || strings.Contains(sub, "/") {
		return false
	}
	return !found || subs.Has(sub)
}

func gatherRequestNames(claim *resourcev1.DeviceClaim) requestNames {
	names := requestNames{}
	for _, request := range claim.Requests {
		names[request.Name] = sets.New[string]()
		for _, sub := range request.FirstAvailable {
			names[request.Name].Insert(sub.Name)
		}
	}
	return names
}

// setDefaults is the defaulting that runs before validation: an exact
// request or subrequest without an allocation mode gets ExactCount, and
// with ExactCount and no count one device; a toleration without an
// operator gets Equal. From 1.33 a v1beta1 request gets a mode and a count
// only if it names a class.
func (r rules) setDefaults(claim *resourcev1.DeviceClaim) {
	defaultMode := func(mode *resourcev1.DeviceAllocationMode, count *int64, tolerations []resourcev1.DeviceToleration) {
		*mode = cmp.Or(*mode, resourcev1.DeviceAllocationModeExactCount)
		if *mode == resourcev1.DeviceAllocationModeExactCount && *count == 0 {
			*count = 1
		}
		for i := range tolerations {
			tolerations[i].Operator = cmp.Or(tolerations[i].Operator, resourcev1.DeviceTolerationOpEqual)
		}
	}
	for i := range claim.Requests {
		if exactly := claim.Requests[i].Exactly; exactly != nil {
			mode, count := &exactly.AllocationMode, &exactly.Count
			if r.version == api.V1beta1 && r.hasField("firstAvailable") && exactly.DeviceClassName == "" {
				mode, count = new(resourcev1.DeviceAllocationMode), new(int64)
			}
			defaultMode(mode, count, exactly.Tolerations)
		}
		for j := range claim.Requests[i].FirstAvailable {
			sub := &claim.Requests[i].FirstAvailable[j]
			defaultMode(&sub.AllocationMode, &sub.Count, sub.Tolerations)
		}
	}
}

func (r rules) validateDeviceClaim(claim *resourcev1.DeviceClaim, fldPath *field.Path) field.ErrorList {
	r.setDefaults(claim)
	names, d := gatherRequestNames(claim), newDerived(claim.Constraints)
	allErrs := validateSet(r, claim.Requests, resourcev1.DeviceRequestsMaxSize, func(request resourcev1.DeviceRequest, fldPath *field.Path) field.ErrorList {
		return r.validateDeviceRequest(request, d, fldPath)
	}, func(request resourcev1.DeviceRequest) string { return request.Name }, "name", fldPath.Child("requests"))
	if d.cost > resourcev1.DeviceClaimDerivedAttributeCELMaxCost {
		allErrs = append(allErrs, field.Forbidden(fldPath, "too complex, total cost of derived attribute CEL expressions in the claim exceeds cost limit"))
	}
	allErrs = append(allErrs, validateSlice(r, claim.Constraints, resourcev1.DeviceConstraintsMaxSize,
		func(constraint resourcev1.DeviceConstraint, fldPath *field.Path) field.ErrorList {
			return r.validateDeviceConstraint(constraint, fldPath, names)
		}, fldPath.Child("constraints"))...)
	return append(allErrs, validateSlice(r, claim.Config, resourcev1.DeviceConfigMaxSize,
		func(config resourcev1.DeviceClaimConfiguration, fldPath *field.Path) field.ErrorList {
			errs := r.validateRequestNameRefs(config.Requests, fldPath.Child("requests"), names)
			return append(errs, r.validateDeviceConfiguration(config.DeviceConfiguration, fldPath)...)
		}, fldPath.Child("config"))...)
}

// validateDeviceRequest: exactly one of exactly and a non-empty
// firstAvailable, then the one that is set. 1.32 does not have
// firstAvailable and 1.33 drops it (api.Fields).
func (r rules) validateDeviceRequest(request resourcev1.DeviceRequest, d *derived, fldPath *field.Path) field.ErrorList {
	allErrs := common.ValidateDNS1123Label(request.Name, fldPath.Child("name"))
	hasFirstAvailable, hasExactly := len(request.FirstAvailable) > 0, request.Exactly != nil
	switch {
	case !hasFirstAvailable && !hasExactly:
		allErrs = append(allErrs, field.Required(fldPath, "exactly one of `exactly` or `firstAvailable` is required"))
	case hasFirstAvailable && hasExactly:
		allErrs = append(allErrs, field.Invalid(fldPath, nil, "exactly one of `exactly` or `firstAvailable` is required, but multiple fields are set"))
	case hasFirstAvailable:
		allErrs = append(allErrs, validateSet(r, request.FirstAvailable, resourcev1.FirstAvailableDeviceRequestMaxSize,
			func(sub resourcev1.DeviceSubRequest, fldPath *field.Path) field.ErrorList {
				allErrs := common.ValidateDNS1123Label(sub.Name, fldPath.Child("name"))
				allErrs = append(allErrs, r.validateDeviceClassRequest(sub.DeviceClassName, sub.Selectors, sub.AllocationMode, sub.Count, sub.Tolerations, fldPath)...)
				allErrs = append(allErrs, r.validateCapacityRequests(sub.Capacity, fldPath.Child("capacity"))...)
				return append(allErrs, r.validateDerivedAttributes(sub.DerivedAttributes, request.Name+"/"+sub.Name, d, fldPath.Child("derivedAttributes"))...)
			},
			func(sub resourcev1.DeviceSubRequest) string { return sub.Name }, "name", fldPath.Child("firstAvailable"))...)
	default:
		exactly := request.Exactly
		allErrs = append(allErrs, r.validateDeviceClassRequest(exactly.DeviceClassName, exactly.Selectors, exactly.AllocationMode, exactly.Count, exactly.Tolerations, fldPath.Child("exactly"))...)
		allErrs = append(allErrs, r.validateCapacityRequests(exactly.Capacity, fldPath.Child("exactly", "capacity"))...)
		allErrs = append(allErrs, r.validateDerivedAttributes(exactly.DerivedAttributes, request.Name, d, fldPath.Child("exactly", "derivedAttributes"))...)
	}
	return allErrs
}

// validateDeviceClassRequest checks what an exact request and a subrequest
// share, tolerations included where the release keeps them
// (api.Fields).
func (r rules) validateDeviceClassRequest(class string, selectors []resourcev1.DeviceSelector, mode resourcev1.DeviceAllocationMode, count int64, tolerations []resourcev1.DeviceToleration, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	if class == "" {
		allErrs = append(allErrs, field.Required(fldPath.Child("deviceClassName"), ""))
	} else {
		allErrs = append(allErrs, common.ValidateDNS1123Subdomain(class, fldPath.Child("deviceClassName"))...)
	}
	allErrs = append(allErrs, r.validateSelectors(selectors, fldPath.Child("selectors"))...)
	switch mode {
	case resourcev1.DeviceAllocationModeAll:
		if count != 0 {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("count"), count, fmt.Sprintf("must not be specified when allocationMode is '%s'", mode)))
		}
	case resourcev1.DeviceAllocationModeExactCount:
		if count <= 0 {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("count"), count, "must be greater than zero"))
		}
	default:
		allErrs = append(allErrs, field.NotSupported(fldPath.Child("allocationMode"), mode, []resourcev1.DeviceAllocationMode{resourcev1.DeviceAllocationModeAll, resourcev1.DeviceAllocationModeExactCount}))
	}
	for i, toleration := range tolerations {
		allErrs = append(allErrs, r.validateDeviceToleration(toleration, fldPath.Child("tolerations").Index(i))...)
	}
	return allErrs
}

// validateCapacityRequests: from 1.38, the capacity a request asks for
// has at most 32 names, each a qualified name (named at the map), and no
// amount below zero.
func (r rules) validateCapacityRequests(capacity *resourcev1.CapacityRequirements, fldPath *field.Path) field.ErrorList {
	if capacity == nil || !r.has(api.CapacityRequestsChecked) {
		return nil
	}
	fldPath = fldPath.Child("requests")
	var allErrs field.ErrorList
	names := slices.Sorted(maps.Keys(capacity.Requests))
	for _, name := range names {
		allErrs = append(allErrs, r.validateQualifiedName(string(name), fldPath)...)
	}
	if len(names) > maxCapacityRequests {
		return append(allErrs, field.TooMany(fldPath, len(names), maxCapacityRequests))
	}
	for _, name := range names {
		if q := capacity.Requests[name]; q.Sign() < 0 {
			allErrs = append(allErrs, field.Invalid(fldPath.Key(string(name)), q.String(), "must be greater than or equal to 0"))
		}
	}
	return allErrs
}

// maxCapacityRequests is upstream's MaxCapacityRequirements (k8s.io/api
// from v0.38).
const maxCapacityRequests = 32

func (r rules) validateSelectors(selectors []resourcev1.DeviceSelector, fldPath *field.Path) field.ErrorList {
	return validateSlice(r, selectors, resourcev1.DeviceSelectorsMaxSize, func(selector resourcev1.DeviceSelector, fldPath *field.Path) field.ErrorList {
		if selector.CEL == nil {
			return field.ErrorList{field.Required(fldPath.Child("cel"), "")}
		}
		return r.validateCELExpression(selector.CEL.Expression, fldPath.Child("cel", "expression"))
	}, fldPath)
}

// validateCELExpression compiles a new expression as upstream's
// validateCELSelector does, in the environment for new expressions of
// k8s.io/dynamic-resource-allocation v0.36 with the release's features
// (consumable capacity from 1.36; list attributes are alpha in 1.36 and 1.37).
// 1.31 limits neither the length nor the cost.
func (r rules) validateCELExpression(expression string, fldPath *field.Path) field.ErrorList {
	if r.has(api.CELLimits) && len(expression) > resourcev1.CELSelectorExpressionMaxLength {
		return field.ErrorList{field.TooLong(fldPath, "", resourcev1.CELSelectorExpressionMaxLength)}
	}
	result := compileCEL(expression, r.gateOn("capacity"), false)
	switch {
	case result.err != nil:
		return field.ErrorList{common.CELError(fldPath, expression, result.err)}
	case r.has(api.CELLimits) && result.maxCost > resourcev1.CELSelectorExpressionMaxCost:
		return field.ErrorList{field.Forbidden(fldPath, "too complex, exceeds cost limit")}
	}
	return nil
}

// celResult is what validateCELExpression needs of a compilation.
type celResult struct {
	err     *apiservercel.Error
	maxCost uint64
}

// compiled memoizes compileCEL, a pure function of its arguments: a chart
// or a cluster repeats a few selectors across many classes. lru.Cache is
// safe for concurrent use.
var compiled = lru.New(1024)

// compileCEL compiles expression in the environment for new expressions,
// with consumable capacity when capacity is set, as a derived attribute's
// (a scalar) when derived is.
func compileCEL(expression string, capacity, derived bool) celResult {
	type key struct {
		expression        string
		capacity, derived bool
	}
	if v, ok := compiled.Get(key{expression, capacity, derived}); ok {
		return v.(celResult)
	}
	envType := environment.NewExpressions
	result := dracel.GetCompiler(dracel.Features{EnableConsumableCapacity: capacity}).
		CompileCELExpression(expression, dracel.Options{EnvType: &envType, DerivedAttribute: derived})
	r := celResult{result.Error, result.MaxCost}
	compiled.Add(key{expression, capacity, derived}, r)
	return r
}

// derived is what a claim's derived attributes are checked against: the
// attributes its constraints name, by request ("" for every request), and
// the CEL cost of those checked so far.
type derived struct {
	constraints map[string]sets.Set[string]
	cost        uint64
}

func newDerived(constraints []resourcev1.DeviceConstraint) *derived {
	d := &derived{constraints: map[string]sets.Set[string]{}}
	for _, c := range constraints {
		name, requests := string(ptr.Deref(cmp.Or(c.MatchAttribute, c.DistinctAttribute), "")), c.Requests
		if len(requests) == 0 {
			requests = []string{""}
		}
		for _, request := range requests {
			if name != "" {
				d.constraints[request] = d.constraints[request].Union(sets.New(name))
			}
		}
	}
	return d
}

// usedBy reports whether a constraint on request (or its parent, or every
// request) names attribute.
func (d *derived) usedBy(attribute, request string) bool {
	parent, _, _ := strings.Cut(request, "/")
	return d.constraints[""].Has(attribute) || d.constraints[request].Has(attribute) || d.constraints[parent].Has(attribute)
}

// validateDerivedAttributes is upstream's validateDeviceDerivedAttributes
// (the field is DRADerivedAttributes', 1.37+): each named once, by a fully
// qualified name a constraint on the request names, each a CEL expression
// of a scalar within the cost limit, the claim's all together too. Its
// declarative rules (at most 32; a name and an expression, the name's
// form) skip the items past the limit.
func (r rules) validateDerivedAttributes(attrs []resourcev1.DeviceDerivedAttribute, request string, d *derived, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	declarative := len(attrs) <= maxDerivedAttributes
	if !declarative {
		allErrs = append(allErrs, field.TooMany(fldPath, len(attrs), maxDerivedAttributes))
	}
	seen := sets.New[string]()
	for i, attr := range attrs {
		path, name := fldPath.Index(i), string(attr.Name)
		if name != "" && !d.usedBy(name, request) {
			allErrs = append(allErrs, field.Invalid(path.Child("name"), name, "must be referenced by at least one matchAttribute or distinctAttribute constraint targeting this request"))
		}
		switch {
		case declarative && name == "":
			allErrs = append(allErrs, field.Required(path.Child("name"), ""))
		case declarative:
			allErrs = append(allErrs, r.validateFullyQualifiedName(name, path.Child("name"))...)
		}
		allErrs = append(allErrs, duplicate(seen, name, path)...)
		expression, exprPath := attr.Expression, path.Child("expression")
		if expression == "" {
			if declarative {
				allErrs = append(allErrs, field.Required(exprPath, ""))
			}
			continue
		}
		if len(expression) > resourcev1.CELSelectorExpressionMaxLength {
			allErrs = append(allErrs, field.TooLong(exprPath, "", resourcev1.CELSelectorExpressionMaxLength))
			continue
		}
		result := compileCEL(expression, r.gateOn("capacity"), true)
		if result.err != nil {
			allErrs = append(allErrs, common.CELError(exprPath, expression, result.err))
			continue
		}
		if result.maxCost > min(resourcev1.CELSelectorExpressionMaxCost, resourcev1.DeviceClaimDerivedAttributeCELMaxCost) {
			allErrs = append(allErrs, field.Forbidden(exprPath, "too complex, exceeds cost limit"))
		}
		d.cost += result.maxCost
	}
	return allErrs
}

// maxDerivedAttributes is the declarative limit of a request's derived
// attributes.
const maxDerivedAttributes = 32

var (
	validTolerationOperators = []resourcev1.DeviceTolerationOperator{resourcev1.DeviceTolerationOpEqual, resourcev1.DeviceTolerationOpExists}
	validTaintEffects        = []resourcev1.DeviceTaintEffect{resourcev1.DeviceTaintEffectNoExecute, resourcev1.DeviceTaintEffectNoSchedule, resourcev1.DeviceTaintEffectNone}
	// validTaintEffects133 are those before 1.35's None effect.
	validTaintEffects133 = []resourcev1.DeviceTaintEffect{resourcev1.DeviceTaintEffectNoExecute, resourcev1.DeviceTaintEffectNoSchedule}
)

func (r rules) validateDeviceToleration(toleration resourcev1.DeviceToleration, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	if toleration.Key != "" {
		allErrs = append(allErrs, metav1validation.ValidateLabelName(toleration.Key, fldPath.Child("key"))...)
	}
	switch toleration.Operator {
	case resourcev1.DeviceTolerationOpExists:
		if toleration.Value != "" {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("value"), toleration.Value, "must be empty for operator `Exists`"))
		}
	case resourcev1.DeviceTolerationOpEqual:
		allErrs = append(allErrs, common.InvalidEach(fldPath.Child("value"), toleration.Value, utilvalidation.IsValidLabelValue(toleration.Value))...)
	case "":
		allErrs = append(allErrs, field.Required(fldPath.Child("operator"), ""))
	default:
		allErrs = append(allErrs, field.NotSupported(fldPath.Child("operator"), toleration.Operator, validTolerationOperators))
	}
	if effects := r.taintEffects(); toleration.Effect != "" && !slices.Contains(effects, toleration.Effect) {
		allErrs = append(allErrs, field.NotSupported(fldPath.Child("effect"), toleration.Effect, effects))
	}
	return allErrs
}

// taintEffects are the release's taint effects (None from 1.35).
func (r rules) taintEffects() []resourcev1.DeviceTaintEffect {
	if !r.has(api.TaintEffectNone) {
		return validTaintEffects133
	}
	return validTaintEffects
}

// validateDeviceConstraint: the requests it names, and its attribute:
// matchAttribute or (where the release keeps it) distinctAttribute; without
// either, matchAttribute is required until 1.35, and from 1.36 one of them.
func (r rules) validateDeviceConstraint(constraint resourcev1.DeviceConstraint, fldPath *field.Path, names requestNames) field.ErrorList {
	allErrs := r.validateRequestNameRefs(constraint.Requests, fldPath.Child("requests"), names)
	switch {
	case constraint.MatchAttribute != nil:
		allErrs = append(allErrs, r.validateFullyQualifiedName(string(*constraint.MatchAttribute), fldPath.Child("matchAttribute"))...)
	case constraint.DistinctAttribute != nil:
		allErrs = append(allErrs, r.validateFullyQualifiedName(string(*constraint.DistinctAttribute), fldPath.Child("distinctAttribute"))...)
	case !r.gateOn("distinctAttribute"):
		allErrs = append(allErrs, field.Required(fldPath.Child("matchAttribute"), ""))
	default:
		// Upstream's message, "multiple" included.
		allErrs = append(allErrs, field.Required(fldPath, `exactly one of "matchAttribute" or "distinctAttribute" is required, but multiple fields are set`))
	}
	return allErrs
}

// validateFullyQualifiedName is upstream's, a domain (a driver name) and a
// C identifier separated by a slash; the messages changed in 1.35.
func (r rules) validateFullyQualifiedName(name string, fldPath *field.Path) field.ErrorList {
	if !r.has(api.TerseFindings) && name == "" {
		return field.ErrorList{field.Required(fldPath, "name required")}
	}
	allErrs := r.validateQualifiedName(name, fldPath)
	if detail := "must include a domain"; !strings.Contains(name, "/") {
		if r.has(api.TerseFindings) {
			detail = "a fully qualified name must be a domain and a name separated by a slash"
		}
		allErrs = append(allErrs, field.Invalid(fldPath, name, detail))
	}
	return allErrs
}

// validateQualifiedName is upstream's: a C identifier, or a domain (a
// driver name) and a C identifier separated by a slash. More than one
// slash passes before 1.38, as upstream.
func (r rules) validateQualifiedName(name string, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	parts := strings.Split(name, "/")
	switch len(parts) {
	case 1:
		allErrs = append(allErrs, r.validateCIdentifier(parts[0], fldPath)...)
	case 2:
		if parts[0] == "" {
			allErrs = append(allErrs, r.emptyPart(fldPath, "the domain must not be empty"))
		} else {
			allErrs = append(allErrs, r.validateDriverName(parts[0], fldPath)...)
		}
		if parts[1] == "" {
			allErrs = append(allErrs, r.emptyPart(fldPath, "the name must not be empty"))
		} else {
			allErrs = append(allErrs, r.validateCIdentifier(parts[1], fldPath)...)
		}
	default:
		if r.has(api.OneSlash) {
			allErrs = append(allErrs, field.Invalid(fldPath, name, "must not contain more than one slash"))
		}
	}
	return allErrs
}

func (r rules) emptyPart(fldPath *field.Path, detail string) *field.Error {
	if !r.has(api.TerseFindings) {
		return field.Required(fldPath, detail)
	}
	return field.Invalid(fldPath, "", detail)
}

func (r rules) validateCIdentifier(id string, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	if len(id) > resourcev1.DeviceMaxIDLength {
		allErrs = append(allErrs, field.TooLong(fldPath, "", resourcev1.DeviceMaxIDLength))
	}
	invalid := field.Invalid
	if !r.has(api.IdentifierMessages) {
		invalid = field.TypeInvalid
	}
	for _, msg := range utilvalidation.IsCIdentifier(id) {
		allErrs = append(allErrs, invalid(fldPath, id, msg))
	}
	return allErrs
}

// validateDriverName is corevalidation.ValidateCSIDriverName: an empty name
// is only Required from 1.35 (Required and Invalid before).
func (r rules) validateDriverName(name string, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	if name == "" {
		allErrs = append(allErrs, field.Required(fldPath, ""))
		if r.has(api.TerseFindings) {
			return allErrs
		}
	}
	if len(name) > common.DriverNameMaxLength {
		allErrs = append(allErrs, field.TooLong(fldPath, "", common.DriverNameMaxLength))
	}
	return append(allErrs, common.InvalidEach(fldPath, name, utilvalidation.IsDNS1123Subdomain(strings.ToLower(name)))...)
}

// validateRequestNameRefs: a set of at most 32 names of requests of the
// claim (from 1.33 also request/subrequest).
func (r rules) validateRequestNameRefs(refs []string, fldPath *field.Path, names requestNames) field.ErrorList {
	return validateSet(r, refs, resourcev1.DeviceRequestsMaxSize, func(name string, fldPath *field.Path) field.ErrorList {
		if !r.hasField("firstAvailable") {
			allErrs := common.ValidateDNS1123Label(name, fldPath)
			if _, ok := names[name]; !ok {
				allErrs = append(allErrs, field.Invalid(fldPath, name, "must be the name of a request in the claim"))
			}
			return allErrs
		}
		const notARequest = "must be the name of a request in the claim or the name of a request and a subrequest separated by '/'"
		segments := strings.Split(name, "/")
		if len(segments) > 2 {
			return field.ErrorList{field.Invalid(fldPath, name, notARequest)}
		}
		var allErrs field.ErrorList
		for _, segment := range segments {
			allErrs = append(allErrs, common.ValidateDNS1123Label(segment, fldPath)...)
		}
		if !names.has(name) {
			allErrs = append(allErrs, field.Invalid(fldPath, name, notARequest))
		}
		return allErrs
	}, func(name string) string { return name }, "", fldPath)
}

func (r rules) validateDeviceConfiguration(config resourcev1.DeviceConfiguration, fldPath *field.Path) field.ErrorList {
	if config.Opaque == nil {
		return field.ErrorList{field.Required(fldPath.Child("opaque"), "")}
	}
	fldPath = fldPath.Child("opaque")
	allErrs := r.validateDriverName(config.Opaque.Driver, fldPath.Child("driver"))
	return append(allErrs, r.validateParameters(config.Opaque.Parameters, fldPath.Child("parameters"))...)
}

// validateParameters is upstream's validateRawExtension for a create (no
// size limit in 1.31).
func (r rules) validateParameters(parameters runtime.RawExtension, fldPath *field.Path) field.ErrorList {
	if len(parameters.Raw) == 0 {
		return field.ErrorList{field.Required(fldPath, "")}
	}
	if r.has(api.CELLimits) && len(parameters.Raw) > resourcev1.OpaqueParametersMaxLength {
		return field.ErrorList{field.TooLong(fldPath, "", resourcev1.OpaqueParametersMaxLength)}
	}
	var v interface{}
	if err := json.Unmarshal(parameters.Raw, &v); err != nil {
		return field.ErrorList{field.Invalid(fldPath, common.OmittedValue, fmt.Sprintf("error parsing data as JSON: %v", err))}
	}
	if v == nil {
		return field.ErrorList{field.Required(fldPath, "")}
	}
	if _, isObject := v.(map[string]interface{}); !isObject {
		detail := "must be a valid JSON object"
		if !r.has(api.IdentifierMessages) {
			detail = "parameters must be a valid JSON object"
		}
		return field.ErrorList{field.Invalid(fldPath, common.OmittedValue, detail)}
	}
	return nil
}

// validateSlice checks each item and the size of the list: from 1.35 only
// the size of a list that is too long; earlier releases report the items
// first.
func validateSlice[T any](r rules, slice []T, maxSize int, validateItem func(T, *field.Path) field.ErrorList, fldPath *field.Path) field.ErrorList {
	tooMany := len(slice) > maxSize
	if tooMany && r.has(api.TerseFindings) {
		return field.ErrorList{field.TooMany(fldPath, len(slice), maxSize)}
	}
	var allErrs field.ErrorList
	for i, item := range slice {
		allErrs = append(allErrs, validateItem(item, fldPath.Index(i))...)
	}
	if tooMany {
		allErrs = append(allErrs, field.TooMany(fldPath, len(slice), maxSize))
	}
	return allErrs
}

// validateSet is validateSlice, then a Duplicate for each repeated key: at
// the item from 1.35, before at its keyField (when there is one). From 1.38
// the duplicate of a keyed item other than a device is the whole item, as
// the declarative rules of its list name it.
func validateSet[T any](r rules, slice []T, maxSize int, validateItem func(T, *field.Path) field.ErrorList, key func(T) string, keyField string, fldPath *field.Path) field.ErrorList {
	allErrs := validateSlice(r, slice, maxSize, validateItem, fldPath)
	if len(slice) > maxSize && r.has(api.TerseFindings) {
		return allErrs
	}
	seen := sets.New[string]()
	for i, item := range slice {
		path := fldPath.Index(i)
		if keyField != "" && !r.has(api.TerseFindings) {
			path = path.Child(keyField)
		}
		_, device := any(item).(resourcev1.Device)
		if k := key(item); seen.Has(k) && keyField != "" && !device && r.has(api.DuplicateItems) {
			allErrs = append(allErrs, field.Duplicate(path, item))
		} else if seen.Has(k) {
			allErrs = append(allErrs, field.Duplicate(path, k))
		} else {
			seen.Insert(k)
		}
	}
	return allErrs
}

// duplicate is a Duplicate of key at fldPath when seen has it already; key
// is in seen afterwards.
func duplicate(seen sets.Set[string], key string, fldPath *field.Path) field.ErrorList {
	if seen.Has(key) {
		return field.ErrorList{field.Duplicate(fldPath, key)}
	}
	seen.Insert(key)
	return nil
}

// ValidateDeviceClass checks a DeviceClass of v1beta1, v1beta2 or v1 with
// the create rules of release (as Validate): upstream's ValidateDeviceClass
// (name a DNS subdomain, not namespaced; CEL selectors, opaque
// configuration, extendedResourceName where the release keeps it).
func ValidateDeviceClass(obj map[string]interface{}, c api.Cluster) (field.ErrorList, error) {
	version := versionOf(obj)
	if err := NotServed(c, version, api.KindDeviceClass); err != nil {
		return nil, err
	}
	r := rules{Cluster: c, version: version}
	stripped, _, _ := r.strip(obj, version, api.KindDeviceClass)
	return r.validateClass(stripped)
}

// isExtendedResourceName is k8s.io/kubernetes pkg/apis/core/v1/helper's.
func isExtendedResourceName(name string) bool {
	if !strings.Contains(name, "/") || strings.Contains(name, "kubernetes.io/") || strings.HasPrefix(name, corev1.DefaultResourceRequestsPrefix) {
		return false
	}
	return len(utilvalidation.IsQualifiedName(corev1.DefaultResourceRequestsPrefix+name)) == 0
}
