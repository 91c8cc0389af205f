package common

import (
	"reflect"

	v1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/claimbridge/claimbridge/api/v1alpha1"
)

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
		old := make(map[Consumer]bool, len(oldStatus.ReservedFor))
		for _, c := range oldStatus.ReservedFor {
			old[c] = true
		}
		for _, c := range status.ReservedFor {
			if !old[c] {
				allErrs = append(allErrs, field.Forbidden(reservedForPath, "new entries may not be added while `deallocationRequested` or `deletionTimestamp` are set"))
				break
			}
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

// ValidateAllocationImmutable reports a change of an allocation that was
// already set (rule 52); setting and clearing are not changes here.
func ValidateAllocationImmutable[T any](allocation, oldAllocation *T, fldPath *field.Path) field.ErrorList {
	if allocation == nil || oldAllocation == nil {
		return nil
	}
	return ValidateImmutableField(allocation, oldAllocation, fldPath)
}

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
	var allErrs field.ErrorList
	if ref.Resource == "" {
		allErrs = append(allErrs, field.Required(fldPath.Child("resource"), ""))
	}
	if ref.Name == "" {
		allErrs = append(allErrs, field.Required(fldPath.Child("name"), ""))
	}
	if ref.UID == "" {
		allErrs = append(allErrs, field.Required(fldPath.Child("uid"), ""))
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
		allErrs = append(allErrs, validateNodeSelectorTerm(term, termFldPath.Index(i))...)
	}
	return allErrs
}

func validateNodeSelectorTerm(term v1.NodeSelectorTerm, fldPath *field.Path) field.ErrorList {
	allErrs := field.ErrorList{}
	for j, req := range term.MatchExpressions {
		allErrs = append(allErrs, validateNodeSelectorRequirement(req, fldPath.Child("matchExpressions").Index(j))...)
	}
	for j, req := range term.MatchFields {
		allErrs = append(allErrs, validateNodeFieldSelectorRequirement(req, fldPath.Child("matchFields").Index(j))...)
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
			for _, msg := range validation.IsDNS1123Subdomain(v) {
				allErrs = append(allErrs, field.Invalid(fldPath.Child("values").Index(i), v, msg))
			}
		}
	}
	return allErrs
}
