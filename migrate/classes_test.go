package migrate

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/claimbridge/claimbridge/api"
)

func TestParameters(t *testing.T) {
	class126 := `
apiVersion: resource.k8s.io/v1alpha1
kind: ResourceClass
metadata: {name: gpu, uid: u, resourceVersion: "7"}
driverName: gpu.example.com
parametersRef: {apiGroup: gpu.example.com, kind: GpuClassParameters, name: p, namespace: ns}
suitableNodes: {nodeSelectorTerms: [{matchExpressions: [{key: gpu, operator: Exists}]}]}
`
	class130 := `
apiVersion: resource.k8s.io/v1alpha2
kind: ResourceClass
metadata: {name: gpu, uid: u, resourceVersion: "7"}
driverName: gpu.example.com
structuredParameters: true
parametersRef: {apiGroup: resource.k8s.io, kind: ResourceClassParameters, name: p, namespace: ns}
`
	claimParams := `
apiVersion: resource.k8s.io/v1alpha2
kind: ResourceClaimParameters
metadata: {name: p, namespace: ns, uid: u, resourceVersion: "8"}
driverRequests: [{driverName: gpu.example.com, requests: [{namedResources: {selector: "true"}}]}]
`
	tests := []struct {
		name, in, to string
		served       bool
		want         string
		report       changes
		index        []string // the input's parameter objects (Options.Parameters)
	}{{
		name: "1.26-class-to-v1alpha2", in: class126, to: api.V1alpha2, served: true,
		want: `
apiVersion: resource.k8s.io/v1alpha2
kind: ResourceClass
metadata: {name: gpu}
driverName: gpu.example.com
parametersRef: {apiGroup: gpu.example.com, kind: GpuClassParameters, name: p, namespace: ns}
suitableNodes: {nodeSelectorTerms: [{matchExpressions: [{key: gpu, operator: Exists}]}]}
`,
		report: changes{
			Dropped: []string{"metadata.uid", "metadata.resourceVersion"},
			Changed: []string{"apiVersion: resource.k8s.io/v1alpha1 -> resource.k8s.io/v1alpha2 (Kubernetes 1.27–1.30 serves only v1alpha2)"},
		},
	}, {
		name: "1.26-class-to-v1alpha1", in: class126, to: api.V1alpha1, served: true,
		want: `
apiVersion: resource.k8s.io/v1alpha1
kind: ResourceClass
metadata: {name: gpu}
driverName: gpu.example.com
parametersRef: {apiGroup: gpu.example.com, kind: GpuClassParameters, name: p, namespace: ns}
suitableNodes: {nodeSelectorTerms: [{matchExpressions: [{key: gpu, operator: Exists}]}]}
`,
		report: changes{Dropped: []string{"metadata.uid", "metadata.resourceVersion"}},
	}, {
		name: "1.30-class-to-v1alpha1", in: class130, to: api.V1alpha1, served: true,
		want: `
apiVersion: resource.k8s.io/v1alpha1
kind: ResourceClass
metadata: {name: gpu}
driverName: gpu.example.com
parametersRef: {apiGroup: resource.k8s.io, kind: ResourceClassParameters, name: p, namespace: ns}
`,
		report: changes{
			Dropped:  []string{"metadata.uid", "metadata.resourceVersion"},
			Changed:  []string{"apiVersion: resource.k8s.io/v1alpha2 -> resource.k8s.io/v1alpha1 (Kubernetes 1.26 serves only v1alpha1)"},
			Lost:     []string{"structuredParameters: a field of Kubernetes 1.30 that Kubernetes 1.26 does not have"},
			Warnings: []string{"structuredParameters: Kubernetes 1.26 has no structured parameters: claims of this class are allocated by the driver's control-plane controller (classic DRA), which must run for them", "parametersRef: ResourceClassParameters ns/p: 1.26 has no ResourceClassParameters (1.30 structured parameters), so nothing reads it there"},
		},
	}, {
		name: "1.30-class-to-v1alpha2", in: class130, to: api.V1alpha2, served: true,
		want: `
apiVersion: resource.k8s.io/v1alpha2
kind: ResourceClass
metadata: {name: gpu}
driverName: gpu.example.com
structuredParameters: true
parametersRef: {apiGroup: resource.k8s.io, kind: ResourceClassParameters, name: p, namespace: ns}
`,
		report: changes{Dropped: []string{"metadata.uid", "metadata.resourceVersion"}},
	}, {
		name: "1.30-claim-parameters-to-v1alpha2", in: claimParams, to: api.V1alpha2, served: true,
		want: `
apiVersion: resource.k8s.io/v1alpha2
kind: ResourceClaimParameters
metadata: {name: p, namespace: ns}
driverRequests: [{driverName: gpu.example.com, requests: [{namedResources: {selector: "true"}}]}]
`,
		report: changes{Dropped: []string{"metadata.uid", "metadata.resourceVersion"}},
	}, {
		name: "1.30-claim-parameters-to-v1alpha1", in: claimParams, to: api.V1alpha1,
	}, {
		// 1.31 and later: the DeviceClass of the same name that the
		// migrated claims name, selecting the class's driver.
		name: "1.26-class-to-v1alpha3", in: class126, to: api.V1alpha3, served: true,
		want: `
apiVersion: resource.k8s.io/v1alpha3
kind: DeviceClass
metadata: {name: gpu}
spec:
  selectors: [{cel: {expression: 'device.driver == "gpu.example.com"'}}]
  suitableNodes: {nodeSelectorTerms: [{matchExpressions: [{key: gpu, operator: Exists}]}]}
`,
		report: changes{
			Dropped: []string{"metadata.uid", "metadata.resourceVersion"},
			Changed: []string{`resource.k8s.io/v1alpha1 ResourceClass -> resource.k8s.io/v1alpha3 DeviceClass selecting the devices of driver "gpu.example.com" (Kubernetes 1.31 has no ResourceClass; the migrated claims name this class)`},
			Lost:    []string{"parametersRef: GpuClassParameters ns/p: a DeviceClass has none (a driver's own class parameters, which no 1.31+ component reads)"},
			Warnings: []string{"the class's claims were allocated by driver gpu.example.com's control-plane controller (classic DRA): a 1.31 claim keeps that only with spec.controller set " +
				"and the DRAControlPlaneController feature gate; from 1.32 on the driver must publish ResourceSlices"},
		},
	}, {
		// The 1.30 scheduler applied the class's filter for its driver to
		// every structured claim of the class (the first filter per driver).
		name: "1.30-class-with-filters-to-v1alpha3", in: class130, to: api.V1alpha3, served: true,
		index: []string{class130, `
apiVersion: resource.k8s.io/v1alpha2
kind: ResourceClassParameters
metadata: {name: p, namespace: ns}
filters:
- driverName: nic.example.com
  namedResources: {selector: 'attributes.bool["rdma"]'}
- driverName: gpu.example.com
  namedResources: {selector: 'attributes.int["generation"] >= 3'}
- driverName: gpu.example.com
  namedResources: {selector: 'attributes.bool["ignored"]'}
`},
		want: `
apiVersion: resource.k8s.io/v1alpha3
kind: DeviceClass
metadata: {name: gpu}
spec:
  selectors:
  - cel: {expression: 'device.driver == "gpu.example.com"'}
  - cel: {expression: 'device.attributes["gpu.example.com"]["generation"] >= 3'}
`,
		report: changes{
			Dropped:  []string{"metadata.uid", "metadata.resourceVersion"},
			Changed:  []string{`resource.k8s.io/v1alpha2 ResourceClass -> resource.k8s.io/v1alpha3 DeviceClass selecting the devices of driver "gpu.example.com" that pass the class's 1.30 filter (Kubernetes 1.31 has no ResourceClass; the migrated claims name this class)`},
			Lost:     []string{"parametersRef: ResourceClassParameters ns/p: a DeviceClass has none (the filter of its 1.30 ResourceClassParameters for driver gpu.example.com is a selector of this class)"},
			Warnings: []string{"ResourceClass gpu filters[2]: a further filter for driver gpu.example.com, which the 1.30 scheduler did not apply (it took the first); not applied"},
		},
	}, {
		// The first filter of a driver is the one 1.30 applied, even when
		// it cannot be translated: a later one is not applied in its place.
		name: "1.30-class-first-filter-untranslatable", in: class130, to: api.V1alpha3, served: true,
		index: []string{class130, `
apiVersion: resource.k8s.io/v1alpha2
kind: ResourceClassParameters
metadata: {name: p, namespace: ns}
filters:
- driverName: gpu.example.com
  namedResources: {selector: '"fast" in attributes.stringslice["tags"]'}
- driverName: gpu.example.com
  namedResources: {selector: 'attributes.bool["never-applied-by-1.30"]'}
`},
		want: `
apiVersion: resource.k8s.io/v1alpha3
kind: DeviceClass
metadata: {name: gpu}
spec:
  selectors: [{cel: {expression: 'device.driver == "gpu.example.com"'}}]
`,
		report: changes{
			Dropped: []string{"metadata.uid", "metadata.resourceVersion"},
			Changed: []string{`resource.k8s.io/v1alpha2 ResourceClass -> resource.k8s.io/v1alpha3 DeviceClass selecting the devices of driver "gpu.example.com" (Kubernetes 1.31 has no ResourceClass; the migrated claims name this class)`},
			Lost:    []string{"parametersRef: ResourceClassParameters ns/p: a DeviceClass has none (the filter of its 1.30 ResourceClassParameters for driver gpu.example.com, if they have one and are in the input, is a selector of this class)"},
			Warnings: []string{
				"ResourceClass gpu filters[0]: attributes.stringslice has no 1.31 equivalent; not applied",
				"ResourceClass gpu filters[1]: a further filter for driver gpu.example.com, which the 1.30 scheduler did not apply (it took the first); not applied",
			},
		},
	}, {
		// The 1.30 scheduler filtered structured claims by the class's
		// suitableNodes too; 1.31+ reads it for classic DRA only.
		name: "1.30-structured-class-with-suitable-nodes-to-v1alpha3", to: api.V1alpha3, served: true,
		in: `
apiVersion: resource.k8s.io/v1alpha2
kind: ResourceClass
metadata: {name: gpu}
driverName: gpu.example.com
structuredParameters: true
suitableNodes: {nodeSelectorTerms: [{matchExpressions: [{key: gpu, operator: Exists}]}]}
`,
		want: `
apiVersion: resource.k8s.io/v1alpha3
kind: DeviceClass
metadata: {name: gpu}
spec:
  selectors: [{cel: {expression: 'device.driver == "gpu.example.com"'}}]
  suitableNodes: {nodeSelectorTerms: [{matchExpressions: [{key: gpu, operator: Exists}]}]}
`,
		report: changes{
			Changed:  []string{`resource.k8s.io/v1alpha2 ResourceClass -> resource.k8s.io/v1alpha3 DeviceClass selecting the devices of driver "gpu.example.com" (Kubernetes 1.31 has no ResourceClass; the migrated claims name this class)`},
			Warnings: []string{"suitableNodes: the 1.30 scheduler allocated this class's claims only on these nodes; a 1.31+ scheduler takes a structured claim's nodes from its devices' ResourceSlices alone, so the claims may get devices on other nodes (add a CEL selector on the devices' attributes to keep them apart)"},
		},
	}, {
		name: "1.30-class-to-v1", in: class130, to: api.V1, served: true,
		want: `
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu}
spec:
  selectors: [{cel: {expression: 'device.driver == "gpu.example.com"'}}]
`,
		report: changes{
			Dropped:  []string{"metadata.uid", "metadata.resourceVersion"},
			Changed:  []string{`resource.k8s.io/v1alpha2 ResourceClass -> resource.k8s.io/v1 DeviceClass selecting the devices of driver "gpu.example.com" (Kubernetes 1.34+ has no ResourceClass; the migrated claims name this class)`},
			Lost:     []string{"parametersRef: ResourceClassParameters ns/p: a DeviceClass has none (the filter of its 1.30 ResourceClassParameters for driver gpu.example.com, if they have one and are in the input, is a selector of this class)"},
			Warnings: []string{"ResourceClass gpu: its parameters ResourceClassParameters ns/p are not in the input; their filters are not applied"},
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := obj(t, tt.in)
			var opts Options
			if tt.index != nil {
				opts.Parameters = &Index{}
				for _, s := range tt.index {
					if !opts.Parameters.Add(obj(t, s)) {
						t.Fatalf("not indexed: %s", s)
					}
				}
			}
			got, report, served := migrateParameters(in, versionTarget(tt.to), opts)
			if served != tt.served {
				t.Fatalf("served %v, want %v", served, tt.served)
			}
			if !served {
				return
			}
			if d := cmp.Diff(obj(t, tt.want), normalize(t, got)); d != "" {
				t.Errorf("object (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tt.report, report); d != "" {
				t.Errorf("report (-want +got):\n%s", d)
			}
			if d := cmp.Diff(obj(t, tt.in), in); d != "" {
				t.Errorf("input modified (-want +got):\n%s", d)
			}
		})
	}
}
