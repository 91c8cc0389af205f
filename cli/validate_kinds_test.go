package cli

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestValidateKinds: validate judges DeviceClasses, ResourceSlices,
// DeviceTaintRules and 1.26–1.30's kinds as the release of --to (or the one
// judging their version) would on a create.
func TestValidateKinds(t *testing.T) {
	const (
		class = `apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata:
  name: gpu.example.com
spec:
  selectors:
  - cel:
      expression: device.driver == "gpu.example.com"
`
		slice = `apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata:
  name: node-1-gpu.example.com-x7k2p
spec:
  driver: gpu.example.com
  nodeName: node-1
  pool: {name: node-1, generation: 1, resourceSliceCount: 1}
  sharedCounters:
  - name: gpu-0-counters
    counters:
      memory: {value: 40Gi}
  devices:
  - name: gpu-0
    capacity:
      memory: {value: 40Gi}
`
		taintRule = `apiVersion: resource.k8s.io/v1alpha3
kind: DeviceTaintRule
metadata:
  name: gpu-0-maintenance
spec:
  deviceSelector: {driver: gpu.example.com, device: gpu-0}
  taint: {key: gpu.example.com/maintenance, effect: NoExecute}
`
		resourceClass = "apiVersion: resource.k8s.io/v1alpha2\nkind: ResourceClass\nmetadata: {name: gpu}\ndriverName: gpu.example.com\n"
		namedSlice    = `apiVersion: resource.k8s.io/v1alpha2
kind: ResourceSlice
metadata: {name: node-1-gpu.example.com}
nodeName: node-1
driverName: gpu.example.com
namedResources:
  instances:
  - name: gpu-0
    attributes: [{name: model, string: a100}, {name: memory, quantity: 40Gi}]
`
		claimParameters = `apiVersion: resource.k8s.io/v1alpha2
kind: ResourceClaimParameters
metadata: {name: two-gpus, namespace: ml}
driverRequests:
- driverName: gpu.example.com
  requests:
  - namedResources: {selector: 'attributes.quantity["memory"].compareTo(quantity("40Gi")) >= 0'}
  - namedResources: {selector: 'attributes.string["model"] == "a100"'}
`
		at = "<stdin>: document 1 (line 1): "
	)
	badClass := strings.Replace(class, `"gpu.example.com"`, `"gpu.example.com" &&`, 1)
	tests := map[string]struct {
		stdin       string
		args        []string
		code        int
		out, errOut string
	}{
		"class-bad-selector-1.34": {stdin: badClass, args: []string{"--to", "1.34"}, code: ExitInvalid,
			out: at + `DeviceClass gpu.example.com: spec.selectors[0].cel.expression: Invalid value: "device.driver == \"gpu.example.com\" &&": compilation failed: ERROR: <input>:1:38: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}
 | device.driver == "gpu.example.com" &&
 | .....................................^
`},
		"class-bad-selector-default": {stdin: badClass, code: ExitInvalid,
			out: at + `DeviceClass gpu.example.com: spec.selectors[0].cel.expression: Invalid value: "device.driver == \"gpu.example.com\" &&": compilation failed: ERROR: <input>:1:38: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}
 | device.driver == "gpu.example.com" &&
 | .....................................^
`},
		"class-valid-1.34": {stdin: class, args: []string{"--to", "1.34"}, code: ExitOK},
		"class-v1-not-served-1.33": {stdin: class, args: []string{"--to", "1.33"}, code: ExitInvalid,
			out: at + "DeviceClass gpu.example.com: apiVersion: Kubernetes 1.33 serves resource.k8s.io/v1beta2, not v1: its apiserver rejects this object\n"},
		"class-v1beta1-not-served-1.30": {stdin: strings.Replace(class, "/v1\n", "/v1beta1\n", 1), args: []string{"--to", "1.30"}, code: ExitInvalid,
			out: at + "DeviceClass gpu.example.com: kind: Kubernetes 1.30 has no DeviceClass in resource.k8s.io (1.31+): its apiserver rejects this object\n"},
		"class-extended-resource-1.34": {stdin: class + "  extendedResourceName: example.com/gpu\n", args: []string{"--to", "1.34"}, code: ExitOK,
			errOut: at + "warning: DeviceClass gpu.example.com: spec.extendedResourceName: Kubernetes 1.34 drops it on a create: its DRAExtendedResource feature gate is off by default (on from 1.36)\n"},
		"slice-devices-and-counters-1.34": {stdin: slice, args: []string{"--to", "1.34"}, code: ExitOK,
			errOut: at + "warning: ResourceSlice node-1-gpu.example.com-x7k2p: spec.sharedCounters: Kubernetes 1.34 drops it on a create: its DRAPartitionableDevices feature gate is off by default (on from 1.36)\n"},
		"slice-devices-and-counters-1.36": {stdin: slice, args: []string{"--to", "1.36"}, code: ExitInvalid,
			out: at + "ResourceSlice node-1-gpu.example.com-x7k2p: spec: Invalid value: \"\": only one of `sharedCounters` or `devices` is allowed\n"},
		// A typed list: each item judged as its kind, with the list's apiVersion.
		"slice-list-1.36": {args: []string{"--to", "1.36"}, code: ExitInvalid,
			stdin: `apiVersion: resource.k8s.io/v1
kind: ResourceSliceList
items:
- metadata: {name: node-1-gpu.example.com-x7k2p}
  spec:
    driver: gpu.example.com
    nodeName: node-1
    pool: {name: node-1, generation: 1, resourceSliceCount: 1}
    sharedCounters: [{name: gpu-0-counters, counters: {memory: {value: 40Gi}}}]
    devices: [{name: gpu-0, capacity: {memory: {value: 40Gi}}}]
- metadata: {name: node-2-gpu.example.com-q8r4t}
  spec: {driver: gpu.example.com, nodeName: node-2, pool: {name: node-2, generation: 1, resourceSliceCount: 1}, devices: [{name: gpu-0}]}
`,
			out: "<stdin>: document 1 (line 1), items[0]: ResourceSlice node-1-gpu.example.com-x7k2p: spec: Invalid value: \"\": only one of `sharedCounters` or `devices` is allowed\n"},
		"taint-rule-1.35": {stdin: taintRule, args: []string{"--to", "1.35", "--runtime-config", "resource.k8s.io/v1alpha3=true"}, code: ExitOK},
		"taint-rule-1.35-default": {stdin: taintRule, args: []string{"--to", "1.35"}, code: ExitInvalid,
			out: at + "DeviceTaintRule gpu-0-maintenance: apiVersion: Kubernetes 1.35 serves resource.k8s.io/v1alpha3 DeviceTaintRule only with --runtime-config=resource.k8s.io/v1alpha3=true, and by default none: its apiserver rejects this object\n"},
		"taint-rule-1.37": {stdin: taintRule, args: []string{"--to", "1.37"}, code: ExitInvalid,
			out: at + "DeviceTaintRule gpu-0-maintenance: apiVersion: Kubernetes 1.37 serves resource.k8s.io/v1alpha3 DeviceTaintRule only with --runtime-config=resource.k8s.io/v1alpha3=true, and by default resource.k8s.io/v1: its apiserver rejects this object\n"},
		// A release from 1.31 has no ResourceClass.
		"resource-class-1.33": {stdin: "apiVersion: resource.k8s.io/v1alpha2\nkind: ResourceClass\nmetadata: {name: gpu}\ndriverName: gpu.example.com\n", args: []string{"--to", "1.33"}, code: ExitInvalid,
			out: at + "ResourceClass gpu: apiVersion: Kubernetes 1.33 serves resource.k8s.io/v1beta2, not v1alpha2: its apiserver rejects this object\n"},
		"resource-class-1.31": {stdin: "apiVersion: resource.k8s.io/v1alpha3\nkind: ResourceClass\nmetadata: {name: gpu}\ndriverName: gpu.example.com\n", args: []string{"--to", "1.31"}, code: ExitInvalid,
			out: at + "ResourceClass gpu: kind: Kubernetes 1.31 has no ResourceClass in resource.k8s.io/v1alpha3: its apiserver rejects this object\n"},
		// The kinds of 1.26–1.30, judged by the release serving them.
		"resource-class-1.30":    {stdin: resourceClass, args: []string{"--to", "1.30"}, code: ExitOK},
		"resource-class-default": {stdin: resourceClass + "structuredParameters: true\n", code: ExitOK},
		"resource-class-invalid-1.30": {stdin: strings.Replace(resourceClass, "gpu.example.com", "gpu_example.com", 1) + "structuredParams: true\n", args: []string{"--to", "1.30"}, code: ExitInvalid,
			out: at + "ResourceClass gpu: structuredParams: Forbidden: unknown field\n" +
				at + `ResourceClass gpu: driverName: Invalid value: "gpu_example.com": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')` + "\n"},
		"resource-class-v1alpha1-1.26": {stdin: strings.Replace(resourceClass, "v1alpha2", "v1alpha1", 1), args: []string{"--to", "1.26"}, code: ExitOK},
		"resource-class-v1alpha1-1.30": {stdin: strings.Replace(resourceClass, "v1alpha2", "v1alpha1", 1), args: []string{"--to", "1.30"}, code: ExitInvalid,
			out: at + "ResourceClass gpu: apiVersion: Kubernetes 1.30 serves resource.k8s.io/v1alpha2, not v1alpha1: its apiserver rejects this object\n"},
		"named-slice-1.30": {stdin: namedSlice, args: []string{"--to", "1.30"}, code: ExitOK},
		"named-slice-invalid-1.30": {stdin: namedSlice + "  - name: gpu-0\n    attributes: [{name: model}]\n", args: []string{"--to", "1.30"}, code: ExitInvalid,
			out: at + `ResourceSlice node-1-gpu.example.com: namedResources.instances[1].name: Duplicate value: "gpu-0"` + "\n" +
				at + "ResourceSlice node-1-gpu.example.com: namedResources.instances[1].attributes[0]: Required value: exactly one value must be set\n"},
		"named-slice-1.26": {stdin: namedSlice, args: []string{"--to", "1.26"}, code: ExitInvalid,
			out: at + "ResourceSlice node-1-gpu.example.com: kind: Kubernetes 1.26 has no ResourceSlice in resource.k8s.io (1.30+): its apiserver rejects this object\n"},
		"named-slice-1.31": {stdin: namedSlice, args: []string{"--to", "1.31"}, code: ExitInvalid,
			out: at + "ResourceSlice node-1-gpu.example.com: apiVersion: Kubernetes 1.31 no longer serves resource.k8s.io/v1alpha2 ResourceSlice: its apiserver rejects this object\n"},
		// 1.30's parameter kinds, their selectors compiled in 1.30's CEL environment.
		"claim-parameters": {stdin: claimParameters, code: ExitOK},
		"claim-parameters-1.31-selector": {stdin: strings.Replace(claimParameters, `attributes.quantity["memory"].compareTo(quantity("40Gi")) >= 0`, `device.attributes["gpu.example.com"].model == "a100"`, 1),
			args: []string{"--to", "1.30"}, code: ExitInvalid,
			out: at + `ResourceClaimParameters ml/two-gpus: driverRequests[0].requests[0].namedResources.selector: Invalid value: "device.attributes[\"gpu.example.com\"].model == \"a100\"": ` +
				"compilation failed: ERROR: <input>:1:1: undeclared reference to 'device' (in container '')\n | device.attributes[\"gpu.example.com\"].model == \"a100\"\n | ^\n"},
		"claim-parameters-1.31": {stdin: claimParameters, args: []string{"--to", "1.31"}, code: ExitInvalid,
			out: at + "ResourceClaimParameters ml/two-gpus: apiVersion: Kubernetes 1.31 no longer serves resource.k8s.io/v1alpha2 ResourceClaimParameters: its apiserver rejects this object\n"},
		"class-parameters-no-model": {stdin: "apiVersion: resource.k8s.io/v1alpha2\nkind: ResourceClassParameters\nmetadata: {name: gpu}\nfilters: [{driverName: gpu.example.com}]\n", code: ExitInvalid,
			out: at + "ResourceClassParameters gpu: filters[0]: Required value: exactly one structured model field must be set\n"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			code, out, errOut := runValidate(t, tc.stdin, append(tc.args, "-f", "-")...)
			if code != tc.code {
				t.Errorf("exit %d, want %d", code, tc.code)
			}
			if d := cmp.Diff(tc.out, out); d != "" {
				t.Errorf("stdout (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tc.errOut, errOut); d != "" {
				t.Errorf("stderr (-want +got):\n%s", d)
			}
		})
	}
}
