package v1alpha3

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/util/validation/field"

	api "github.com/claimbridge/claimbridge/api/v1alpha3"
)

// TestCELLibrariesOf131: a create compiles in 1.31's environment for new
// expressions (the details are the 1.31 oracle's, recorded in test/oracle); an
// update of a claim whose expression only today's environment compiles, as
// earlier claimbridge builds stored them, stays possible.
func TestCELLibrariesOf131(t *testing.T) {
	expressionPath := requestsPath(0).Child("selectors").Index(0).Child("cel", "expression")
	scenarios := map[string]struct {
		expression string
		wantCreate field.ErrorList
	}{
		"format library (1.31, beyond the compatibility version 1.30)": {
			expression: `!format.dns1123Label().validate(device.driver).hasValue()`,
			wantCreate: field.ErrorList{field.Invalid(expressionPath, `!format.dns1123Label().validate(device.driver).hasValue()`,
				"compilation failed: ERROR: <input>:1:2: undeclared reference to 'format' (in container '')\n | !format.dns1123Label().validate(device.driver).hasValue()\n | .^\n"+
					"ERROR: <input>:1:21: undeclared reference to 'dns1123Label' (in container '')\n | !format.dns1123Label().validate(device.driver).hasValue()\n | ....................^\n"+
					"ERROR: <input>:1:32: undeclared reference to 'validate' (in container '')\n | !format.dns1123Label().validate(device.driver).hasValue()\n | ...............................^")},
		},
		"two-variable comprehension (1.32)": {
			expression: `[1,2].all(i, v, v > 0)`,
			wantCreate: field.ErrorList{field.Invalid(expressionPath, `[1,2].all(i, v, v > 0)`,
				"compilation failed: ERROR: <input>:1:10: undeclared reference to 'all' (in container '')\n | [1,2].all(i, v, v > 0)\n | .........^\n"+
					"ERROR: <input>:1:11: undeclared reference to 'i' (in container '')\n | [1,2].all(i, v, v > 0)\n | ..........^\n"+
					"ERROR: <input>:1:14: undeclared reference to 'v' (in container '')\n | [1,2].all(i, v, v > 0)\n | .............^\n"+
					"ERROR: <input>:1:17: undeclared reference to 'v' (in container '')\n | [1,2].all(i, v, v > 0)\n | ................^")},
		},
		"normalizing semver overload (1.33)": {
			expression: `isSemver("v1.0", true)`,
			wantCreate: field.ErrorList{field.Invalid(expressionPath, `isSemver("v1.0", true)`,
				"compilation failed: ERROR: <input>:1:9: found no matching overload for 'isSemver' applied to '(string, bool)'\n | isSemver(\"v1.0\", true)\n | ........^")},
		},
		"cel-go lists extension (1.34)": {
			expression: `[1,2].reverse()[0] == 2`,
			wantCreate: field.ErrorList{field.Invalid(expressionPath, `[1,2].reverse()[0] == 2`,
				"compilation failed: ERROR: <input>:1:14: undeclared reference to 'reverse' (in container '')\n | [1,2].reverse()[0] == 2\n | .............^")},
		},
		"strings format method (1.29)":    {expression: `"%s".format(["a"]) == "a"`},
		"ip library (1.30)":               {expression: `ip("1.2.3.4").family() == 4`},
		"DRA's semver library":            {expression: `device.attributes["dra.example.com"].version.isGreaterThan(semver("1.0.0"))`},
		"cel.bind":                        {expression: `cel.bind(x, 1, x == 1)`},
		"sets library (1.29)":             {expression: `sets.contains([1, 2], [1])`},
		"quantity on capacity (1.28)":     {expression: `device.capacity["dra.example.com"].memory.compareTo(quantity("1Gi")) >= 0`},
		"optional field selection (1.28)": {expression: `device.attributes["dra.example.com"].?model.orValue("") == ""`},
	}
	for name, scenario := range scenarios {
		t.Run(name, func(t *testing.T) {
			claim := testClaim(goodName, goodNS, validClaimSpec)
			claim.Spec.Devices.Requests[0].Selectors = []api.DeviceSelector{{CEL: &api.CELDeviceSelector{Expression: scenario.expression}}}
			if diff := cmp.Diff(scenario.wantCreate, ValidateResourceClaim(claim, nil)); diff != "" {
				t.Errorf("create (-want +got):\n%s", diff)
			}
			old := claim.DeepCopy()
			old.ResourceVersion = "1"
			updated := old.DeepCopy()
			updated.Labels = map[string]string{"a": "b"}
			if errs := ValidateResourceClaimUpdate(updated, old, nil); len(errs) != 0 {
				t.Errorf("update of the stored claim: %v", errs)
			}
		})
	}
}
