package migrate

import (
	resourcev1 "k8s.io/api/resource/v1"
	"strings"
	"testing"

	"github.com/claimbridge/claimbridge/api"
)

const classicClaim131 = `
apiVersion: resource.k8s.io/v1alpha3
kind: ResourceClaim
metadata:
  name: c
  namespace: ns
  uid: u
  finalizers: [gpu.example.com/deletion-protection, example.com/other]
spec:
  controller: gpu.example.com
  devices:
    requests: [{name: gpu, deviceClassName: gpu.example.com}]
status:
  allocation:
    controller: gpu.example.com
    devices: {results: [{request: gpu, driver: gpu.example.com, pool: p, device: d}]}
`

// TestObjectGA migrates to the upstream versions of 1.32, 1.33 and 1.34+:
// 1.30 parameters are translated at v1alpha3 and converted on (flat requests
// in v1beta1, under exactly in v1beta2 and v1), the GA steps' consumer
// warnings are reported, the classic driver's finalizer is dropped.
func TestObjectGA(t *testing.T) {
	tests := []struct {
		name   string
		in     string
		index  []string
		to     string
		want   string
		report changes
	}{{
		name: "1.30-claim-to-v1",
		in:   exported130,
		to:   api.V1,
		want: `
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata:
  name: c
  namespace: ns
  labels: {app: a}
  annotations: {note: kept}
  finalizers: [example.com/other]
spec:
  devices:
    requests: [{name: request, exactly: {deviceClassName: gpu.example.com, allocationMode: ExactCount, count: 1}}]
`,
		report: changes{
			Dropped: []string{"metadata.uid", "metadata.resourceVersion", "metadata.generation", "metadata.creationTimestamp",
				"metadata.managedFields", "metadata.selfLink",
				"metadata.ownerReferences (owners of the old cluster; --keep-owner-references keeps them)",
				"metadata.annotations[kubectl.kubernetes.io/last-applied-configuration]",
				"metadata.finalizers[dra.k8s.io/delete-protection] (the allocation's: the scheduler adds its own when it allocates the claim again)",
				"status (reset on create: the old cluster's allocation is dropped; the claim will be allocated again, possibly to other devices)"},
			Warnings: []string{classicGAGPU},
		},
	}, {
		name:  "1.30-parameters-to-v1beta1",
		in:    claimWithParameters,
		index: []string{claimParameters},
		to:    api.V1beta1,
		want: `
apiVersion: resource.k8s.io/v1beta1
kind: ResourceClaim
metadata: {name: c, namespace: ns}
spec:
  devices:
    requests:
    - name: request-0
      deviceClassName: gpu.example.com
      allocationMode: ExactCount
      count: 2
      selectors:
      - cel: {expression: 'device.driver == "gpu.example.com"'}
      - cel: {expression: 'device.attributes["gpu.example.com"]["model"] == "a100"'}
    - name: request-1
      deviceClassName: gpu.example.com
      allocationMode: ExactCount
      count: 1
      selectors:
      - cel: {expression: 'device.driver == "gpu.example.com"'}
      - cel: {expression: 'device.attributes["gpu.example.com"]["mig"]'}
    config:
    - requests: [request-0, request-1]
      opaque: {driver: gpu.example.com, parameters: {kind: GPUConfig, sharing: timeSlicing}}
    - requests: [request-1]
      opaque: {driver: gpu.example.com, parameters: {kind: MIGConfig, profile: 1g.5gb}}
`,
		report: changes{
			Changed: []string{"spec.devices: 2 request(s) translated from ResourceClaimParameters two-gpus-generated"},
		},
	}, {
		name:  "1.30-parameters-to-v1beta2",
		in:    claimWithParameters,
		index: []string{claimParameters},
		to:    api.V1beta2,
		want: `
apiVersion: resource.k8s.io/v1beta2
kind: ResourceClaim
metadata: {name: c, namespace: ns}
spec:
  devices:
    requests:
    - name: request-0
      exactly:
        deviceClassName: gpu.example.com
        allocationMode: ExactCount
        count: 2
        selectors:
        - cel: {expression: 'device.driver == "gpu.example.com"'}
        - cel: {expression: 'device.attributes["gpu.example.com"]["model"] == "a100"'}
    - name: request-1
      exactly:
        deviceClassName: gpu.example.com
        allocationMode: ExactCount
        count: 1
        selectors:
        - cel: {expression: 'device.driver == "gpu.example.com"'}
        - cel: {expression: 'device.attributes["gpu.example.com"]["mig"]'}
    config:
    - requests: [request-0, request-1]
      opaque: {driver: gpu.example.com, parameters: {kind: GPUConfig, sharing: timeSlicing}}
    - requests: [request-1]
      opaque: {driver: gpu.example.com, parameters: {kind: MIGConfig, profile: 1g.5gb}}
`,
		report: changes{
			Changed: []string{"spec.devices: 2 request(s) translated from ResourceClaimParameters two-gpus-generated"},
		},
	}, {
		name: "1.31-classic-claim-to-v1",
		in:   classicClaim131,
		to:   api.V1,
		want: `
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata:
  name: c
  namespace: ns
  finalizers: [example.com/other]
spec:
  devices:
    requests: [{name: gpu, exactly: {deviceClassName: gpu.example.com}}]
`,
		report: changes{
			Dropped: []string{"metadata.uid",
				"metadata.finalizers[gpu.example.com/deletion-protection] (classic DRA driver's: Kubernetes 1.34+ runs no classic driver that would remove it)",
				"status (reset on create: the old cluster's allocation is dropped; the claim will be allocated again, possibly to other devices)"},
			Lost:     []string{lostLine("spec.controller", "v1alpha3", "v1")},
			Warnings: []string{`spec.controller: classic DRA (controller "gpu.example.com") is gone in Kubernetes 1.32: a 1.32+ scheduler allocates only devices published in ResourceSlices, so pods using this claim stay pending unless the driver publishes them; the controller is kept only in the restore annotation`},
		},
	}, {
		name: "v1-admin-access-re-created",
		in: `
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: c, namespace: ns, resourceVersion: "7"}
spec:
  devices:
    requests: [{name: r, exactly: {deviceClassName: gpu.example.com, adminAccess: true}}]
`,
		to: api.V1,
		want: `
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: c, namespace: ns}
spec:
  devices:
    requests: [{name: r, exactly: {deviceClassName: gpu.example.com, adminAccess: true}}]
`,
		report: changes{
			Dropped:  []string{"metadata.resourceVersion"},
			Warnings: []string{"spec.devices.requests[0].exactly.adminAccess: needs a namespace labeled resource.kubernetes.io/admin-access=true (Kubernetes 1.34+; resource.k8s.io/admin-access=true in 1.33)"},
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			idx := &Index{}
			for _, s := range tt.index {
				idx.Add(obj(t, s))
			}
			checkObject(t, tt.in, tt.to, Options{Parameters: idx}, tt.want, tt.report)
		})
	}
}

// TestObjectGARefused: what a 1.36 apiserver rejects is an error naming the
// object, the release and every reason.
func TestObjectGARefused(t *testing.T) {
	longCEL := strings.Repeat("x", resourcev1.CELSelectorExpressionMaxLength+1)
	tests := []struct {
		name, in, to, want string
	}{{
		name: "cel-over-10Ki",
		in: `
apiVersion: resource.k8s.io/v1alpha3
kind: ResourceClaim
metadata: {name: c, namespace: ns}
spec:
  devices:
    requests: [{name: r, deviceClassName: gpu.example.com, selectors: [{cel: {expression: ` + longCEL + `}}]}]
`,
		to:   api.V1,
		want: "ResourceClaim ns/c: a Kubernetes 1.34+ apiserver would reject the migrated object: spec.devices.requests[0].exactly.selectors[0].cel.expression: Too long: may not be more than 10240 bytes",
	}, {
		name: "opaque-parameters-not-an-object",
		in: `
apiVersion: resource.k8s.io/v1alpha3
kind: ResourceClaimTemplate
metadata: {name: t, namespace: ns}
spec:
  spec:
    devices:
      requests: [{name: r, deviceClassName: gpu.example.com}]
      config: [{opaque: {driver: gpu.example.com, parameters: [1, 2]}}]
`,
		to:   api.V1beta1,
		want: "ResourceClaimTemplate ns/t: a Kubernetes 1.32 apiserver would reject the migrated object: spec.spec.devices.config[0].opaque.parameters: Invalid value: \"<value omitted>\": parameters must be a valid JSON object",
	}, {
		name: "claimbridge-group-to-v1",
		in:   "apiVersion: resource.claimbridge.dev/v1alpha2\nkind: ResourceClaim\nmetadata: {name: c}\nspec: {resourceClassName: x}\n",
		to:   api.V1,
		want: "target version v1 is a version of resource.k8s.io (Kubernetes 1.34+), not of resource.claimbridge.dev; give the manifest apiVersion resource.k8s.io/v1alpha2 to migrate it to the upstream API",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := migrateOne(t, obj(t, tt.in), versionTarget(tt.to), Options{})
			if err == nil || err.Error() != tt.want {
				t.Fatalf("error %v\nwant %q", err, tt.want)
			}
		})
	}
}
