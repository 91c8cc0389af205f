package validation

import (
	"fmt"
	"reflect"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/claimbridge/claimbridge/api"
	apiv1 "github.com/claimbridge/claimbridge/api/v1alpha1"
	apiv2 "github.com/claimbridge/claimbridge/api/v1alpha2"
	apiv3 "github.com/claimbridge/claimbridge/api/v1alpha3"
	"github.com/claimbridge/claimbridge/validation/classic"
	"github.com/claimbridge/claimbridge/validation/common"
	v1 "github.com/claimbridge/claimbridge/validation/v1alpha1"
	v2 "github.com/claimbridge/claimbridge/validation/v1alpha2"
	v3 "github.com/claimbridge/claimbridge/validation/v1alpha3"
)

// typedRules binds one version's claim and template types C and T to its
// rules.
type typedRules[C, T any] struct {
	setDefaults            func(obj interface{})
	warnings               func(obj interface{}) []string
	statusWarnings         func(claim *C) []string
	validateClaim          func(claim *C) field.ErrorList
	validateClaimUpdate    func(claim, old *C) field.ErrorList
	validateClaimStatus    func(claim, old *C) field.ErrorList
	validateTemplate       func(template *T) field.ErrorList
	validateTemplateUpdate func(template, old *T) field.ErrorList
	claimParts             func(claim *C) comparedParts
	templateParts          func(template *T) comparedParts
}

// comparedParts are the parts of an object, decoded and defaulted, that the
// cross-version checks compare.
type comparedParts struct {
	meta *metav1.ObjectMeta
	// spec is the typed spec, compared semantically.
	spec interface{}
	// allocation is the typed *AllocationResult, or nil.
	allocation interface{}
	status     common.StatusView
	// rawStatus is the converted object's status as JSON (nil when
	// absent), compared on a main update; set by comparedPartsOf.
	rawStatus interface{}
}

// classicRules binds a version's classic rules to its types C and T.
func classicRules[C, T any](r classic.Rules) typedRules[C, T] {
	parts := func(obj interface{}) comparedParts {
		meta, spec, allocation, status := classic.Parts(obj)
		return comparedParts{meta: meta, spec: spec, allocation: allocation, status: status}
	}
	return typedRules[C, T]{
		setDefaults:            r.SetDefaults,
		warnings:               r.Warnings,
		statusWarnings:         func(*C) []string { return nil },
		validateClaim:          func(c *C) field.ErrorList { return r.ValidateCreate(c) },
		validateClaimUpdate:    func(c, old *C) field.ErrorList { return r.ValidateUpdate(c, old) },
		validateClaimStatus:    func(c, old *C) field.ErrorList { return r.ValidateStatusUpdate(c, old) },
		validateTemplate:       func(t *T) field.ErrorList { return r.ValidateCreate(t) },
		validateTemplateUpdate: func(t, old *T) field.ErrorList { return r.ValidateUpdate(t, old) },
		claimParts:             func(c *C) comparedParts { return parts(c) },
		templateParts:          func(t *T) comparedParts { return parts(t) },
	}
}

var (
	rulesV1alpha1 = classicRules[apiv1.ResourceClaim, apiv1.ResourceClaimTemplate](v1.Rules)
	rulesV1alpha2 = classicRules[apiv2.ResourceClaim, apiv2.ResourceClaimTemplate](v2.Rules)
)

var rulesV1alpha3 = typedRules[apiv3.ResourceClaim, apiv3.ResourceClaimTemplate]{
	setDefaults:            v3.SetDefaults,
	warnings:               v3.Warnings,
	statusWarnings:         v3.StatusWarnings,
	validateClaim:          v3.ValidateResourceClaim,
	validateClaimUpdate:    v3.ValidateResourceClaimUpdate,
	validateClaimStatus:    v3.ValidateResourceClaimStatusUpdate,
	validateTemplate:       v3.ValidateResourceClaimTemplate,
	validateTemplateUpdate: v3.ValidateResourceClaimTemplateUpdate,
	claimParts: func(c *apiv3.ResourceClaim) comparedParts {
		v := comparedParts{meta: &c.ObjectMeta, spec: c.Spec, status: v3.StatusView(&c.Status)}
		if c.Status.Allocation != nil {
			v.allocation = c.Status.Allocation
		}
		return v
	},
	templateParts: func(t *apiv3.ResourceClaimTemplate) comparedParts {
		return comparedParts{meta: &t.ObjectMeta, spec: t.Spec}
	},
}

// unknownFields decodes obj strictly into the version's type of kind and
// returns its fields the type does not have.
func (s typedRules[C, T]) unknownFields(kind string, obj map[string]interface{}) (field.ErrorList, error) {
	if kind == KindResourceClaimTemplate {
		var t T
		return decode(obj, &t, true)
	}
	var c C
	return decode(obj, &c, true)
}

// ruleResult is the outcome of running one version's rules.
type ruleResult struct {
	errs     field.ErrorList
	warnings []string
}

// run decodes newObj (strictly) and oldObj, defaults both and runs the
// rules for the operation.
func (s typedRules[C, T]) run(kind string, op Operation, subResource string, newObj, oldObj map[string]interface{}) (ruleResult, error) {
	if kind == KindResourceClaimTemplate {
		return runKind(s, newObj, oldObj, op, subResource, s.validateTemplate, s.validateTemplateUpdate, nil,
			func(*T) []string { return nil })
	}
	return runKind(s, newObj, oldObj, op, subResource, s.validateClaim, s.validateClaimUpdate, s.validateClaimStatus, s.statusWarnings)
}

func runKind[C, T, O any](s typedRules[C, T], newObj, oldObj map[string]interface{}, op Operation, subResource string,
	create func(*O) field.ErrorList, update, status func(*O, *O) field.ErrorList, statusWarnings func(*O) []string) (ruleResult, error) {
	var obj O
	data, err := encodeTree(newObj)
	if err != nil {
		return ruleResult{}, err
	}
	unknown, err := decodeData(data, &obj, true)
	if err != nil {
		return ruleResult{}, decodeError(newObj, &obj, err)
	}
	var old O
	oldDone := false
	if op == Update && subResource == "status" {
		if oldDone, err = decodeStatusOld(&obj, newObj, oldObj, &old); err != nil {
			return ruleResult{}, err
		}
	}
	s.setDefaults(&obj)
	result := ruleResult{errs: unknown}
	if op == Create {
		result.errs = append(result.errs, create(&obj)...)
		result.warnings = s.warnings(&obj)
		return result, nil
	}
	if !oldDone {
		if _, err := decode(oldObj, &old, false); err != nil {
			return ruleResult{}, err
		}
	}
	s.setDefaults(&old)
	if subResource == "status" {
		result.errs = append(result.errs, status(&obj, &old)...)
		result.warnings = newWarnings(statusWarnings(&obj), func() []string { return statusWarnings(&old) })
		return result, nil
	}
	result.errs = append(result.errs, update(&obj, &old)...)
	result.warnings = newWarnings(s.warnings(&obj), func() []string { return s.warnings(&old) })
	return result, nil
}

// newWarnings is what an update warns about that its old object did not, as
// kube-apiserver's strategies warn only about what changed.
func newWarnings(now []string, before func() []string) []string {
	if len(now) == 0 {
		return now
	}
	was := before()
	if len(was) == 0 {
		return now
	}
	var out []string
	for _, w := range now {
		if !slices.Contains(was, w) {
			out = append(out, w)
		}
	}
	return out
}

// view decodes obj leniently and returns its defaulted view.
func (s typedRules[C, T]) decodeParts(kind string, obj map[string]interface{}) (comparedParts, error) {
	if kind == KindResourceClaimTemplate {
		var t T
		if _, err := decode(obj, &t, false); err != nil {
			return comparedParts{}, err
		}
		s.setDefaults(&t)
		return s.templateParts(&t), nil
	}
	var c C
	if _, err := decode(obj, &c, false); err != nil {
		return comparedParts{}, err
	}
	s.setDefaults(&c)
	return s.claimParts(&c), nil
}

// rules is what Validate needs of a version's rules, whatever its types.
type rules interface {
	run(kind string, op Operation, subResource string, newObj, oldObj map[string]interface{}) (ruleResult, error)
	unknownFields(kind string, obj map[string]interface{}) (field.ErrorList, error)
	decodeParts(kind string, obj map[string]interface{}) (comparedParts, error)
}

var rulesFor = map[string]rules{
	"v1alpha1": rulesV1alpha1,
	"v1alpha2": rulesV1alpha2,
	"v1alpha3": rulesV1alpha3,
}

// decodeStatusOld decodes the old object of a status write cheaply: newObj
// differs from it only in status and managedFields (prepareForStatusUpdate),
// so old is a deep copy of decoded with oldObj's status and managedFields
// decoded into it. It reports false, having done nothing, when oldObj's
// metadata is not an object or O lacks those fields or DeepCopy.
func decodeStatusOld[O any](decoded *O, newObj, oldObj map[string]interface{}, old *O) (bool, error) {
	if !fastStatusOld {
		return false, nil
	}
	meta, isMap := oldObj["metadata"].(map[string]interface{})
	if m, ok := oldObj["metadata"]; ok && m != nil && !isMap {
		return false, nil
	}
	dc, ok := any(decoded).(interface{ DeepCopy() *O })
	if !ok {
		return false, nil
	}
	v := reflect.ValueOf(old).Elem()
	status := v.FieldByName("Status")
	managed := v.FieldByName("ManagedFields") // promoted from ObjectMeta
	if !status.IsValid() || !managed.IsValid() {
		return false, nil
	}
	*old = *dc.DeepCopy()
	status.SetZero()
	managed.SetZero()
	reduced := map[string]interface{}{}
	sameAllocation := false
	if st, ok := oldObj["status"]; ok {
		oldStatus, isMap := st.(map[string]interface{})
		newStatus, _ := newObj["status"].(map[string]interface{})
		oldAlloc, inOld := oldStatus["allocation"]
		newAlloc, inNew := newStatus["allocation"]
		if isMap && inOld && inNew && api.DeepEqualJSON(oldAlloc, newAlloc) {
			sameAllocation = true
			rest := make(map[string]interface{}, len(oldStatus))
			for k, v := range oldStatus {
				if k != "allocation" {
					rest[k] = v
				}
			}
			st = rest
		}
		reduced["status"] = st
	}
	if mf, ok := meta["managedFields"]; ok {
		reduced["metadata"] = map[string]interface{}{"managedFields": mf}
	}
	if _, err := decode(reduced, old, false); err != nil {
		return false, decodeError(oldObj, old, err) // named as the full decode names it
	}
	if sameAllocation {
		from := reflect.ValueOf(decoded).Elem().FieldByName("Status").FieldByName("Allocation")
		to := status.FieldByName("Allocation")
		deepCopy := from.MethodByName("DeepCopy")
		if !from.IsValid() || !to.IsValid() || !deepCopy.IsValid() {
			return false, fmt.Errorf("status.allocation of %T cannot be copied", old)
		}
		to.Set(deepCopy.Call(nil)[0])
	}
	return true, nil
}

// fastStatusOld enables decodeStatusOld; tests turn it off to compare.
var fastStatusOld = true
