package conversion_test

import (
	"fmt"
	resourcev1 "k8s.io/api/resource/v1"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/claimbridge/claimbridge/conversion"
)

// TestWarningsGA lists the warnings of conversions to the GA versions, as
// paths; the messages are checked once each in TestWarningGAMessages.
func TestWarningsGA(t *testing.T) {
	longCEL := strings.Repeat("x", resourcev1.CELSelectorExpressionMaxLength+1)
	longParams := `{"k":"` + strings.Repeat("x", resourcev1.OpaqueParametersMaxLength) + `"}`
	for name, c := range map[string]struct {
		in   string
		to   string
		want []string
	}{
		"structured claim, no status": {
			in:   `{"apiVersion":"resource.k8s.io/v1alpha3","kind":"ResourceClaim","spec":{"devices":{"requests":[{"name":"r","deviceClassName":"c"}]}}}`,
			to:   "v1",
			want: nil,
		},
		"alpha target: no GA warnings": {
			// Only the v1alpha3→v1alpha2 step's own loss (docs/conversion.md
			// §2.4), none of the 1.32+ warnings and no status warning.
			in:   `{"apiVersion":"resource.k8s.io/v1alpha3","kind":"ResourceClaim","spec":{"controller":"d.example.com"},"status":{"reservedFor":[{"resource":"pods","name":"p","uid":"u"}]}}`,
			to:   "v1alpha2",
			want: []string{"spec.controller"},
		},
		"classic claim with a classic allocation, a driver finalizer and a deallocation request": {
			in: `{"apiVersion":"resource.k8s.io/v1alpha3","kind":"ResourceClaim","metadata":{"finalizers":["resource.kubernetes.io/delete-protection","d.example.com/x"]},
				"spec":{"controller":"d.example.com"},"status":{"allocation":{"controller":"d.example.com"},"deallocationRequested":true}}`,
			to:   "v1beta1",
			want: []string{"spec.controller", "status.allocation.controller", "metadata.finalizers[1]", "status.deallocationRequested", "status"},
		},
		"limits and admin access": {
			in: `{"apiVersion":"resource.k8s.io/v1alpha3","kind":"ResourceClaim","spec":{"devices":{
				"requests":[{"name":"a","deviceClassName":"c","selectors":[{"cel":{"expression":"true"}},{"cel":{"expression":"` + longCEL + `"}}]},{"name":"b","deviceClassName":"c","adminAccess":true}],
				"config":[{"opaque":{"driver":"d","parameters":` + longParams + `}},{"opaque":{"driver":"d","parameters":[1]}},{"opaque":{"driver":"d","parameters":{"ok":1}}}]}},
				"status":{"allocation":{"devices":{"config":[{"source":"FromClaim","opaque":{"driver":"d","parameters":"s"}}]}}}}`,
			to: "v1beta2",
			want: []string{"spec.devices.requests[0].selectors[1].cel.expression", "spec.devices.requests[1].adminAccess",
				"spec.devices.config[0].opaque.parameters", "spec.devices.config[1].opaque.parameters",
				"status.allocation", "status.allocation.devices.config[0].opaque.parameters", "status"},
		},
		// A 1.32+ resourceclaim controller clears a structured allocation
		// only for a claim with the built-in finalizer, and removes only
		// that one.
		"structured allocation with the built-in finalizer": {
			in: `{"apiVersion":"resource.k8s.io/v1alpha3","kind":"ResourceClaim","metadata":{"finalizers":["resource.kubernetes.io/delete-protection"]},
				"spec":{"devices":{"requests":[{"name":"r","deviceClassName":"c"}]}},"status":{"allocation":{"devices":{"results":[{"request":"r","driver":"d","pool":"p","device":"x"}]}}}}`,
			to:   "v1",
			want: []string{"status"},
		},
		"structured allocation with the 1.30 scheduler's finalizer": {
			in: `{"apiVersion":"resource.k8s.io/v1alpha3","kind":"ResourceClaim","metadata":{"finalizers":["example.com/keep","dra.k8s.io/delete-protection"]},
				"spec":{"devices":{"requests":[{"name":"r","deviceClassName":"c"}]}},"status":{"allocation":{"devices":{"results":[{"request":"r","driver":"d","pool":"p","device":"x"}]}}}}`,
			to:   "v1beta1",
			want: []string{"metadata.finalizers[1]", "status.allocation", "status"},
		},
		"template from v1alpha1 has no status warning": {
			in:   `{"apiVersion":"resource.k8s.io/v1alpha3","kind":"ResourceClaimTemplate","spec":{"spec":{"controller":"d","devices":{"requests":[{"name":"r","deviceClassName":"c","adminAccess":true}]}}}}`,
			to:   "v1",
			want: []string{"spec.spec.controller", "spec.spec.devices.requests[0].adminAccess"},
		},
		"template with a status member: no status warnings": {
			in: `{"apiVersion":"resource.k8s.io/v1alpha3","kind":"ResourceClaimTemplate","spec":{"spec":{"devices":{"requests":[{"name":"r","deviceClassName":"c"}]}}},
				"status":{"allocation":{"controller":"d"},"deallocationRequested":true}}`,
			to:   "v1",
			want: nil,
		},
		"template from v1 to v1alpha3 with a status member: no reservedFor warning": {
			in:   `{"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaimTemplate","spec":{"spec":{"devices":{"requests":[{"name":"r","exactly":{"deviceClassName":"c"}}]}}},"status":{"reservedFor":[` + reservations(33) + `]}}`,
			to:   "v1alpha3",
			want: nil,
		},
		"list items": {
			in:   `{"apiVersion":"resource.k8s.io/v1alpha2","kind":"ResourceClaimList","items":[{"spec":{"resourceClassName":"c"}},{"spec":{"resourceClassName":"c"},"status":{"driverName":"d","allocation":{}}}]}`,
			to:   "v1",
			want: []string{"items[1].status.allocation.shareable", "items[1].status.allocation.controller", "items[1].status"},
		},
		"from v1beta1: only the status": {
			in:   `{"apiVersion":"resource.k8s.io/v1beta1","kind":"ResourceClaim","spec":{},"status":{"reservedFor":[{"resource":"pods","name":"p","uid":"u"}]}}`,
			to:   "v1",
			want: []string{"status"},
		},
		"from v1 to v1alpha3: alternatives, capacity and distinct attributes": {
			in: `{"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaim","spec":{"devices":{
				"requests":[{"name":"r","firstAvailable":[{"name":"a","deviceClassName":"c"}]},{"name":"s","exactly":{"deviceClassName":"c","capacity":{"requests":{"m":"1"}},"tolerations":[{"key":"k","operator":"Exists"}]}}],
				"constraints":[{"requests":["r"],"matchAttribute":"x/y"},{"distinctAttribute":"x/numa"}]}},
				"status":{"devices":[{"driver":"d","pool":"p","device":"g"}]}}`,
			to: "v1alpha2",
			want: []string{"spec.devices.requests[0].firstAvailable", "spec.devices.requests[1].capacity", "spec.devices.constraints[1].distinctAttribute",
				// the v1alpha3→v1alpha2 step's own: the second request and the constraints
				"spec.devices.requests[1]", "spec.devices.constraints"},
		},
		"from v1 to v1alpha3: more consumers than 1.31 allows": {
			in:   `{"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaim","spec":{"devices":{"requests":[{"name":"r","exactly":{"deviceClassName":"c"}}]}},"status":{"reservedFor":[` + reservations(33) + `]}}`,
			to:   "v1alpha3",
			want: []string{"status.reservedFor"},
		},
		"from v1 to v1alpha3: as many consumers as 1.31 allows": {
			in: `{"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaim","spec":{"devices":{"requests":[{"name":"r","exactly":{"deviceClassName":"c"}}]}},"status":{"reservedFor":[` + reservations(32) + `]}}`,
			to: "v1alpha3",
		},
		"template from v1beta2 to v1alpha3": {
			in:   `{"apiVersion":"resource.k8s.io/v1beta2","kind":"ResourceClaimTemplate","spec":{"spec":{"devices":{"requests":[{"name":"r","firstAvailable":[{"name":"a","deviceClassName":"c"},{"name":"b","deviceClassName":"d"}]}]}}}}`,
			to:   "v1alpha3",
			want: []string{"spec.spec.devices.requests[0].firstAvailable"},
		},
		"classic allocation: class parameters and DeviceParameters' claim parameters reach no 1.30 driver": {
			in: `{"apiVersion":"resource.k8s.io/v1alpha3","kind":"ResourceClaim","spec":{"controller":"d","devices":{"requests":[{"name":"r","deviceClassName":"c"}]}},
				"status":{"allocation":{"controller":"d","devices":{"results":[{"request":"r","driver":"d","pool":"p","device":"g0"}],"config":[
				{"source":"FromClass","opaque":{"driver":"d","parameters":{"b":"class"}}},
				{"source":"FromClaim","opaque":{"driver":"d","parameters":{"apiVersion":"resource.claimbridge.dev/v1alpha2","kind":"DeviceParameters","claimParameters":{"a":"claim"},"devices":[{"device":"g0","parameters":{"x":1}}]}}}]}}}}`,
			to:   "v1alpha2",
			want: []string{"spec.controller", "status.allocation.devices.config[1].opaque.parameters.claimParameters", "status.allocation.devices.config[0]"},
		},
		"structured allocation: parameters for one request reach every device of the driver": {
			in: `{"apiVersion":"resource.k8s.io/v1alpha3","kind":"ResourceClaim","spec":{"devices":{"requests":[{"name":"small","deviceClassName":"c"}]}},
				"status":{"allocation":{"devices":{"results":[{"request":"small","driver":"d","pool":"p","device":"g0"},{"request":"big","driver":"d","pool":"p","device":"g1"},{"request":"x","driver":"e","pool":"p","device":"h0"}],"config":[
				{"source":"FromClaim","requests":["big"],"opaque":{"driver":"d","parameters":{"sharing":"TimeSlicing"}}},
				{"source":"FromClaim","requests":["x"],"opaque":{"driver":"e","parameters":{"ok":true}}}]}}}}`,
			to:   "v1alpha2",
			want: []string{"status.allocation.devices.config[0].requests"},
		},
		"structured 1.30 allocation with 1.30's built-in finalizer, to 1.31": {
			in: `{"apiVersion":"resource.k8s.io/v1alpha2","kind":"ResourceClaim","metadata":{"finalizers":["x.example.com/keep","dra.k8s.io/delete-protection"]},"spec":{"resourceClassName":"c"},
				"status":{"driverName":"d","allocation":{"shareable":true,"resourceHandles":[{"driverName":"d","structuredData":{"nodeName":"n","results":[{"namedResources":{"name":"g0"}}]}}]}}}`,
			to:   "v1alpha3",
			want: []string{"metadata.finalizers[1]"},
		},
		"1.30 finalizer without an allocation, to 1.31": {
			in:   `{"apiVersion":"resource.k8s.io/v1alpha2","kind":"ResourceClaim","metadata":{"finalizers":["dra.k8s.io/delete-protection"]},"spec":{"resourceClassName":"c"},"status":{"driverName":"d"}}`,
			to:   "v1alpha3",
			want: nil,
		},
		"classic 1.30 allocation with 1.30's built-in finalizer, to 1.31": {
			in: `{"apiVersion":"resource.k8s.io/v1alpha2","kind":"ResourceClaim","metadata":{"finalizers":["dra.k8s.io/delete-protection"]},"spec":{"resourceClassName":"c"},
				"status":{"driverName":"d","allocation":{"shareable":true,"resourceHandles":[{"driverName":"d","data":"x"}]}}}`,
			to:   "v1alpha3",
			want: []string{"status.allocation.resourceHandles[0].data"}, // no finalizer warning
		},
		"structured 1.30 allocation that has 1.31's finalizer too": {
			in: `{"apiVersion":"resource.k8s.io/v1alpha2","kind":"ResourceClaim","metadata":{"finalizers":["dra.k8s.io/delete-protection","resource.kubernetes.io/delete-protection"]},"spec":{"resourceClassName":"c"},
				"status":{"driverName":"d","allocation":{"shareable":true,"resourceHandles":[{"driverName":"d","structuredData":{"nodeName":"n","results":[{"namedResources":{"name":"g0"}}]}}]}}}`,
			to:   "v1alpha3",
			want: nil,
		},
		"structured 1.31 allocation with 1.31's built-in finalizer, to 1.30": {
			in: `{"apiVersion":"resource.k8s.io/v1alpha3","kind":"ResourceClaim","metadata":{"finalizers":["resource.kubernetes.io/delete-protection"]},"spec":{"devices":{"requests":[{"name":"r","deviceClassName":"c"}]}},
				"status":{"allocation":{"devices":{"results":[{"request":"r","driver":"d","pool":"n","device":"g0"}]}}}}`,
			to:   "v1alpha2",
			want: []string{"metadata.finalizers[0]"},
		},
		"1.31 finalizer without an allocation, to 1.30": {
			in:   `{"apiVersion":"resource.k8s.io/v1alpha3","kind":"ResourceClaim","metadata":{"finalizers":["resource.kubernetes.io/delete-protection"]},"spec":{"devices":{"requests":[{"name":"r","deviceClassName":"c"}]}},"status":{}}`,
			to:   "v1alpha2",
			want: nil,
		},
		"classic 1.31 allocation: the finalizer does not matter": {
			in: `{"apiVersion":"resource.k8s.io/v1alpha3","kind":"ResourceClaim","metadata":{"finalizers":["resource.kubernetes.io/delete-protection"]},"spec":{"controller":"d","devices":{"requests":[{"name":"r","deviceClassName":"c"}]}},
				"status":{"allocation":{"controller":"d","devices":{"results":[{"request":"r","driver":"d","pool":"n","device":"g0"}]}}}}`,
			to:   "v1alpha2",
			want: []string{"spec.controller", "status.allocation.devices.results[0]"}, // no finalizer warning
		},
		"capacity null is no capacity": {
			in:   `{"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaim","spec":{"devices":{"requests":[{"name":"s","exactly":{"deviceClassName":"c","capacity":null}}]}}}`,
			to:   "v1alpha3",
			want: nil,
		},
		"count 0 of ExactCount is one device (1.31 defaults it to 1)": {
			in:   `{"apiVersion":"resource.k8s.io/v1alpha3","kind":"ResourceClaim","spec":{"devices":{"requests":[{"name":"r","deviceClassName":"c","allocationMode":"ExactCount","count":0}]}}}`,
			to:   "v1alpha2",
			want: nil,
		},
		"from v1 to v1alpha3, nothing 1.31 lacks": {
			in:   `{"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaim","spec":{"devices":{"requests":[{"name":"s","exactly":{"deviceClassName":"c","tolerations":[{"key":"k","operator":"Exists"}]}}]}}}`,
			to:   "v1alpha3",
			want: nil,
		},
	} {
		t.Run(name, func(t *testing.T) {
			_, warnings, err := conversion.ConvertWithWarnings(decodeTree(t, []byte(c.in)), c.to)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, w := range warnings {
				got = append(got, w.Path)
			}
			if diff := cmp.Diff(c.want, got); diff != "" {
				t.Errorf("warning paths (-want +got):\n%s", diff)
			}
		})
	}
}

// TestWarningsToV1alpha3Messages: the v1beta1→v1alpha3 step's warnings,
// with their step.
func TestWarningsToV1alpha3Messages(t *testing.T) {
	in := `{"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaim","metadata":{"name":"c","namespace":"ns"},"spec":{"devices":{
		"requests":[{"name":"r","firstAvailable":[{"name":"a","deviceClassName":"c"}]},{"name":"s","exactly":{"deviceClassName":"c","capacity":{"requests":{"m":"1"}}}}],
		"constraints":[{"distinctAttribute":"x/numa"}]}}}`
	_, ws, err := conversion.ConvertWithWarnings(decodeTree(t, []byte(in)), "v1alpha3")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, w := range ws {
		got = append(got, w.String())
	}
	want := []string{
		"ResourceClaim ns/c: spec.devices.requests[0].firstAvailable: 1.31 has no prioritized list: the converted request names no deviceClassName, which a 1.31 apiserver requires, and the request's 1 subrequest(s) are kept only in the restore annotation (v1beta1→v1alpha3)",
		"ResourceClaim ns/c: spec.devices.requests[1].capacity: 1.31 allocates whole devices: the request for a share of a device's capacity is kept only in the restore annotation (v1beta1→v1alpha3)",
		`ResourceClaim ns/c: spec.devices.constraints[0].distinctAttribute: 1.31 has no distinctAttribute constraint: the devices allocated may share attribute "x/numa"; the constraint is kept only in the restore annotation (v1beta1→v1alpha3)`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
}

func TestWarningGAMessages(t *testing.T) {
	in := `{"apiVersion":"resource.k8s.io/v1alpha3","kind":"ResourceClaim","spec":{"devices":{"requests":[{"name":"b","deviceClassName":"c","adminAccess":true}],
		"config":[{"opaque":{"driver":"d","parameters":"s"}}]}},"status":{"deallocationRequested":true}}`
	_, warnings, err := conversion.ConvertWithWarnings(decodeTree(t, []byte(in)), "v1")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, w := range warnings {
		got = append(got, w.Path+": "+w.Message)
	}
	want := []string{
		"spec.devices.requests[0].adminAccess: admin access needs a namespace labeled resource.kubernetes.io/admin-access=true (Kubernetes 1.34+; resource.k8s.io/admin-access=true in 1.33), otherwise the apiserver rejects the object; in 1.32 and 1.33, whose DRAAdminAccess feature gate is off by default, an apiserver without it drops adminAccess and the device is allocated without admin access",
		"spec.devices.config[0].opaque.parameters: Kubernetes 1.32+ accepts only a JSON object as opaque parameters",
		"status.deallocationRequested: Kubernetes 1.32+ has no deallocation requests: nothing deallocates this claim; the request is kept only in the restore annotation",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
}

// TestWarningGAStep: the 1.32+ warnings are ordinary Warnings of the
// v1alpha3→v1beta1 step (with kind and object), and the discarded-status
// warning belongs to the whole conversion.
func TestWarningGAStep(t *testing.T) {
	in := `{"apiVersion":"resource.k8s.io/v1alpha3","kind":"ResourceClaim","metadata":{"name":"c","namespace":"ns"},
		"status":{"deallocationRequested":true,"reservedFor":[{"resource":"pods","name":"p","uid":"u"}]}}`
	_, got, err := conversion.ConvertWithWarnings(decodeTree(t, []byte(in)), "v1")
	if err != nil {
		t.Fatal(err)
	}
	want := []conversion.Warning{
		{Kind: "ResourceClaim", Object: "ns/c", From: "v1alpha3", To: "v1beta1", Path: "status.deallocationRequested",
			Message: "Kubernetes 1.32+ has no deallocation requests: nothing deallocates this claim; the request is kept only in the restore annotation"},
		{Kind: "ResourceClaim", Object: "ns/c", From: "v1alpha3", To: "v1", Path: "status",
			Message: "an apiserver discards the status when the claim is created: create the claim, then write the status through the status subresource (e.g. kubectl replace --subresource=status; from Kubernetes 1.36, whose DRAResourceClaimGranularStatusAuthorization is on by default, writing allocation or reservedFor also needs the write's own verb (update, or patch) on resourceclaims/binding cluster-wide, and status.devices a per-driver permission on resourceclaims/driver)"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
}

// TestParametersRefWarningNamesTheReference: a parametersRef that does not
// name ResourceClaimParameters (every 1.26 claim's, a driver's own object)
// is named in the warning, not called ResourceClaimParameters, a kind 1.26
// never had.
func TestParametersRefWarningNamesTheReference(t *testing.T) {
	for _, c := range []struct{ in, want string }{{
		in:   `{"apiVersion":"resource.claimbridge.dev/v1alpha1","kind":"ResourceClaim","metadata":{"name":"c","namespace":"ns"},"spec":{"resourceClassName":"gpu.example.com","parametersRef":{"apiGroup":"gpu.resource.example.com","kind":"GpuClaimParameters","name":"two-gpus"}}}`,
		want: `ResourceClaim ns/c: spec.parametersRef: the claim parameters GpuClaimParameters "two-gpus" (apiGroup "gpu.resource.example.com") have no v1alpha3 equivalent: a 1.31 scheduler allocates one device of class "gpu.example.com" without them (v1alpha2→v1alpha3)`,
	}, {
		in:   `{"apiVersion":"resource.claimbridge.dev/v1alpha1","kind":"ResourceClaim","metadata":{"name":"c","namespace":"ns"},"spec":{"resourceClassName":"gpu","parametersRef":{"kind":"ConfigMap","name":"p"}}}`,
		want: `ResourceClaim ns/c: spec.parametersRef: the claim parameters ConfigMap "p" have no v1alpha3 equivalent: a 1.31 scheduler allocates one device of class "gpu" without them (v1alpha2→v1alpha3)`,
	}, {
		in:   `{"apiVersion":"resource.claimbridge.dev/v1alpha2","kind":"ResourceClaim","metadata":{"name":"c","namespace":"ns"},"spec":{"resourceClassName":"gpu","parametersRef":{"apiGroup":"resource.k8s.io","kind":"ResourceClaimParameters","name":"p"}}}`,
		want: `ResourceClaim ns/c: spec.parametersRef: ResourceClaimParameters have no v1alpha3 equivalent: a 1.31 scheduler allocates one device of class "gpu" without the parameters' selectors and counts (v1alpha2→v1alpha3)`,
	}} {
		_, ws, err := conversion.ConvertWithWarnings(decodeTree(t, []byte(c.in)), "v1alpha3")
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, w := range ws {
			got = append(got, w.String())
		}
		if diff := cmp.Diff([]string{c.want}, got); diff != "" {
			t.Errorf("warnings (-want +got):\n%s", diff)
		}
	}
}

// reservations is n reservedFor entries, as JSON array elements.
func reservations(n int) string {
	var out []string
	for i := range n {
		out = append(out, fmt.Sprintf(`{"resource":"pods","name":"p%d","uid":"u%d"}`, i, i))
	}
	return strings.Join(out, ",")
}

// TestWarningGALimits: the 1.32+ length limits, at the limit and one byte
// above, with the exact messages.
func TestWarningGALimits(t *testing.T) {
	claim := func(expression, parameters string) string {
		return `{"apiVersion":"resource.k8s.io/v1alpha3","kind":"ResourceClaim","metadata":{"name":"c","namespace":"ns"},"spec":{"devices":{
			"requests":[{"name":"r","deviceClassName":"c","selectors":[{"cel":{"expression":"` + expression + `"}}]}],
			"config":[{"opaque":{"driver":"d","parameters":` + parameters + `}}]}}}`
	}
	params := func(n int) string { return `{"k":"` + strings.Repeat("x", n-len(`{"k":""}`)) + `"}` }
	for _, c := range []struct {
		name, in string
		want     []string
	}{
		{"at the limits", claim(strings.Repeat("x", 10240), params(10240)), nil},
		{"one byte above", claim(strings.Repeat("x", 10241), params(10241)), []string{
			"spec.devices.requests[0].selectors[0].cel.expression: 10241 bytes: Kubernetes 1.32+ rejects CEL expressions longer than 10240 bytes when the object is created",
			"spec.devices.config[0].opaque.parameters: 10241 bytes: Kubernetes 1.32+ rejects opaque parameters longer than 10240 bytes",
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, warnings, err := conversion.ConvertWithWarnings(decodeTree(t, []byte(c.in)), "v1")
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, w := range warnings {
				got = append(got, w.Path+": "+w.Message)
			}
			if diff := cmp.Diff(c.want, got); diff != "" {
				t.Errorf("warnings (-want +got):\n%s", diff)
			}
		})
	}
}

// TestReservedForWarningMessage: the warning for more consumers than 1.31
// allows says how many must be released.
func TestReservedForWarningMessage(t *testing.T) {
	in := `{"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaim","metadata":{"name":"c","namespace":"ns"},"spec":{"devices":{"requests":[{"name":"r","exactly":{"deviceClassName":"c"}}]}},"status":{"reservedFor":[` + reservations(35) + `]}}`
	_, warnings, err := conversion.ConvertWithWarnings(decodeTree(t, []byte(in)), "v1alpha3")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, w := range warnings {
		got = append(got, w.String())
	}
	want := []string{"ResourceClaim ns/c: status.reservedFor: 35 consumers: Kubernetes 1.26–1.31 allow at most 32 (1.33+ 256), so their apiserver refuses this status and every status write of the claim until 3 are released (v1beta1→v1alpha3)"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
}

// TestNullParametersWarning: opaque parameters that are null, as JSON or as
// a nil map of a Go caller, are no JSON object for 1.32+.
func TestNullParametersWarning(t *testing.T) {
	in := `{"apiVersion":"resource.k8s.io/v1alpha3","kind":"ResourceClaim","metadata":{"name":"c","namespace":"ns"},"spec":{"devices":{
		"requests":[{"name":"r","deviceClassName":"c"}],"config":[{"opaque":{"driver":"d","parameters":null}}]}}}`
	want := []string{"spec.devices.config[0].opaque.parameters: Kubernetes 1.32+ accepts only a JSON object as opaque parameters"}
	for _, nilMap := range []bool{false, true} {
		obj := decodeTree(t, []byte(in))
		if nilMap {
			config := obj["spec"].(map[string]interface{})["devices"].(map[string]interface{})["config"].([]interface{})
			config[0].(map[string]interface{})["opaque"].(map[string]interface{})["parameters"] = map[string]interface{}(nil)
		}
		_, warnings, err := conversion.ConvertWithWarnings(obj, "v1")
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, w := range warnings {
			got = append(got, w.Path+": "+w.Message)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("nil map %v: warnings (-want +got):\n%s", nilMap, diff)
		}
	}
}
