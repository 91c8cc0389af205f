package common

import (
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// ReservedForMaxSize is ResourceClaimReservedForMaxSize, the same in all
// three versions.
const ReservedForMaxSize = 32

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
