package v1alpha3

import (
	"math"
	"sync"

	"k8s.io/apimachinery/pkg/util/validation/field"
	apiservercel "k8s.io/apiserver/pkg/cel"
	"k8s.io/apiserver/pkg/cel/environment"
	dracel "k8s.io/dynamic-resource-allocation/cel"

	api "github.com/claimbridge/claimbridge/api/v1alpha3"
	"github.com/claimbridge/claimbridge/validation/common"
)

// celCheck is the outcome of compiling one expression: an error (nil when
// the expression is valid) and the estimated worst-case cost
// (math.MaxUint64 when unknown).
type celCheck struct {
	err     *apiservercel.Error
	maxCost uint64
}

// celCacheMaxEntries bounds the compilation cache; when it is full, it is
// emptied (selectors repeat across claims from the same template, so a
// simple bound keeps the hot set without an LRU).
const celCacheMaxEntries = 4096

type celKey struct {
	stored     bool
	expression string
}

var celCache = struct {
	sync.Mutex
	entries map[celKey]celCheck
}{entries: map[celKey]celCheck{}}

// compileCEL checks expression for a create (stored false) or an update
// (stored true) and estimates its worst-case cost (the warning about 1.32's
// limit).
//
//   - A create compiles in 1.31's environment for new expressions
//     (compileCEL131): what 1.31 refused, claimbridge refuses.
//   - An update compiles in today's environment for stored expressions
//     (k8s.io/dynamic-resource-allocation v0.36, 1.31's feature set: no
//     consumable capacity, no list attributes). The spec is immutable, so
//     the expression passed a create; what only this environment accepts
//     was stored by a claimbridge build that compiled creates with it, and
//     refusing it now would refuse every later write of the claim, the
//     removal of its finalizers included. (1.31 ran the create rules on
//     updates too.)
//
// The cost is estimated in today's environment. Results are cached:
// compilation is the expensive part of validating a claim.
func compileCEL(expression string, stored bool) celCheck {
	key := celKey{stored: stored, expression: expression}
	celCache.Lock()
	result, ok := celCache.entries[key]
	celCache.Unlock()
	if ok {
		return result
	}

	result = celCheck{maxCost: math.MaxUint64}
	if !stored {
		result.err = compileCEL131(expression) // 1.31's verdict
	}
	if result.err == nil { // today's verdict on an update, and the cost
		envType := environment.NewExpressions
		if stored {
			envType = environment.StoredExpressions
		}
		compiled := dracel.GetCompiler(dracel.Features{}).CompileCELExpression(expression, dracel.Options{EnvType: &envType})
		switch {
		case compiled.Error == nil:
			result.maxCost = compiled.MaxCost
		case compiled.Program != nil:
			// Only cost estimation failed; 1.31 did not estimate costs.
		case stored:
			result.err = compiled.Error
		}
	}

	celCache.Lock()
	if len(celCache.entries) >= celCacheMaxEntries {
		celCache.entries = map[celKey]celCheck{}
	}
	celCache.entries[key] = result
	celCache.Unlock()
	return result
}

func validateCELSelector(selector api.CELDeviceSelector, fldPath *field.Path, stored bool) field.ErrorList {
	result := compileCEL(selector.Expression, stored)
	if result.err == nil {
		return nil
	}
	return field.ErrorList{common.CELError(fldPath.Child("expression"), selector.Expression, result.err)}
}
