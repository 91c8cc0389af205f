package judge

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/yaml"

	"github.com/claimbridge/claimbridge/api"
)

// TestReleases: one object with every field of api.Fields, judged by
// each release: unknown before the release that added it, dropped (a
// warning) while its feature gate is off by default, kept after.
func TestReleases(t *testing.T) {
	const (
		unknown = "Forbidden: unknown field: Kubernetes 1.%d does not have it (1.%d+)"
		dropped = "Kubernetes 1.%d drops it on a create: its %s feature gate is off by default"
		admin   = "spec.devices.requests[0].exactly.adminAccess: needs a namespace labeled resource.kubernetes.io/admin-access=true (Kubernetes 1.34+; resource.k8s.io/admin-access=true in 1.33)"
		exact   = "spec.devices.requests[0].exactly."
	)
	claim := `apiVersion: resource.k8s.io/%s
kind: ResourceClaim
metadata: {name: c}
spec:
  devices:
    requests:
    - name: r
      exactly:
        deviceClassName: g
        adminAccess: true
        tolerations: [{operator: Exists}]
        capacity: {requests: {memory: 1Gi}}
        derivedAttributes: [{name: size, expression: 'device.capacity["g"].memory'}]
    - {name: s, firstAvailable: [{name: a, deviceClassName: g}]}
    constraints: [{requests: [r], distinctAttribute: g/uuid}]`
	flat := `apiVersion: resource.k8s.io/%s
kind: ResourceClaim
metadata: {name: c}
spec: {devices: {requests: [{name: r, count: 1}]}}`
	class := `apiVersion: resource.k8s.io/%s
kind: DeviceClass
metadata: {name: gpu}
spec: {extendedResourceName: example.com/gpu}`
	tests := []struct {
		name, in, version string
		release           int
		errs, warnings    []string
	}{{
		name: "v1-1.33", in: claim, version: "v1", release: 33,
		errs: []string{"apiVersion: Kubernetes 1.33 serves resource.k8s.io/v1beta2, not v1: its apiserver rejects this object"},
	}, {
		name: "v1-1.34", in: claim, version: "v1", release: 34,
		errs: []string{exact + "derivedAttributes: " + fmt.Sprintf(unknown, 34, 37)},
		warnings: []string{
			exact + "capacity: " + fmt.Sprintf(dropped, 34, "DRAConsumableCapacity") + " (on from 1.36)",
			admin,
		},
	}, {
		name: "v1-1.35", in: claim, version: "v1", release: 35,
		errs: []string{exact + "derivedAttributes: " + fmt.Sprintf(unknown, 35, 37), "spec.devices.constraints[0].matchAttribute: Required value"},
		warnings: []string{
			exact + "tolerations: " + fmt.Sprintf(dropped, 35, "DRADeviceTaints") + " (on from 1.36)",
			exact + "capacity: " + fmt.Sprintf(dropped, 35, "DRAConsumableCapacity") + " (on from 1.36)",
			"spec.devices.constraints[0].distinctAttribute: " + fmt.Sprintf(dropped, 35, "DRAConsumableCapacity") + " (on from 1.36)",
			admin,
		},
	}, {
		name: "v1-1.36", in: claim, version: "v1", release: 36,
		errs:     []string{exact + "derivedAttributes: " + fmt.Sprintf(unknown, 36, 37)},
		warnings: []string{admin},
	}, {
		name: "v1-1.37", in: claim, version: "v1", release: 37,
		warnings: []string{exact + "derivedAttributes: " + fmt.Sprintf(dropped, 37, "DRADerivedAttributes"), admin},
	}, {
		name: "v1beta2-1.33", in: claim, version: "v1beta2", release: 33,
		errs: []string{
			exact + "capacity: " + fmt.Sprintf(unknown, 33, 34),
			exact + "derivedAttributes: " + fmt.Sprintf(unknown, 33, 37),
			"spec.devices.constraints[0].distinctAttribute: " + fmt.Sprintf(unknown, 33, 34),
			"spec.devices.requests[1]: Required value: exactly one of `exactly` or `firstAvailable` is required",
			"spec.devices.constraints[0].matchAttribute: Required value",
		},
		warnings: []string{
			exact + "adminAccess: " + fmt.Sprintf(dropped, 33, "DRAAdminAccess") + " (on from 1.34)",
			"spec.devices.requests[1].firstAvailable: " + fmt.Sprintf(dropped, 33, "DRAPrioritizedList") + " (on from 1.34)",
		},
	}, {
		// From 1.33 a v1beta1 request is upstream's internal one: paths
		// have exactly, and without a class it gets no allocation mode.
		name: "v1beta1-1.34-no-class", in: flat, version: "v1beta1", release: 34,
		errs: []string{exact + "deviceClassName: Required value", exact + `allocationMode: Unsupported value: "": supported values: "All", "ExactCount"`},
	}, {
		name: "v1beta1-1.32-no-class", in: flat, version: "v1beta1", release: 32,
		errs: []string{"spec.devices.requests[0].deviceClassName: Required value"},
	}, {
		// 1.37 validates an allocation mode with a value declaratively, at
		// v1beta1's path.
		name: "v1beta1-1.37-mode", in: strings.Replace(flat, "{name: r", "{name: r, deviceClassName: g, allocationMode: Some", 1), version: "v1beta1", release: 37,
		errs: []string{`spec.devices.requests[0].allocationMode: Unsupported value: "Some": supported values: "All", "ExactCount"`},
	}, {
		name: "v1beta1-1.36-mode", in: strings.Replace(flat, "{name: r", "{name: r, deviceClassName: g, allocationMode: Some", 1), version: "v1beta1", release: 36,
		errs: []string{exact + `allocationMode: Unsupported value: "Some": supported values: "All", "ExactCount"`},
	}, {
		name: "class-v1beta2-1.33", in: class, version: "v1beta2", release: 33,
		errs: []string{"spec.extendedResourceName: " + fmt.Sprintf(unknown, 33, 34)},
	}, {
		name: "class-v1-1.35", in: class, version: "v1", release: 35,
		warnings: []string{"spec.extendedResourceName: " + fmt.Sprintf(dropped, 35, "DRAExtendedResource") + " (on from 1.36)"},
	}, {
		name: "class-v1-1.36", in: class, version: "v1", release: 36,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var obj map[string]interface{}
			if err := yaml.Unmarshal([]byte(fmt.Sprintf(tt.in, tt.version)), &obj); err != nil {
				t.Fatal(err)
			}
			errs, warnings := Check(obj, withBetas(tt.release), obj["kind"].(string))
			if d := cmp.Diff(tt.errs, errs); d != "" {
				t.Errorf("errors (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tt.warnings, warnings); d != "" {
				t.Errorf("warnings (-want +got):\n%s", d)
			}
		})
	}
}

// judge is the release that judges version when the caller names none.
func judge(version string) int {
	r, _ := api.Judge(version)
	return r.Minor
}

// withBetas is release minor started as the recorded apiservers were, with
// the beta versions served beside v1 (from 1.34 they need
// --runtime-config) and DeviceTaintRule's v1alpha3 in 1.33–1.35: the rules
// of an object of those versions, not whether the release serves it.
func withBetas(minor int) api.Cluster {
	c := api.Defaults(minor)
	runtimeConfig := "api/beta=true"
	if minor >= 33 && minor <= 35 {
		runtimeConfig += ",resource.k8s.io/v1alpha3/devicetaintrules=true"
	}
	if err := c.SetRuntimeConfig(runtimeConfig); err != nil {
		panic(err)
	}
	return c
}

// Newest is the newest release of api.Releases (a minor number).
func Newest() int { return api.Newest().Minor }
