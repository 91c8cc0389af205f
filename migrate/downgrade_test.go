package migrate

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/claimbridge/claimbridge/api"
)

// A 1.31 claim asking for two devices matching a CEL selector.
const countAndSelector131 = `
apiVersion: resource.k8s.io/v1alpha3
kind: ResourceClaim
metadata: {name: c, namespace: ns}
spec:
  devices:
    requests:
    - name: r
      deviceClassName: gpu.example.com
      allocationMode: ExactCount
      count: 2
      selectors:
      - cel: {expression: 'device.attributes["gpu.example.com"].model == "a100"'}
`

// A 1.34+ claim whose only request is a firstAvailable list: 1.31 has no
// such field, so the request is left without a device class.
const firstAvailableV1 = `
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: c, namespace: ns}
spec:
  devices:
    requests:
    - name: r
      firstAvailable:
      - {name: big, deviceClassName: gpu.example.com}
      - {name: small, deviceClassName: gpu-small.example.com}
`

// lostLine is the Report.Lost entry for the fields of the restore
// annotation of version that migrate to `to` drops.
func lostLine(fields, version, to string) string {
	return fields + ": fields that " + to + " cannot hold (convert keeps them in annotation claimbridge.dev/restore-" + version + ")"
}

// TestObjectDowngrade migrates to older versions than the input's: the
// report has every warning convert gives for the same conversion, and the
// fields of every restore annotation migrate drops as lost.
func TestObjectDowngrade(t *testing.T) {
	// Phrased for the target's release: 1.27–1.30 for v1alpha2, 1.26 for v1alpha1.
	countWarnings := []string{
		"spec.devices.requests[0].selectors: 1.27–1.30 has no device selectors in the claim: any device of the class may be allocated",
		"spec.devices.requests[0].count: 1.27–1.30 allocates one device of the class, not 2",
	}
	countWarnings126 := []string{
		"spec.devices.requests[0].selectors: 1.26 has no device selectors in the claim: any device of the class may be allocated",
		"spec.devices.requests[0].count: 1.26 allocates one device of the class, not 2",
	}
	countLost := "spec.devices.requests[0].count, spec.devices.requests[0].selectors"
	tests := []struct {
		name   string
		in     string
		to     string
		want   string
		report changes
	}{{
		name: "v1alpha3-count-and-selector-to-v1alpha2",
		in:   countAndSelector131,
		to:   api.V1alpha2,
		want: `
apiVersion: resource.k8s.io/v1alpha2
kind: ResourceClaim
metadata: {name: c, namespace: ns}
spec: {resourceClassName: gpu.example.com, allocationMode: WaitForFirstConsumer}
`,
		report: changes{
			Lost:     []string{lostLine(countLost, "v1alpha3", "v1alpha2")},
			Warnings: countWarnings,
		},
	}, {
		name: "v1alpha3-count-and-selector-to-v1alpha1",
		in:   countAndSelector131,
		to:   api.V1alpha1,
		want: `
apiVersion: resource.k8s.io/v1alpha1
kind: ResourceClaim
metadata: {name: c, namespace: ns}
spec: {resourceClassName: gpu.example.com, allocationMode: WaitForFirstConsumer}
`,
		report: changes{
			Lost:     []string{lostLine(countLost, "v1alpha3", "v1alpha1")},
			Warnings: countWarnings126,
		},
	}, {
		name: "v1alpha3-controller-requests-constraints-to-v1alpha1",
		in: `
apiVersion: resource.k8s.io/v1alpha3
kind: ResourceClaim
metadata: {name: c, namespace: ns}
spec:
  controller: gpu.example.com
  devices:
    requests:
    - {name: a, deviceClassName: gpu.example.com}
    - {name: b, deviceClassName: nic.example.com, allocationMode: All}
    constraints:
    - {requests: [a, b], matchAttribute: example.com/numa}
`,
		to: api.V1alpha1,
		want: `
apiVersion: resource.k8s.io/v1alpha1
kind: ResourceClaim
metadata: {name: c, namespace: ns}
spec: {resourceClassName: gpu.example.com, allocationMode: WaitForFirstConsumer}
`,
		report: changes{
			Lost: []string{lostLine("spec.controller, spec.devices.constraints, spec.devices.requests", "v1alpha3", "v1alpha1")},
			Warnings: []string{
				"spec.devices.requests[1]: a 1.26 claim asks for one resource class: this request is not allocated",
				"spec.devices.constraints: 1.26 has no constraints between devices",
				"spec.controller: 1.26 has no spec.controller: the resource class decides whether a control-plane driver or the scheduler allocates",
			},
		},
	}, {
		name: "v1beta1-tolerations-and-distinct-attribute-to-v1alpha2",
		in: `
apiVersion: resource.k8s.io/v1beta1
kind: ResourceClaim
metadata: {name: c, namespace: ns, uid: u1}
spec:
  devices:
    requests:
    - name: gpu
      deviceClassName: gpu.example.com
      tolerations: [{key: example.com/unhealthy, operator: Exists, effect: NoSchedule}]
    constraints:
    - requests: [gpu]
      distinctAttribute: gpu.example.com/uuid
`,
		to: api.V1alpha2,
		want: `
apiVersion: resource.k8s.io/v1alpha2
kind: ResourceClaim
metadata: {name: c, namespace: ns}
spec: {resourceClassName: gpu.example.com, allocationMode: WaitForFirstConsumer}
`,
		report: changes{
			Dropped: []string{"metadata.uid"},
			Lost: []string{
				lostLine("spec.devices.constraints", "v1alpha3", "v1alpha2"),
				lostLine("spec.devices.constraints[0].distinctAttribute, spec.devices.requests[0].tolerations", "v1beta1", "v1alpha2"),
			},
			Warnings: []string{
				`spec.devices.constraints[0].distinctAttribute: 1.27–1.30 has no distinctAttribute constraint: the devices allocated may share attribute "gpu.example.com/uuid"; the constraint is kept only in the restore annotation`,
				"spec.devices.constraints: 1.27–1.30 has no constraints between devices",
			},
		},
	}, {
		name: "v1beta2-template-to-v1alpha1",
		in: `
apiVersion: resource.k8s.io/v1beta2
kind: ResourceClaimTemplate
metadata: {name: t, namespace: ns}
spec:
  spec:
    devices:
      requests:
      - name: gpu
        exactly: {deviceClassName: gpu.example.com, allocationMode: ExactCount, count: 4}
      config:
      - requests: [gpu]
        opaque: {driver: gpu.example.com, parameters: {sharing: timeSlicing}}
`,
		to: api.V1alpha1,
		want: `
apiVersion: resource.k8s.io/v1alpha1
kind: ResourceClaimTemplate
metadata: {name: t, namespace: ns}
spec: {spec: {resourceClassName: gpu.example.com, allocationMode: WaitForFirstConsumer}}
`,
		report: changes{
			Lost: []string{lostLine("spec.spec.devices.config, spec.spec.devices.requests[0].count", "v1alpha3", "v1alpha1")},
			Warnings: []string{
				"spec.spec.devices.requests[0].count: 1.26 allocates one device of the class, not 4",
				"spec.spec.devices.config: 1.26 has no configuration in the claim spec: drivers get it from ResourceClaimParameters",
			},
		},
	}, {
		name: "v1beta2-template-to-v1alpha3-loses-nothing",
		in: `
apiVersion: resource.k8s.io/v1beta2
kind: ResourceClaimTemplate
metadata: {name: t, namespace: ns}
spec:
  spec:
    devices:
      requests:
      - name: gpu
        exactly: {deviceClassName: gpu.example.com, allocationMode: ExactCount, count: 4}
`,
		to: api.V1alpha3,
		want: `
apiVersion: resource.k8s.io/v1alpha3
kind: ResourceClaimTemplate
metadata: {name: t, namespace: ns}
spec:
  spec:
    devices:
      requests: [{name: gpu, deviceClassName: gpu.example.com, allocationMode: ExactCount, count: 4}]
`,
	}, {
		// The first request is the claim's class; the second, a
		// firstAvailable list, is lost, and 1.30 accepts the claim.
		name: "v1-all-and-first-available-to-v1alpha2",
		in: `
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: c, namespace: ns}
spec:
  devices:
    requests:
    - name: r
      exactly: {deviceClassName: gpu.example.com, allocationMode: All}
    - name: s
      firstAvailable: [{name: x, deviceClassName: gpu.example.com}]
`,
		to: api.V1alpha2,
		want: `
apiVersion: resource.k8s.io/v1alpha2
kind: ResourceClaim
metadata: {name: c, namespace: ns}
spec: {resourceClassName: gpu.example.com, allocationMode: WaitForFirstConsumer}
`,
		report: changes{
			Lost: []string{
				lostLine("spec.devices.requests", "v1alpha3", "v1alpha2"),
				lostLine("spec.devices.requests[1].firstAvailable", "v1beta1", "v1alpha2"),
			},
			Warnings: []string{
				"spec.devices.requests[1].firstAvailable: 1.27–1.30 has no prioritized list: the request's 1 subrequest(s) are kept only in the restore annotation",
				`spec.devices.requests[0].allocationMode: 1.27–1.30 allocates one device of the class, not "All"`,
				"spec.devices.requests[1]: a 1.27–1.30 claim asks for one resource class: this request is not allocated",
			},
		},
	}, {
		// kubectl create takes the namespace from its context: a
		// manifest without one is not refused.
		name: "v1alpha3-without-namespace-to-v1alpha2",
		in: `
apiVersion: resource.claimbridge.dev/v1alpha3
kind: ResourceClaim
metadata: {name: c}
spec: {devices: {requests: [{name: request, deviceClassName: gpu.example.com, allocationMode: ExactCount, count: 1}]}}
`,
		to: api.V1alpha2,
		want: `
apiVersion: resource.claimbridge.dev/v1alpha2
kind: ResourceClaim
metadata: {name: c}
spec: {resourceClassName: gpu.example.com, allocationMode: WaitForFirstConsumer}
`,
	}, {
		// Upgrades report the conversion's warnings too.
		name: "v1alpha2-immediate-to-v1alpha3",
		in: `
apiVersion: resource.k8s.io/v1alpha2
kind: ResourceClaim
metadata: {name: c, namespace: ns}
spec: {resourceClassName: gpu.example.com, allocationMode: Immediate}
`,
		to: api.V1alpha3,
		want: `
apiVersion: resource.k8s.io/v1alpha3
kind: ResourceClaim
metadata: {name: c, namespace: ns}
spec: {devices: {requests: [{name: request, deviceClassName: gpu.example.com, allocationMode: ExactCount, count: 1}]}}
`,
		report: changes{
			Lost:     []string{lostLine("spec.allocationMode", "v1alpha2", "v1alpha3")},
			Warnings: []string{`spec.allocationMode: 1.31 has no allocation mode "Immediate": the claim is allocated only when the first pod that uses it is scheduled`, classicV3Maybe("spec", "gpu.example.com")},
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkObject(t, tt.in, tt.to, Options{}, tt.want, tt.report)
		})
	}
}

// TestObjectRefusedByOldRelease: a migrated object that the apiserver of the
// release serving an alpha target would reject (package validation: the
// 1.26, 1.30 and 1.31 create rules) is refused with an error naming the
// object, the release and every path in the target version; the report
// still says what was lost and what the conversion warned about.
func TestObjectRefusedByOldRelease(t *testing.T) {
	tests := []struct {
		name, in, to, want string
		report             changes
	}{{
		name: "v1-first-available-to-v1alpha3",
		in:   firstAvailableV1,
		to:   api.V1alpha3,
		want: "ResourceClaim ns/c: a Kubernetes 1.31 apiserver would reject the migrated object: spec.devices.requests[0].deviceClassName: Required value",
		report: changes{
			Lost:     []string{lostLine("spec.devices.requests[0].firstAvailable", "v1beta1", "v1alpha3")},
			Warnings: []string{"spec.devices.requests[0].firstAvailable: 1.31 has no prioritized list: the converted request names no deviceClassName, which a 1.31 apiserver requires, and the request's 2 subrequest(s) are kept only in the restore annotation"},
		},
	}, {
		name: "v1-first-available-to-v1alpha2",
		in:   firstAvailableV1,
		to:   api.V1alpha2,
		want: `ResourceClaim ns/c: a Kubernetes 1.27–1.30 apiserver would reject the migrated object: ` + classRequired("spec.resourceClassName", versionTarget(api.V1alpha2)).Error(),
		report: changes{
			Lost: []string{
				lostLine("spec.devices", "v1alpha3", "v1alpha2"),
				lostLine("spec.devices.requests[0].firstAvailable", "v1beta1", "v1alpha2"),
			},
			Warnings: []string{"spec.devices.requests[0].firstAvailable: 1.27–1.30 has no prioritized list: the converted claim names no resourceClassName, which a 1.27–1.30 apiserver requires, and the request's 2 subrequest(s) are kept only in the restore annotation"},
		},
	}, {
		name: "v1-first-available-template-to-v1alpha1",
		in: `
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {name: t, namespace: ns}
spec:
  spec:
    devices:
      requests:
      - name: r
        firstAvailable: [{name: big, deviceClassName: gpu.example.com}]
`,
		to:   api.V1alpha1,
		want: `ResourceClaimTemplate ns/t: a Kubernetes 1.26 apiserver would reject the migrated object: ` + classRequired("spec.spec.resourceClassName", versionTarget(api.V1alpha1)).Error(),
		report: changes{
			Lost: []string{
				lostLine("spec.spec.devices", "v1alpha3", "v1alpha1"),
				lostLine("spec.spec.devices.requests[0].firstAvailable", "v1beta1", "v1alpha1"),
			},
			Warnings: []string{"spec.spec.devices.requests[0].firstAvailable: 1.26 has no prioritized list: the converted claim names no resourceClassName, which a 1.26 apiserver requires, and the request's 1 subrequest(s) are kept only in the restore annotation"},
		},
	}, {
		name: "v1beta1-distinct-attribute-to-v1alpha3",
		in: `
apiVersion: resource.k8s.io/v1beta1
kind: ResourceClaim
metadata: {name: c, namespace: ns}
spec:
  devices:
    requests: [{name: gpu, deviceClassName: gpu.example.com}]
    constraints: [{requests: [gpu], distinctAttribute: gpu.example.com/uuid}]
`,
		to:   api.V1alpha3,
		want: "ResourceClaim ns/c: a Kubernetes 1.31 apiserver would reject the migrated object: spec.devices.constraints[0].matchAttribute: Required value",
		report: changes{
			Lost:     []string{lostLine("spec.devices.constraints[0].distinctAttribute", "v1beta1", "v1alpha3")},
			Warnings: []string{`spec.devices.constraints[0].distinctAttribute: 1.31 has no distinctAttribute constraint: the devices allocated may share attribute "gpu.example.com/uuid"; the constraint is kept only in the restore annotation`},
		},
	}, {
		name: "v1beta2-second-request-first-available-to-v1alpha3",
		in: `
apiVersion: resource.k8s.io/v1beta2
kind: ResourceClaim
metadata: {name: c, namespace: ns}
spec:
  devices:
    requests:
    - {name: r, exactly: {deviceClassName: gpu.example.com}}
    - {name: s, firstAvailable: [{name: x, deviceClassName: gpu.example.com}]}
`,
		to:   api.V1alpha3,
		want: "ResourceClaim ns/c: a Kubernetes 1.31 apiserver would reject the migrated object: spec.devices.requests[1].deviceClassName: Required value",
		report: changes{
			Lost:     []string{lostLine("spec.devices.requests[1].firstAvailable", "v1beta1", "v1alpha3")},
			Warnings: []string{"spec.devices.requests[1].firstAvailable: 1.31 has no prioritized list: the converted request names no deviceClassName, which a 1.31 apiserver requires, and the request's 1 subrequest(s) are kept only in the restore annotation"},
		},
	}, {
		// A selector using a CEL function newer than 1.31: its 1.31
		// apiserver refused it on create, its scheduler could not compile it.
		name: "v1-cel-newer-than-1.31-to-v1alpha3",
		in: `
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: c, namespace: ns}
spec:
  devices:
    requests:
    - name: gpu
      exactly:
        deviceClassName: gpu.example.com
        selectors: [{cel: {expression: 'isSemver("v1.0", true)'}}]
`,
		to: api.V1alpha3,
		want: "ResourceClaim ns/c: a Kubernetes 1.31 apiserver would reject the migrated object: spec.devices.requests[0].selectors[0].cel.expression: Invalid value: \"isSemver(\\\"v1.0\\\", true)\": " +
			"compilation failed: ERROR: <input>:1:9: found no matching overload for 'isSemver' applied to '(string, bool)'\n | isSemver(\"v1.0\", true)\n | ........^",
	}, {
		// A 1.31 claim without requests has no class for 1.30 (the
		// conversion does not warn: nothing is lost).
		name: "v1alpha3-without-requests-to-v1alpha2",
		in: `
apiVersion: resource.claimbridge.dev/v1alpha3
kind: ResourceClaim
metadata: {name: c, namespace: ns}
spec: {devices: {}}
`,
		to: api.V1alpha2,
		want: `ResourceClaim ns/c: a Kubernetes 1.27–1.30 apiserver would reject the migrated object: spec.resourceClassName: Required value: ` +
			"a Kubernetes 1.27–1.30 claim must name a resource class, and this one names none: a 1.31+ claim's class is its first request's deviceClassName, " +
			"which the input lacks (it has no request, or its first request has only firstAvailable); give that request a deviceClassName, or set spec.resourceClassName in the output",
		report: changes{
			Lost: []string{lostLine("spec.devices", "v1alpha3", "v1alpha2")},
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, report, err := migrateOne(t, obj(t, tt.in), versionTarget(tt.to), Options{})
			if err == nil || err.Error() != tt.want {
				t.Fatalf("error %v\nwant %q", err, tt.want)
			}
			if got != nil {
				t.Errorf("a refused object is returned: %v", got)
			}
			if d := cmp.Diff(tt.report, report); d != "" {
				t.Errorf("report (-want +got):\n%s", d)
			}
		})
	}
}

// The target release's own warnings for a create come with the report (not
// those about writes through older versions of claimbridge's CRD).
func TestObjectValidationWarnings(t *testing.T) {
	long := strings.Repeat("x", 10*1024)
	in := obj(t, `{"apiVersion":"resource.claimbridge.dev/v1alpha2","kind":"ResourceClaim","metadata":{"name":"c","namespace":"ns"},"spec":{"resourceClassName":"gpu"}}`)
	_, report, err := migrateOne(t, in, versionTarget(api.V1alpha3), Options{})
	if err != nil || !slices.Equal(report.Warnings, []string{classicV3Maybe("spec", "gpu")}) { // only classicWarningOf's
		t.Fatalf("a plain claim: warnings %q, error %v", report.Warnings, err)
	}
	in = obj(t, `{"apiVersion":"resource.claimbridge.dev/v1alpha3","kind":"ResourceClaim","metadata":{"name":"c","namespace":"ns"},
		"spec":{"devices":{"requests":[{"name":"r","deviceClassName":"gpu","selectors":[{"cel":{"expression":"device.driver == '`+long+`'"}}]}]}}}`)
	_, report, err = migrateOne(t, in, versionTarget(api.V1alpha3), Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"spec.devices.requests[0].selectors[0].cel.expression: the expression has 10259 bytes; Kubernetes 1.32 and later reject expressions longer than 10240 bytes"}
	if d := cmp.Diff(want, report.Warnings); d != "" {
		t.Errorf("warnings (-want +got):\n%s", d)
	}
}

// A 1.27–1.30 claim with Immediate allocation (intel-resource-drivers'
// deployments/gpu/immediate/external/claim-gpu-mem.yaml) re-created on 1.26
// or 1.27–1.30 is allocated immediately there: the warning of claimbridge's
// validation that v1alpha3 (its storage version, 1.31) has no Immediate
// allocation is about claimbridge's CRD, not the target release, and is not
// reported.
func TestObjectImmediateOnAlphaTargets(t *testing.T) {
	in := obj(t, `{"apiVersion":"resource.k8s.io/v1alpha2","kind":"ResourceClaim","metadata":{"name":"immediate-gpu-mem"},
		"spec":{"allocationMode":"Immediate","resourceClassName":"intel-gpu"}}`)
	for _, to := range []string{api.V1alpha1, api.V1alpha2} {
		out, report, err := migrateOne(t, in, versionTarget(to), Options{})
		if err != nil {
			t.Fatalf("%s: %v", to, err)
		}
		if mode := out["spec"].(map[string]interface{})["allocationMode"]; mode != "Immediate" {
			t.Errorf("%s: allocationMode %v, want Immediate", to, mode)
		}
		if len(report.Warnings) != 0 || len(report.Lost) != 0 {
			t.Errorf("%s: warnings %q, lost %q; want none", to, report.Warnings, report.Lost)
		}
	}
}
