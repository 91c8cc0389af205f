package validation

import (
	"errors"
	"fmt"
	"reflect"

	"k8s.io/apimachinery/pkg/util/validation/field"
	sigsjson "sigs.k8s.io/json"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/conversion"
)

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
