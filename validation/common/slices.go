package common

import "k8s.io/apimachinery/pkg/util/validation/field"

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

// StringKey uses the item itself as the key for ValidateSet.
func StringKey(item string) (string, string) { return item, "" }
