package webhook

import "github.com/claimbridge/claimbridge/validation"

// The validator's request and response are the validation package's.
type (
	// Operation is the admission operation handed to the validator.
	Operation = validation.Operation
	// ValidationRequest is one write to validate.
	ValidationRequest = validation.Request
	// ValidationResponse is the verdict on one write.
	ValidationResponse = validation.Response
)

// The operations the validator sees.
const (
	OperationCreate = validation.Create
	OperationUpdate = validation.Update
)

// ValidateFunc validates one admission request; its error means unusable
// input, findings go into the response.
type ValidateFunc func(ValidationRequest) (ValidationResponse, error)

var defaultValidator ValidateFunc = validation.Validate
