package judge

import (
	"fmt"
	"strings"
	"testing"

	"github.com/claimbridge/claimbridge/api"
	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/yaml"
)

const (
	testClass = `apiVersion: resource.k8s.io/%s
kind: DeviceClass
metadata: {name: gpu.example.com}
spec:
  selectors:
  - cel: {expression: 'device.driver == "gpu.example.com"'}
  config:
  - opaque: {driver: gpu.example.com, parameters: {sharing: time-slicing}}
`
	testSlice = `apiVersion: resource.k8s.io/%s
kind: ResourceSlice
metadata: {name: node-1-gpu.example.com-x7k2p}
spec:
  driver: gpu.example.com
  nodeName: node-1
  pool: {name: node-1, generation: 1, resourceSliceCount: 1}
  devices:
  - name: gpu-0
    attributes:
      model: {string: a100}
      driverVersion: {version: 1.2.0}
    capacity:
      memory: {value: 40Gi}
`
	testTaintRule = `apiVersion: resource.k8s.io/%s
kind: DeviceTaintRule
metadata: {name: gpu-0-maintenance}
spec:
  deviceSelector: {driver: gpu.example.com, pool: node-1, device: gpu-0}
  taint: {key: gpu.example.com/maintenance, value: planned, effect: NoSchedule}
`
)

// testObject is the object of manifest (a format with the version), in
// version, after edit.
func testObject(t *testing.T, manifest, version string, edit func(obj map[string]interface{})) map[string]interface{} {
	t.Helper()
	var obj map[string]interface{}
	if err := yaml.Unmarshal([]byte(fmt.Sprintf(manifest, version)), &obj); err != nil {
		t.Fatal(err)
	}
	if edit != nil {
		edit(obj)
	}
	return obj
}

// set sets the value at the dotted path of obj, with [i] for the i-th item
// of a list.
func set(obj map[string]interface{}, path string, value interface{}) {
	keys := strings.Split(path, ".")
	var cur interface{} = obj
	for i, k := range keys {
		name, index, isItem := strings.Cut(strings.TrimSuffix(k, "]"), "[")
		m := cur.(map[string]interface{})
		if i == len(keys)-1 && !isItem {
			m[name] = value
			return
		}
		if isItem {
			var n int
			fmt.Sscan(index, &n)
			if i == len(keys)-1 {
				m[name].([]interface{})[n] = value
				return
			}
			cur = m[name].([]interface{})[n]
			continue
		}
		cur = m[name]
	}
}

// yamlValue is the decoded value of a YAML literal.
func yamlValue(t *testing.T, s string) interface{} {
	t.Helper()
	var v interface{}
	if err := yaml.Unmarshal([]byte(s), &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// testSlice131 is testSlice with 1.31's device shape: fields under basic,
// a capacity a quantity.
const testSlice131 = `apiVersion: resource.k8s.io/%s
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
`

const notCIdentifier = "a valid C identifier must start with alphabetic character or '_', followed by a string of alphanumeric characters or '_' (e.g. 'my_name',  or 'MY_NAME',  or 'MyName', regex used for validation is '[A-Za-z_][A-Za-z0-9_]*')"

// badAttribute gives the first device (its basic, when under is "basic")
// an attribute whose name is not a C identifier.
func badAttribute(under string) func(t *testing.T) func(map[string]interface{}) {
	return func(t *testing.T) func(map[string]interface{}) {
		return func(obj map[string]interface{}) {
			device := obj["spec"].(map[string]interface{})["devices"].([]interface{})[0].(map[string]interface{})
			if under != "" {
				device = device[under].(map[string]interface{})
			}
			device["attributes"].(map[string]interface{})["product-name"] = map[string]interface{}{"string": "A100"}
		}
	}
}

func TestCheckKind(t *testing.T) {
	const notAnExpression = "compilation failed: ERROR: <input>:1:38: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n | device.driver == \"gpu.example.com\" &&\n | .....................................^"
	badSelector := func(t *testing.T) func(map[string]interface{}) {
		return func(obj map[string]interface{}) {
			set(obj, "spec.selectors[0].cel.expression", `device.driver == "gpu.example.com" &&`)
		}
	}
	both := func(t *testing.T) func(map[string]interface{}) {
		return func(obj map[string]interface{}) {
			set(obj, "spec.sharedCounters", yamlValue(t, "[{name: gpu-0-counters, counters: {memory: {value: 40Gi}}}]"))
		}
	}
	taints := func(n int) func(t *testing.T) func(map[string]interface{}) {
		return func(t *testing.T) func(map[string]interface{}) {
			return func(obj map[string]interface{}) {
				list := make([]interface{}, n)
				for i := range list {
					list[i] = map[string]interface{}{"key": fmt.Sprintf("gpu.example.com/t%d", i), "effect": "NoSchedule"}
				}
				set(obj, "spec.devices[0].taints", list)
			}
		}
	}
	tests := map[string]struct {
		manifest, version string
		release           int
		edit              func(t *testing.T) func(map[string]interface{})
		errs, warnings    []string
	}{
		// Where each release names a bad attribute name: 1.31 at the map
		// under basic, 1.32 at the key under basic, 1.33–1.35 at the key,
		// 1.36+ at the map.
		"slice-v1alpha3-attribute-name-1.31": {manifest: testSlice131, version: "v1alpha3", release: 31, edit: badAttribute("basic"),
			errs: []string{`spec.devices[0].basic.attributes: Invalid value: "product-name": ` + notCIdentifier}},
		"slice-v1beta1-attribute-name-1.32": {manifest: testSlice131, version: "v1beta1", release: 32, edit: badAttribute("basic"),
			errs: []string{`spec.devices[0].basic.attributes[product-name]: Invalid value: "product-name": ` + notCIdentifier}},
		"slice-v1-attribute-name-1.35": {manifest: testSlice, version: "v1", release: 35, edit: badAttribute(""),
			errs: []string{`spec.devices[0].attributes[product-name]: Invalid value: "product-name": ` + notCIdentifier}},
		"slice-v1-attribute-name-1.36": {manifest: testSlice, version: "v1", release: 36, edit: badAttribute(""),
			errs: []string{`spec.devices[0].attributes: Invalid value: "product-name": ` + notCIdentifier}},
		"class-v1-valid-1.34":         {manifest: testClass, version: "v1", release: 34},
		"class-v1beta1-valid-1.32":    {manifest: testClass, version: "v1beta1", release: 32},
		"class-v1alpha3-valid-1.31":   {manifest: testClass, version: "v1alpha3", release: 31},
		"class-v1-bad-selector-1.34":  {manifest: testClass, version: "v1", release: 34, edit: badSelector, errs: []string{`spec.selectors[0].cel.expression: Invalid value: "device.driver == \"gpu.example.com\" &&": ` + notAnExpression}},
		"class-v1alpha3-bad-selector": {manifest: testClass, version: "v1alpha3", release: 31, edit: badSelector, errs: []string{`spec.selectors[0].cel.expression: Invalid value: "device.driver == \"gpu.example.com\" &&": ` + notAnExpression}},
		"class-v1-not-served-1.33": {manifest: testClass, version: "v1", release: 33,
			errs: []string{"apiVersion: Kubernetes 1.33 serves resource.k8s.io/v1beta2, not v1: its apiserver rejects this object"}},
		"class-v1beta1-no-class-1.30": {manifest: testClass, version: "v1beta1", release: 30,
			errs: []string{"kind: Kubernetes 1.30 has no DeviceClass in resource.k8s.io (1.31+): its apiserver rejects this object"}},
		"class-v1alpha3-not-served-1.32": {manifest: testClass, version: "v1alpha3", release: 32,
			errs: []string{"apiVersion: Kubernetes 1.32 serves resource.k8s.io/v1alpha3 DeviceClass only with --runtime-config=resource.k8s.io/v1alpha3=true, and with DRA on as its users turn it on (--feature-gates=DynamicResourceAllocation=true --runtime-config=resource.k8s.io/v1beta1=true), resource.k8s.io/v1beta1: its apiserver rejects this object"}},
		"class-v1-extended-resource-1.34": {manifest: testClass, version: "v1", release: 34,
			edit: func(*testing.T) func(map[string]interface{}) {
				return func(obj map[string]interface{}) { set(obj, "spec.extendedResourceName", "example.com/gpu") }
			},
			warnings: []string{"spec.extendedResourceName: Kubernetes 1.34 drops it on a create: its DRAExtendedResource feature gate is off by default (on from 1.36)"}},
		"class-v1alpha3-1.31-fields": {manifest: testClass, version: "v1alpha3", release: 31,
			edit: func(t *testing.T) func(map[string]interface{}) {
				return func(obj map[string]interface{}) {
					set(obj, "spec.extendedResourceName", "example.com/gpu")
					set(obj, "spec.suitableNodes", yamlValue(t, "{nodeSelectorTerms: [{matchExpressions: [{key: gpu, operator: Exists}]}]}"))
					set(obj, "spec.selector", "x")
				}
			},
			errs: []string{
				`spec.selector: Forbidden: unknown field`,
				`spec.extendedResourceName: Forbidden: unknown field: Kubernetes 1.31 does not have it (1.34+)`,
			},
			warnings: []string{"spec.suitableNodes: Kubernetes 1.31 drops it on a create: its DRAControlPlaneController feature gate is off by default"}},
		// 1.31 limits neither the length of an expression nor the size of
		// the parameters; 1.32 does.
		"class-v1alpha3-long-expression": {manifest: testClass, version: "v1alpha3", release: 31,
			edit: func(*testing.T) func(map[string]interface{}) {
				return func(obj map[string]interface{}) {
					set(obj, "spec.selectors[0].cel.expression", `device.driver == "`+strings.Repeat("x", 10*1024)+`"`)
				}
			}},
		"class-v1beta1-long-expression": {manifest: testClass, version: "v1beta1", release: 32,
			edit: func(*testing.T) func(map[string]interface{}) {
				return func(obj map[string]interface{}) {
					set(obj, "spec.selectors[0].cel.expression", `device.driver == "`+strings.Repeat("x", 10*1024)+`"`)
				}
			},
			errs: []string{"spec.selectors[0].cel.expression: Too long: may not be more than 10240 bytes"}},

		"slice-v1-valid-1.34":      {manifest: testSlice, version: "v1", release: 34},
		"slice-v1beta2-valid-1.33": {manifest: testSlice, version: "v1beta2", release: 33},
		// The KEP-4815 split: 1.34 and 1.35 drop sharedCounters with
		// DRAPartitionableDevices off; 1.36 has it on, and the rule of 1.35.
		"slice-v1-both-1.34": {manifest: testSlice, version: "v1", release: 34, edit: both,
			warnings: []string{"spec.sharedCounters: Kubernetes 1.34 drops it on a create: its DRAPartitionableDevices feature gate is off by default (on from 1.36)"}},
		"slice-v1-both-1.35": {manifest: testSlice, version: "v1", release: 35, edit: both,
			warnings: []string{"spec.sharedCounters: Kubernetes 1.35 drops it on a create: its DRAPartitionableDevices feature gate is off by default (on from 1.36)"}},
		"slice-v1-both-1.36": {manifest: testSlice, version: "v1", release: 36, edit: both,
			errs: []string{`spec: Invalid value: "": only one of ` + "`sharedCounters` or `devices`" + ` is allowed`}},
		"slice-v1-counters-only-1.36": {manifest: testSlice, version: "v1", release: 36,
			edit: func(t *testing.T) func(map[string]interface{}) {
				return func(obj map[string]interface{}) {
					both(t)(obj)
					delete(obj["spec"].(map[string]interface{}), "devices")
				}
			}},
		"slice-v1-taints-1.36":          {manifest: testSlice, version: "v1", release: 36, edit: taints(16)},
		"slice-v1-too-many-taints-1.36": {manifest: testSlice, version: "v1", release: 36, edit: taints(17), errs: []string{"spec.devices[0].taints: Too many: 17: must have at most 16 items"}},
		"slice-v1-65-devices-with-taints-1.36": {manifest: testSlice, version: "v1", release: 36,
			edit: func(t *testing.T) func(map[string]interface{}) {
				return func(obj map[string]interface{}) {
					devices := make([]interface{}, 65)
					for i := range devices {
						devices[i] = map[string]interface{}{"name": fmt.Sprintf("gpu-%d", i)}
					}
					devices[64].(map[string]interface{})["taints"] = yamlValue(t, "[{key: gpu.example.com/unhealthy, effect: NoExecute}]")
					set(obj, "spec.devices", devices)
				}
			},
			errs: []string{"spec.devices: Too many: 65: must have at most 64 items"}},
		"slice-v1-taints-dropped-1.35": {manifest: testSlice, version: "v1", release: 35, edit: taints(17),
			warnings: []string{"spec.devices[0].taints: Kubernetes 1.35 drops it on a create: its DRADeviceTaints feature gate is off by default (on from 1.36)"}},
		"slice-v1beta2-node-selection-1.33": {manifest: testSlice, version: "v1beta2", release: 33,
			edit: func(*testing.T) func(map[string]interface{}) {
				return func(obj map[string]interface{}) { set(obj, "spec.allNodes", true) }
			},
			errs: []string{"spec: Invalid value: \"{`nodeName`, `allNodes`}\": exactly one of `nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection` is required, but multiple fields are set"}},
		"slice-v1-pool-and-names-1.37": {manifest: testSlice, version: "v1", release: 37,
			edit: func(t *testing.T) func(map[string]interface{}) {
				return func(obj map[string]interface{}) {
					set(obj, "spec.pool", yamlValue(t, "{name: Node_1, generation: -1, resourceSliceCount: 0}"))
					set(obj, "spec.devices", yamlValue(t, "[{name: gpu-0}, {name: gpu-0}]"))
				}
			},
			errs: []string{
				`spec.pool.name: Invalid value: "Node_1": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
				`spec.pool.resourceSliceCount: Invalid value: 0: must be greater than zero`,
				`spec.pool.generation: Invalid value: -1: must be greater than or equal to zero`,
				`spec.devices[1]: Duplicate value: "gpu-0"`,
			}},
		// Names of attributes and capacities (C identifiers, optionally
		// behind a domain), reported at the map as upstream's validateMap.
		"slice-v1-attribute-names-1.37": {manifest: testSlice, version: "v1", release: 37,
			edit: func(t *testing.T) func(map[string]interface{}) {
				return func(obj map[string]interface{}) {
					set(obj, "spec.devices[0].attributes", yamlValue(t, "{product-name: {string: h100}, /uuid: {string: x}, gpu.example.com/: {int: 0}, Gpu.Example.com/brand: {string: x}}"))
					set(obj, "spec.devices[0].capacity", yamlValue(t, "{memory-bytes: {value: 80Gi}}"))
				}
			},
			errs: []string{
				`spec.devices[0].attributes: Invalid value: "": the domain must not be empty`,
				`spec.devices[0].attributes: Invalid value: "": the name must not be empty`,
				`spec.devices[0].attributes: Invalid value: "product-name": a valid C identifier must start with alphabetic character or '_', followed by a string of alphanumeric characters or '_' (e.g. 'my_name',  or 'MY_NAME',  or 'MyName', regex used for validation is '[A-Za-z_][A-Za-z0-9_]*')`,
				`spec.devices[0].capacity: Invalid value: "memory-bytes": a valid C identifier must start with alphabetic character or '_', followed by a string of alphanumeric characters or '_' (e.g. 'my_name',  or 'MY_NAME',  or 'MyName', regex used for validation is '[A-Za-z_][A-Za-z0-9_]*')`,
			}},
		// Counter sets: required, DNS-label counter names, at most 32
		// counters (only that error when there are more).
		"slice-v1-counter-sets-1.37": {manifest: testSlice, version: "v1", release: 37,
			edit: func(t *testing.T) func(map[string]interface{}) {
				return func(obj map[string]interface{}) {
					counters := map[string]interface{}{}
					for i := range 33 {
						counters[fmt.Sprintf("c%d", i)] = map[string]interface{}{"value": "1"}
					}
					set(obj, "spec.sharedCounters", yamlValue(t, "[{name: gpu-0, counters: {memory_GiB: {value: '80'}}}, {name: '', counters: {}}, {name: gpu-2}]"))
					set(obj, "spec.sharedCounters[2].counters", counters)
					delete(obj["spec"].(map[string]interface{}), "devices")
				}
			},
			errs: []string{
				`spec.sharedCounters[0].counters: Invalid value: "memory_GiB": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`,
				"spec.sharedCounters[1].name: Required value",
				"spec.sharedCounters[1].counters: Required value",
				"spec.sharedCounters[2].counters: Too many: 33: must have at most 32 items",
			}},
		// The counters a device consumes: at most 2 sets, each once, with
		// the rules of a counter set.
		"slice-v1-consumes-counters-1.37": {manifest: testSlice, version: "v1", release: 37,
			edit: func(t *testing.T) func(map[string]interface{}) {
				return func(obj map[string]interface{}) {
					set(obj, "spec.devices", yamlValue(t, `[
{name: gpu-0, consumesCounters: [{counterSet: a, counters: {sm: {value: '1'}}}, {counterSet: b, counters: {sm: {value: '1'}}}, {counterSet: c, counters: {sm: {value: '1'}}}]},
{name: gpu-1, consumesCounters: [{counterSet: GPU_0, counters: {sm_count: {value: '14'}}}, {counterSet: a, counters: {}}]},
{name: gpu-2, consumesCounters: [{counterSet: a, counters: {sm: {value: '1'}}}, {counterSet: a, counters: {sm: {value: '1'}}}]}]`))
				}
			},
			errs: []string{
				"spec.devices[0].consumesCounters: Too many: 3: must have at most 2 items",
				`spec.devices[1].consumesCounters[0].counterSet: Invalid value: "GPU_0": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`,
				`spec.devices[1].consumesCounters[0].counters: Invalid value: "sm_count": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`,
				"spec.devices[1].consumesCounters[1].counters: Required value",
				`spec.devices[2].consumesCounters[1]: Duplicate value: "a"`,
			}},
		// Attribute values: exactly one, strings of at most 64 bytes,
		// semantic versions.
		"slice-v1-attribute-values-1.37": {manifest: testSlice, version: "v1", release: 37,
			edit: func(t *testing.T) func(map[string]interface{}) {
				return func(obj map[string]interface{}) {
					set(obj, "spec.devices[0].attributes", yamlValue(t, "{driverVersion: {version: 570.124.06}, productName: {string: "+strings.Repeat("x", 65)+"}, index: {int: 0, string: '0'}, brand: {}}"))
				}
			},
			errs: []string{
				`spec.devices[0].attributes[brand]: Invalid value: "": exactly one value must be specified`,
				`spec.devices[0].attributes[driverVersion].version: Invalid value: "570.124.06": must be a string compatible with semver.org spec 2.0.0`,
				`spec.devices[0].attributes[index]: Invalid value: "{int, string}": exactly one value must be specified`,
				"spec.devices[0].attributes[productName].string: Too long: may not be more than 64 bytes",
			}},
		// A list attribute: 1.36 and 1.37 drop the list (DRAListTypeAttributes
		// is off), which leaves the attribute without a value; 1.35 has none.
		"slice-v1-list-attribute-1.37": {manifest: testSlice, version: "v1", release: 37,
			edit: func(t *testing.T) func(map[string]interface{}) {
				return func(obj map[string]interface{}) {
					set(obj, "spec.devices[0].attributes.peers", yamlValue(t, "{ints: [1, 2]}"))
				}
			},
			errs:     []string{`spec.devices[0].attributes[peers]: Invalid value: "": exactly one value must be specified`},
			warnings: []string{"spec.devices[0].attributes[peers].ints: Kubernetes 1.37 drops it on a create: its DRAListTypeAttributes feature gate is off by default"}},
		"slice-v1-list-attribute-1.35": {manifest: testSlice, version: "v1", release: 35,
			edit: func(t *testing.T) func(map[string]interface{}) {
				return func(obj map[string]interface{}) {
					set(obj, "spec.devices[0].attributes.peers", yamlValue(t, "{ints: [1, 2]}"))
				}
			},
			errs: []string{
				"spec.devices[0].attributes[peers].ints: Forbidden: unknown field: Kubernetes 1.35 does not have it (1.36+)",
				`spec.devices[0].attributes[peers]: Invalid value: "": exactly one value must be specified`,
			}},
		// Where devices are: per device only with perDeviceNodeSelection,
		// then exactly once; a node selector's requirements.
		"slice-v1-device-nodes-1.37": {manifest: testSlice, version: "v1", release: 37,
			edit: func(t *testing.T) func(map[string]interface{}) {
				return func(obj map[string]interface{}) {
					set(obj, "spec.devices", yamlValue(t, "[{name: tpu-0, nodeName: node-0}]"))
				}
			},
			errs: []string{"spec.devices[0]: Invalid value: null: `nodeName`, `nodeSelector` and `allNodes` can only be set if `perDeviceNodeSelection` is set to true in the ResourceSlice spec"}},
		"slice-v1-per-device-nodes-1.37": {manifest: testSlice, version: "v1", release: 37,
			edit: func(t *testing.T) func(map[string]interface{}) {
				return func(obj map[string]interface{}) {
					delete(obj["spec"].(map[string]interface{}), "nodeName")
					set(obj, "spec.perDeviceNodeSelection", true)
					set(obj, "spec.devices", yamlValue(t, "[{name: tpu-0}, {name: tpu-1, nodeName: node-1, allNodes: true}, {name: tpu-2, allNodes: false}, {name: tpu-3, nodeSelector: {nodeSelectorTerms: [{matchExpressions: [{key: rack, operator: In}]}]}}]"))
				}
			},
			errs: []string{
				"spec.devices[0]: Required value: exactly one of `nodeName`, `nodeSelector`, or `allNodes` is required when `perDeviceNodeSelection` is set to true in the ResourceSlice spec",
				"spec.devices[1]: Invalid value: \"{`nodeName`, `allNodes`}\": exactly one of `nodeName`, `nodeSelector`, or `allNodes` is required when `perDeviceNodeSelection` is set to true in the ResourceSlice spec",
				"spec.devices[2].allNodes: Invalid value: false: must be either unset or set to true",
				"spec.devices[2]: Required value: exactly one of `nodeName`, `nodeSelector`, or `allNodes` is required when `perDeviceNodeSelection` is set to true in the ResourceSlice spec",
				"spec.devices[3].nodeSelector.nodeSelectorTerms[0].matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'",
			}},
		"slice-v1-node-selector-1.37": {manifest: testSlice, version: "v1", release: 37,
			edit: func(t *testing.T) func(map[string]interface{}) {
				return func(obj map[string]interface{}) {
					delete(obj["spec"].(map[string]interface{}), "nodeName")
					set(obj, "spec.nodeSelector", yamlValue(t, "{nodeSelectorTerms: [{matchExpressions: [{key: rack, operator: In}]}]}"))
				}
			},
			errs: []string{"spec.nodeSelector.nodeSelectorTerms[0].matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'"}},
		// Binding conditions: with failure conditions, condition types,
		// none repeated or in both lists.
		"slice-v1-binding-conditions-1.37": {manifest: testSlice, version: "v1", release: 37,
			edit: func(t *testing.T) func(map[string]interface{}) {
				return func(obj map[string]interface{}) {
					set(obj, "spec.devices", yamlValue(t, `[{name: gpu-0, bindingConditions: [a.example.com/attached, a.example.com/attached, "not a condition"], bindingFailureConditions: [a.example.com/attached]}, {name: gpu-1, bindingConditions: [a.example.com/attached]}]`))
				}
			},
			errs: []string{
				"spec.devices[0].bindingConditions[2]: Invalid value: \"not a condition\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
				`spec.devices[0].bindingConditions[1]: Duplicate value: "a.example.com/attached"`,
				`spec.devices[0].bindingFailureConditions[0]: Invalid value: "a.example.com/attached": bindingFailureConditions must not overlap with bindingConditions`,
				"spec.devices[1].bindingFailureConditions: Invalid value: null: bindingFailureConditions are required to use bindingConditions",
			}},
		// Request policies of consumable capacity (1.36+).
		"slice-v1-request-policy-1.37": {manifest: testSlice, version: "v1", release: 37,
			edit: func(t *testing.T) func(map[string]interface{}) {
				return func(obj map[string]interface{}) {
					set(obj, "spec.devices", yamlValue(t, `[
{name: eth1, allowMultipleAllocations: true, capacity: {
  bandwidth: {value: 100G, requestPolicy: {default: 500M, validRange: {min: 1G, max: 200G}}},
  queues: {value: '64', requestPolicy: {default: '3', validValues: ['1', '4', '2', '128']}},
  lanes: {value: '8', requestPolicy: {default: '3', validRange: {min: '1', step: '2', max: '8'}}}}},
{name: eth2, capacity: {bandwidth: {value: 100G, requestPolicy: {default: 1G, validRange: {min: 1G}}}}}]`))
				}
			},
			errs: []string{
				`spec.devices[0].capacity[bandwidth].requestPolicy.validRange.default: Invalid value: "500M": default is less than min: 1G`,
				`spec.devices[0].capacity[bandwidth].requestPolicy.validRange.max: Invalid value: "200G": max is larger than capacity value: 100G`,
				`spec.devices[0].capacity[lanes].requestPolicy.validRange.step: Invalid value: "8": value is not a multiple of a given step (2) from (1)`,
				`spec.devices[0].capacity[queues].requestPolicy.validValues[2]: Invalid value: "2": values must be sorted in ascending order`,
				`spec.devices[0].capacity[queues].requestPolicy.validValues[3]: Invalid value: "128": option is larger than capacity value: 64`,
				`spec.devices[0].capacity[queues].requestPolicy.validValues: Invalid value: "3": default value is not valid according to the requestPolicy`,
				"spec.devices[1].capacity[bandwidth].requestPolicy: Forbidden: allowMultipleAllocations must be true",
			}},
		"slice-v1-request-policy-1.35": {manifest: testSlice, version: "v1", release: 35,
			edit: func(t *testing.T) func(map[string]interface{}) {
				return func(obj map[string]interface{}) {
					set(obj, "spec.devices", yamlValue(t, `[{name: eth1, capacity: {bandwidth: {value: 100G, requestPolicy: {default: 1G, validRange: {min: 1G}}}}}]`))
				}
			},
			warnings: []string{"spec.devices[0].capacity[bandwidth].requestPolicy: Kubernetes 1.35 drops it on a create: its DRAConsumableCapacity feature gate is off by default (on from 1.36)"}},
		"slice-v1-request-policy-default-1.36": {manifest: testSlice, version: "v1", release: 36,
			edit: func(t *testing.T) func(map[string]interface{}) {
				return func(obj map[string]interface{}) {
					set(obj, "spec.devices", yamlValue(t, `[{name: eth1, allowMultipleAllocations: true, capacity: {
  bandwidth: {value: 100G, requestPolicy: {default: 500M, validRange: {min: 1G}}}}}]`))
				}
			},
			errs: []string{`spec.devices[0].capacity[bandwidth].requestPolicy.validRange.min: Invalid value: "500M": default is less than min: 1G`}},
		// Fields of alpha features 1.37 drops (and 1.36 does not have).
		"slice-v1-alpha-fields-1.37": {manifest: testSlice, version: "v1", release: 37,
			edit: func(t *testing.T) func(map[string]interface{}) {
				return func(obj map[string]interface{}) {
					set(obj, "spec.skipNodeOperations", yamlValue(t, "[NodePrepareResources]"))
					set(obj, "spec.partitionTypeAttribute", "profile")
					set(obj, "spec.devices[0].consumesCounters", yamlValue(t, "[{counterSet: gpu-0, counters: {memory: {value: 10Gi}}, compatibilityGroups: [Not_A_Label]}]"))
				}
			},
			warnings: []string{
				"spec.partitionTypeAttribute: Kubernetes 1.37 drops it on a create: its DRAPartitionableDevicesType feature gate is off by default",
				"spec.skipNodeOperations: Kubernetes 1.37 drops it on a create: its DRAOptionalNodeOperations feature gate is off by default",
				"spec.devices[0].consumesCounters[0].compatibilityGroups: Kubernetes 1.37 drops it on a create: its DRADeviceCompatibilityGroups feature gate is off by default",
			}},
		"slice-v1-alpha-fields-1.36": {manifest: testSlice, version: "v1", release: 36,
			edit: func(t *testing.T) func(map[string]interface{}) {
				return func(obj map[string]interface{}) {
					set(obj, "spec.skipNodeOperations", yamlValue(t, "[NodePrepareResources]"))
					set(obj, "spec.devices[0].consumesCounters", yamlValue(t, "[{counterSet: gpu-0, counters: {memory: {value: 10Gi}}, compatibilityGroups: [a]}]"))
				}
			},
			errs: []string{
				"spec.skipNodeOperations: Forbidden: unknown field: Kubernetes 1.36 does not have it (1.37+)",
				"spec.devices[0].consumesCounters[0].compatibilityGroups: Forbidden: unknown field: Kubernetes 1.36 does not have it (1.37+)",
			}},
		"slice-v1beta1-basic-1.32": {manifest: strings.Replace(testSlice, "  - name: gpu-0\n", "  - name: gpu-0\n    basic:\n", 1), version: "v1beta1", release: 32,
			edit: func(t *testing.T) func(map[string]interface{}) {
				return func(obj map[string]interface{}) {
					attributes := map[string]interface{}{}
					for i := range 33 {
						attributes[fmt.Sprintf("a%d", i)] = map[string]interface{}{"int": i}
					}
					set(obj, "spec.devices[0]", map[string]interface{}{"name": "gpu-0", "basic": map[string]interface{}{"attributes": attributes, "taints": []interface{}{}}})
				}
			},
			errs: []string{
				"spec.devices[0].basic.taints: Forbidden: unknown field: Kubernetes 1.32 does not have it (1.33+)",
				"spec.devices[0].basic: Invalid value: 33: the total number of attributes and capacities must not exceed 32",
			}},
		"slice-v1alpha3-1.31": {manifest: testSlice, version: "v1alpha3", release: 31,
			edit: func(t *testing.T) func(map[string]interface{}) {
				return func(obj map[string]interface{}) {
					set(obj, "spec.devices[0]", yamlValue(t, "{name: gpu_0, basic: {attributes: {model: {string: a100}}, capacity: {memory: 40Gi}}}"))
				}
			},
			errs: []string{`spec.devices[0].name: Invalid value: "gpu_0": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`}},
		"slice-v1alpha3-capacity-object-1.31": {manifest: testSlice, version: "v1alpha3", release: 31,
			edit: func(t *testing.T) func(map[string]interface{}) {
				return func(obj map[string]interface{}) {
					set(obj, "spec.devices[0]", yamlValue(t, "{name: gpu-0, basic: {capacity: {memory: {value: 40Gi}}}}"))
				}
			},
			errs: []string{`spec.devices[0].basic.capacity[memory]: Invalid value: {"value":"40Gi"}: quantities must match the regular expression ` +
				`'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$' (a 1.31 capacity is a quantity, not {value: …})`}},
		"slice-v1beta1-not-served-1.30": {manifest: testSlice, version: "v1beta1", release: 30,
			errs: []string{"apiVersion: Kubernetes 1.30 serves resource.k8s.io/v1alpha2, not v1beta1: its apiserver rejects this object"}},

		"taint-rule-v1alpha3-valid-1.33": {manifest: testTaintRule, version: "v1alpha3", release: 33},
		"taint-rule-v1beta2-valid-1.36":  {manifest: testTaintRule, version: "v1beta2", release: 36},
		"taint-rule-v1-valid-1.37":       {manifest: testTaintRule, version: "v1", release: 37},
		"taint-rule-v1alpha3-none-1.34": {manifest: testTaintRule, version: "v1alpha3", release: 34,
			edit: func(*testing.T) func(map[string]interface{}) {
				return func(obj map[string]interface{}) { set(obj, "spec.taint.effect", "None") }
			},
			errs: []string{`spec.taint.effect: Unsupported value: "None": supported values: "NoExecute", "NoSchedule"`}},
		"taint-rule-v1alpha3-none-1.35": {manifest: testTaintRule, version: "v1alpha3", release: 35,
			edit: func(*testing.T) func(map[string]interface{}) {
				return func(obj map[string]interface{}) { set(obj, "spec.taint.effect", "None") }
			}},
		// 1.33 and 1.34 select by class and CEL too; 1.35 has neither.
		"taint-rule-v1alpha3-selectors-1.34": {manifest: testTaintRule, version: "v1alpha3", release: 34,
			edit: func(t *testing.T) func(map[string]interface{}) {
				return func(obj map[string]interface{}) {
					set(obj, "spec.deviceSelector", yamlValue(t, `{deviceClassName: Gpu, selectors: [{cel: {expression: 'device.driver == "gpu.example.com" &&'}}]}`))
				}
			},
			errs: []string{
				`spec.deviceSelector.deviceClassName: Invalid value: "Gpu": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
				`spec.deviceSelector.selectors[0].cel.expression: Invalid value: "device.driver == \"gpu.example.com\" &&": ` + notAnExpression,
			}},
		"taint-rule-v1alpha3-selectors-1.35": {manifest: testTaintRule, version: "v1alpha3", release: 35,
			edit: func(t *testing.T) func(map[string]interface{}) {
				return func(obj map[string]interface{}) {
					set(obj, "spec.deviceSelector", yamlValue(t, `{deviceClassName: gpu, selectors: []}`))
				}
			},
			errs: []string{"spec.deviceSelector.deviceClassName: Forbidden: unknown field", "spec.deviceSelector.selectors: Forbidden: unknown field"}},
		"taint-rule-v1-missing-taint-1.37": {manifest: testTaintRule, version: "v1", release: 37,
			edit: func(t *testing.T) func(map[string]interface{}) {
				return func(obj map[string]interface{}) { set(obj, "spec.taint", map[string]interface{}{}) }
			},
			errs: []string{
				`spec.taint.key: Invalid value: "": name part must be non-empty`,
				"spec.taint.key: Invalid value: \"\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
				"spec.taint.effect: Required value",
			}},
		"taint-rule-v1alpha3-not-served-1.36": {manifest: testTaintRule, version: "v1alpha3", release: 36,
			errs: []string{"apiVersion: Kubernetes 1.36 serves resource.k8s.io/v1alpha3 DeviceTaintRule only with --runtime-config=resource.k8s.io/v1alpha3=true, and by default none: its apiserver rejects this object"}},
		"taint-rule-no-kind-1.32": {manifest: testTaintRule, version: "v1alpha3", release: 32,
			errs: []string{"kind: Kubernetes 1.32 has no DeviceTaintRule in resource.k8s.io (1.33+): its apiserver rejects this object"}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			var edit func(map[string]interface{})
			if tc.edit != nil {
				edit = tc.edit(t)
			}
			obj := testObject(t, tc.manifest, tc.version, edit)
			version, kind := KindOf(obj)
			if version != tc.version {
				t.Fatalf("KindOf: %q %q", version, kind)
			}
			errs, warnings := CheckKind(obj, withBetas(tc.release), kind)
			if d := cmp.Diff(tc.errs, errs); d != "" {
				t.Errorf("errors (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tc.warnings, warnings); d != "" {
				t.Errorf("warnings (-want +got):\n%s", d)
			}
		})
	}
}

func TestKindRelease(t *testing.T) {
	for _, c := range []struct {
		version, kind string
		want          int
	}{{"v1alpha3", api.KindDeviceClass, 31}, {"v1beta1", api.KindResourceSlice, 32}, {"v1beta2", api.KindDeviceClass, 33}, {"v1", api.KindDeviceClass, 37}, {"v1alpha3", api.KindDeviceTaintRule, 33}, {"v1beta2", api.KindDeviceTaintRule, 36}} {
		if got := KindRelease(c.version, c.kind); got != c.want {
			t.Errorf("KindRelease(%s, %s) = %d, want %d", c.version, c.kind, got, c.want)
		}
	}
}
