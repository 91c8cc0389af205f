package migrate

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/claimbridge/claimbridge/api"
)

func TestTranslateSelector(t *testing.T) {
	tests := []struct {
		name, in, want, err string
		notes               []string
	}{
		{name: "empty", in: "", want: ""},
		{name: "string", in: `attributes.string["model"] == "a100"`, want: `device.attributes["gpu.example.com"]["model"] == "a100"`},
		{name: "bool-int-version", in: `attributes.bool["sriov"] && attributes.int["cores"] > 4 && attributes.version["fw"].isGreaterThan(semver("1.0.0"))`,
			want: `device.attributes["gpu.example.com"]["sriov"] && device.attributes["gpu.example.com"]["cores"] > 4 && device.attributes["gpu.example.com"]["fw"].isGreaterThan(semver("1.0.0"))`},
		{name: "quantity-is-capacity", in: `attributes.quantity["memory"].isGreaterThan(quantity("8Gi"))`,
			want: `device.capacity["gpu.example.com"]["memory"].isGreaterThan(quantity("8Gi"))`, notes: []string{"quantity attributes are read as the device's capacity in 1.31"}},
		{name: "literal-untouched", in: `attributes.string["s"] == "attributes.int"`, want: `device.attributes["gpu.example.com"]["s"] == "attributes.int"`},
		{name: "stringslice", in: `"x" in attributes.stringslice["tags"]`, err: "attributes.stringslice has no 1.31 equivalent"},
		{name: "bare-variable", in: `size(attributes) > 0`, err: "the attributes variable is used in a way that cannot be translated"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, notes, err := translateSelector("gpu.example.com", tt.in)
			if tt.err != "" {
				if err == nil || err.Error() != tt.err {
					t.Fatalf("error %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
			if d := cmp.Diff(tt.notes, notes); d != "" {
				t.Errorf("notes (-want +got):\n%s", d)
			}
		})
	}
}

const claimWithParameters = `
apiVersion: resource.k8s.io/v1alpha2
kind: ResourceClaim
metadata: {name: c, namespace: ns}
spec:
  resourceClassName: gpu.example.com
  parametersRef: {apiGroup: gpu.example.com, kind: GPUClaimParameters, name: two-gpus}
`

const claimParameters = `
apiVersion: resource.k8s.io/v1alpha2
kind: ResourceClaimParameters
metadata: {name: two-gpus-generated, namespace: ns}
generatedFrom: {apiGroup: gpu.example.com, kind: GPUClaimParameters, name: two-gpus}
shareable: true
driverRequests:
- driverName: gpu.example.com
  vendorParameters: {kind: GPUConfig, sharing: timeSlicing}
  requests:
  - namedResources: {selector: 'attributes.string["model"] == "a100"'}
  - namedResources: {selector: 'attributes.string["model"] == "a100"'}
  - namedResources: {selector: 'attributes.bool["mig"]'}
    vendorParameters: {kind: MIGConfig, profile: 1g.5gb}
`

const classWithParameters = `
apiVersion: resource.k8s.io/v1alpha2
kind: ResourceClass
metadata: {name: gpu.example.com}
driverName: gpu.example.com
structuredParameters: true
parametersRef: {apiGroup: resource.k8s.io, kind: ResourceClassParameters, name: gpu-class, namespace: drivers}
`

const classParameters = `
apiVersion: resource.k8s.io/v1alpha2
kind: ResourceClassParameters
metadata: {name: gpu-class, namespace: drivers}
filters:
- driverName: gpu.example.com
  namedResources: {selector: 'attributes.int["generation"] >= 3'}
`

func TestTranslateParameters(t *testing.T) {
	tests := []struct {
		name     string
		index    []string
		want     string
		changed  []string
		warnings []string
	}{{
		name:  "claim-and-class-parameters",
		index: []string{claimParameters, classWithParameters, classParameters},
		want: `
apiVersion: resource.k8s.io/v1alpha3
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
		changed: []string{"spec.devices: 2 request(s) translated from ResourceClaimParameters two-gpus-generated"},
	}, {
		// Devices of two drivers through one class: the request for the
		// other driver gets that driver's class filter (the class's own is
		// in its DeviceClass) and cannot be allocated through the class,
		// which a warning says; a driver's vendorParameters are those of its
		// first entry, as in 1.30.
		name: "two-drivers",
		index: []string{`
apiVersion: resource.k8s.io/v1alpha2
kind: ResourceClaimParameters
metadata: {name: two-gpus-generated, namespace: ns}
generatedFrom: {apiGroup: gpu.example.com, kind: GPUClaimParameters, name: two-gpus}
shareable: true
driverRequests:
- driverName: gpu.example.com
  vendorParameters: {first: true}
  requests: [{namedResources: {selector: "true"}}]
- driverName: nic.example.com
  requests: [{namedResources: {selector: "true"}}]
- driverName: gpu.example.com
  vendorParameters: {first: false}
  requests: [{namedResources: {selector: "true"}}]
`, classWithParameters, `
apiVersion: resource.k8s.io/v1alpha2
kind: ResourceClassParameters
metadata: {name: gpu-class, namespace: drivers}
filters:
- driverName: gpu.example.com
  namedResources: {selector: 'attributes.int["generation"] >= 3'}
- driverName: nic.example.com
  namedResources: {selector: 'attributes.bool["rdma"]'}
- driverName: nic.example.com
  namedResources: {selector: 'attributes.bool["ignored"]'}
`},
		want: `
apiVersion: resource.k8s.io/v1alpha3
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
      - cel: {expression: "true"}
    - name: request-1
      deviceClassName: gpu.example.com
      allocationMode: ExactCount
      count: 1
      selectors:
      - cel: {expression: 'device.driver == "nic.example.com"'}
      - cel: {expression: 'device.attributes["nic.example.com"]["rdma"]'}
      - cel: {expression: "true"}
    config:
    - requests: [request-0]
      opaque: {driver: gpu.example.com, parameters: {first: true}}
`,
		changed: []string{"spec.devices: 2 request(s) translated from ResourceClaimParameters two-gpus-generated"},
		warnings: []string{
			"spec.parametersRef (ResourceClaimParameters ns/two-gpus-generated) driverRequests[2].vendorParameters: a further entry for driver gpu.example.com, whose vendorParameters the 1.30 scheduler did not pass on (it took the first entry's); not configured",
			"spec.parametersRef (ResourceClaimParameters ns/two-gpus-generated): devices of driver nic.example.com, requested through class gpu.example.com, whose DeviceClass selects the devices of driver gpu.example.com only: a 1.31+ scheduler can never allocate that request, and the pods stay pending; create a DeviceClass for driver nic.example.com's devices and name it in the request",
		},
	}, {
		name:  "parameters-missing",
		index: []string{classWithParameters},
		want: `
apiVersion: resource.k8s.io/v1alpha3
kind: ResourceClaim
metadata: {name: c, namespace: ns}
spec: {devices: {requests: [{name: request, deviceClassName: gpu.example.com, allocationMode: ExactCount, count: 1}]}}
`,
		warnings: []string{`spec.parametersRef: GPUClaimParameters ns/two-gpus (apiGroup "gpu.example.com"): no 1.30 ResourceClaimParameters generated from it is in the input (add them from kubectl get resourceclaimparameters -A -o yaml if its driver uses structured parameters; a classic driver's own parameters cannot be translated); the reference is dropped and the migrated claim asks for one device of class gpu.example.com with no selector and no configuration`},
	}, {
		name: "untranslatable-selector",
		index: []string{`
apiVersion: resource.k8s.io/v1alpha2
kind: ResourceClaimParameters
metadata: {name: p, namespace: ns}
generatedFrom: {apiGroup: gpu.example.com, kind: GPUClaimParameters, name: two-gpus}
shareable: true
driverRequests:
- driverName: gpu.example.com
  requests:
  - namedResources: {selector: '"fast" in attributes.stringslice["tags"]'}
`},
		want: `
apiVersion: resource.k8s.io/v1alpha3
kind: ResourceClaim
metadata: {name: c, namespace: ns}
spec:
  devices:
    requests:
    - name: request
      deviceClassName: gpu.example.com
      allocationMode: ExactCount
      count: 1
      selectors: [{cel: {expression: 'device.driver == "gpu.example.com"'}}]
`,
		changed:  []string{"spec.devices: 1 request(s) translated from ResourceClaimParameters p"},
		warnings: []string{`spec.parametersRef (ResourceClaimParameters ns/p) driverRequests[0].requests[0].namedResources.selector "\"fast\" in attributes.stringslice[\"tags\"]": attributes.stringslice has no 1.31 equivalent; the device is requested without it`},
	}, {
		// 1.30 copied shareable (false when absent) into the allocation:
		// one pod at a time, which no 1.31+ claim can say.
		name: "not-shareable",
		index: []string{`
apiVersion: resource.k8s.io/v1alpha2
kind: ResourceClaimParameters
metadata: {name: p, namespace: ns}
generatedFrom: {apiGroup: gpu.example.com, kind: GPUClaimParameters, name: two-gpus}
driverRequests: [{driverName: gpu.example.com, requests: [{namedResources: {selector: "true"}}]}]
`},
		want: `
apiVersion: resource.k8s.io/v1alpha3
kind: ResourceClaim
metadata: {name: c, namespace: ns}
spec:
  devices:
    requests:
    - name: request
      deviceClassName: gpu.example.com
      allocationMode: ExactCount
      count: 1
      selectors: [{cel: {expression: 'device.driver == "gpu.example.com"'}}, {cel: {expression: "true"}}]
`,
		changed:  []string{"spec.devices: 1 request(s) translated from ResourceClaimParameters p"},
		warnings: []string{"spec.parametersRef (ResourceClaimParameters ns/p) shareable: false: a 1.30 allocation of this claim served one pod at a time; a 1.31+ claim may be reserved by up to 32 pods at once (256 from 1.33) and has no way to say otherwise"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			idx := &Index{}
			for _, s := range tt.index {
				if !idx.Add(obj(t, s)) {
					t.Fatalf("not indexed: %s", s)
				}
			}
			got, report, err := migrateOne(t, obj(t, claimWithParameters), versionTarget(api.V1alpha3), Options{Parameters: idx})
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(obj(t, tt.want), normalize(t, got)); d != "" {
				t.Errorf("object (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tt.changed, report.Changed); d != "" {
				t.Errorf("changed (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tt.warnings, report.Warnings); d != "" {
				t.Errorf("warnings (-want +got):\n%s", d)
			}
		})
	}
}

func TestParametersNotTranslated(t *testing.T) {
	otherNamespace := `
apiVersion: resource.k8s.io/v1alpha2
kind: ResourceClaimParameters
metadata: {name: p, namespace: elsewhere}
generatedFrom: {apiGroup: gpu.example.com, kind: GPUClaimParameters, name: two-gpus}
driverRequests: [{driverName: gpu.example.com, requests: [{namedResources: {selector: "true"}}]}]
`
	tests := []struct {
		name, claim string
		index       []string
		warnings    []string
	}{{
		name:     "parameters-in-another-namespace",
		claim:    claimWithParameters,
		index:    []string{otherNamespace},
		warnings: []string{`spec.parametersRef: GPUClaimParameters ns/two-gpus (apiGroup "gpu.example.com"): no 1.30 ResourceClaimParameters generated from it is in the input (add them from kubectl get resourceclaimparameters -A -o yaml if its driver uses structured parameters; a classic driver's own parameters cannot be translated); the reference is dropped and the migrated claim asks for one device of class gpu.example.com with no selector and no configuration`},
	}, {
		name: "1.26-vendor-parameters",
		claim: `
apiVersion: resource.k8s.io/v1alpha1
kind: ResourceClaim
metadata: {name: c, namespace: ns}
spec:
  resourceClassName: gpu.example.com
  parametersRef: {apiGroup: gpu.example.com, kind: GPUClaimParameters, name: two-gpus}
`,
		index:    []string{otherNamespace},
		warnings: []string{`spec.parametersRef: GPUClaimParameters ns/two-gpus (apiGroup "gpu.example.com") is a 1.26 driver's own claim parameters, which no 1.31+ component reads and migrate cannot translate; the reference is dropped and the migrated claim asks for one device of class gpu.example.com with no selector and no configuration`, classicV3Unknown},
	}, {
		// kubectl creates both in its context's namespace: the reference
		// is named without one (not "/two-gpus").
		name:     "1.26-without-namespace",
		claim:    "apiVersion: resource.k8s.io/v1alpha1\nkind: ResourceClaim\nmetadata: {name: c}\nspec:\n  resourceClassName: gpu.example.com\n  parametersRef: {apiGroup: gpu.example.com, kind: GPUClaimParameters, name: two-gpus}\n",
		warnings: []string{`spec.parametersRef: GPUClaimParameters two-gpus (apiGroup "gpu.example.com") is a 1.26 driver's own claim parameters, which no 1.31+ component reads and migrate cannot translate; the reference is dropped and the migrated claim asks for one device of class gpu.example.com with no selector and no configuration`, classicV3Unknown},
	}, {
		name:     "1.30-without-namespace",
		claim:    "apiVersion: resource.k8s.io/v1alpha2\nkind: ResourceClaim\nmetadata: {name: c}\nspec:\n  resourceClassName: gpu.example.com\n  parametersRef: {apiGroup: gpu.example.com, kind: GPUClaimParameters, name: two-gpus}\n",
		index:    []string{otherNamespace},
		warnings: []string{`spec.parametersRef: GPUClaimParameters two-gpus (apiGroup "gpu.example.com"): no 1.30 ResourceClaimParameters generated from it is in the input (add them from kubectl get resourceclaimparameters -A -o yaml if its driver uses structured parameters; a classic driver's own parameters cannot be translated); the reference is dropped and the migrated claim asks for one device of class gpu.example.com with no selector and no configuration`},
	}, {
		name:     "1.30-in-tree-parameters-missing",
		claim:    "apiVersion: resource.k8s.io/v1alpha2\nkind: ResourceClaim\nmetadata: {name: c, namespace: ns}\nspec:\n  resourceClassName: gpu.example.com\n  parametersRef: {apiGroup: resource.k8s.io, kind: ResourceClaimParameters, name: p}\n",
		index:    []string{otherNamespace},
		warnings: []string{`spec.parametersRef: ResourceClaimParameters ns/p (apiGroup "resource.k8s.io"): it is not in the input (add it from kubectl get resourceclaimparameters -A -o yaml); the reference is dropped and the migrated claim asks for one device of class gpu.example.com with no selector and no configuration`},
	}, {
		// No warning about parameters; the class, not in the input, may be
		// a classic driver's (1.27–1.29 have only classic DRA).
		name:     "no-parameters-class-unknown",
		claim:    "apiVersion: resource.k8s.io/v1alpha2\nkind: ResourceClaim\nmetadata: {name: c, namespace: ns}\nspec: {resourceClassName: gpu.example.com}\n",
		index:    []string{otherNamespace},
		warnings: []string{classicV3Maybe("spec", "gpu.example.com")},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			idx := &Index{}
			for _, s := range tt.index {
				idx.Add(obj(t, s))
			}
			got, report, err := migrateOne(t, obj(t, tt.claim), versionTarget(api.V1alpha3), Options{Parameters: idx})
			if err != nil {
				t.Fatal(err)
			}
			want := []interface{}{map[string]interface{}{"name": "request", "deviceClassName": "gpu.example.com", "allocationMode": "ExactCount", "count": json.Number("1")}}
			if d := cmp.Diff(want, got["spec"].(map[string]interface{})["devices"].(map[string]interface{})["requests"]); d != "" {
				t.Errorf("requests (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tt.warnings, report.Warnings); d != "" {
				t.Errorf("warnings (-want +got):\n%s", d)
			}
		})
	}
}
