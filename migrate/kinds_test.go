package migrate

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/report"
)

// A GPU driver's slice as a 1.31 kubelet plugin publishes it: capacities
// are quantities.
const slice131 = `
apiVersion: resource.k8s.io/v1alpha3
kind: ResourceSlice
metadata: {name: node-1-gpu.example.com-x7k2p}
spec:
  driver: gpu.example.com
  nodeName: node-1
  pool: {name: node-1, generation: 1, resourceSliceCount: 1}
  devices:
  - name: gpu-0
    basic:
      attributes: {model: {string: a100}, driverVersion: {version: 1.0.0}}
      capacity: {memory: 80Gi}
`

const slice132 = `
apiVersion: resource.k8s.io/v1beta1
kind: ResourceSlice
metadata: {name: node-1-gpu.example.com-x7k2p}
spec:
  driver: gpu.example.com
  nodeName: node-1
  pool: {name: node-1, generation: 1, resourceSliceCount: 1}
  devices:
  - name: gpu-0
    basic:
      attributes: {model: {string: a100}, driverVersion: {version: 1.0.0}}
      capacity: {memory: {value: 80Gi}}
`

const slice134 = `
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: node-1-gpu.example.com-x7k2p}
spec:
  driver: gpu.example.com
  nodeName: node-1
  pool: {name: node-1, generation: 1, resourceSliceCount: 1}
  devices:
  - name: gpu-0
    attributes: {model: {string: a100}, driverVersion: {version: 1.0.0}}
    capacity: {memory: {value: 80Gi}}
`

// 1.34's consumable capacity: a share of the memory per claim.
const sliceShared = `
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: node-1-gpu.example.com-x7k2p}
spec:
  driver: gpu.example.com
  nodeName: node-1
  pool: {name: node-1, generation: 1, resourceSliceCount: 1}
  devices:
  - name: gpu-0
    allowMultipleAllocations: true
    capacity:
      memory: {value: 80Gi, requestPolicy: {default: 10Gi, validRange: {min: 10Gi}}}
`

// A v1 slice in v1beta1's shape, as some drivers published for 1.34.
const sliceV1Basic = `
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: node-1-gpu.example.com-x7k2p}
spec:
  driver: gpu.example.com
  nodeName: node-1
  pool: {name: node-1, generation: 1, resourceSliceCount: 1}
  devices:
  - name: gpu-0
    basic:
      attributes: {model: {string: a100}}
      capacity: {memory: {value: 80Gi}}
`

// 1.34's partitionable devices: counters and the devices that consume them in one slice.
const slicePartitioned = `
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: node-1-gpu.example.com-x7k2p}
spec:
  driver: gpu.example.com
  nodeName: node-1
  pool: {name: node-1, generation: 1, resourceSliceCount: 1}
  sharedCounters:
  - name: gpu-0-counters
    counters: {memory: {value: 80Gi}}
  devices:
  - name: gpu-0-mig-1g
    attributes: {profile: {string: 1g.10gb}}
    capacity: {memory: {value: 10Gi}}
    consumesCounters:
    - counterSet: gpu-0-counters
      counters: {memory: {value: 10Gi}}
`

// A maintenance taint on one GPU, as exported from a 1.33 cluster.
const taintRule = `
apiVersion: resource.k8s.io/v1alpha3
kind: DeviceTaintRule
metadata: {name: drain-gpu-0, uid: 6b1c0e0e-4a4b-4d7e-9a53-0c1f2a3b4c5d, resourceVersion: "5"}
spec:
  deviceSelector: {driver: gpu.example.com, pool: node-1, device: gpu-0}
  taint: {key: example.com/maintenance, value: planned, effect: NoExecute}
status: {conditions: []}
`

// 1.33/1.34's class and CEL selection of the tainted devices.
const taintRuleBySelectors = `
apiVersion: resource.k8s.io/v1alpha3
kind: DeviceTaintRule
metadata: {name: drain-a100}
spec:
  deviceSelector:
    deviceClassName: gpu.example.com
    selectors: [{cel: {expression: 'device.attributes["gpu.example.com"].model == "a100"'}}]
  taint: {key: example.com/maintenance, effect: NoSchedule}
`

func TestKinds(t *testing.T) {
	counters := "warning: spec.sharedCounters: Kubernetes 1.35 drops it on a create: its DRAPartitionableDevices feature gate is off by default (on from 1.36)"
	consumes := "warning: spec.devices[0].consumesCounters: Kubernetes 1.35 drops it on a create: its DRAPartitionableDevices feature gate is off by default (on from 1.36)"
	oneOf := func(release string) string {
		return "error: a Kubernetes " + release + " apiserver would reject it: spec: Invalid value: \"\": only one of `sharedCounters` or `devices` is allowed"
	}
	capacityObject := `spec.devices[0].basic.capacity[memory]: Invalid value: {"value":"80Gi"}: quantities must match the regular expression ` +
		`'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$' (a 1.31 capacity is a quantity, not {value: …})`
	bySelector := ": a field that resource.k8s.io/v1 does not have (1.35 removed it from the rules): without it the rule would taint other devices"
	tests := []struct {
		name, in, to string
		migrate      bool
		outcome      string
		want         string // the output, "" when refused (what the target rejects is written by convert, refused by migrate)
		findings     []string
		// back, when set, converts the output to it again: that gives the
		// input, and want is compared without the restore annotation.
		back string
	}{
		{name: "1.31 capacities to v1beta1", in: slice131, to: "1.32", outcome: report.Converted, want: slice132},
		{name: "1.31 capacities to v1", in: slice131, to: "1.34", outcome: report.Converted, want: slice134},
		{name: "v1beta1 to 1.31 capacities", in: slice132, to: "1.31", outcome: report.Converted, want: slice131},
		{name: "v1 to 1.31 capacities", in: slice134, to: "v1alpha3", outcome: report.Converted, want: slice131},
		{name: "v1beta1 capacities labelled v1alpha3", in: strings.Replace(slice132, "v1beta1", "v1alpha3", 1), to: "1.34", outcome: report.Refused, findings: []string{
			"error: not converted to resource.k8s.io/v1: " + capacityObject}},
		{name: "v1beta1 capacities labelled v1alpha3 on 1.31", in: strings.Replace(slice132, "v1beta1", "v1alpha3", 1), to: "1.31", outcome: report.Passed, want: strings.Replace(slice132, "v1beta1", "v1alpha3", 1), findings: []string{
			"error: a Kubernetes 1.31 apiserver would reject it: " + capacityObject}},
		{name: "a capacity's request policy for 1.31", in: sliceShared, to: "1.31", back: "v1", outcome: report.Converted, want: `
apiVersion: resource.k8s.io/v1alpha3
kind: ResourceSlice
metadata: {name: node-1-gpu.example.com-x7k2p}
spec:
  driver: gpu.example.com
  nodeName: node-1
  pool: {name: node-1, generation: 1, resourceSliceCount: 1}
  devices:
  - name: gpu-0
    basic:
      allowMultipleAllocations: true
      capacity: {memory: 80Gi}
`, findings: []string{
			"warning: spec.devices[0].capacity[memory].requestPolicy: a field that resource.k8s.io/v1alpha3 does not have (a 1.31 capacity is a quantity alone): kept only in a restore annotation",
			"error: a Kubernetes 1.31 apiserver would reject it: spec.devices[0].basic.allowMultipleAllocations: Forbidden: unknown field: Kubernetes 1.31 does not have it (1.34+)"}},
		{name: "a device's taints for 1.31", in: strings.Replace(slice134, "    capacity:", "    taints: [{key: example.com/xid, effect: NoSchedule}]\n    capacity:", 1), to: "1.31",
			outcome: report.Converted, want: strings.Replace(slice131, "      capacity:", "      taints: [{key: example.com/xid, effect: NoSchedule}]\n      capacity:", 1), findings: []string{
				"error: a Kubernetes 1.31 apiserver would reject it: spec.devices[0].basic.taints: Forbidden: unknown field: Kubernetes 1.31 does not have it (1.33+)"}},
		{name: "a v1 device's basic", in: sliceV1Basic, to: "1.34", outcome: report.Passed, want: sliceV1Basic, findings: []string{
			"error: a Kubernetes 1.34 apiserver would reject it: spec.devices[0].basic: a field that resource.k8s.io/v1 does not have (v1 has the fields of basic on the device: remove the basic wrapper)"}},
		{name: "a v1 device's basic for v1beta1", in: sliceV1Basic, to: "1.32", outcome: report.Refused, findings: []string{
			"error: not converted to resource.k8s.io/v1beta1: spec.devices[0].basic: a field that resource.k8s.io/v1 does not have (v1 has the fields of basic on the device: remove the basic wrapper)"}},
		{name: "devices and counters on 1.35", in: slicePartitioned, to: "1.35", outcome: report.Passed, want: slicePartitioned, findings: []string{counters, consumes}},
		{name: "devices and counters on 1.36", in: slicePartitioned, to: "1.36", outcome: report.Passed, want: slicePartitioned, findings: []string{oneOf("1.36")}},
		{name: "devices and counters on 1.37", in: slicePartitioned, to: "1.37", outcome: report.Passed, want: slicePartitioned, findings: []string{oneOf("1.37")}},
		{name: "a rule to 1.37", in: taintRule, to: "1.37", outcome: report.Converted, want: `
apiVersion: resource.k8s.io/v1
kind: DeviceTaintRule
metadata: {name: drain-gpu-0, uid: 6b1c0e0e-4a4b-4d7e-9a53-0c1f2a3b4c5d, resourceVersion: "5"}
spec:
  deviceSelector: {driver: gpu.example.com, pool: node-1, device: gpu-0}
  taint: {key: example.com/maintenance, value: planned, effect: NoExecute}
status: {conditions: []}
`},
		{name: "a rule to 1.35", in: taintRule, to: "1.35", outcome: report.Passed, want: taintRule},
		{name: "a rule migrated to 1.36", in: taintRule, to: "1.36", migrate: true, outcome: report.Converted, want: `
apiVersion: resource.k8s.io/v1beta2
kind: DeviceTaintRule
metadata: {name: drain-gpu-0}
spec:
  deviceSelector: {driver: gpu.example.com, pool: node-1, device: gpu-0}
  taint: {key: example.com/maintenance, value: planned, effect: NoExecute}
`, findings: []string{
			"note: dropped metadata.uid, metadata.resourceVersion, status (the rule's conditions, set again by the new cluster)",
			"note: changed apiVersion: resource.k8s.io/v1alpha3 -> resource.k8s.io/v1beta2 (Kubernetes 1.36)"}},
		{name: "a rule on 1.32", in: taintRule, to: "1.32", outcome: report.Passed, want: taintRule, findings: []string{
			"error: kind: Kubernetes 1.32 has no DeviceTaintRule in resource.k8s.io/v1beta1: its apiserver rejects this object, passed through unchanged"}},
		{name: "a rule by selectors on 1.34", in: taintRuleBySelectors, to: "1.34", outcome: report.Passed, want: taintRuleBySelectors},
		{name: "a rule by selectors on 1.35", in: taintRuleBySelectors, to: "1.35", outcome: report.Passed, want: taintRuleBySelectors, findings: []string{
			"error: a Kubernetes 1.35 apiserver would reject it: spec.deviceSelector.deviceClassName: Forbidden: unknown field; spec.deviceSelector.selectors: Forbidden: unknown field"}},
		{name: "a rule by selectors to v1", in: taintRuleBySelectors, to: "v1", back: "1.34", outcome: report.Converted, want: `
apiVersion: resource.k8s.io/v1
kind: DeviceTaintRule
metadata: {name: drain-a100}
spec:
  deviceSelector: {}
  taint: {key: example.com/maintenance, effect: NoSchedule}
`, findings: []string{
			"error: spec.deviceSelector.deviceClassName" + bySelector + ": kept only in a restore annotation",
			"error: spec.deviceSelector.selectors" + bySelector + ": kept only in a restore annotation"}},
		{name: "a rule by selectors migrated to 1.37", in: taintRuleBySelectors, to: "1.37", migrate: true, outcome: report.Refused, findings: []string{
			"error: spec.deviceSelector.deviceClassName" + bySelector + ": kept only in a restore annotation; spec.deviceSelector.selectors" + bySelector + ": kept only in a restore annotation"}},
		{name: "a class's extended resource on 1.34", to: "1.34", outcome: report.Converted, in: `
apiVersion: resource.k8s.io/v1beta2
kind: DeviceClass
metadata: {name: gpu.example.com}
spec:
  selectors: [{cel: {expression: 'device.driver == "gpu.example.com"'}}]
  extendedResourceName: example.com/gpu
`, want: `
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu.example.com}
spec:
  selectors: [{cel: {expression: 'device.driver == "gpu.example.com"'}}]
  extendedResourceName: example.com/gpu
`, findings: []string{"warning: spec.extendedResourceName: Kubernetes 1.34 drops it on a create: its DRAExtendedResource feature gate is off by default (on from 1.36)"}},
		{name: "a class's extended resource migrated to 1.34", to: "1.34", migrate: true, outcome: report.Converted, in: `
apiVersion: resource.k8s.io/v1beta2
kind: DeviceClass
metadata: {name: gpu.example.com, uid: 6b1c0e0e-4a4b-4d7e-9a53-0c1f2a3b4c5d}
spec:
  extendedResourceName: example.com/gpu
`, want: `
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu.example.com}
spec:
  extendedResourceName: example.com/gpu
`, findings: []string{
			"note: dropped metadata.uid",
			"note: changed apiVersion: resource.k8s.io/v1beta2 -> resource.k8s.io/v1 (Kubernetes 1.34)",
			"warning: spec.extendedResourceName: Kubernetes 1.34 drops it on a create: its DRAExtendedResource feature gate is off by default (on from 1.36)"}},
		// 1.26–1.30's kinds are judged by the target's rules, as validate judges them.
		{name: "a 1.30 class migrated to 1.29", to: "1.29", migrate: true, outcome: report.Converted, in: `
apiVersion: resource.k8s.io/v1alpha2
kind: ResourceClass
metadata: {name: gpu.example.com}
driverName: gpu.example.com
structuredParameters: false
`, want: `
apiVersion: resource.k8s.io/v1alpha2
kind: ResourceClass
metadata: {name: gpu.example.com}
driverName: gpu.example.com
`, findings: []string{"note: lost structuredParameters: a field of Kubernetes 1.30 that Kubernetes 1.29 does not have"}},
		{name: "a class with a bad node selector migrated to 1.26", to: "1.26", migrate: true, outcome: report.Refused, in: `
apiVersion: resource.k8s.io/v1alpha2
kind: ResourceClass
metadata: {name: gpu.example.com}
driverName: gpu.example.com
suitableNodes: {nodeSelectorTerms: []}
`, findings: []string{
			"note: changed apiVersion: resource.k8s.io/v1alpha2 -> resource.k8s.io/v1alpha1 (Kubernetes 1.26 serves only v1alpha1)",
			"error: ResourceClass gpu.example.com: a Kubernetes 1.26 apiserver would reject the migrated object: suitableNodes.nodeSelectorTerms: Required value: must have at least one node selector term"}},
		{name: "a 1.30 class in 1.30's version converted", to: "1.30", outcome: report.Passed, in: `
apiVersion: resource.k8s.io/v1alpha2
kind: ResourceClass
metadata: {name: gpu.example.com}
driverName: gpu_example.com
`, want: `
apiVersion: resource.k8s.io/v1alpha2
kind: ResourceClass
metadata: {name: gpu.example.com}
driverName: gpu_example.com
`, findings: []string{"error: a Kubernetes 1.30 apiserver would reject it: driverName: Invalid value: \"gpu_example.com\": " +
			"a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character " +
			"(e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"}},
		{name: "claim parameters with 1.31's selector migrated to 1.30", to: "1.30", migrate: true, outcome: report.Refused, in: `
apiVersion: resource.k8s.io/v1alpha2
kind: ResourceClaimParameters
metadata: {name: gpu, namespace: ml}
driverRequests:
- driverName: gpu.example.com
  requests: [{namedResources: {selector: device.driver == "gpu.example.com"}}]
`, findings: []string{"error: ResourceClaimParameters ml/gpu: a Kubernetes 1.30 apiserver would reject the migrated object: driverRequests[0].requests[0].namedResources.selector: Invalid value: " +
			`"device.driver == \"gpu.example.com\"": compilation failed: ERROR: <input>:1:1: undeclared reference to 'device' (in container '')` + "\n | device.driver == \"gpu.example.com\"\n | ^"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			target := withRules(t, tc.to)
			in := obj(t, tc.in)
			v := Convert(in, target)
			if tc.migrate {
				v = Migrate(in, target, Options{})
			}
			var findings []string
			for _, f := range v.Findings {
				findings = append(findings, f.Severity+": "+f.Message)
			}
			var want map[string]interface{}
			if tc.want != "" {
				want = obj(t, tc.want)
			}
			got := v.Object
			if tc.back != "" {
				back, err := TargetOf(tc.back)
				if err != nil {
					t.Fatal(err)
				}
				if d := cmp.Diff(obj(t, tc.in), Convert(got, back).Object); d != "" {
					t.Errorf("converted back to %s (-input +got):\n%s", tc.back, d)
				}
				got = api.DeepCopyJSON(got)
				delete(got["metadata"].(map[string]interface{}), "annotations")
			}
			if v.Outcome != tc.outcome || !cmp.Equal(got, want) || !cmp.Equal(findings, tc.findings) {
				t.Errorf("outcome %s, want %s\nobject diff (-got +want):\n%s\nfindings diff:\n%s", v.Outcome, tc.outcome, cmp.Diff(got, want), cmp.Diff(findings, tc.findings))
			}
			if !cmp.Equal(in, obj(t, tc.in)) {
				t.Error("the input was modified")
			}
		})
	}
}

// TestKindsRoundTrip: every DeviceClass, ResourceSlice and DeviceTaintRule
// of the parity corpus (v1, valid and invalid), converted for each release
// 1.31–1.36 and back to v1, is the object it was: what an older version
// cannot hold comes back from the restore annotation.
func TestKindsRoundTrip(t *testing.T) {
	files, err := filepath.Glob("../test/envtest/ga/testdata/parity-kinds/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no corpus: %v", err)
	}
	v1, err := TargetOf("v1")
	if err != nil {
		t.Fatal(err)
	}
	kept := 0
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		in := obj(t, string(data))
		for minor := 31; minor <= 36; minor++ {
			target, err := TargetOf(fmt.Sprintf("1.%d", minor))
			if err != nil {
				t.Fatal(err)
			}
			out := Convert(in, target)
			if out.Object == nil { // only for a field v1 does not have
				if len(out.Findings) != 1 || !strings.Contains(out.Findings[0].Message, "a field that resource.k8s.io/v1 does not have") {
					t.Errorf("%s for 1.%d: refused: %v", filepath.Base(file), minor, out.Findings)
				}
				continue
			}
			if api.HasRestoreAnnotation(out.Object) {
				kept++
			}
			if d := cmp.Diff(in, Convert(out.Object, v1).Object); d != "" {
				t.Errorf("%s through 1.%d and back (-in +got):\n%s", filepath.Base(file), minor, d)
			}
		}
	}
	if kept == 0 {
		t.Error("no conversion kept anything in a restore annotation: the corpus no longer reaches what v1alpha3 lacks")
	}
}

// TestKindLists: a typed list of DeviceClasses, ResourceSlices or
// DeviceTaintRules (what the API returns for a list) is converted item by
// item as each alone, an item without apiVersion or kind taking the list's;
// the list takes the apiVersion of its converted items, and one refused
// item refuses the list.
func TestKindLists(t *testing.T) {
	list := func(apiVersion, kind string, items ...string) string {
		s := "apiVersion: resource.k8s.io/" + apiVersion + "\nkind: " + kind + "\nmetadata: {resourceVersion: \"42\"}\nitems:\n"
		for _, it := range items {
			s += "- " + strings.ReplaceAll(strings.TrimPrefix(it, "\n"), "\n", "\n  ") + "\n"
		}
		return s
	}
	// item is a manifest without its apiVersion and kind, as a typed list holds it.
	item := func(manifest string) string {
		_, rest, _ := strings.Cut(manifest, "\nmetadata:")
		return "metadata:" + rest
	}
	rejected := "error: not converted to resource.k8s.io/v1beta2: spec.devices[0].basic: a field that resource.k8s.io/v1 does not have (v1 has the fields of basic on the device: remove the basic wrapper)"
	tests := []struct {
		name, in, to string
		outcome      string
		want         string // "" when refused
		findings     []string
	}{
		{name: "1.31 slices to v1", in: list("v1alpha3", "ResourceSliceList", item(slice131), item(slice131)), to: "1.34",
			outcome: report.Converted, want: list("v1", "ResourceSliceList", slice134, slice134)},
		{name: "an item of its own version", in: list("v1", "ResourceSliceList", item(slice134), slice132), to: "1.34",
			outcome: report.Converted, want: list("v1", "ResourceSliceList", slice134, slice134)},
		{name: "served as it is", in: list("v1alpha3", "DeviceTaintRuleList", item(taintRule)), to: "1.35",
			outcome: report.Passed, want: list("v1alpha3", "DeviceTaintRuleList", item(taintRule))},
		{name: "rules to 1.37", in: list("v1alpha3", "DeviceTaintRuleList", item(taintRule)), to: "1.37",
			outcome: report.Converted, want: list("v1", "DeviceTaintRuleList", strings.Replace(taintRule, "v1alpha3", "v1", 1))},
		{name: "an item refused", in: list("v1", "ResourceSliceList", item(slice134), item(sliceV1Basic)), to: "1.33",
			outcome: report.Refused, findings: []string{rejected}},
		{name: "no items", in: "apiVersion: resource.k8s.io/v1beta1\nkind: DeviceClassList\n", to: "1.37",
			outcome: report.Passed, want: "apiVersion: resource.k8s.io/v1beta1\nkind: DeviceClassList\n"},
		{name: "items not an array", in: "apiVersion: resource.k8s.io/v1\nkind: DeviceClassList\nitems: {}\n", to: "1.37",
			outcome: report.Refused, findings: []string{"error: the items of the DeviceClassList are not an array"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			target := withRules(t, tc.to)
			in := obj(t, tc.in)
			v := Convert(in, target)
			var findings []string
			for _, f := range v.Findings {
				findings = append(findings, f.Severity+": "+f.Message)
			}
			var want map[string]interface{}
			if tc.want != "" {
				want = obj(t, tc.want)
			}
			if v.Outcome != tc.outcome || !cmp.Equal(v.Object, want) || !cmp.Equal(findings, tc.findings) {
				t.Errorf("outcome %s, want %s\nobject diff (-got +want):\n%s\nfindings diff:\n%s", v.Outcome, tc.outcome, cmp.Diff(v.Object, want), cmp.Diff(findings, tc.findings))
			}
			if !cmp.Equal(in, obj(t, tc.in)) {
				t.Error("the input was modified")
			}
		})
	}
}

func TestKindList(t *testing.T) {
	for _, tc := range []struct {
		apiVersion, kind string
		want             bool
	}{
		{"resource.k8s.io/v1", "DeviceClassList", true},
		{"resource.k8s.io/v1beta2", "ResourceSliceList", true},
		{"resource.k8s.io/v1alpha3", "DeviceTaintRuleList", true},
		{"resource.k8s.io/v1alpha3", "ResourceSliceList", true},
		{"resource.k8s.io/v1", "DeviceClass", false},
		{"resource.k8s.io/v1", "ResourceClaimList", false}, // conversion's
		{"resource.k8s.io/v1alpha2", "ResourceSliceList", true},
		{"resource.k8s.io/v1alpha2", "DeviceClassList", false},
		{"resource.k8s.io/v2", "DeviceClassList", false},
		{"example.com/v1", "DeviceClassList", false},
		{"v1", "List", false},
	} {
		if got := KindList(map[string]interface{}{"apiVersion": tc.apiVersion, "kind": tc.kind}); got != tc.want {
			t.Errorf("KindList(%s %s) = %v, want %v", tc.apiVersion, tc.kind, got, tc.want)
		}
	}
}

// TestKindsStaleRestore: restore data made for a spec that changed since is
// not applied, and said.
func TestKindsStaleRestore(t *testing.T) {
	to131, _ := TargetOf("1.31")
	v1, _ := TargetOf("v1")
	old := Convert(obj(t, sliceShared), to131).Object
	old["spec"].(map[string]interface{})["devices"].([]interface{})[0].(map[string]interface{})["basic"].(map[string]interface{})["capacity"] = map[string]interface{}{"memory": "40Gi"}
	v := Convert(old, v1)
	want := "warning: metadata.annotations[claimbridge.dev/restore-v1]: made for another spec (changed since it was converted): not applied, removed"
	var findings []string
	for _, f := range v.Findings {
		findings = append(findings, f.Severity+": "+f.Message)
	}
	if !slices.Contains(findings, want) || api.HasRestoreAnnotation(v.Object) {
		t.Errorf("findings %q, want %q; annotations %v", findings, want, api.Annotations(v.Object))
	}
}

// withRules is the target of to with the versions a DeviceTaintRule is
// written in served, which its release serves only with --runtime-config
// (v1alpha3 in 1.33–1.35, v1beta2 in 1.36).
func withRules(t *testing.T, to string) Target {
	t.Helper()
	target, err := TargetOf(to)
	if err != nil {
		t.Fatal(err)
	}
	if version := api.CreatedIn(api.KindDeviceTaintRule, target.Minor); version != "" {
		if err := target.SetRuntimeConfig(api.UpstreamGroup + "/" + version + "/devicetaintrules=true"); err != nil {
			t.Fatal(err)
		}
	}
	return target
}
