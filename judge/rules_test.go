package judge

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	resourcev1 "k8s.io/api/resource/v1"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"

	"github.com/claimbridge/claimbridge/api"
)

// testClaim is a valid claim of version: an exact request gpu, a
// request nic with two subrequests (v1), a constraint and a configuration
// for both. In v1beta2 nic is an exact request too (1.33 drops
// firstAvailable); v1beta1 (1.32) has only exact, flat requests.
func testClaim(t *testing.T, version string) map[string]interface{} {
	t.Helper()
	in := `apiVersion: resource.k8s.io/` + version + `
kind: ResourceClaim
metadata: {name: claim, namespace: ns}
spec:
  devices:
    requests:
    - name: gpu
      exactly:
        deviceClassName: gpu.example.com
        selectors: [{cel: {expression: 'device.driver == "gpu.example.com"'}}]
    - name: nic
      firstAvailable:
      - {name: big, deviceClassName: nic.example.com, count: 2}
      - {name: small, deviceClassName: nic.example.com}
    constraints: [{requests: [gpu, nic], matchAttribute: example.com/numa}]
    config: [{requests: [gpu, nic/big], opaque: {driver: gpu.example.com, parameters: {mode: shared}}}]
`
	if version == api.V1beta2 {
		in = `apiVersion: resource.k8s.io/v1beta2
kind: ResourceClaim
metadata: {name: claim, namespace: ns}
spec:
  devices:
    requests:
    - name: gpu
      exactly:
        deviceClassName: gpu.example.com
        selectors: [{cel: {expression: 'device.driver == "gpu.example.com"'}}]
    - {name: nic, exactly: {deviceClassName: nic.example.com, count: 2}}
    constraints: [{requests: [gpu, nic], matchAttribute: example.com/numa}]
    config: [{requests: [gpu, nic], opaque: {driver: gpu.example.com, parameters: {mode: shared}}}]
`
	}
	if version == api.V1beta1 {
		in = `apiVersion: resource.k8s.io/v1beta1
kind: ResourceClaim
metadata: {name: claim, namespace: ns}
spec:
  devices:
    requests:
    - name: gpu
      deviceClassName: gpu.example.com
      selectors: [{cel: {expression: 'device.driver == "gpu.example.com"'}}]
    - {name: nic, deviceClassName: nic.example.com, count: 2}
    constraints: [{requests: [gpu, nic], matchAttribute: example.com/numa}]
    config: [{requests: [gpu, nic], opaque: {driver: gpu.example.com, parameters: {mode: shared}}}]
`
	}
	var obj map[string]interface{}
	if err := yaml.Unmarshal([]byte(in), &obj); err != nil {
		t.Fatal(err)
	}
	return obj
}

func devices(obj map[string]interface{}) map[string]interface{} {
	return asObject(asObject(obj["spec"])["devices"])
}

func request(obj map[string]interface{}, i int) map[string]interface{} {
	return asObject(asArray(devices(obj)["requests"])[i])
}

func exactly(obj map[string]interface{}) map[string]interface{} {
	return asObject(request(obj, 0)["exactly"])
}

func constraint(obj map[string]interface{}) map[string]interface{} {
	return asObject(asArray(devices(obj)["constraints"])[0])
}

func opaque(obj map[string]interface{}) map[string]interface{} {
	return asObject(asObject(asArray(devices(obj)["config"])[0])["opaque"])
}

func repeat(n int, item func(i int) interface{}) []interface{} {
	var out []interface{}
	for i := 0; i < n; i++ {
		out = append(out, item(i))
	}
	return out
}

var (
	devicesPath = field.NewPath("spec", "devices")
	requests    = devicesPath.Child("requests")
	gpuExactly  = requests.Index(0).Child("exactly")
	nicFirst    = requests.Index(1).Child("firstAvailable")
	constraint0 = devicesPath.Child("constraints").Index(0)
	opaque0     = devicesPath.Child("config").Index(0).Child("opaque")
)

func dnsLabel(path *field.Path, value string) *field.Error {
	return field.Invalid(path, value, utilvalidation.IsDNS1123Label(value)[0])
}

func dnsSubdomain(path *field.Path, value string) *field.Error {
	return field.Invalid(path, value, utilvalidation.IsDNS1123Subdomain(value)[0])
}

const notARequest = "must be the name of a request in the claim or the name of a request and a subrequest separated by '/'"

type scenario struct {
	update func(obj map[string]interface{})
	want   field.ErrorList
}

func runScenarios(t *testing.T, version string, scenarios map[string]scenario) {
	t.Helper()
	for name, sc := range scenarios {
		t.Run(name, func(t *testing.T) {
			obj := testClaim(t, version)
			if sc.update != nil {
				sc.update(obj)
			}
			got, err := Validate(obj, withBetas(judge(version)), api.KindClaim)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(sc.want, got); d != "" {
				t.Errorf("errors (-want +got):\n%s", d)
			}
		})
	}
}

// TestValidateV1: the rules of 1.37 for v1, by group.
func TestValidateV1(t *testing.T) {
	runScenarios(t, api.V1, map[string]scenario{
		"valid": {},
		// names and metadata
		"name-template-syntax": {
			update: func(obj map[string]interface{}) { asObject(obj["metadata"])["name"] = "test-claim-{{.Index}}" },
			want:   field.ErrorList{dnsSubdomain(field.NewPath("metadata", "name"), "test-claim-{{.Index}}")},
		},
		"no-namespace": {
			update: func(obj map[string]interface{}) { delete(asObject(obj["metadata"]), "namespace") },
			want:   field.ErrorList{field.Required(field.NewPath("metadata", "namespace"), "")},
		},
		"finalizer-without-domain": {
			update: func(obj map[string]interface{}) { asObject(obj["metadata"])["finalizers"] = []interface{}{"x"} },
			want:   field.ErrorList{field.Invalid(field.NewPath("metadata", "finalizers").Index(0), "x", "name is neither a standard finalizer name nor is it fully qualified")},
		},
		// requests
		"request-name": {
			update: func(obj map[string]interface{}) { request(obj, 0)["name"] = "GPU" },
			want: field.ErrorList{dnsLabel(requests.Index(0).Child("name"), "GPU"),
				field.Invalid(constraint0.Child("requests").Index(0), "gpu", notARequest),
				field.Invalid(devicesPath.Child("config").Index(0).Child("requests").Index(0), "gpu", notARequest)},
		},
		"request-duplicate": {
			update: func(obj map[string]interface{}) { request(obj, 1)["name"] = "gpu" },
			want: field.ErrorList{field.Duplicate(requests.Index(1), "gpu"),
				field.Invalid(constraint0.Child("requests").Index(1), "nic", notARequest),
				field.Invalid(devicesPath.Child("config").Index(0).Child("requests").Index(1), "nic/big", notARequest)},
		},
		"too-many-requests": {
			update: func(obj map[string]interface{}) {
				devices(obj)["requests"] = repeat(33, func(i int) interface{} {
					return map[string]interface{}{"name": "gpu", "exactly": map[string]interface{}{}}
				})
				delete(devices(obj), "constraints")
				delete(devices(obj), "config")
			},
			want: field.ErrorList{field.TooMany(requests, 33, 32)},
		},
		"neither": {
			update: func(obj map[string]interface{}) { delete(request(obj, 0), "exactly") },
			want:   field.ErrorList{field.Required(requests.Index(0), "exactly one of `exactly` or `firstAvailable` is required")},
		},
		"both": {
			update: func(obj map[string]interface{}) {
				request(obj, 1)["exactly"] = map[string]interface{}{"allocationMode": "Some"}
			},
			want: field.ErrorList{field.Invalid(requests.Index(1), nil, "exactly one of `exactly` or `firstAvailable` is required, but multiple fields are set")},
		},
		"class-missing": {
			update: func(obj map[string]interface{}) { delete(exactly(obj), "deviceClassName") },
			want:   field.ErrorList{field.Required(gpuExactly.Child("deviceClassName"), "")},
		},
		"class-name": {
			update: func(obj map[string]interface{}) { exactly(obj)["deviceClassName"] = "GPU" },
			want:   field.ErrorList{dnsSubdomain(gpuExactly.Child("deviceClassName"), "GPU")},
		},
		"all-with-count": {
			update: func(obj map[string]interface{}) { exactly(obj)["allocationMode"], exactly(obj)["count"] = "All", 2 },
			want:   field.ErrorList{field.Invalid(gpuExactly.Child("count"), int64(2), "must not be specified when allocationMode is 'All'")},
		},
		"negative-count": {
			update: func(obj map[string]interface{}) { exactly(obj)["count"] = -1 },
			want:   field.ErrorList{field.Invalid(gpuExactly.Child("count"), int64(-1), "must be greater than zero")},
		},
		"allocation-mode": {
			update: func(obj map[string]interface{}) { exactly(obj)["allocationMode"] = "Some" },
			want:   field.ErrorList{field.NotSupported(gpuExactly.Child("allocationMode"), resourcev1.DeviceAllocationMode("Some"), []string{"All", "ExactCount"})},
		},
		"subrequest-duplicate-and-class": {
			update: func(obj map[string]interface{}) {
				sub := asObject(asArray(request(obj, 1)["firstAvailable"])[1])
				sub["name"] = "big"
				delete(sub, "deviceClassName")
			},
			want: field.ErrorList{field.Required(nicFirst.Index(1).Child("deviceClassName"), ""), field.Duplicate(nicFirst.Index(1), "big")},
		},
		"too-many-subrequests": {
			update: func(obj map[string]interface{}) {
				request(obj, 1)["firstAvailable"] = repeat(9, func(i int) interface{} { return map[string]interface{}{"name": "big"} })
			},
			want: field.ErrorList{field.TooMany(nicFirst, 9, 8)},
		},
		"tolerations": {
			update: func(obj map[string]interface{}) {
				exactly(obj)["tolerations"] = []interface{}{
					map[string]interface{}{"key": "a", "operator": "Maybe", "effect": "Sometimes"},
					map[string]interface{}{"key": "a", "operator": "Exists", "value": "b"},
					map[string]interface{}{"key": "a", "value": "b"}, // operator Equal by default
				}
			},
			want: field.ErrorList{
				field.NotSupported(gpuExactly.Child("tolerations").Index(0).Child("operator"), resourcev1.DeviceTolerationOperator("Maybe"), []string{"Equal", "Exists"}),
				field.NotSupported(gpuExactly.Child("tolerations").Index(0).Child("effect"), resourcev1.DeviceTaintEffect("Sometimes"), []string{"NoExecute", "NoSchedule", "None"}),
				field.Invalid(gpuExactly.Child("tolerations").Index(1).Child("value"), "b", "must be empty for operator `Exists`"),
			},
		},
		// selectors
		"selector-without-cel": {
			update: func(obj map[string]interface{}) { exactly(obj)["selectors"] = []interface{}{map[string]interface{}{}} },
			want:   field.ErrorList{field.Required(gpuExactly.Child("selectors").Index(0).Child("cel"), "")},
		},
		"cel-not-bool": {
			update: func(obj map[string]interface{}) {
				exactly(obj)["selectors"] = []interface{}{map[string]interface{}{"cel": map[string]interface{}{"expression": "device.driver"}}}
			},
			want: field.ErrorList{field.Invalid(gpuExactly.Child("selectors").Index(0).Child("cel", "expression"), "device.driver", "must evaluate to bool or the unknown type, not string")},
		},
		"cel-too-long": {
			update: func(obj map[string]interface{}) {
				exactly(obj)["selectors"] = []interface{}{map[string]interface{}{"cel": map[string]interface{}{"expression": strings.Repeat("x", 10241)}}}
			},
			want: field.ErrorList{field.TooLong(gpuExactly.Child("selectors").Index(0).Child("cel", "expression"), "", 10240)},
		},
		"too-many-selectors": {
			update: func(obj map[string]interface{}) {
				exactly(obj)["selectors"] = repeat(33, func(int) interface{} { return map[string]interface{}{} })
			},
			want: field.ErrorList{field.TooMany(gpuExactly.Child("selectors"), 33, 32)},
		},
		// constraints
		"constraint-without-attribute": {
			update: func(obj map[string]interface{}) { delete(constraint(obj), "matchAttribute") },
			want:   field.ErrorList{field.Required(constraint0, `exactly one of "matchAttribute" or "distinctAttribute" is required, but multiple fields are set`)},
		},
		"distinct-attribute": {
			update: func(obj map[string]interface{}) {
				delete(constraint(obj), "matchAttribute")
				constraint(obj)["distinctAttribute"] = "uuid"
			},
			want: field.ErrorList{field.Invalid(constraint0.Child("distinctAttribute"), "uuid", "a fully qualified name must be a domain and a name separated by a slash")},
		},
		"match-attribute-forms": {
			update: func(obj map[string]interface{}) { constraint(obj)["matchAttribute"] = "/numa-node" },
			want: field.ErrorList{
				field.Invalid(constraint0.Child("matchAttribute"), "", "the domain must not be empty"),
				field.Invalid(constraint0.Child("matchAttribute"), "numa-node", utilvalidation.IsCIdentifier("numa-node")[0]),
			},
		},
		"constraint-requests": {
			update: func(obj map[string]interface{}) {
				constraint(obj)["requests"] = []interface{}{"gpu", "gpu", "nic/big", "x/y/z"}
			},
			want: field.ErrorList{
				field.Invalid(constraint0.Child("requests").Index(3), "x/y/z", notARequest),
				field.Duplicate(constraint0.Child("requests").Index(1), "gpu"),
			},
		},
		"too-many-constraints": {
			update: func(obj map[string]interface{}) {
				devices(obj)["constraints"] = repeat(33, func(int) interface{} { return map[string]interface{}{} })
			},
			want: field.ErrorList{field.TooMany(devicesPath.Child("constraints"), 33, 32)},
		},
		// config
		"config-without-opaque": {
			update: func(obj map[string]interface{}) { delete(asObject(asArray(devices(obj)["config"])[0]), "opaque") },
			want:   field.ErrorList{field.Required(devicesPath.Child("config").Index(0).Child("opaque"), "")},
		},
		"config-driver": {
			update: func(obj map[string]interface{}) { opaque(obj)["driver"] = "" },
			want:   field.ErrorList{field.Required(opaque0.Child("driver"), "")},
		},
		"config-driver-long": {
			update: func(obj map[string]interface{}) { opaque(obj)["driver"] = strings.Repeat("d", 64) },
			want:   field.ErrorList{field.TooLong(opaque0.Child("driver"), "", 63)},
		},
		"config-parameters-too-large": {
			update: func(obj map[string]interface{}) {
				opaque(obj)["parameters"] = map[string]interface{}{"blob": strings.Repeat("x", 10240)}
			},
			want: field.ErrorList{field.TooLong(opaque0.Child("parameters"), "", 10240)},
		},
		"config-parameters-null": {
			update: func(obj map[string]interface{}) { opaque(obj)["parameters"] = nil },
			want:   field.ErrorList{field.Required(opaque0.Child("parameters"), "")},
		},
		"config-parameters-not-object": {
			update: func(obj map[string]interface{}) { opaque(obj)["parameters"] = []interface{}{1} },
			want:   field.ErrorList{field.Invalid(opaque0.Child("parameters"), "<value omitted>", "must be a valid JSON object")},
		},
		"config-unknown-subrequest": {
			update: func(obj map[string]interface{}) {
				asObject(asArray(devices(obj)["config"])[0])["requests"] = []interface{}{"nic/tiny"}
			},
			want: field.ErrorList{field.Invalid(devicesPath.Child("config").Index(0).Child("requests").Index(0), "nic/tiny", notARequest)},
		},
	})
}

// TestValidateV1beta2: 1.33 drops firstAvailable on a create (its
// DRAPrioritizedList feature gate is off by default), checks tolerations
// without the None effect, reports list sizes after the items and
// duplicates at the name, and requires matchAttribute.
func TestValidateV1beta2(t *testing.T) {
	subrequests := func() []interface{} {
		return []interface{}{
			map[string]interface{}{"name": "big", "deviceClassName": "nic.example.com", "count": 2},
			map[string]interface{}{"name": "small", "deviceClassName": "nic.example.com"},
		}
	}
	config0 := devicesPath.Child("config").Index(0)
	runScenarios(t, api.V1beta2, map[string]scenario{
		"valid": {},
		"first-available-dropped": {
			update: func(obj map[string]interface{}) {
				asArray(devices(obj)["requests"])[1] = map[string]interface{}{"name": "nic", "firstAvailable": subrequests()}
				asObject(asArray(devices(obj)["config"])[0])["requests"] = []interface{}{"gpu", "nic/big"}
			},
			want: field.ErrorList{
				field.Required(requests.Index(1), "exactly one of `exactly` or `firstAvailable` is required"),
				field.Invalid(config0.Child("requests").Index(1), "nic/big", notARequest),
			},
		},
		"both-first-available-dropped": {
			update: func(obj map[string]interface{}) {
				request(obj, 1)["exactly"] = map[string]interface{}{"allocationMode": "Some"}
				request(obj, 1)["firstAvailable"] = subrequests()
			},
			want: field.ErrorList{
				field.Required(requests.Index(1).Child("exactly", "deviceClassName"), ""),
				field.NotSupported(requests.Index(1).Child("exactly", "allocationMode"), resourcev1.DeviceAllocationMode("Some"), []string{"All", "ExactCount"}),
			},
		},
		"tolerations": {
			update: func(obj map[string]interface{}) {
				exactly(obj)["tolerations"] = []interface{}{
					map[string]interface{}{"key": "a", "operator": "Maybe", "effect": "None"},
					map[string]interface{}{"operator": "Exists", "value": "b", "effect": "NoExecute"},
				}
			},
			want: field.ErrorList{
				field.NotSupported(gpuExactly.Child("tolerations").Index(0).Child("operator"), resourcev1.DeviceTolerationOperator("Maybe"), []string{"Equal", "Exists"}),
				field.NotSupported(gpuExactly.Child("tolerations").Index(0).Child("effect"), resourcev1.DeviceTaintEffect("None"), []string{"NoExecute", "NoSchedule"}),
				field.Invalid(gpuExactly.Child("tolerations").Index(1).Child("value"), "b", "must be empty for operator `Exists`"),
			},
		},
		"constraint-without-match-attribute": {
			update: func(obj map[string]interface{}) { delete(constraint(obj), "matchAttribute") },
			want:   field.ErrorList{field.Required(constraint0.Child("matchAttribute"), "")},
		},
		"config-parameters-not-object": {
			update: func(obj map[string]interface{}) { opaque(obj)["parameters"] = "x" },
			want:   field.ErrorList{field.Invalid(opaque0.Child("parameters"), "<value omitted>", "parameters must be a valid JSON object")},
		},
	})
}

// TestValidateV1beta1: 1.32's rules at the flat paths of v1beta1.
func TestValidateV1beta1(t *testing.T) {
	runScenarios(t, api.V1beta1, map[string]scenario{
		"valid": {},
		"class-missing": {
			update: func(obj map[string]interface{}) { delete(request(obj, 0), "deviceClassName") },
			want:   field.ErrorList{field.Required(requests.Index(0).Child("deviceClassName"), "")},
		},
		"count": {
			update: func(obj map[string]interface{}) { request(obj, 1)["count"] = -2 },
			want:   field.ErrorList{field.Invalid(requests.Index(1).Child("count"), int64(-2), "must be greater than zero")},
		},
		"selector-without-cel": {
			update: func(obj map[string]interface{}) {
				request(obj, 0)["selectors"] = []interface{}{map[string]interface{}{}}
			},
			want: field.ErrorList{field.Required(requests.Index(0).Child("selectors").Index(0).Child("cel"), "")},
		},
		"request-duplicate": {
			update: func(obj map[string]interface{}) { request(obj, 1)["name"] = "gpu" },
			want: field.ErrorList{field.Duplicate(requests.Index(1).Child("name"), "gpu"),
				field.Invalid(constraint0.Child("requests").Index(1), "nic", "must be the name of a request in the claim"),
				field.Invalid(devicesPath.Child("config").Index(0).Child("requests").Index(1), "nic", "must be the name of a request in the claim")},
		},
		"no-subrequests": {
			update: func(obj map[string]interface{}) { constraint(obj)["requests"] = []interface{}{"nic/big"} },
			want: field.ErrorList{dnsLabel(constraint0.Child("requests").Index(0), "nic/big"),
				field.Invalid(constraint0.Child("requests").Index(0), "nic/big", "must be the name of a request in the claim")},
		},
		"match-attribute-empty": {
			update: func(obj map[string]interface{}) { constraint(obj)["matchAttribute"] = "" },
			want:   field.ErrorList{field.Required(constraint0.Child("matchAttribute"), "name required")},
		},
		"match-attribute-without-domain": {
			update: func(obj map[string]interface{}) { constraint(obj)["matchAttribute"] = "numa" },
			want:   field.ErrorList{field.Invalid(constraint0.Child("matchAttribute"), "numa", "must include a domain")},
		},
		"driver-empty": {
			update: func(obj map[string]interface{}) { opaque(obj)["driver"] = "" },
			want:   field.ErrorList{field.Required(opaque0.Child("driver"), ""), dnsSubdomain(opaque0.Child("driver"), "")},
		},
		"too-many-selectors": {
			update: func(obj map[string]interface{}) {
				request(obj, 0)["selectors"] = repeat(33, func(int) interface{} {
					return map[string]interface{}{"cel": map[string]interface{}{"expression": "true"}}
				})
			},
			want: field.ErrorList{field.TooMany(requests.Index(0).Child("selectors"), 33, 32)},
		},
	})
}

func TestValidateTemplate(t *testing.T) {
	var obj map[string]interface{}
	if err := yaml.Unmarshal([]byte(`apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {name: template_1, namespace: ns}
spec:
  metadata: {name: fixed, labels: {app: a}}
  spec: {devices: {requests: [{name: gpu, exactly: {deviceClassName: ""}}]}}`), &obj); err != nil {
		t.Fatal(err)
	}
	want := field.ErrorList{
		dnsSubdomain(field.NewPath("metadata", "name"), "template_1"),
		field.Forbidden(field.NewPath("spec", "metadata", "name"), "cannot be set"),
		field.Required(field.NewPath("spec", "spec", "devices", "requests").Index(0).Child("exactly", "deviceClassName"), ""),
	}
	got, err := Validate(obj, withBetas(Newest()), api.KindTemplate)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("errors (-want +got):\n%s", d)
	}
}

// TestCheckReleaseFields: the fields a release does not have yet are
// unknown there; what 1.33 drops with its default gates is a warning
// (TestReleases has every release);
// kubectl's namespace is "default".
func TestCheckReleaseFields(t *testing.T) {
	tests := []struct {
		name, in       string
		errs, warnings []string
	}{{
		name: "v1beta1-1.33-and-1.34-fields",
		in: `apiVersion: resource.k8s.io/v1beta1
kind: ResourceClaimTemplate
metadata: {name: t}
spec:
  spec:
    devices:
      requests: [{name: r, deviceClassName: g, tolerations: [{operator: Exists}], capacity: {requests: {memory: 1Gi}}}]
      constraints: [{distinctAttribute: g/uuid}]`,
		errs: []string{
			"spec.spec.devices.requests[0].tolerations: Forbidden: unknown field: Kubernetes 1.32 does not have it (1.33+)",
			"spec.spec.devices.requests[0].capacity: Forbidden: unknown field: Kubernetes 1.32 does not have it (1.34+)",
			"spec.spec.devices.constraints[0].distinctAttribute: Forbidden: unknown field: Kubernetes 1.32 does not have it (1.34+)",
			"spec.spec.devices.constraints[0].matchAttribute: Required value",
		},
	}, {
		name: "v1beta2-gated",
		in: `apiVersion: resource.k8s.io/v1beta2
kind: ResourceClaim
metadata: {name: c}
spec:
  devices:
    requests:
    - {name: r, exactly: {deviceClassName: g, tolerations: [{operator: Exists}], capacity: {requests: {memory: 1Gi}}}}
    - {name: s, firstAvailable: [{name: a, deviceClassName: g}]}`,
		errs: []string{
			"spec.devices.requests[0].exactly.capacity: Forbidden: unknown field: Kubernetes 1.33 does not have it (1.34+)",
			"spec.devices.requests[1]: Required value: exactly one of `exactly` or `firstAvailable` is required",
		},
		warnings: []string{
			"spec.devices.requests[1].firstAvailable: Kubernetes 1.33 drops it on a create: its DRAPrioritizedList feature gate is off by default (on from 1.34)",
		},
	}, {
		name: "v1-all-fields-generateName",
		in: `apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {generateName: gpu-}
spec:
  devices:
    requests: [{name: r, exactly: {deviceClassName: g, tolerations: [{operator: Exists}], capacity: {requests: {memory: 1Gi}}}}]
    constraints: [{distinctAttribute: g/uuid}]`,
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

func TestValidateDeviceClass(t *testing.T) {
	var obj map[string]interface{}
	if err := yaml.Unmarshal([]byte(`apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: GPU, namespace: ignored}
spec:
  selectors: [{cel: {expression: "device.driver"}}]
  config: [{opaque: {driver: d}}]
  extendedResourceName: gpu`), &obj); err != nil {
		t.Fatal(err)
	}
	spec := field.NewPath("spec")
	want := field.ErrorList{
		dnsSubdomain(field.NewPath("metadata", "name"), "GPU"),
		field.Invalid(spec.Child("selectors").Index(0).Child("cel", "expression"), "device.driver", "must evaluate to bool or the unknown type, not string"),
		field.Required(spec.Child("config").Index(0).Child("opaque", "parameters"), ""),
		field.Invalid(spec.Child("extendedResourceName"), "gpu", "must be a valid extended resource name"),
	}
	got, err := ValidateDeviceClass(obj, withBetas(Newest()))
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("errors (-want +got):\n%s", d)
	}
	obj["apiVersion"] = "resource.k8s.io/v1beta2"
	if got, _ := Check(obj, withBetas(33), api.KindDeviceClass); len(got) != 4 || got[0] != "spec.extendedResourceName: Forbidden: unknown field: Kubernetes 1.33 does not have it (1.34+)" {
		t.Errorf("v1beta2 Check = %q", got)
	}
}
