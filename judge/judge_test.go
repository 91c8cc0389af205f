package judge

import (
	"strings"
	"testing"

	"github.com/claimbridge/claimbridge/api"
	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/yaml"
)

// TestCheck: paths name the field in the object's own version (flat in
// v1beta1, under exactly in v1beta2 and v1).
func TestCheck(t *testing.T) {
	long := strings.Repeat("x", 10*1024+1)
	tests := []struct {
		name, in       string
		errs, warnings []string
	}{{
		name: "v1beta1-flat",
		in: `apiVersion: resource.k8s.io/v1beta1
kind: ResourceClaim
metadata: {name: c}
spec: {devices: {requests: [{name: r, deviceClassName: g, adminAccess: true, selectors: [{cel: {expression: ` + long + `}}]}]}}`,
		errs:     []string{"spec.devices.requests[0].selectors[0].cel.expression: Too long: may not be more than 10240 bytes"},
		warnings: []string{"spec.devices.requests[0].adminAccess: Kubernetes 1.32 drops it on a create: its DRAAdminAccess feature gate is off by default (on from 1.34)"},
	}, {
		name: "v1-template-exactly",
		in: `apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {name: t}
spec: {spec: {devices: {requests: [{name: r, exactly: {deviceClassName: g, adminAccess: true, selectors: [{cel: {expression: ` + long + `}}]}}]}}}`,
		errs:     []string{"spec.spec.devices.requests[0].exactly.selectors[0].cel.expression: Too long: may not be more than 10240 bytes"},
		warnings: []string{"spec.spec.devices.requests[0].exactly.adminAccess: needs a namespace labeled resource.kubernetes.io/admin-access=true (Kubernetes 1.34+; resource.k8s.io/admin-access=true in 1.33)"},
	}, {
		name: "v1beta2-neither-class-nor-firstAvailable",
		in: `apiVersion: resource.k8s.io/v1beta2
kind: ResourceClaim
metadata: {name: c}
spec: {devices: {requests: [{name: r}]}}`,
		errs: []string{"spec.devices.requests[0]: Required value: exactly one of `exactly` or `firstAvailable` is required"},
	}, {
		// An empty firstAvailable is none (1.36 rejects the request).
		name: "v1-empty-firstAvailable",
		in: `apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: c}
spec: {devices: {requests: [{name: r, firstAvailable: []}]}}`,
		errs: []string{"spec.devices.requests[0]: Required value: exactly one of `exactly` or `firstAvailable` is required"},
	}, {
		name: "v1-empty-exactly",
		in: `apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: c}
spec: {devices: {requests: [{name: r, exactly: {}}]}}`,
		errs: []string{"spec.devices.requests[0].exactly.deviceClassName: Required value"},
	}, {
		name: "v1-both",
		in: `apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: c}
spec: {devices: {requests: [{name: r, exactly: {deviceClassName: g}, firstAvailable: [{name: a, deviceClassName: g}]}]}}`,
		errs: []string{"spec.devices.requests[0]: Invalid value: null: exactly one of `exactly` or `firstAvailable` is required, but multiple fields are set"},
	}, {
		// v1beta1 (1.32): every request is an exact one, here without a
		// class.
		name: "v1beta1-count-without-class",
		in: `apiVersion: resource.k8s.io/v1beta1
kind: ResourceClaim
metadata: {name: c}
spec: {devices: {requests: [{name: r, allocationMode: ExactCount, count: 2}]}}`,
		errs: []string{"spec.devices.requests[0].deviceClassName: Required value"},
	}, {
		// 1.32 has no firstAvailable: a strict decode refuses it, and
		// without it the request has no class.
		name: "v1beta1-firstAvailable-is-1.33",
		in: `apiVersion: resource.k8s.io/v1beta1
kind: ResourceClaim
metadata: {name: c}
spec: {devices: {requests: [{name: r, count: 0, firstAvailable: [{name: a, deviceClassName: g}]}]}}`,
		errs: []string{"spec.devices.requests[0].firstAvailable: Forbidden: unknown field: Kubernetes 1.32 does not have it (1.33+)",
			"spec.devices.requests[0].deviceClassName: Required value"},
	}, {
		// 1.36 validateRawExtension: absent or null parameters are required.
		name: "parameters-absent-or-null",
		in: `apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: c}
spec: {devices: {requests: [{name: r, exactly: {deviceClassName: g}}], config: [{opaque: {driver: d}}, {opaque: {driver: d, parameters: null}}, {opaque: {driver: d, parameters: "x"}}]}}`,
		errs: []string{"spec.devices.config[0].opaque.parameters: Required value", "spec.devices.config[1].opaque.parameters: Required value",
			`spec.devices.config[2].opaque.parameters: Invalid value: "<value omitted>": must be a valid JSON object`},
	}, {
		name: "valid",
		in: `apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: c}
spec: {devices: {requests: [{name: r, exactly: {deviceClassName: g}}], config: [{requests: [r], opaque: {driver: d, parameters: {a: 1}}}]}}`,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var obj map[string]interface{}
			if err := yaml.Unmarshal([]byte(tt.in), &obj); err != nil {
				t.Fatal(err)
			}
			version, kind := Version(obj)
			errs, warnings := Check(obj, withBetas(judge(version)), kind)
			if d := cmp.Diff(tt.errs, errs); d != "" {
				t.Errorf("errors (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tt.warnings, warnings); d != "" {
				t.Errorf("warnings (-want +got):\n%s", d)
			}
		})
	}
}

func TestVersion(t *testing.T) {
	for in, want := range map[string]string{
		"resource.k8s.io/v1":                    "v1",
		"resource.k8s.io/v1beta1":               "v1beta1",
		"resource.k8s.io/v1alpha3":              "",
		"resource.claimbridge.dev/v1alpha2":     "",
		"resource.k8s.io/v1beta2 ResourceSlice": "",
	} {
		apiVersion, kind, _ := strings.Cut(in, " ")
		if kind == "" {
			kind = "ResourceClaim"
		}
		got, _ := Version(map[string]interface{}{"apiVersion": apiVersion, "kind": kind, "metadata": map[string]interface{}{"name": "c"}})
		if got != want {
			t.Errorf("Version(%s %s) = %q, want %q", apiVersion, kind, got, want)
		}
	}
}

// A DeviceClass's CEL selectors and opaque parameters have the 1.32+ limits
// (1.36 validateDeviceClassSpec), which a 1.31 one did not.
func TestDeviceClassLimits(t *testing.T) {
	var obj map[string]interface{}
	if err := yaml.Unmarshal([]byte(`apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu}
spec:
  selectors: [{cel: {expression: "true"}}, {cel: {expression: "`+strings.Repeat("x", 10241)+`"}}]
  config: [{opaque: {driver: d, parameters: {a: 1}}}, {opaque: {driver: d}}]`), &obj); err != nil {
		t.Fatal(err)
	}
	want := []string{"spec.selectors[1].cel.expression: Too long: may not be more than 10240 bytes", "spec.config[1].opaque.parameters: Required value"}
	if got, _ := Check(obj, withBetas(Newest()), api.KindDeviceClass); !cmp.Equal(want, got) {
		d := cmp.Diff(want, got)
		t.Errorf("errors (-want +got):\n%s", d)
	}
}

// TestAdminAccessLabel: a request with adminAccess needs a labelled
// namespace from 1.33 (AuthorizedForAdmin), when the release keeps the
// field (DRAAdminAccess on); 1.32 checks no label, and a release with the
// gate off drops the field instead. One warning per request that asks for
// admin access.
func TestAdminAccessLabel(t *testing.T) {
	const (
		label   = "needs a namespace labeled resource.kubernetes.io/admin-access=true (Kubernetes 1.34+; resource.k8s.io/admin-access=true in 1.33)"
		dropped = "drops it on a create: its DRAAdminAccess feature gate is off by default (on from 1.34)"
	)
	claim := `apiVersion: resource.k8s.io/v1beta1
kind: ResourceClaim
metadata: {name: c, namespace: ns}
spec: {devices: {requests: [{name: a, deviceClassName: g, adminAccess: true}, {name: b, deviceClassName: g}, {name: c, deviceClassName: g, adminAccess: true}]}}`
	template := `apiVersion: resource.k8s.io/v1beta2
kind: ResourceClaimTemplate
metadata: {name: t, namespace: ns}
spec: {spec: {devices: {requests: [{name: a, exactly: {deviceClassName: g, adminAccess: true}}]}}}`
	tests := []struct {
		name, in, gates string
		release         int
		want            []string
	}{{
		name: "claim-1.32-gate-on", in: claim, release: 32, gates: "DRAAdminAccess=true",
	}, {
		name: "claim-1.32", in: claim, release: 32,
		want: []string{"spec.devices.requests[0].adminAccess: Kubernetes 1.32 " + dropped, "spec.devices.requests[2].adminAccess: Kubernetes 1.32 " + dropped},
	}, {
		name: "claim-1.33-gate-on", in: claim, release: 33, gates: "DRAAdminAccess=true",
		want: []string{"spec.devices.requests[0].adminAccess: " + label, "spec.devices.requests[2].adminAccess: " + label},
	}, {
		name: "template-1.33-gate-on", in: template, release: 33, gates: "DRAAdminAccess=true",
		want: []string{"spec.spec.devices.requests[0].exactly.adminAccess: " + label},
	}, {
		name: "template-1.33", in: template, release: 33,
		want: []string{"spec.spec.devices.requests[0].exactly.adminAccess: Kubernetes 1.33 " + dropped},
	}, {
		name: "template-1.34", in: template, release: 34,
		want: []string{"spec.spec.devices.requests[0].exactly.adminAccess: " + label},
	}, {
		name: "template-1.34-gate-off", in: template, release: 34, gates: "DRAAdminAccess=false",
		want: []string{"spec.spec.devices.requests[0].exactly.adminAccess: Kubernetes 1.34 drops it on a create: its DRAAdminAccess feature gate is off"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var obj map[string]interface{}
			if err := yaml.Unmarshal([]byte(tt.in), &obj); err != nil {
				t.Fatal(err)
			}
			c := withBetas(tt.release)
			if err := c.SetFeatureGates(tt.gates); err != nil {
				t.Fatal(err)
			}
			kind := obj["kind"].(string)
			errs, warnings := Check(obj, c, kind)
			if len(errs) > 0 {
				t.Errorf("errors: %q", errs)
			}
			if d := cmp.Diff(tt.want, warnings); d != "" {
				t.Errorf("Check's warnings (-want +got):\n%s", d)
			}
			var labels []string
			for _, w := range tt.want {
				if strings.HasSuffix(w, label) {
					labels = append(labels, w)
				}
			}
			if d := cmp.Diff(labels, AdminAccessWarnings(obj, c, kind)); d != "" {
				t.Errorf("AdminAccessWarnings (-want +got):\n%s", d)
			}
		})
	}
}
