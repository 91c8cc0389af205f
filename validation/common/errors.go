package common

import (
	"errors"
	"fmt"

	"k8s.io/apimachinery/pkg/util/validation/field"
	apiservercel "k8s.io/apiserver/pkg/cel"
)

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

// StringKey uses the item itself as the key for ValidateSet.
func StringKey(item string) (string, string) { return item, "" }
