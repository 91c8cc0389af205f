package classic_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"

	api1 "github.com/claimbridge/claimbridge/api/v1alpha1"
	api2 "github.com/claimbridge/claimbridge/api/v1alpha2"
	"github.com/claimbridge/claimbridge/validation/classic"
	"github.com/claimbridge/claimbridge/validation/common"
)

// The tables below are written once, on JSON objects, and run against the
// entry points of every version that binds the classic rules.

const (
	goodName = "foo"
	badName  = "!@#$%^"

	dnsSubdomainMsg = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
)

type obj = map[string]interface{}

// validClaim is a valid claim; with a resourceVersion it is a stored one.
func validClaim(resourceVersion string) obj {
	meta := obj{"name": goodName, "namespace": "ns"}
	if resourceVersion != "" {
		meta["resourceVersion"] = resourceVersion
	}
	return obj{"metadata": meta, "spec": obj{"resourceClassName": goodName, "allocationMode": "WaitForFirstConsumer"}}
}

// allocatedClaim is a stored claim with a shareable allocation.
func allocatedClaim() obj {
	c := validClaim("1")
	c["status"] = obj{"driverName": "valid", "allocation": obj{"shareable": true}}
	return c
}

func with(o obj, mutate func(obj)) obj {
	c := copyObj(o)
	mutate(c)
	return c
}

func copyObj(o obj) obj {
	var c obj
	mustRoundTrip(o, &c)
	return c
}

func mustRoundTrip(in, out interface{}) {
	data, err := json.Marshal(in)
	if err != nil {
		panic(err)
	}
	if err := json.Unmarshal(data, out); err != nil {
		panic(err)
	}
}

func spec(o obj) obj   { return o["spec"].(obj) }
func meta(o obj) obj   { return o["metadata"].(obj) }
func status(o obj) obj { return o["status"].(obj) }

func consumers(n int) []interface{} {
	var refs []interface{}
	for i := 0; i < n; i++ {
		refs = append(refs, obj{"resource": "pods", "name": "foo", "uid": strings.Repeat("x", i+1)})
	}
	return refs
}

// version is one version's entry points, on JSON objects.
type version struct {
	rules classic.Rules
	// newClaim, newTemplate, newClaimSpec and newTemplateSpec return a new
	// value of the version's type.
	newClaim, newTemplate, newClaimSpec, newTemplateSpec func() interface{}
	// mode is an AllocationMode of the version.
	mode func(m string) interface{}
}

func (v version) claim(o obj) interface{}    { return decodeInto(o, v.newClaim()) }
func (v version) template(o obj) interface{} { return decodeInto(o, v.newTemplate()) }

func (v version) validateClaim(c obj) field.ErrorList { return v.rules.ValidateCreate(v.claim(c)) }
func (v version) validateClaimUpdate(c, old obj) field.ErrorList {
	return v.rules.ValidateUpdate(v.claim(c), v.claim(old))
}
func (v version) validateStatusUpdate(c, old obj) field.ErrorList {
	return v.rules.ValidateStatusUpdate(v.claim(c), v.claim(old), false)
}
func (v version) validateTemplate(t obj) field.ErrorList {
	return v.rules.ValidateCreate(v.template(t))
}
func (v version) validateTemplateUpdate(t, old obj) field.ErrorList {
	return v.rules.ValidateUpdate(v.template(t), v.template(old))
}
func (v version) warnings(c obj) []string { return v.rules.Warnings(v.claim(c)) }

// claimSpec and templateSpec are the typed spec of a claim or template, as
// a value.
func (v version) claimSpec(claim obj) interface{} {
	return reflect.ValueOf(decodeInto(spec(claim), v.newClaimSpec())).Elem().Interface()
}

func (v version) templateSpec(template obj) interface{} {
	return reflect.ValueOf(decodeInto(spec(template), v.newTemplateSpec())).Elem().Interface()
}

// defaultedMode is the allocationMode of a claim or template once defaulted.
func (v version) defaultedMode(o obj, template bool) string {
	typed, specOf := v.claim(o), spec
	if template {
		typed, specOf = v.template(o), func(o obj) obj { return spec(spec(o)) }
	}
	v.rules.SetDefaults(typed)
	var defaulted obj
	mustRoundTrip(typed, &defaulted)
	mode, _ := specOf(defaulted)["allocationMode"].(string)
	return mode
}

func decodeInto(o obj, into interface{}) interface{} {
	mustRoundTrip(o, into)
	return into
}

var versions = map[string]version{
	"v1alpha1": {
		rules:           classic.Rules{},
		newClaim:        func() interface{} { return new(api1.ResourceClaim) },
		newTemplate:     func() interface{} { return new(api1.ResourceClaimTemplate) },
		newClaimSpec:    func() interface{} { return new(api1.ResourceClaimSpec) },
		newTemplateSpec: func() interface{} { return new(api1.ResourceClaimTemplateSpec) },
		mode:            func(m string) interface{} { return api1.AllocationMode(m) },
	},
	"v1alpha2": {
		rules:           classic.Rules{},
		newClaim:        func() interface{} { return new(api2.ResourceClaim) },
		newTemplate:     func() interface{} { return new(api2.ResourceClaimTemplate) },
		newClaimSpec:    func() interface{} { return new(api2.ResourceClaimSpec) },
		newTemplateSpec: func() interface{} { return new(api2.ResourceClaimTemplateSpec) },
		mode:            func(m string) interface{} { return api2.AllocationMode(m) },
	},
}

// forEachVersion runs test as a subtest per version.
func forEachVersion(t *testing.T, test func(t *testing.T, v version)) {
	for name, v := range versions {
		t.Run(name, func(t *testing.T) { test(t, v) })
	}
}

func TestValidateResourceClaim(t *testing.T) {
	scenarios := map[string]struct {
		update       func(obj)
		wantFailures func(v version) field.ErrorList
	}{
		"good-claim": {},
		"missing-name": { // rule 1
			update: func(c obj) { delete(meta(c), "name") },
			wantFailures: func(version) field.ErrorList {
				return field.ErrorList{field.Required(field.NewPath("metadata", "name"), "name or generateName is required")}
			},
		},
		"bad-name": { // rule 1
			update: func(c obj) { meta(c)["name"] = badName },
			wantFailures: func(version) field.ErrorList {
				return field.ErrorList{field.Invalid(field.NewPath("metadata", "name"), badName, dnsSubdomainMsg)}
			},
		},
		"missing-namespace": { // rule 1
			update: func(c obj) { delete(meta(c), "namespace") },
			wantFailures: func(version) field.ErrorList {
				return field.ErrorList{field.Required(field.NewPath("metadata", "namespace"), "")}
			},
		},
		"generate-name": {update: func(c obj) { meta(c)["generateName"] = "pvc-" }},
		"bad-classname": { // rule 2
			update: func(c obj) { spec(c)["resourceClassName"] = badName },
			wantFailures: func(version) field.ErrorList {
				return field.ErrorList{field.Invalid(field.NewPath("spec", "resourceClassName"), badName, dnsSubdomainMsg)}
			},
		},
		"empty-classname": { // rule 2: Invalid, not Required
			update: func(c obj) { spec(c)["resourceClassName"] = "" },
			wantFailures: func(version) field.ErrorList {
				return field.ErrorList{field.Invalid(field.NewPath("spec", "resourceClassName"), "", dnsSubdomainMsg)}
			},
		},
		"bad-mode": { // rule 4
			update: func(c obj) { spec(c)["allocationMode"] = "invalid" },
			wantFailures: func(v version) field.ErrorList {
				return field.ErrorList{field.NotSupported(field.NewPath("spec", "allocationMode"), v.mode("invalid"), []string{"Immediate", "WaitForFirstConsumer"})}
			},
		},
		"good-parameters": {update: func(c obj) { spec(c)["parametersRef"] = obj{"kind": "foo", "name": "bar"} }},
		"missing-parameters-kind": { // rule 3
			update: func(c obj) { spec(c)["parametersRef"] = obj{"name": "bar"} },
			wantFailures: func(version) field.ErrorList {
				return field.ErrorList{field.Required(field.NewPath("spec", "parametersRef", "kind"), "")}
			},
		},
		"missing-parameters-name": { // rule 3
			update: func(c obj) { spec(c)["parametersRef"] = obj{"kind": "foo"} },
			wantFailures: func(version) field.ErrorList {
				return field.ErrorList{field.Required(field.NewPath("spec", "parametersRef", "name"), "")}
			},
		},
	}
	forEachVersion(t, func(t *testing.T, v version) {
		for name, scenario := range scenarios {
			t.Run(name, func(t *testing.T) {
				claim := validClaim("")
				if scenario.update != nil {
					scenario.update(claim)
				}
				var want field.ErrorList
				if scenario.wantFailures != nil {
					want = scenario.wantFailures(v)
				}
				if diff := cmp.Diff(want, v.validateClaim(claim)); diff != "" {
					t.Errorf("unexpected errors (-want +got):\n%s", diff)
				}
			})
		}
	})
}

func TestValidateResourceClaimUpdate(t *testing.T) {
	immutable := func(v version, old obj, mutate func(obj)) *field.Error {
		return field.Invalid(field.NewPath("spec"), v.claimSpec(with(old, mutate)), "field is immutable")
	}
	withParameters := with(validClaim("1"), func(c obj) { spec(c)["parametersRef"] = obj{"kind": "foo", "name": "bar"} })
	scenarios := map[string]struct {
		oldClaim     obj
		update       func(obj)
		wantFailures func(v version) field.ErrorList
	}{
		"valid-no-op-update": {oldClaim: validClaim("1")},
		"invalid-update-class": { // rule 5
			oldClaim: validClaim("1"),
			update:   func(c obj) { spec(c)["resourceClassName"] = goodName + "2" },
			wantFailures: func(v version) field.ErrorList {
				return field.ErrorList{immutable(v, validClaim("1"), func(c obj) { spec(c)["resourceClassName"] = goodName + "2" })}
			},
		},
		"invalid-update-remove-parameters": { // rule 5
			oldClaim: withParameters,
			update:   func(c obj) { delete(spec(c), "parametersRef") },
			wantFailures: func(v version) field.ErrorList {
				return field.ErrorList{immutable(v, validClaim("1"), func(obj) {})}
			},
		},
		"invalid-update-mode": { // rule 5
			oldClaim: validClaim("1"),
			update:   func(c obj) { spec(c)["allocationMode"] = "Immediate" },
			wantFailures: func(v version) field.ErrorList {
				return field.ErrorList{immutable(v, validClaim("1"), func(c obj) { spec(c)["allocationMode"] = "Immediate" })}
			},
		},
		"update-reruns-create-rules": { // rule 5 + 1: ObjectMeta create rules run again
			oldClaim: validClaim("1"),
			update:   func(c obj) { meta(c)["finalizers"] = []interface{}{"foo"} },
			wantFailures: func(version) field.ErrorList {
				return field.ErrorList{
					field.Invalid(field.NewPath("metadata", "finalizers").Index(0), "foo", "name is neither a standard finalizer name nor is it fully qualified"),
					field.Invalid(field.NewPath("metadata", "finalizers").Index(0), "foo", "name is neither a standard finalizer name nor is it fully qualified"),
				}
			},
		},
	}
	forEachVersion(t, func(t *testing.T, v version) {
		for name, scenario := range scenarios {
			t.Run(name, func(t *testing.T) {
				claim := copyObj(scenario.oldClaim)
				if scenario.update != nil {
					scenario.update(claim)
				}
				var want field.ErrorList
				if scenario.wantFailures != nil {
					want = scenario.wantFailures(v)
				}
				if diff := cmp.Diff(want, v.validateClaimUpdate(claim, scenario.oldClaim)); diff != "" {
					t.Errorf("unexpected errors (-want +got):\n%s", diff)
				}
			})
		}
	})
}

func TestValidateResourceClaimStatusUpdate(t *testing.T) {
	scenarios := map[string]struct {
		oldClaim     obj
		update       func(obj)
		wantFailures field.ErrorList
	}{
		"valid-no-op-update": {oldClaim: validClaim("1")},
		"add-driver":         {oldClaim: validClaim("1"), update: func(c obj) { c["status"] = obj{"driverName": "valid"} }},
		"add-driver-at-the-length-limit": { // rule 6: 63 bytes are accepted
			oldClaim: validClaim("1"),
			update:   func(c obj) { c["status"] = obj{"driverName": strings.Repeat("a", 63)} },
		},
		"invalid-add-allocation": { // rule 7
			oldClaim:     validClaim("1"),
			update:       func(c obj) { c["status"] = obj{"allocation": obj{}} },
			wantFailures: field.ErrorList{field.Required(field.NewPath("status", "driverName"), "must be specified when `allocation` is set")},
		},
		"add-reservation": {oldClaim: allocatedClaim(), update: func(c obj) { status(c)["reservedFor"] = consumers(32) }},
		"invalid-reserved-for-too-large": { // rule 48
			oldClaim:     allocatedClaim(),
			update:       func(c obj) { status(c)["reservedFor"] = consumers(33) },
			wantFailures: field.ErrorList{common.TooLongMaxLength(field.NewPath("status", "reservedFor"), 33, 32)},
		},
		"invalid-reserved-for-duplicate": { // rule 47
			oldClaim: allocatedClaim(),
			update: func(c obj) {
				status(c)["reservedFor"] = []interface{}{obj{"resource": "pods", "name": "foo", "uid": "1"}, obj{"resource": "pods", "name": "foo", "uid": "1"}}
			},
			wantFailures: field.ErrorList{field.Duplicate(field.NewPath("status", "reservedFor").Index(1).Child("uid"), types.UID("1"))},
		},
		"invalid-reserved-for-not-shared": { // rule 50
			oldClaim:     with(allocatedClaim(), func(c obj) { status(c)["allocation"] = obj{} }),
			update:       func(c obj) { status(c)["reservedFor"] = consumers(2) },
			wantFailures: field.ErrorList{field.Forbidden(field.NewPath("status", "reservedFor"), "may not be reserved more than once")},
		},
		"invalid-reserved-for-no-allocation": { // rule 49
			oldClaim:     validClaim("1"),
			update:       func(c obj) { c["status"] = obj{"reservedFor": consumers(1)} },
			wantFailures: field.ErrorList{field.Forbidden(field.NewPath("status", "reservedFor"), "may not be specified when `allocated` is not set")},
		},
		"invalid-reserved-for-no-uid": { // rule 46
			oldClaim:     allocatedClaim(),
			update:       func(c obj) { status(c)["reservedFor"] = []interface{}{obj{"resource": "pods", "name": "foo"}} },
			wantFailures: field.ErrorList{field.Required(field.NewPath("status", "reservedFor").Index(0).Child("uid"), "")},
		},
		"invalid-reserved-deleted": { // rule 51
			oldClaim:     with(allocatedClaim(), func(c obj) { meta(c)["deletionTimestamp"] = "2024-01-01T00:00:00Z" }),
			update:       func(c obj) { status(c)["reservedFor"] = consumers(1) },
			wantFailures: field.ErrorList{field.Forbidden(field.NewPath("status", "reservedFor"), "new entries may not be added while `deallocationRequested` or `deletionTimestamp` are set")},
		},
		"add-deallocation-requested": {oldClaim: allocatedClaim(), update: func(c obj) { status(c)["deallocationRequested"] = true }},
		"invalid-deallocation-requested-in-use": { // rule 53
			oldClaim:     with(allocatedClaim(), func(c obj) { status(c)["reservedFor"] = consumers(1) }),
			update:       func(c obj) { status(c)["deallocationRequested"] = true },
			wantFailures: field.ErrorList{field.Forbidden(field.NewPath("status", "deallocationRequested"), "deallocation cannot be requested while `reservedFor` is set")},
		},
		"invalid-deallocation-not-allocated": { // rule 54
			oldClaim:     validClaim("1"),
			update:       func(c obj) { c["status"] = obj{"deallocationRequested": true} },
			wantFailures: field.ErrorList{field.Forbidden(field.NewPath("status"), "`allocation` must be set when `deallocationRequested` is set")},
		},
		"invalid-deallocation-requested-removal": { // rule 55
			oldClaim:     with(allocatedClaim(), func(c obj) { status(c)["deallocationRequested"] = true }),
			update:       func(c obj) { status(c)["deallocationRequested"] = false },
			wantFailures: field.ErrorList{field.Forbidden(field.NewPath("status", "deallocationRequested"), "may not be cleared when `allocation` is set")},
		},
	}
	forEachVersion(t, func(t *testing.T, v version) {
		for name, scenario := range scenarios {
			t.Run(name, func(t *testing.T) {
				claim := copyObj(scenario.oldClaim)
				if scenario.update != nil {
					scenario.update(claim)
				}
				if diff := cmp.Diff(scenario.wantFailures, v.validateStatusUpdate(claim, scenario.oldClaim)); diff != "" {
					t.Errorf("unexpected errors (-want +got):\n%s", diff)
				}
			})
		}
	})
}

func TestValidateResourceClaimTemplate(t *testing.T) {
	template := obj{
		"metadata": obj{"name": goodName, "namespace": "ns"},
		"spec":     obj{"spec": spec(validClaim(""))},
	}
	bad := with(template, func(t obj) {
		spec(spec(t))["resourceClassName"] = badName
		spec(t)["metadata"] = obj{"namespace": "other"}
	})
	old := with(template, func(t obj) { meta(t)["resourceVersion"] = "1" })
	changed := with(old, func(t obj) { spec(spec(t))["allocationMode"] = "Immediate" })
	forEachVersion(t, func(t *testing.T, v version) {
		if diff := cmp.Diff(field.ErrorList(nil), v.validateTemplate(template)); diff != "" {
			t.Errorf("good-template (-want +got):\n%s", diff)
		}
		want := field.ErrorList{ // rule 2 under spec.spec; embedded metadata allow-list
			field.Forbidden(field.NewPath("spec", "metadata", "namespace"), "cannot be set"),
			field.Invalid(field.NewPath("spec", "spec", "resourceClassName"), badName, dnsSubdomainMsg),
		}
		if diff := cmp.Diff(want, v.validateTemplate(bad)); diff != "" {
			t.Errorf("bad-template (-want +got):\n%s", diff)
		}
		want = field.ErrorList{field.Invalid(field.NewPath("spec"), v.templateSpec(changed), "field is immutable")} // rule 5
		if diff := cmp.Diff(want, v.validateTemplateUpdate(changed, old)); diff != "" {
			t.Errorf("invalid-update-mode (-want +got):\n%s", diff)
		}
	})
}

func TestSetDefaults(t *testing.T) {
	forEachVersion(t, func(t *testing.T, v version) {
		noMode := with(validClaim(""), func(c obj) { delete(spec(c), "allocationMode") })
		if got := v.defaultedMode(noMode, false); got != "WaitForFirstConsumer" {
			t.Errorf("claim: allocationMode %q, want WaitForFirstConsumer", got)
		}
		if got := v.defaultedMode(obj{}, true); got != "WaitForFirstConsumer" {
			t.Errorf("template: allocationMode %q, want WaitForFirstConsumer", got)
		}
		immediate := with(validClaim(""), func(c obj) { spec(c)["allocationMode"] = "Immediate" })
		if got := v.defaultedMode(immediate, false); got != "Immediate" {
			t.Errorf("defaulting changed a set allocationMode to %q", got)
		}
	})
}

func TestWarnings(t *testing.T) {
	claim := with(validClaim(""), func(c obj) {
		spec(c)["allocationMode"] = "Immediate"
		spec(c)["parametersRef"] = obj{"apiGroup": "Example.com", "kind": "k", "name": "n"}
	})
	want := []string{
		"spec.allocationMode: Immediate allocation does not exist in v1alpha3 (Kubernetes 1.31+); the claim is allocated when a pod needs it",
		`spec.parametersRef.apiGroup: "Example.com" is not a valid API group (Kubernetes does not check it): ` + dnsSubdomainMsg,
	}
	forEachVersion(t, func(t *testing.T, v version) {
		if diff := cmp.Diff(want, v.warnings(claim)); diff != "" {
			t.Errorf("warnings (-want +got):\n%s", diff)
		}
	})
}

// A stored allocation is not validated again, nor a driverName that was
// missing before too; a driverName cleared by the write is.
func TestStatusUpdateOfStoredAllocation(t *testing.T) {
	noDriver := with(validClaim("1"), func(c obj) {
		c["status"] = obj{"allocation": obj{"availableOnNodes": obj{"nodeSelectorTerms": []interface{}{}}}}
	})
	driverErr := field.Required(field.NewPath("status", "driverName"), "must be specified when `allocation` is set")
	termsErr := field.Required(field.NewPath("status", "allocation", "availableOnNodes", "nodeSelectorTerms"), "must have at least one node selector term")
	for name, tc := range map[string]struct {
		old    obj
		update func(obj)
		stored bool
		want   field.ErrorList
	}{
		"judged-again":          {old: noDriver, update: func(c obj) { status(c)["reservedFor"] = consumers(1) }, want: field.ErrorList{driverErr, termsErr}},
		"stored":                {old: noDriver, update: func(c obj) { status(c)["reservedFor"] = consumers(1) }, stored: true},
		"stored-driver-cleared": {old: with(noDriver, func(c obj) { status(c)["driverName"] = "valid" }), update: func(c obj) { delete(status(c), "driverName") }, stored: true, want: field.ErrorList{driverErr}},
	} {
		forEachVersion(t, func(t *testing.T, v version) {
			claim := with(tc.old, tc.update)
			if diff := cmp.Diff(tc.want, v.rules.ValidateStatusUpdate(v.claim(claim), v.claim(tc.old), tc.stored)); diff != "" {
				t.Errorf("%s (-want +got):\n%s", name, diff)
			}
		})
	}
}
