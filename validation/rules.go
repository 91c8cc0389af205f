package validation

import (
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	sigsjson "sigs.k8s.io/json"

	"github.com/claimbridge/claimbridge/api"
	apiv1 "github.com/claimbridge/claimbridge/api/v1alpha1"
	apiv2 "github.com/claimbridge/claimbridge/api/v1alpha2"
	apiv3 "github.com/claimbridge/claimbridge/api/v1alpha3"
	"github.com/claimbridge/claimbridge/conversion"
	"github.com/claimbridge/claimbridge/validation/classic"
	"github.com/claimbridge/claimbridge/validation/common"
	v3 "github.com/claimbridge/claimbridge/validation/v1alpha3"
)

// versionRules are one version's rules on its typed claims and templates
// (the pointers decodeObject decodes into): classic.Rules for v1alpha1 and
// v1alpha2, v1alpha3Rules for v1alpha3.
type versionRules interface {
	SetDefaults(obj any)
	ValidateCreate(obj any) field.ErrorList
	ValidateUpdate(obj, old any) field.ErrorList
	// ValidateStatusUpdate: with allocationStored, the write leaves the
	// allocation as stored, and it is not judged again.
	ValidateStatusUpdate(claim, old any, allocationStored bool) field.ErrorList
	Warnings(obj any) []string
	StatusWarnings(claim any) []string
	// Parts are what the cross-version checks compare (allocation nil
	// when unset or for a template).
	Parts(obj any) (meta *metav1.ObjectMeta, spec, allocation any, status common.StatusView)
}

// rulesFor returns version's rules; cel is Request.CEL.
func rulesFor(version string, cel *CELCache) versionRules {
	if version == api.V1alpha1 || version == api.V1alpha2 {
		return classic.Rules{}
	}
	return v1alpha3Rules{cel}
}

// newTyped are the types of each served version's claim and template.
var newTyped = map[[2]string]func() any{
	{api.V1alpha1, api.KindClaim}:    func() any { return &apiv1.ResourceClaim{} },
	{api.V1alpha1, api.KindTemplate}: func() any { return &apiv1.ResourceClaimTemplate{} },
	{api.V1alpha2, api.KindClaim}:    func() any { return &apiv2.ResourceClaim{} },
	{api.V1alpha2, api.KindTemplate}: func() any { return &apiv2.ResourceClaimTemplate{} },
	{api.V1alpha3, api.KindClaim}:    func() any { return &apiv3.ResourceClaim{} },
	{api.V1alpha3, api.KindTemplate}: func() any { return &apiv3.ResourceClaimTemplate{} },
}

// decodeObject decodes obj into version's type of kind and defaults it.
// With strict, fields the type lacks are returned as findings.
func decodeObject(version, kind string, obj map[string]interface{}, strict bool) (any, field.ErrorList, error) {
	typed := newTyped[[2]string{version, kind}]()
	unknown, err := decode(obj, typed, strict)
	if err != nil {
		return nil, nil, err
	}
	rulesFor(version, nil).SetDefaults(typed)
	return typed, unknown, nil
}

// createRules runs version's create rules on obj: its unknown fields, the
// rules' findings, and its warnings.
func createRules(version, kind string, obj map[string]interface{}, cel *CELCache) (field.ErrorList, []string, error) {
	typed, errs, err := decodeObject(version, kind, obj, true)
	if err != nil {
		return nil, nil, err
	}
	r := rulesFor(version, cel)
	return append(errs, r.ValidateCreate(typed)...), r.Warnings(typed), nil
}

// updateRules runs version's rules for an update of the main resource.
func updateRules(version, kind string, obj, old map[string]interface{}, cel *CELCache) (field.ErrorList, []string, error) {
	typed, errs, err := decodeObject(version, kind, obj, true)
	if err != nil {
		return nil, nil, err
	}
	oldTyped, _, err := decodeObject(version, kind, old, false)
	if err != nil {
		return nil, nil, err
	}
	r := rulesFor(version, cel)
	errs = append(errs, r.ValidateUpdate(typed, oldTyped)...)
	return errs, newWarnings(r.Warnings(typed), func() []string { return r.Warnings(oldTyped) }), nil
}

// statusRules runs version's rules for a write to a claim's status (statusVerdict).
func statusRules(version string, obj, old map[string]interface{}, ratchet bool) (field.ErrorList, []string, error) {
	typed, errs, err := decodeObject(version, api.KindClaim, obj, true)
	if err != nil {
		return nil, nil, err
	}
	// The status rules read the old metadata and status, not its spec:
	// the write keeps it, and it was decoded in obj.
	old = maps.Clone(old)
	delete(old, "spec")
	oldTyped, _, err := decodeObject(version, api.KindClaim, old, false)
	if err != nil {
		return nil, nil, err
	}
	verdict, warnings := statusVerdict(rulesFor(version, nil), typed, oldTyped, ratchet) // status rules compile no CEL
	return append(errs, verdict...), warnings, nil
}

// statusVerdict judges claim, prepared for a status write, by r. An
// allocation the write leaves as stored (decoded alike) warns of nothing
// new and, with ratchet (the CRD's group), is not judged again: an
// allocation written through one version may break a rule of another, and
// reporting it on every later status write would keep an older client from
// ever changing its reservations (docs/validation.md).
func statusVerdict(r versionRules, claim, old any, ratchet bool) (field.ErrorList, []string) {
	_, _, allocation, _ := r.Parts(claim)
	_, _, oldAllocation, _ := r.Parts(old)
	stored := reflect.DeepEqual(allocation, oldAllocation)
	errs := r.ValidateStatusUpdate(claim, old, ratchet && stored)
	if stored {
		return errs, nil // the status warnings are the allocation's
	}
	return errs, newWarnings(r.StatusWarnings(claim), func() []string { return r.StatusWarnings(old) })
}

// newWarnings is what an update warns about that its old object did not, as
// kube-apiserver's strategies warn only about what changed.
func newWarnings(now []string, before func() []string) []string {
	if len(now) == 0 {
		return now
	}
	was := before()
	var out []string
	for _, w := range now {
		if !slices.Contains(was, w) {
			out = append(out, w)
		}
	}
	return out
}

// comparedParts are the parts of an object, decoded and defaulted, that the
// cross-version checks compare.
type comparedParts struct {
	meta *metav1.ObjectMeta
	// spec is the typed spec, compared semantically.
	spec any
	// allocation is the typed *AllocationResult, or nil.
	allocation any
	status     common.StatusView
	// rawStatus is the object's status as JSON (nil when absent), compared
	// on a main update.
	rawStatus any
}

// partsOf decodes obj, a claim or template of version, leniently and
// returns its compared parts; statusOnly (a status write) decodes only
// metadata.deletionTimestamp and the status.
func partsOf(version, kind string, obj map[string]interface{}, statusOnly bool) (comparedParts, error) {
	if statusOnly {
		reduced := map[string]interface{}{"apiVersion": obj["apiVersion"], "kind": obj["kind"]}
		if ts, ok := api.Metadata(obj)["deletionTimestamp"]; ok {
			reduced["metadata"] = map[string]interface{}{"deletionTimestamp": ts}
		}
		if status, ok := obj["status"]; ok {
			reduced["status"] = status
		}
		obj = reduced
	}
	p := comparedParts{rawStatus: obj["status"]}
	typed, _, err := decodeObject(version, kind, obj, false)
	if err != nil {
		return p, err
	}
	p.meta, p.spec, p.allocation, p.status = rulesFor(version, nil).Parts(typed)
	return p, nil
}

// v1alpha3Rules binds package v1alpha3's entry points to versionRules.
type v1alpha3Rules struct{ cel *CELCache }

func (v1alpha3Rules) SetDefaults(obj any) { v3.SetDefaults(obj) }

func (r v1alpha3Rules) ValidateCreate(obj any) field.ErrorList {
	if t, ok := obj.(*apiv3.ResourceClaimTemplate); ok {
		return v3.ValidateResourceClaimTemplate(t, r.cel)
	}
	return v3.ValidateResourceClaim(obj.(*apiv3.ResourceClaim), r.cel)
}

func (r v1alpha3Rules) ValidateUpdate(obj, old any) field.ErrorList {
	if t, ok := obj.(*apiv3.ResourceClaimTemplate); ok {
		return v3.ValidateResourceClaimTemplateUpdate(t, old.(*apiv3.ResourceClaimTemplate), r.cel)
	}
	return v3.ValidateResourceClaimUpdate(obj.(*apiv3.ResourceClaim), old.(*apiv3.ResourceClaim), r.cel)
}

func (v1alpha3Rules) ValidateStatusUpdate(claim, old any, allocationStored bool) field.ErrorList {
	return v3.ValidateResourceClaimStatusUpdate(claim.(*apiv3.ResourceClaim), old.(*apiv3.ResourceClaim), allocationStored)
}

func (r v1alpha3Rules) Warnings(obj any) []string { return v3.Warnings(obj, r.cel) }

func (v1alpha3Rules) StatusWarnings(claim any) []string {
	return v3.StatusWarnings(claim.(*apiv3.ResourceClaim))
}

func (v1alpha3Rules) Parts(obj any) (*metav1.ObjectMeta, any, any, common.StatusView) {
	if t, ok := obj.(*apiv3.ResourceClaimTemplate); ok {
		return &t.ObjectMeta, t.Spec, nil, common.StatusView{}
	}
	c := obj.(*apiv3.ResourceClaim)
	if c.Status.Allocation == nil {
		return &c.ObjectMeta, c.Spec, nil, v3.StatusView(&c.Status)
	}
	return &c.ObjectMeta, c.Spec, c.Status.Allocation, v3.StatusView(&c.Status)
}

// decode turns a JSON tree into a typed object. With strict, fields the
// shape does not have are returned as errors (Forbidden "unknown field"),
// one per field, at the path where they occur; a value of the wrong JSON
// type is an error (err), not a finding.
func decode(obj map[string]interface{}, into interface{}, strict bool) (field.ErrorList, error) {
	data, err := api.AppendJSON(nil, obj)
	if err != nil {
		return nil, fmt.Errorf("encoding object: %w", err)
	}
	var unknown field.ErrorList
	if strict {
		unknown, err = DecodeStrict(data, into)
	} else {
		err = sigsjson.UnmarshalCaseSensitivePreserveInts(data, into)
	}
	if err != nil {
		return nil, decodeError(obj, into, fmt.Errorf("decoding object: %w", err))
	}
	return unknown, nil
}

// decodeError says where obj, which failed to decode with err, is
// malformed, with list indices and JSON types as conversion names them
// (spec.devices.requests[1].count must be a number, not a string); err
// itself when neither check finds the place.
func decodeError(obj map[string]interface{}, into interface{}, err error) error {
	var malformed *conversion.MalformedError
	if shapeErr := conversion.CheckShape(obj); errors.As(shapeErr, &malformed) {
		return fmt.Errorf("decoding object: %s", malformed.Field())
	}
	// What the shape check does not know (metadata, types conversion does
	// not look into), named by the Go type decoded into.
	if at, want, got, found := typeMismatch(obj, reflect.TypeOf(into), ""); found {
		return fmt.Errorf("decoding object: %s", (&conversion.MalformedError{Path: at, Want: want, Got: got}).Field())
	}
	return err
}

// DecodeStrict decodes data into into as a strict apiserver does: every
// field the type does not have is a finding at its path (Forbidden "unknown
// field"); a value the type cannot hold is the error.
func DecodeStrict(data []byte, into interface{}) (field.ErrorList, error) {
	strictErrs, err := sigsjson.UnmarshalStrict(data, into, sigsjson.DisallowUnknownFields)
	if err != nil {
		return nil, err
	}
	// Only DisallowUnknownFields is asked for, so every strict error is an
	// unknown field; its path comes from the structured error.
	var unknown field.ErrorList
	for _, e := range strictErrs {
		var fe sigsjson.FieldError
		if !errors.As(e, &fe) {
			return nil, e
		}
		unknown = append(unknown, field.Forbidden(field.NewPath(fe.FieldPath()), "unknown field"))
	}
	return unknown, nil
}
