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

// shape binds one version's types to its rules. C and T are the claim and
// template struct types.
type shape[C, T any] struct {
	setDefaults            func(obj interface{})
	warnings               func(obj interface{}) []string
	statusWarnings         func(claim *C) []string
	validateClaim          func(claim *C) field.ErrorList
	validateClaimUpdate    func(claim, old *C) field.ErrorList
	validateClaimStatus    func(claim, old *C) field.ErrorList
	validateTemplate       func(template *T) field.ErrorList
	validateTemplateUpdate func(template, old *T) field.ErrorList
	// view extracts what the cross-version invariants compare.
	claimView    func(claim *C) objectView
	templateView func(template *T) objectView
}

// objectView is the part of an object the cross-version invariants look at.
type objectView struct {
	meta *metav1.ObjectMeta
	// spec is the typed spec, compared semantically.
	spec interface{}
	// allocation is the typed *AllocationResult, or nil.
	allocation interface{}
	status     common.StatusView
	// rawStatus is the converted object's status as JSON (nil when
	// absent), compared on a main update; set by viewOf.
	rawStatus interface{}
}

// classicShape binds the rules v1alpha1 and v1alpha2 share (package
// classic) to a shape.
func classicShape[C, T any](r classic.Rules) shape[C, T] {
	view := func(obj interface{}) objectView {
		meta, spec, allocation, status := classic.Parts(obj)
		return objectView{meta: meta, spec: spec, allocation: allocation, status: status}
	}
	return shape[C, T]{
		setDefaults:            r.SetDefaults,
		warnings:               r.Warnings,
		statusWarnings:         func(*C) []string { return nil },
		validateClaim:          func(c *C) field.ErrorList { return r.ValidateCreate(c) },
		validateClaimUpdate:    func(c, old *C) field.ErrorList { return r.ValidateUpdate(c, old) },
		validateClaimStatus:    func(c, old *C) field.ErrorList { return r.ValidateStatusUpdate(c, old) },
		validateTemplate:       func(t *T) field.ErrorList { return r.ValidateCreate(t) },
		validateTemplateUpdate: func(t, old *T) field.ErrorList { return r.ValidateUpdate(t, old) },
		claimView:              func(c *C) objectView { return view(c) },
		templateView:           func(t *T) objectView { return view(t) },
	}
}

var (
	shapeV1 = classicShape[apiv1.ResourceClaim, apiv1.ResourceClaimTemplate](v1.Rules)
	shapeV2 = classicShape[apiv2.ResourceClaim, apiv2.ResourceClaimTemplate](v2.Rules)
)

var shapeV3 = shape[apiv3.ResourceClaim, apiv3.ResourceClaimTemplate]{
	setDefaults:            v3.SetDefaults,
	warnings:               v3.Warnings,
	statusWarnings:         v3.StatusWarnings,
	validateClaim:          v3.ValidateResourceClaim,
	validateClaimUpdate:    v3.ValidateResourceClaimUpdate,
	validateClaimStatus:    v3.ValidateResourceClaimStatusUpdate,
	validateTemplate:       v3.ValidateResourceClaimTemplate,
	validateTemplateUpdate: v3.ValidateResourceClaimTemplateUpdate,
	claimView: func(c *apiv3.ResourceClaim) objectView {
		v := objectView{meta: &c.ObjectMeta, spec: c.Spec, status: v3.StatusView(&c.Status)}
		if c.Status.Allocation != nil {
			v.allocation = c.Status.Allocation
		}
		return v
	},
	templateView: func(t *apiv3.ResourceClaimTemplate) objectView {
		return objectView{meta: &t.ObjectMeta, spec: t.Spec}
	},
}

// unknownFields decodes obj strictly into the shape's type of kind and
// returns its fields the type does not have.
func (s shape[C, T]) unknownFields(kind string, obj map[string]interface{}) (field.ErrorList, error) {
	if kind == KindResourceClaimTemplate {
		var t T
		return decode(obj, &t, true)
	}
	var c C
	return decode(obj, &c, true)
}

// checks is the outcome of running one shape's rules.
type checks struct {
	errs     field.ErrorList
	warnings []string
}

// run decodes newObj (strictly) and oldObj, defaults both and runs the
// rules for the operation.
func (s shape[C, T]) run(kind string, op Operation, subResource string, newObj, oldObj map[string]interface{}) (checks, error) {
	if kind == KindResourceClaimTemplate {
		return runKind(s, newObj, oldObj, op, subResource, s.validateTemplate, s.validateTemplateUpdate, nil,
			func(*T) []string { return nil })
	}
	return runKind(s, newObj, oldObj, op, subResource, s.validateClaim, s.validateClaimUpdate, s.validateClaimStatus, s.statusWarnings)
}

func runKind[C, T, O any](s shape[C, T], newObj, oldObj map[string]interface{}, op Operation, subResource string,
	create func(*O) field.ErrorList, update, status func(*O, *O) field.ErrorList, statusWarnings func(*O) []string) (checks, error) {
	var obj O
	data, err := encodeTree(newObj)
	if err != nil {
		return checks{}, err
	}
	unknown, err := decodeData(data, &obj, true)
	if err != nil {
		return checks{}, decodeError(newObj, &obj, err)
	}
	var old O
	oldDone := false
	if op == Update && subResource == "status" {
		if oldDone, err = decodeStatusOld(&obj, newObj, oldObj, &old); err != nil {
			return checks{}, err
		}
	}
	s.setDefaults(&obj)
	result := checks{errs: unknown}
	if op == Create {
		result.errs = append(result.errs, create(&obj)...)
		result.warnings = s.warnings(&obj)
		return result, nil
	}
	if !oldDone {
		if _, err := decode(oldObj, &old, false); err != nil {
			return checks{}, err
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

// newWarnings is what an update warns about that its old object did not
// already warn about (before is called only when there is something to
// compare). A warning about the immutable spec was said when the object was
// created; repeated on every later write (a label, a finalizer, a
// reservation) it tells the writer nothing it could act on, as
// kube-apiserver's strategies warn on update only about what changed.
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
func (s shape[C, T]) view(kind string, obj map[string]interface{}) (objectView, error) {
	if kind == KindResourceClaimTemplate {
		var t T
		if _, err := decode(obj, &t, false); err != nil {
			return objectView{}, err
		}
		s.setDefaults(&t)
		return s.templateView(&t), nil
	}
	var c C
	if _, err := decode(obj, &c, false); err != nil {
		return objectView{}, err
	}
	s.setDefaults(&c)
	return s.claimView(&c), nil
}

// versionRules is what Validate needs from a shape, independent of its types.
type versionRules interface {
	run(kind string, op Operation, subResource string, newObj, oldObj map[string]interface{}) (checks, error)
	unknownFields(kind string, obj map[string]interface{}) (field.ErrorList, error)
	view(kind string, obj map[string]interface{}) (objectView, error)
}

var shapes = map[string]versionRules{
	"v1alpha1": shapeV1,
	"v1alpha2": shapeV2,
	"v1alpha3": shapeV3,
}

// decodeStatusOld decodes the old object of a status write without encoding
// it. On a status write newObj is oldObj with only the status and
// metadata.managedFields taken from the request (prepareForStatusUpdate), so
// the old object decodes to what newObj decoded to (decoded, not yet
// defaulted) with its own status and managedFields: old gets a deep copy of
// decoded with both fields zeroed, then oldObj's status and managedFields
// decoded into it. The result is the lenient decode of oldObj, errors
// included (only those two fields can differ from newObj, which decoded
// already; strict and lenient decoding give the same values);
// TestStatusOldDecodeMatchesFullDecode keeps that so. It reports false,
// having done nothing, when oldObj's metadata is not an object
// (prepareForStatusUpdate replaced it) or O has no such fields or no
// DeepCopy: decode oldObj then.
//
// The old allocation is usually the new one (a reservation leaves it as it
// is): when both are equal JSON trees, the old one is a deep copy of the
// decoded new one instead of being encoded and decoded again.
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
