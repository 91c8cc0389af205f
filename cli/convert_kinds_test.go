package cli

import (
	"strings"
	"testing"
)

// TestConvertKinds: convert converts ResourceSlices and DeviceTaintRules
// and judges them, and DeviceClasses, as validate does: what the target
// cannot hold refuses the object (exit 1); what its release rejects is an
// error (exit 1) and the object is written; what it drops is a warning.
func TestConvertKinds(t *testing.T) {
	const partitioned = `apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata:
  name: node-1-gpu.example.com-x7k2p
spec:
  devices:
  - consumesCounters:
    - counterSet: gpu-0-counters
      counters:
        memory:
          value: 10Gi
    name: gpu-0-mig-1g
  driver: gpu.example.com
  nodeName: node-1
  pool:
    generation: 1
    name: node-1
    resourceSliceCount: 1
  sharedCounters:
  - counters:
      memory:
        value: 80Gi
    name: gpu-0-counters
`
	const rule = "apiVersion: resource.k8s.io/v1alpha3\nkind: DeviceTaintRule\nmetadata:\n  name: drain-gpu-0\nspec:\n  deviceSelector:\n    device: gpu-0\n    driver: gpu.example.com\n  taint:\n    effect: NoExecute\n    key: example.com/maintenance\n"
	const pos = "<stdin>: document 1 (line 1): "
	gate := func(field string) string {
		return pos + "warning: ResourceSlice node-1-gpu.example.com-x7k2p: " + field + ": Kubernetes 1.35 drops it on a create: its DRAPartitionableDevices feature gate is off by default (on from 1.36)\n"
	}
	for _, tc := range []struct {
		name, in, to   string
		more           []string // more flags
		code           int
		stdout, stderr string
	}{{
		name: "devices and counters on 1.35", in: partitioned, to: "1.35", code: ExitOK, stdout: partitioned,
		stderr: gate("spec.sharedCounters") + gate("spec.devices[0].consumesCounters"),
	}, {
		name: "devices and counters on 1.36", in: partitioned, to: "1.36", code: ExitInvalid, stdout: partitioned,
		stderr: "Error: " + pos + "ResourceSlice node-1-gpu.example.com-x7k2p: a Kubernetes 1.36 apiserver would reject it: spec: Invalid value: \"\": only one of `sharedCounters` or `devices` is allowed\n",
	}, {
		name: "a v1 device's basic", to: "1.34", code: ExitInvalid,
		in:     "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: s}\nspec: {driver: d.example.com, allNodes: true, pool: {name: p, resourceSliceCount: 1}, devices: [{name: gpu-0, basic: {capacity: {memory: {value: 80Gi}}}}]}\n",
		stdout: "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: s}\nspec: {driver: d.example.com, allNodes: true, pool: {name: p, resourceSliceCount: 1}, devices: [{name: gpu-0, basic: {capacity: {memory: {value: 80Gi}}}}]}\n",
		stderr: "Error: " + pos + "ResourceSlice s: a Kubernetes 1.34 apiserver would reject it: spec.devices[0].basic: a field that resource.k8s.io/v1 does not have (v1 has the fields of basic on the device: remove the basic wrapper)\n",
	}, {
		name: "capacities for 1.31", to: "1.31", code: ExitOK,
		in:     "apiVersion: resource.k8s.io/v1beta1\nkind: ResourceSlice\nmetadata:\n  name: s\nspec:\n  allNodes: true\n  devices:\n  - basic:\n      capacity:\n        memory:\n          value: 80Gi\n    name: gpu-0\n  driver: d.example.com\n  pool:\n    name: p\n    resourceSliceCount: 1\n",
		stdout: "apiVersion: resource.k8s.io/v1alpha3\nkind: ResourceSlice\nmetadata:\n  name: s\nspec:\n  allNodes: true\n  devices:\n  - basic:\n      capacity:\n        memory: 80Gi\n    name: gpu-0\n  driver: d.example.com\n  pool:\n    name: p\n    resourceSliceCount: 1\n",
	}, {
		// A typed list: its items converted as they are alone, the list to their version.
		name: "a slice list for 1.31", to: "1.31", code: ExitOK,
		in:     "apiVersion: resource.k8s.io/v1beta1\nkind: ResourceSliceList\nmetadata:\n  resourceVersion: \"42\"\nitems:\n- metadata:\n    name: s\n  spec:\n    allNodes: true\n    devices:\n    - basic:\n        capacity:\n          memory:\n            value: 80Gi\n      name: gpu-0\n    driver: d.example.com\n    pool:\n      name: p\n      resourceSliceCount: 1\n",
		stdout: "apiVersion: resource.k8s.io/v1alpha3\nitems:\n- apiVersion: resource.k8s.io/v1alpha3\n  kind: ResourceSlice\n  metadata:\n    name: s\n  spec:\n    allNodes: true\n    devices:\n    - basic:\n        capacity:\n          memory: 80Gi\n      name: gpu-0\n    driver: d.example.com\n    pool:\n      name: p\n      resourceSliceCount: 1\nkind: ResourceSliceList\nmetadata:\n  resourceVersion: \"42\"\n",
	}, {
		name: "a rule to 1.37", in: rule, to: "1.37", code: ExitOK, stdout: strings.Replace(rule, "v1alpha3", "v1", 1),
	}, {
		// 1.36 serves DeviceTaintRule in v1beta2, off by default.
		name: "a rule to 1.36", in: rule, to: "1.36", more: []string{"--runtime-config", "resource.k8s.io/v1beta2=true"}, code: ExitOK, stdout: strings.Replace(rule, "v1alpha3", "v1beta2", 1),
	}, {
		name: "a rule to 1.36 by default", in: rule, to: "1.36", code: ExitInvalid, stdout: strings.Replace(rule, "v1alpha3", "v1beta2", 1),
		stderr: "Error: " + pos + "DeviceTaintRule drain-gpu-0: a Kubernetes 1.36 apiserver would reject it: apiVersion: Kubernetes 1.36 serves resource.k8s.io/v1beta2 DeviceTaintRule only with --runtime-config=resource.k8s.io/v1beta2=true, and by default none: its apiserver rejects this object\n",
	}, {
		name: "a class's extended resource on 1.34", to: "1.34", code: ExitOK,
		in:     "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata:\n  name: gpu.example.com\nspec:\n  extendedResourceName: example.com/gpu\n",
		stdout: "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata:\n  name: gpu.example.com\nspec:\n  extendedResourceName: example.com/gpu\n",
		stderr: pos + "warning: DeviceClass gpu.example.com: spec.extendedResourceName: Kubernetes 1.34 drops it on a create: its DRAExtendedResource feature gate is off by default (on from 1.36)\n",
	}} {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := run(t, tc.in, append([]string{"convert", "--to", tc.to, "-f", "-"}, tc.more...)...)
			if code != tc.code || stdout != tc.stdout || stderr != tc.stderr {
				t.Errorf("exit %d, want %d\nstderr:\n%s\nwant:\n%s\nstdout:\n%s\nwant:\n%s", code, tc.code, stderr, tc.stderr, stdout, tc.stdout)
			}
		})
	}
}
