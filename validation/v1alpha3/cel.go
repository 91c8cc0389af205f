package v1alpha3

import (
	"math"
	"regexp"
	"strings"

	apiservercel "k8s.io/apiserver/pkg/cel"
	"k8s.io/apiserver/pkg/cel/environment"
	dracel "k8s.io/dynamic-resource-allocation/cel"
	"k8s.io/utils/lru"
)

// celCheck is the outcome of compiling one expression: an error (nil when
// the expression is valid) and the estimated worst-case cost
// (math.MaxUint64 when unknown).
type celCheck struct {
	err     *apiservercel.Error
	maxCost uint64
}

// options are what the spec rules need beside the object.
type options struct {
	stored bool       // an update: CEL in the stored-expressions environment
	cel    *lru.Cache // compiled selectors, celKey to celCheck; nil compiles each
}

type celKey struct {
	stored     bool
	expression string
}

// compileCEL checks expression for a create or an update (opts.stored) and
// estimates its worst-case cost in today's environment (the warning about
// 1.32's limit). A create compiles in 1.31's environment for new
// expressions (compileCEL131); an update in today's environment for stored
// expressions (1.31's feature set), since the immutable spec may hold what
// an earlier build accepted, and refusing it would refuse every later write
// of the claim. Results are kept in opts.cel.
func compileCEL(expression string, opts options) celCheck {
	key := celKey{stored: opts.stored, expression: expression}
	if opts.cel != nil {
		if cached, ok := opts.cel.Get(key); ok {
			return cached.(celCheck)
		}
	}
	result := celCheck{maxCost: math.MaxUint64}
	if !opts.stored {
		result.err = compileCEL131(expression) // 1.31's verdict
	}
	if result.err == nil { // today's verdict on an update, and the cost
		envType := environment.NewExpressions
		if opts.stored {
			envType = environment.StoredExpressions
		}
		compiled := dracel.GetCompiler(dracel.Features{}).CompileCELExpression(expression, dracel.Options{EnvType: &envType})
		switch {
		case compiled.Error == nil:
			result.maxCost = compiled.MaxCost
		case compiled.Program != nil:
			// Only cost estimation failed; 1.31 did not estimate costs.
		case opts.stored:
			result.err = in131Terms(compiled.Error)
		}
	}
	if opts.cel != nil {
		opts.cel.Add(key, result)
	}
	return result
}

// dynType is today's cel-go name of the dynamic type in a type signature,
// which 1.31's called any.
var dynType = regexp.MustCompile(`\bdyn\b`)

// in131Terms words err as 1.31 did: the first line of a compilation error
// names its types; the lines after it quote the expression.
func in131Terms(err *apiservercel.Error) *apiservercel.Error {
	first, rest, found := strings.Cut(err.Detail, "\n")
	e := *err
	e.Detail = dynType.ReplaceAllString(first, "any")
	if found {
		e.Detail += "\n" + rest
	}
	return &e
}
