package common

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"

	v1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	apiservercel "k8s.io/apiserver/pkg/cel"

	"github.com/claimbridge/claimbridge/api/v1alpha1"
)

// ValidateObjectMeta applies the create rules for the metadata of a claim or
// template (namespaced) or of a class or slice: namespace required where
// namespaced, name (and generateName prefix) a DNS subdomain, plus the
// generic labels/annotations/ownerReferences/finalizers/managedFields checks.
func ValidateObjectMeta(meta *metav1.ObjectMeta, namespaced bool, fldPath *field.Path) field.ErrorList {
	return legacyMeta(apimachineryvalidation.ValidateObjectMeta(meta, namespaced, apimachineryvalidation.NameIsDNSSubdomain, fldPath), meta, fldPath)
}

// ValidateObjectMetaUpdate applies the generic metadata update rules
// (resourceVersion required, immutable name/namespace/uid/creationTimestamp,
// generation not decremented, ...).
func ValidateObjectMetaUpdate(newMeta, oldMeta *metav1.ObjectMeta, fldPath *field.Path) field.ErrorList {
	return legacyMeta(apimachineryvalidation.ValidateObjectMetaUpdate(newMeta, oldMeta, fldPath), newMeta, fldPath)
}

// ValidateUpdate is the update of a claim or template as upstream's
// registry strategies validate it: the metadata update rules, the immutable
// spec, then createErrs, the create rules run again (1.26–1.30
// ValidateClaimUpdate and ValidateClaimTemplateUpdate run them; the 1.31
// strategies run ValidateResourceClaim or ValidateResourceClaimTemplate
// besides the update rules).
func ValidateUpdate(meta, oldMeta *metav1.ObjectMeta, spec, oldSpec interface{}, createErrs field.ErrorList) field.ErrorList {
	allErrs := ValidateObjectMetaUpdate(meta, oldMeta, field.NewPath("metadata"))
	allErrs = append(allErrs, ValidateImmutableField(spec, oldSpec, field.NewPath("spec"))...)
	return append(allErrs, createErrs...)
}

// standardFinalizers are the finalizer names that need no domain prefix.
var standardFinalizers = map[string]bool{
	"kubernetes":                     true,
	metav1.FinalizerOrphanDependents: true,
	metav1.FinalizerDeleteDependents: true,
}

// validateFinalizerNames is corevalidation's extra finalizer check, run by
// both ValidateObjectMeta and ValidateObjectMetaUpdate of k8s.io/kubernetes:
// a name without "/" must be a standard finalizer.
func validateFinalizerNames(finalizers []string, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	for i, name := range finalizers {
		if !strings.Contains(name, "/") && !standardFinalizers[name] {
			allErrs = append(allErrs, field.Invalid(fldPath.Index(i), name, "name is neither a standard finalizer name nor is it fully qualified"))
		}
	}
	return allErrs
}

// ValidateTemplateObjectMeta validates the metadata embedded in a
// ResourceClaimTemplate (corevalidation.ValidateTemplateObjectMeta): only
// labels and annotations may be set; every other field that is set is
// Forbidden "cannot be set".
func ValidateTemplateObjectMeta(meta *metav1.ObjectMeta, fldPath *field.Path) field.ErrorList {
	allErrs := apimachineryvalidation.ValidateAnnotations(meta.Annotations, fldPath.Child("annotations"))
	allErrs = append(allErrs, metav1validation.ValidateLabels(meta.Labels, fldPath.Child("labels"))...)
	allErrs = append(allErrs, validateFieldAllowList(*meta, map[string]bool{"Annotations": true, "Labels": true}, "cannot be set", fldPath)...)
	return Normalize(allErrs)
}

// validateFieldAllowList reports every set struct field that is not allowed,
// as upstream's reflection-based helper does (field name lower-cased).
func validateFieldAllowList(value interface{}, allowedFields map[string]bool, errorText string, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	reflectType, reflectValue := reflect.TypeOf(value), reflect.ValueOf(value)
	for i := 0; i < reflectType.NumField(); i++ {
		f := reflectType.Field(i)
		if allowedFields[f.Name] {
			continue
		}
		if !reflect.DeepEqual(reflectValue.Field(i).Interface(), reflect.Zero(f.Type).Interface()) {
			allErrs = append(allErrs, field.Forbidden(fldPath.Child(strings.ToLower(f.Name[:1])+f.Name[1:]), errorText))
		}
	}
	return allErrs
}

// legacyMeta gives errs, apimachinery's metadata errors, the
// ownerReferences and managedFields errors of 1.26–1.31 in their place:
// those releases report an owner reference's fields without its index and
// as Invalid, and an operation as Invalid. corevalidation's finalizer
// check follows them (validateFinalizerNames).
func legacyMeta(errs field.ErrorList, meta *metav1.ObjectMeta, fldPath *field.Path) field.ErrorList {
	ownersPath, fieldsPath := fldPath.Child("ownerReferences").String(), fldPath.Child("managedFields").String()
	owners := validateOwnerReferences(meta.OwnerReferences, fldPath.Child("ownerReferences"))
	fields := validateManagedFields(meta.ManagedFields, fldPath.Child("managedFields"))
	var out field.ErrorList
	for _, e := range errs {
		switch {
		case strings.HasPrefix(e.Field, ownersPath):
			out, owners = append(out, owners...), nil
			continue
		case strings.HasPrefix(e.Field, fieldsPath):
			out, owners, fields = append(append(out, owners...), fields...), nil, nil
			continue
		case strings.HasPrefix(e.Field, fldPath.Child("finalizers").String()):
			out, owners = append(out, owners...), nil
		}
		out = append(out, e)
	}
	out = append(append(out, owners...), fields...)
	return Normalize(append(out, validateFinalizerNames(meta.Finalizers, fldPath.Child("finalizers"))...))
}

// validateOwnerReferences is 1.31's ValidateOwnerReferences.
func validateOwnerReferences(refs []metav1.OwnerReference, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	controller := ""
	for _, ref := range refs {
		gvk := schema.FromAPIVersionAndKind(ref.APIVersion, ref.Kind)
		for _, empty := range []struct{ field, what, value string }{
			{"apiVersion", "version", gvk.Version}, {"kind", "kind", gvk.Kind}, {"name", "name", ref.Name}, {"uid", "uid", string(ref.UID)},
		} {
			if empty.value == "" {
				given := map[string]interface{}{"apiVersion": ref.APIVersion, "kind": ref.Kind, "name": ref.Name, "uid": ref.UID}[empty.field]
				allErrs = append(allErrs, field.Invalid(fldPath.Child(empty.field), given, empty.what+" must not be empty"))
			}
		}
		if _, ok := apimachineryvalidation.BannedOwners[gvk]; ok {
			allErrs = append(allErrs, field.Invalid(fldPath, ref, fmt.Sprintf("%s is disallowed from being an owner", gvk)))
		}
		if ref.Controller != nil && *ref.Controller {
			if name := ref.Kind + "/" + ref.Name; controller == "" {
				controller = name
			} else {
				allErrs = append(allErrs, field.Invalid(fldPath, refs,
					fmt.Sprintf("Only one reference can have Controller set to true. Found \"true\" in references for %v and %v", controller, name)))
			}
		}
	}
	return allErrs
}

// validateManagedFields is 1.31's ValidateManagedFields.
func validateManagedFields(list []metav1.ManagedFieldsEntry, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	for i, f := range list {
		fldPath := fldPath.Index(i)
		if f.Operation != metav1.ManagedFieldsOperationApply && f.Operation != metav1.ManagedFieldsOperationUpdate {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("operation"), f.Operation, "must be `Apply` or `Update`"))
		}
		if f.FieldsType != "" && f.FieldsType != "FieldsV1" {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("fieldsType"), f.FieldsType, "must be `FieldsV1`"))
		}
		allErrs = append(allErrs, metav1validation.ValidateFieldManager(f.Manager, fldPath.Child("manager"))...)
		if len(f.Subresource) > metav1validation.MaxSubresourceNameLength {
			allErrs = append(allErrs, field.TooLong(fldPath.Child("subresource"), f.Subresource, metav1validation.MaxSubresourceNameLength))
		}
	}
	return allErrs
}

// DriverNameMaxLength is the maximum length in bytes of a driver name
// (the limit of a CSI driver name, which upstream reuses).
const DriverNameMaxLength = 63

// ValidateDNS1123Label reports each DNS-label failure of value as Invalid
// (corevalidation.ValidateDNS1123Label). An empty value is Invalid, not
// Required.
func ValidateDNS1123Label(value string, fldPath *field.Path) field.ErrorList {
	return InvalidEach(fldPath, value, validation.IsDNS1123Label(value))
}

// ValidateDNS1123Subdomain reports each DNS-subdomain failure of value as
// Invalid (corevalidation.ValidateDNS1123Subdomain). An empty value is
// Invalid, not Required.
func ValidateDNS1123Subdomain(value string, fldPath *field.Path) field.ErrorList {
	return InvalidEach(fldPath, value, validation.IsDNS1123Subdomain(value))
}

// InvalidEach is an Invalid error of value at fldPath for each message of
// a check such as validation.IsDNS1123Label.
func InvalidEach(fldPath *field.Path, value interface{}, msgs []string) field.ErrorList {
	var allErrs field.ErrorList
	for _, msg := range msgs {
		allErrs = append(allErrs, field.Invalid(fldPath, value, msg))
	}
	return allErrs
}

// ValidateDriverName applies the CSI driver name rules that upstream reuses
// for DRA driver names (corevalidation.ValidateCSIDriverName): empty ⇒
// Required (and, as upstream, also Invalid); longer than 63 bytes ⇒ TooLong
// "must have at most 63 bytes"; the lower-cased value must be a DNS
// subdomain ⇒ Invalid with the original value.
func ValidateDriverName(name string, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	if len(name) == 0 {
		allErrs = append(allErrs, field.Required(fldPath, ""))
	}
	if len(name) > DriverNameMaxLength {
		allErrs = append(allErrs, TooLongBytes(fldPath, name, DriverNameMaxLength))
	}
	return append(allErrs, InvalidEach(fldPath, name, validation.IsDNS1123Subdomain(strings.ToLower(name)))...)
}

// StatusView is what the status invariants need to know about one
// ResourceClaim status, whatever its version.
type StatusView struct {
	// Allocated: status.allocation is set.
	Allocated bool
	// NotShareable is true when the allocation is set and explicitly not
	// shareable (v1alpha1, v1alpha2). v1alpha3 has no shareable field: false.
	NotShareable          bool
	ReservedFor           []Consumer
	DeallocationRequested bool
}

// ValidateReservedForInvariants checks the rules that tie a non-empty
// reservedFor list to the allocation (rules 49–51): allocation required;
// if shareableRule, a non-shareable allocation has at most one consumer;
// no new entries (compared as whole structs) while the claim is deleted or
// deallocation is requested.
func ValidateReservedForInvariants(status, oldStatus StatusView, claimDeleted, shareableRule bool, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	if len(status.ReservedFor) == 0 {
		return nil
	}
	reservedForPath := fldPath.Child("reservedFor")
	if !status.Allocated {
		return append(allErrs, field.Forbidden(reservedForPath, "may not be specified when `allocated` is not set"))
	}
	if shareableRule && status.NotShareable && len(status.ReservedFor) > 1 {
		allErrs = append(allErrs, field.Forbidden(reservedForPath, "may not be reserved more than once"))
	}
	if claimDeleted || status.DeallocationRequested {
		if slices.ContainsFunc(status.ReservedFor, func(c Consumer) bool { return !slices.Contains(oldStatus.ReservedFor, c) }) {
			allErrs = append(allErrs, field.Forbidden(reservedForPath, "new entries may not be added while `deallocationRequested` or `deletionTimestamp` are set"))
		}
	}
	return allErrs
}

// ValidateDeallocation checks the deallocationRequested rules (53–55).
func ValidateDeallocation(status, oldStatus StatusView, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	if !oldStatus.DeallocationRequested && status.DeallocationRequested && len(status.ReservedFor) > 0 {
		allErrs = append(allErrs, field.Forbidden(fldPath.Child("deallocationRequested"), "deallocation cannot be requested while `reservedFor` is set"))
	}
	if !status.Allocated && status.DeallocationRequested {
		allErrs = append(allErrs, field.Forbidden(fldPath, "`allocation` must be set when `deallocationRequested` is set"))
	}
	// Once requested, deallocation may already have started; the flag is
	// cleared together with the allocation.
	if oldStatus.DeallocationRequested && !status.DeallocationRequested && status.Allocated {
		allErrs = append(allErrs, field.Forbidden(fldPath.Child("deallocationRequested"), "may not be cleared when `allocation` is set"))
	}
	return allErrs
}

// ValidateImmutableField is apimachinery's ValidateImmutableField: Invalid
// with the new value and "field is immutable" unless old and new are
// semantically equal. reflect.DeepEqual answers the usual case (an unchanged
// allocation) more cheaply first (TestImmutableFieldShortcut).
func ValidateImmutableField(newVal, oldVal interface{}, fldPath *field.Path) field.ErrorList {
	if reflect.DeepEqual(oldVal, newVal) || apiequality.Semantic.DeepEqual(oldVal, newVal) {
		return nil
	}
	return field.ErrorList{field.Invalid(fldPath, newVal, FieldImmutableErrorMsg)}
}

// FieldImmutableErrorMsg is the detail of an immutability error.
const FieldImmutableErrorMsg = "field is immutable"

// ReservedForMaxSize is ResourceClaimReservedForMaxSize, the same in all
// three versions.
const ReservedForMaxSize = v1alpha1.ResourceClaimReservedForMaxSize

// Consumer is the version-neutral ResourceClaimConsumerReference. The three
// API versions declare field-for-field identical structs, so a
// []v1alphaN.ResourceClaimConsumerReference converts with Consumers.
type Consumer struct {
	APIGroup string
	Resource string
	Name     string
	UID      types.UID
}

// consumerLike is any of the versioned ResourceClaimConsumerReference types.
type consumerLike interface {
	~struct {
		APIGroup string    `json:"apiGroup,omitempty"`
		Resource string    `json:"resource"`
		Name     string    `json:"name"`
		UID      types.UID `json:"uid"`
	}
}

// Consumers converts a versioned reservedFor list.
func Consumers[T consumerLike](refs []T) []Consumer {
	if refs == nil {
		return nil
	}
	out := make([]Consumer, len(refs))
	for i, ref := range refs {
		out[i] = Consumer(ref)
	}
	return out
}

func validateConsumer(ref Consumer, fldPath *field.Path) field.ErrorList {
	return RequiredEach(fldPath, "resource", ref.Resource, "name", ref.Name, "uid", string(ref.UID))
}

// RequiredEach is a Required error at each child of fldPath, given as
// name and value pairs, whose value is empty.
func RequiredEach(fldPath *field.Path, fields ...string) field.ErrorList {
	var allErrs field.ErrorList
	for i := 0; i+1 < len(fields); i += 2 {
		if fields[i+1] == "" {
			allErrs = append(allErrs, field.Required(fldPath.Child(fields[i]), ""))
		}
	}
	return allErrs
}

// ValidateReservedForLegacy is the reservedFor check of 1.26.2+ and 1.27–1.30
// (validateResourceClaimConsumers): in index order, an entry whose UID was
// seen before is a Duplicate at [i].uid and is not checked further, other
// entries get their Required checks; a list longer than 32 gets TooLong last.
func ValidateReservedForLegacy(consumers []Consumer, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	seen := make(map[types.UID]bool, len(consumers))
	for i, consumer := range consumers {
		idxPath := fldPath.Index(i)
		if seen[consumer.UID] {
			allErrs = append(allErrs, field.Duplicate(idxPath.Child("uid"), consumer.UID))
		} else {
			allErrs = append(allErrs, validateConsumer(consumer, idxPath)...)
			seen[consumer.UID] = true
		}
	}
	if len(consumers) > ReservedForMaxSize {
		allErrs = append(allErrs, TooLongMaxLength(fldPath, len(consumers), ReservedForMaxSize))
	}
	return allErrs
}

// ValidateReservedForSet is the reservedFor check of 1.31 (validateSet keyed
// by uid): every entry is checked, then TooLong, then all Duplicates.
func ValidateReservedForSet(consumers []Consumer, fldPath *field.Path) field.ErrorList {
	return ValidateSet(consumers, ReservedForMaxSize, validateConsumer,
		func(c Consumer) (types.UID, string) { return c.UID, "uid" }, fldPath)
}

// ValidateNodeSelector reproduces corevalidation.ValidateNodeSelector
// (identical in 1.26, 1.30 and 1.31). k8s.io/kubernetes cannot be imported,
// so the rules are written out here.
func ValidateNodeSelector(nodeSelector *v1.NodeSelector, fldPath *field.Path) field.ErrorList {
	allErrs := field.ErrorList{}
	termFldPath := fldPath.Child("nodeSelectorTerms")
	if len(nodeSelector.NodeSelectorTerms) == 0 {
		return append(allErrs, field.Required(termFldPath, "must have at least one node selector term"))
	}
	for i, term := range nodeSelector.NodeSelectorTerms {
		for j, req := range term.MatchExpressions {
			allErrs = append(allErrs, validateNodeSelectorRequirement(req, termFldPath.Index(i).Child("matchExpressions").Index(j))...)
		}
		for j, req := range term.MatchFields {
			allErrs = append(allErrs, validateNodeFieldSelectorRequirement(req, termFldPath.Index(i).Child("matchFields").Index(j))...)
		}
	}
	return allErrs
}

func validateNodeSelectorRequirement(rq v1.NodeSelectorRequirement, fldPath *field.Path) field.ErrorList {
	allErrs := field.ErrorList{}
	switch rq.Operator {
	case v1.NodeSelectorOpIn, v1.NodeSelectorOpNotIn:
		if len(rq.Values) == 0 {
			allErrs = append(allErrs, field.Required(fldPath.Child("values"), "must be specified when `operator` is 'In' or 'NotIn'"))
		}
	case v1.NodeSelectorOpExists, v1.NodeSelectorOpDoesNotExist:
		if len(rq.Values) > 0 {
			allErrs = append(allErrs, field.Forbidden(fldPath.Child("values"), "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"))
		}
	case v1.NodeSelectorOpGt, v1.NodeSelectorOpLt:
		if len(rq.Values) != 1 {
			allErrs = append(allErrs, field.Required(fldPath.Child("values"), "must be specified single value when `operator` is 'Lt' or 'Gt'"))
		}
	default:
		allErrs = append(allErrs, field.Invalid(fldPath.Child("operator"), rq.Operator, "not a valid selector operator"))
	}
	return append(allErrs, Normalize(metav1validation.ValidateLabelName(rq.Key, fldPath.Child("key")))...)
}

func validateNodeFieldSelectorRequirement(req v1.NodeSelectorRequirement, fldPath *field.Path) field.ErrorList {
	allErrs := field.ErrorList{}
	switch req.Operator {
	case v1.NodeSelectorOpIn, v1.NodeSelectorOpNotIn:
		if len(req.Values) != 1 {
			allErrs = append(allErrs, field.Required(fldPath.Child("values"),
				"must be only one value when `operator` is 'In' or 'NotIn' for node field selector"))
		}
	default:
		allErrs = append(allErrs, field.Invalid(fldPath.Child("operator"), req.Operator, "not a valid selector operator"))
	}
	// metav1.ObjectNameField is the only supported key; its values are node names.
	if req.Key != "metadata.name" {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("key"), req.Key, "not a valid field selector key"))
	} else {
		for i, v := range req.Values {
			allErrs = append(allErrs, ValidateDNS1123Subdomain(v, fldPath.Child("values").Index(i))...)
		}
	}
	return allErrs
}

// OmittedValue is the value upstream reports for values too large to print.
const OmittedValue = "<value omitted>"

// TooLongMaxLength reproduces field.TooLongMaxLength of apimachinery
// 0.26–0.31: FieldValueTooLong with the given value (for lists, the count)
// and the detail "may not be longer than <max>". apimachinery 0.36 replaced
// both the value and the wording, so the error is built by hand.
func TooLongMaxLength(fldPath *field.Path, value interface{}, maxLength int) *field.Error {
	return tooLong(fldPath, value, fmt.Sprintf("may not be longer than %d", maxLength))
}

// TooLongBytes reproduces field.TooLong of apimachinery 0.26–0.31:
// FieldValueTooLong with the value and the detail "must have at most <max>
// bytes". Upstream uses it for driver names.
func TooLongBytes(fldPath *field.Path, value interface{}, maxLength int) *field.Error {
	return tooLong(fldPath, value, fmt.Sprintf("must have at most %d bytes", maxLength))
}

func tooLong(fldPath *field.Path, value interface{}, detail string) *field.Error {
	return &field.Error{Type: field.ErrorTypeTooLong, Field: fldPath.String(), BadValue: value, Detail: detail}
}

// Normalize clears the bookkeeping fields that apimachinery 0.33+ attaches
// to some errors (Origin, CoveredByDeclarative, FromImperative). They did
// not exist in 1.26–1.31, are not part of the printed error, and would make
// the same finding compare unequal depending on which helper produced it.
func Normalize(errs field.ErrorList) field.ErrorList {
	for _, e := range errs {
		e.Origin = ""
		e.CoveredByDeclarative = false
		e.FromImperative = false
	}
	return errs
}

// CELError is upstream's convertCELErrorToValidationError: the field error
// of a CEL expression that does not compile.
func CELError(fldPath *field.Path, expression string, err error) *field.Error {
	var celErr *apiservercel.Error
	if errors.As(err, &celErr) {
		switch celErr.Type {
		case apiservercel.ErrorTypeRequired:
			return field.Required(fldPath, celErr.Detail)
		case apiservercel.ErrorTypeInvalid:
			return field.Invalid(fldPath, expression, celErr.Detail)
		case apiservercel.ErrorTypeInternal:
			return field.InternalError(fldPath, celErr)
		}
	}
	return field.InternalError(fldPath, fmt.Errorf("unsupported error type: %w", err))
}

// ValidateSlice is upstream 1.31's validateSlice: every item is checked,
// then a list longer than maxSize gets one TooLong error carrying the count.
// A negative maxSize disables the length check.
func ValidateSlice[T any](slice []T, maxSize int, validateItem func(T, *field.Path) field.ErrorList, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	for i, item := range slice {
		allErrs = append(allErrs, validateItem(item, fldPath.Index(i))...)
	}
	if maxSize >= 0 && len(slice) > maxSize {
		// The count, not the list: the list is already too long to print.
		allErrs = append(allErrs, TooLongMaxLength(fldPath, len(slice), maxSize))
	}
	return allErrs
}

// ValidateSet is upstream 1.31's validateSet: ValidateSlice, then one
// Duplicate error for every item whose key was seen before, at
// <path>[i].<keyField> (or <path>[i] when keyField is "").
func ValidateSet[T any, K comparable](slice []T, maxSize int, validateItem func(T, *field.Path) field.ErrorList, itemKey func(T) (K, string), fldPath *field.Path) field.ErrorList {
	allErrs := ValidateSlice(slice, maxSize, validateItem, fldPath)
	seen := make(map[K]bool, len(slice))
	for i, item := range slice {
		key, fieldName := itemKey(item)
		childPath := fldPath.Index(i)
		if fieldName != "" {
			childPath = childPath.Child(fieldName)
		}
		if seen[key] {
			allErrs = append(allErrs, field.Duplicate(childPath, key))
		} else {
			seen[key] = true
		}
	}
	return allErrs
}
