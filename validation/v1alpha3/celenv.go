package v1alpha3

import (
	"fmt"
	"sync"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/ext"
	"k8s.io/apimachinery/pkg/util/version"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	apiservercel "k8s.io/apiserver/pkg/cel"
	"k8s.io/apiserver/pkg/cel/environment"
	"k8s.io/apiserver/pkg/cel/library"
)

// The CEL environments of 1.30 and 1.31 for new selectors, rebuilt from
// today's libraries. 1.31's is k8s.io/dynamic-resource-allocation v0.31's
// mustBuildEnv: the base libraries up to 1.31's compatibility
// version, 1.30 (none of the later format, two-variable comprehension,
// semver normalizing or lists libraries), and 1.31's DRA declarations (the
// device variable, DRA's semver library and cel.bind).

// maxAttributesAndCapacities is 1.31's declared bound of the device's maps
// (resourceapi.ResourceSliceMaxAttributesAndCapacitiesPerDevice).
const maxAttributesAndCapacities = 32

var celEnv131 = sync.OnceValues(func() (*cel.Env, error) {
	field := func(name string, declType *apiservercel.DeclType) *apiservercel.DeclField {
		return apiservercel.NewDeclField(name, declType, true, nil, nil)
	}
	nested := func(inner *apiservercel.DeclType) *apiservercel.DeclType {
		return apiservercel.NewMapType(apiservercel.StringType,
			apiservercel.NewMapType(apiservercel.StringType, inner, maxAttributesAndCapacities), maxAttributesAndCapacities)
	}
	deviceType := apiservercel.NewObjectType("kubernetes.DRADevice", map[string]*apiservercel.DeclField{
		"driver":     field("driver", apiservercel.StringType),
		"attributes": field("attributes", nested(apiservercel.AnyType)),
		"capacity":   field("capacity", nested(apiservercel.QuantityDeclType)),
	})
	set, err := environment.MustBaseEnvSet(version.MajorMinor(1, 30)).Extend(environment.VersionedOptions{
		IntroducedVersion: version.MajorMinor(1, 0),
		EnvOptions: []cel.EnvOption{
			cel.Variable("device", deviceType.CelType()),
			library.SemverLib(library.SemverVersion(0)),
			ext.Bindings(ext.BindingsVersion(0)),
		},
		DeclTypes: []*apiservercel.DeclType{deviceType},
	})
	if err != nil {
		return nil, fmt.Errorf("building Kubernetes 1.31's CEL environment: %w", err)
	}
	return set.NewExpressionsEnv(), nil
})

// celEnv130 is Kubernetes 1.30's environment for new selectors of named
// resources, as k8s.io/dynamic-resource-allocation v0.30's mustBuildEnv
// built it: the base libraries up to 1.29, a map of each attribute type by
// name (attributes.quantity, attributes.bool, …) and DRA's semver library.
var celEnv130 = sync.OnceValues(func() (*cel.Env, error) {
	options := []cel.EnvOption{library.SemverLib(library.SemverVersion(0))}
	for name, valueType := range map[string]*cel.Type{"quantity": apiservercel.QuantityType, "bool": cel.BoolType, "int": cel.IntType,
		"intslice": cel.ListType(cel.IntType), "string": cel.StringType, "stringslice": cel.ListType(cel.StringType), "version": apiservercel.SemverType} {
		options = append(options, cel.Variable("attributes."+name, cel.MapType(cel.StringType, valueType)))
	}
	set, err := environment.MustBaseEnvSet(version.MajorMinor(1, 29)).Extend(environment.VersionedOptions{
		IntroducedVersion: version.MajorMinor(1, 0),
		EnvOptions:        options,
	})
	if err != nil {
		return nil, fmt.Errorf("building Kubernetes 1.30's CEL environment: %w", err)
	}
	return set.NewExpressionsEnv(), nil
})

// CompileCEL130 compiles expression as 1.30's CompileCELExpression of named
// resources did for a new selector: the same checks, error types and details.
func CompileCEL130(expression string) *apiservercel.Error {
	return compileIn(celEnv130, expression, false)
}

// compileCEL131 compiles expression as 1.31's CompileCELExpression did for
// a new expression: the same checks, error types and details.
func compileCEL131(expression string) *apiservercel.Error {
	return compileIn(celEnv131, expression, true)
}

// compileIn compiles expression in env as 1.30 and 1.31 did: it must
// evaluate to bool, or also to the unknown type (anyOK, 1.31).
func compileIn(env func() (*cel.Env, error), expression string, anyOK bool) *apiservercel.Error {
	invalid := func(detail string) *apiservercel.Error {
		return &apiservercel.Error{Type: apiservercel.ErrorTypeInvalid, Detail: detail}
	}
	internal := func(detail string) *apiservercel.Error {
		return &apiservercel.Error{Type: apiservercel.ErrorTypeInternal, Detail: detail}
	}
	e, err := env()
	if err != nil {
		return internal("unexpected error loading CEL environment: " + err.Error())
	}
	ast, issues := e.Compile(expression)
	if issues != nil {
		return invalid("compilation failed: " + issues.String())
	}
	switch t := ast.OutputType(); {
	case anyOK && t != cel.BoolType && t != cel.AnyType:
		return invalid(fmt.Sprintf("must evaluate to %v or the unknown type, not %v", cel.BoolType.String(), t.String()))
	case !anyOK && t != cel.BoolType:
		return invalid(fmt.Sprintf("must evaluate to %v", cel.BoolType.String()))
	}
	if _, err := cel.AstToCheckedExpr(ast); err != nil {
		return internal("unexpected compilation error: " + err.Error())
	}
	if _, err := e.Program(ast, cel.InterruptCheckFrequency(celconfig.CheckFrequency)); err != nil {
		return internal("program instantiation failed: " + err.Error())
	}
	return nil
}
