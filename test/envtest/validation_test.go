//go:build envtest

package envtest_test

// Suite 3: validation through the apiserver. Every class of invariant is
// written through the real kube-apiserver in the version the client speaks
// (create, update, /status) and must be rejected with a 422 whose
// details.causes name the field path and reason in that version's shape.
// Denials by claimbridge's webhook arrive wrapped by the apiserver as
// `admission webhook "validate.resource.claimbridge.dev" denied the request:
// <the webhook's Invalid status message>`, with the webhook's causes kept;
// where the CRD's structural schema rejects first (maxItems, maxLength,
// list-map keys, required, types) the apiserver's own 422 is asserted
// (bySchema): it comes before admission, so the webhook never sees those
// writes. Note the schema's reasons differ from upstream's: maxItems gives
// FieldValueTooMany ("must have at most 32 items") where kube-apiserver 1.26–
// 1.31 said TooLong ("may not be longer than 32"), and a duplicate
// reservedFor uid is reported at status.reservedFor[i], not
// status.reservedFor[i].uid.

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/claimbridge/claimbridge/conversion"
)

// Valid base objects, one per version. %s is the name.
const (
	baseV1alpha1 = `
kind: ResourceClaim
metadata: {name: %s}
spec:
  resourceClassName: gpu.example.com
  allocationMode: Immediate
`
	allocatedV1alpha1 = baseV1alpha1 + `
status:
  driverName: gpu.example.com
  allocation:
    resourceHandle: handle-1
    availableOnNodes:
      nodeSelectorTerms:
      - matchFields: [{key: metadata.name, operator: In, values: [worker-1]}]
    shareable: %t
  reservedFor:
  - {resource: pods, name: pod-0, uid: 00000000-0000-4000-8000-000000000001}
`
	baseV1alpha2 = `
kind: ResourceClaim
metadata: {name: %s}
spec:
  resourceClassName: gpu.example.com
  allocationMode: Immediate
`
	allocatedV1alpha2 = baseV1alpha2 + `
status:
  driverName: gpu.example.com
  allocation:
    resourceHandles:
    - {driverName: gpu.example.com, data: handle-1}
    shareable: %t
  reservedFor:
  - {resource: pods, name: pod-0, uid: 00000000-0000-4000-8000-000000000001}
`
	baseV1alpha3 = `
kind: ResourceClaim
metadata: {name: %s}
spec:
  devices:
    requests:
    - {name: gpu, deviceClassName: gpu.example.com, allocationMode: ExactCount, count: 2}
    - {name: nic, deviceClassName: nic.example.com, allocationMode: ExactCount, count: 1}
    constraints:
    - {requests: [gpu, nic], matchAttribute: example.com/numa}
`
	allocatedV1alpha3 = baseV1alpha3 + `
status:
  allocation:
    devices:
      results:
      - {request: gpu, driver: gpu.example.com, pool: node-1, device: gpu-0}
      - {request: gpu, driver: gpu.example.com, pool: node-1, device: gpu-1}
      - {request: nic, driver: nic.example.com, pool: node-1, device: eth-0}
    nodeSelector:
      nodeSelectorTerms:
      - matchFields: [{key: metadata.name, operator: In, values: [node-1]}]
  reservedFor:
  - {resource: pods, name: pod-0, uid: 00000000-0000-4000-8000-000000000001}
`
)

func base(version string) string {
	return map[string]string{"v1alpha1": baseV1alpha1, "v1alpha2": baseV1alpha2, "v1alpha3": baseV1alpha3}[version]
}

func allocated(version, name string) string {
	switch version {
	case "v1alpha1":
		return fmt.Sprintf(allocatedV1alpha1, name, true)
	case "v1alpha2":
		return fmt.Sprintf(allocatedV1alpha2, name, true)
	}
	return fmt.Sprintf(allocatedV1alpha3, name)
}

// v3Claim is a v1alpha3 claim with the given devices block (YAML, indented
// for spec.devices).
func v3Claim(devices string) string {
	return "kind: ResourceClaim\nmetadata: {name: %s}\nspec:\n  devices:\n" + devices
}

type validationCase struct {
	name    string
	version string
	// create: the object to create (%s is the name).
	create string
	// update / status: the claim to create first (%s is the name; a status
	// is written through /status), then the change.
	existing string
	change   func(t *testing.T, u *unstructured.Unstructured)
	status   bool
	who      denial
	want     []cause
}

func (c validationCase) op() string {
	switch {
	case c.create != "":
		return "create"
	case c.status:
		return "status update"
	}
	return "update"
}

func runValidationCases(t *testing.T, resource, ns string, cases []validationCase) {
	t.Helper()
	for i, tc := range cases {
		t.Run(fmt.Sprintf("%s %s %s", tc.version, tc.op(), tc.name), func(t *testing.T) {
			name := fmt.Sprintf("case-%d", i)
			ri := res(tc.version, resource, ns)
			var err error
			if tc.create != "" {
				doc := tc.create
				if strings.Contains(doc, "%s") {
					doc = fmt.Sprintf(doc, name)
				}
				obj := fromYAML(t, tc.version, ns, doc)
				_, err = ri.Create(ctxFor(t), obj, metav1.CreateOptions{})
			} else {
				createObject(t, resource, fromYAML(t, tc.version, ns, fmt.Sprintf(tc.existing, name)))
				before := get(t, res("v1alpha3", resource, ns), name)
				_, err = mutate(t, ri, name, tc.status, func(u *unstructured.Unstructured) { tc.change(t, u) })
				after := get(t, res("v1alpha3", resource, ns), name)
				if after.GetResourceVersion() != before.GetResourceVersion() {
					t.Errorf("the rejected write changed the stored object (resourceVersion %s -> %s)", before.GetResourceVersion(), after.GetResourceVersion())
				}
			}
			expectInvalid(t, err, tc.who, tc.want...)
			if err != nil {
				t.Logf("%s", describe(err))
			}
		})
	}
}

// setPath sets a value at a path given as "a.b[0].c".
func setPath(t *testing.T, u *unstructured.Unstructured, path string, value interface{}) {
	t.Helper()
	var parts []interface{}
	for _, p := range strings.Split(path, ".") {
		name, idx, hasIdx := strings.Cut(p, "[")
		parts = append(parts, name)
		if hasIdx {
			var n int
			fmt.Sscanf(idx, "%d]", &n)
			parts = append(parts, n)
		}
	}
	if len(parts) == 0 {
		t.Fatalf("empty path")
	}
	parentPath, last := parts[:len(parts)-1], parts[len(parts)-1]
	parent, ok := field(u.Object, parentPath...)
	if !ok {
		t.Fatalf("%s: parent missing in %v", path, u.Object)
	}
	switch k := last.(type) {
	case string:
		parent.(map[string]interface{})[k] = normalize(t, value)
	case int:
		parent.([]interface{})[k] = normalize(t, value)
	}
}

func setTo(path string, value interface{}) func(t *testing.T, u *unstructured.Unstructured) {
	return func(t *testing.T, u *unstructured.Unstructured) { setPath(t, u, path, value) }
}

func TestValidationClaimCreate(t *testing.T) {
	ns := newNamespace(t, "validation-create")
	var cases []validationCase
	for _, v := range []string{"v1alpha1", "v1alpha2", "v1alpha3"} {
		cases = append(cases, validationCase{
			name: "bad metadata.name", version: v, who: bySchema,
			create: strings.Replace(base(v), "%s", "Bad_Name", 1),
			want:   []cause{{Field: "metadata.name", Type: causeInvalid}},
		})
	}
	for _, v := range []string{"v1alpha1", "v1alpha2"} {
		cases = append(cases,
			validationCase{
				name: "resourceClassName not a DNS subdomain", version: v, who: byWebhook,
				create: strings.Replace(base(v), "gpu.example.com", "GPU_Class", 1),
				want:   []cause{{Field: "spec.resourceClassName", Type: causeInvalid, Detail: "RFC 1123 subdomain"}},
			},
			validationCase{
				name: "empty resourceClassName", version: v, who: byWebhook,
				create: strings.Replace(base(v), "gpu.example.com", `""`, 1),
				want:   []cause{{Field: "spec.resourceClassName", Type: causeInvalid}},
			},
			validationCase{
				name: "allocationMode not supported", version: v, who: byWebhook,
				create: strings.Replace(base(v), "Immediate", "Sometimes", 1),
				want:   []cause{{Field: "spec.allocationMode", Type: causeNotSupported, Detail: `supported values: "Immediate", "WaitForFirstConsumer"`}},
			},
			validationCase{
				name: "parametersRef without kind", version: v, who: byWebhook,
				create: base(v) + "  parametersRef: {kind: \"\", name: params}\n",
				want:   []cause{{Field: "spec.parametersRef.kind", Type: causeRequired}},
			},
		)
	}
	v3 := func(name, devices string, who denial, want ...cause) validationCase {
		return validationCase{name: name, version: "v1alpha3", who: who, create: v3Claim(devices), want: want}
	}
	cases = append(cases,
		v3("request name not a DNS label", `
    requests:
    - {name: GPU_0, deviceClassName: gpu.example.com}
`, byWebhook, cause{Field: "spec.devices.requests[0].name", Type: causeInvalid, Detail: "RFC 1123 label"}),
		v3("empty deviceClassName", `
    requests:
    - {name: gpu, deviceClassName: ""}
`, byWebhook, cause{Field: "spec.devices.requests[0].deviceClassName", Type: causeRequired}),
		v3("missing deviceClassName", `
    requests:
    - {name: gpu}
`, bySchema, cause{Field: "spec.devices.requests[0].deviceClassName", Type: causeRequired}),
		v3("deviceClassName not a DNS subdomain", `
    requests:
    - {name: gpu, deviceClassName: Gpu_Class}
`, byWebhook, cause{Field: "spec.devices.requests[0].deviceClassName", Type: causeInvalid}),
		v3("CEL selector does not compile", `
    requests:
    - name: gpu
      deviceClassName: gpu.example.com
      selectors: [{cel: {expression: 'device.driver =='}}]
`, byWebhook, cause{Field: "spec.devices.requests[0].selectors[0].cel.expression", Type: causeInvalid, Detail: "compilation failed"}),
		v3("CEL selector not bool", `
    requests:
    - name: gpu
      deviceClassName: gpu.example.com
      selectors: [{cel: {expression: 'device.driver'}}]
`, byWebhook, cause{Field: "spec.devices.requests[0].selectors[0].cel.expression", Type: causeInvalid, Detail: "must evaluate to bool"}),
		v3("selector without cel", `
    requests:
    - name: gpu
      deviceClassName: gpu.example.com
      selectors: [{}]
`, byWebhook, cause{Field: "spec.devices.requests[0].selectors[0].cel", Type: causeRequired}),
		v3("count with allocationMode All", `
    requests:
    - {name: gpu, deviceClassName: gpu.example.com, allocationMode: All, count: 2}
`, byWebhook, cause{Field: "spec.devices.requests[0].count", Type: causeInvalid, Detail: "must not be specified when allocationMode is 'All'"}),
		v3("negative count", `
    requests:
    - {name: gpu, deviceClassName: gpu.example.com, allocationMode: ExactCount, count: -1}
`, byWebhook, cause{Field: "spec.devices.requests[0].count", Type: causeInvalid, Detail: "must be greater than zero"}),
		v3("allocationMode not supported", `
    requests:
    - {name: gpu, deviceClassName: gpu.example.com, allocationMode: Some}
`, byWebhook, cause{Field: "spec.devices.requests[0].allocationMode", Type: causeNotSupported, Detail: `supported values: "All", "ExactCount"`}),
		v3("duplicate request names", `
    requests:
    - {name: gpu, deviceClassName: gpu.example.com}
    - {name: gpu, deviceClassName: other.example.com}
`, byWebhook, cause{Field: "spec.devices.requests[1].name", Type: causeDuplicate}),
		v3("matchAttribute without domain", `
    requests:
    - {name: gpu, deviceClassName: gpu.example.com}
    constraints:
    - {requests: [gpu], matchAttribute: numa}
`, byWebhook, cause{Field: "spec.devices.constraints[0].matchAttribute.domain", Type: causeRequired, Detail: "must include a prefix"}),
		v3("matchAttribute missing", `
    requests:
    - {name: gpu, deviceClassName: gpu.example.com}
    constraints:
    - {requests: [gpu]}
`, byWebhook, cause{Field: "spec.devices.constraints[0].matchAttribute", Type: causeRequired}),
		v3("constraint names an unknown request", `
    requests:
    - {name: gpu, deviceClassName: gpu.example.com}
    constraints:
    - {requests: [tpu], matchAttribute: example.com/numa}
`, byWebhook, cause{Field: "spec.devices.constraints[0].requests[0]", Type: causeInvalid, Detail: "must be the name of a request in the claim"}),
		v3("config without opaque", `
    requests:
    - {name: gpu, deviceClassName: gpu.example.com}
    config:
    - requests: [gpu]
`, byWebhook, cause{Field: "spec.devices.config[0].opaque", Type: causeRequired}),
		v3("opaque driver not a DNS subdomain", `
    requests:
    - {name: gpu, deviceClassName: gpu.example.com}
    config:
    - opaque: {driver: "gpu_driver!", parameters: {kind: GpuConfig}}
`, byWebhook, cause{Field: "spec.devices.config[0].opaque.driver", Type: causeInvalid}),
		v3("opaque parameters null", `
    requests:
    - {name: gpu, deviceClassName: gpu.example.com}
    config:
    - opaque: {driver: gpu.example.com, parameters: null}
`, bySchema, cause{Field: "spec.devices.config[0].opaque.parameters", Type: causeRequired}),
		v3("opaque parameters not an object", `
    requests:
    - {name: gpu, deviceClassName: gpu.example.com}
    config:
    - opaque: {driver: gpu.example.com, parameters: [1, 2]}
`, bySchema, cause{Field: "spec.devices.config[0].opaque.parameters", Type: metav1.CauseType("FieldValueTypeInvalid"), Detail: "must be of type object"}),
	)
	runValidationCases(t, claimsResource, ns, cases)
}

func TestValidationClaimSpecUpdate(t *testing.T) {
	ns := newNamespace(t, "validation-update")
	immutable := cause{Field: "spec", Type: causeInvalid, Detail: "field is immutable"}
	runValidationCases(t, claimsResource, ns, []validationCase{
		{name: "changes resourceClassName", version: "v1alpha1", existing: baseV1alpha1, who: byWebhook,
			change: setTo("spec.resourceClassName", "other.example.com"), want: []cause{immutable}},
		{name: "changes allocationMode", version: "v1alpha2", existing: baseV1alpha2, who: byWebhook,
			change: setTo("spec.allocationMode", "WaitForFirstConsumer"), want: []cause{immutable}},
		{name: "adds parametersRef", version: "v1alpha2", existing: baseV1alpha2, who: byWebhook,
			change: setTo("spec.parametersRef", map[string]interface{}{"kind": "ConfigMap", "name": "p"}), want: []cause{immutable}},
		{name: "changes a request's count", version: "v1alpha3", existing: baseV1alpha3, who: byWebhook,
			change: setTo("spec.devices.requests[0].count", 3), want: []cause{immutable}},
		{name: "changes the spec of an allocated claim and also reports the invalid new value", version: "v1alpha3", existing: allocatedV1alpha3, who: byWebhook,
			change: setTo("spec.devices.requests[1].name", "NIC"), want: []cause{immutable, {Field: "spec.devices.requests[1].name", Type: causeInvalid}}},
	})
}

func TestValidationTemplates(t *testing.T) {
	ns := newNamespace(t, "validation-templates")
	v3Template := `
kind: ResourceClaimTemplate
metadata: {name: %s}
spec:
  spec:
    devices:
      requests:
      - {name: gpu, deviceClassName: gpu.example.com}
`
	v1Template := `
kind: ResourceClaimTemplate
metadata: {name: %s}
spec:
  spec:
    resourceClassName: gpu.example.com
`
	runValidationCases(t, templatesResource, ns, []validationCase{
		{name: "bad metadata.name", version: "v1alpha3", who: bySchema,
			create: strings.Replace(v3Template, "%s", "Bad_Name", 1), want: []cause{{Field: "metadata.name", Type: causeInvalid}}},
		{name: "request name not a DNS label", version: "v1alpha3", who: byWebhook,
			create: strings.Replace(v3Template, "name: gpu,", "name: GPU_0,", 1), want: []cause{{Field: "spec.spec.devices.requests[0].name", Type: causeInvalid}}},
		{name: "resourceClassName not a DNS subdomain", version: "v1alpha1", who: byWebhook,
			create: strings.Replace(v1Template, "gpu.example.com", "GPU_Class", 1), want: []cause{{Field: "spec.spec.resourceClassName", Type: causeInvalid}}},
		{name: "allocationMode not supported", version: "v1alpha2", who: byWebhook,
			create: v1Template + "    allocationMode: Later\n", want: []cause{{Field: "spec.spec.allocationMode", Type: causeNotSupported}}},
		{name: "spec changed", version: "v1alpha3", existing: v3Template, who: byWebhook,
			change: setTo("spec.spec.devices.requests[0].deviceClassName", "other.example.com"), want: []cause{{Field: "spec", Type: causeInvalid, Detail: "field is immutable"}}},
		{name: "spec changed", version: "v1alpha1", existing: v1Template, who: byWebhook,
			change: setTo("spec.spec.resourceClassName", "other.example.com"), want: []cause{{Field: "spec", Type: causeInvalid, Detail: "field is immutable"}}},
	})
}

func TestValidationClaimStatus(t *testing.T) {
	ns := newNamespace(t, "validation-status")
	var cases []validationCase
	for _, v := range []string{"v1alpha1", "v1alpha2", "v1alpha3"} {
		cases = append(cases,
			validationCase{name: "more than 32 reservedFor", version: v, existing: allocated(v, "%s"), status: true, who: bySchema,
				change: setTo("status.reservedFor", consumers(33, "pod")), want: []cause{{Field: "status.reservedFor", Type: causeTooMany, Detail: "must have at most 32 items"}}},
			validationCase{name: "duplicate reservedFor uid", version: v, existing: allocated(v, "%s"), status: true, who: bySchema,
				change: setTo("status.reservedFor", []interface{}{
					map[string]interface{}{"resource": "pods", "name": "pod-0", "uid": "00000000-0000-4000-8000-000000000001"},
					map[string]interface{}{"resource": "pods", "name": "pod-1", "uid": "00000000-0000-4000-8000-000000000001"},
				}), want: []cause{{Field: "status.reservedFor[1]", Type: causeDuplicate}}},
			validationCase{name: "reservedFor without allocation", version: v, existing: base(v), status: true, who: byWebhook,
				change: setTo("status", map[string]interface{}{"reservedFor": consumers(1, "pod")}),
				want:   []cause{{Field: "status.reservedFor", Type: causeForbidden, Detail: "may not be specified when `allocated` is not set"}}},
			validationCase{name: "deallocationRequested while reserved", version: v, existing: allocated(v, "%s"), status: true, who: byWebhook,
				change: setTo("status.deallocationRequested", true),
				want:   []cause{{Field: "status.deallocationRequested", Type: causeForbidden, Detail: "deallocation cannot be requested while `reservedFor` is set"}}},
			validationCase{name: "deallocationRequested without allocation", version: v, existing: base(v), status: true, who: byWebhook,
				change: setTo("status", map[string]interface{}{"deallocationRequested": true}),
				want:   []cause{{Field: "status", Type: causeForbidden, Detail: "`allocation` must be set when `deallocationRequested` is set"}}},
			validationCase{name: "deallocationRequested cleared while allocated", version: v, status: true, who: byWebhook,
				existing: deallocating(v),
				change:   setTo("status.deallocationRequested", false),
				want:     []cause{{Field: "status.deallocationRequested", Type: causeForbidden, Detail: "may not be cleared when `allocation` is set"}}},
		)
	}
	for _, v := range []string{"v1alpha1", "v1alpha2"} {
		tmpl := allocatedV1alpha1
		if v == "v1alpha2" {
			tmpl = allocatedV1alpha2
		}
		cases = append(cases, validationCase{
			name: "shareable=false with 2 consumers", version: v, status: true, who: byWebhook,
			existing: strings.Replace(tmpl, "%t", "false", 1),
			change:   setTo("status.reservedFor", consumers(2, "pod")),
			want:     []cause{{Field: "status.reservedFor", Type: causeForbidden, Detail: "may not be reserved more than once"}},
		})
	}
	immutable := cause{Field: "status.allocation", Type: causeInvalid, Detail: "field is immutable"}
	cases = append(cases,
		validationCase{name: "allocation changed (handle data)", version: "v1alpha2", existing: allocated("v1alpha2", "%s"), status: true, who: byWebhook,
			change: setTo("status.allocation.resourceHandles[0].data", "handle-2"), want: []cause{immutable}},
		validationCase{name: "allocation changed (device)", version: "v1alpha3", existing: allocated("v1alpha3", "%s"), status: true, who: byWebhook,
			change: setTo("status.allocation.devices.results[1].device", "gpu-7"), want: []cause{immutable}},
		validationCase{name: "allocation changed (availableOnNodes; immutable through the other versions)", version: "v1alpha1", existing: allocated("v1alpha1", "%s"), status: true, who: byWebhook,
			change: setTo("status.allocation.availableOnNodes", nodeSelector("worker-2")), want: []cause{immutable}},
		validationCase{name: "allocation result names an unknown request", version: "v1alpha3", existing: baseV1alpha3, status: true, who: byWebhook,
			change: setTo("status", map[string]interface{}{"allocation": map[string]interface{}{"devices": map[string]interface{}{"results": []interface{}{
				map[string]interface{}{"request": "tpu", "driver": "gpu.example.com", "pool": "node-1", "device": "gpu-0"},
			}}}}),
			want: []cause{{Field: "status.allocation.devices.results[0].request", Type: causeInvalid, Detail: "must be the name of a request in the claim"}}},
		validationCase{name: "allocation without driverName", version: "v1alpha2", existing: baseV1alpha2, status: true, who: byWebhook,
			change: setTo("status", map[string]interface{}{"allocation": map[string]interface{}{"shareable": true}}),
			want:   []cause{{Field: "status.driverName", Type: causeRequired}}},
		validationCase{name: "resourceHandle larger than 16 KiB", version: "v1alpha1", existing: baseV1alpha1, status: true, who: bySchema,
			change: setTo("status", map[string]interface{}{"driverName": "gpu.example.com", "allocation": map[string]interface{}{"resourceHandle": strings.Repeat("x", 16385)}}),
			want:   []cause{{Field: "status.allocation.resourceHandle", Type: causeTooLong}}},
		validationCase{name: "handle data larger than 16 KiB", version: "v1alpha2", existing: baseV1alpha2, status: true, who: bySchema,
			change: setTo("status", map[string]interface{}{"driverName": "gpu.example.com", "allocation": map[string]interface{}{
				"resourceHandles": []interface{}{map[string]interface{}{"driverName": "gpu.example.com", "data": strings.Repeat("x", 16385)}}}}),
			want: []cause{{Field: "status.allocation.resourceHandles[0].data", Type: causeTooLong}}},
		// Upstream counts bytes (Go len), a schema's maxLength characters:
		// 8,193 characters of 16,385 bytes pass the schema and the webhook
		// refuses them, as upstream did. (A CEL byte rule in the schema was
		// tried and dropped: 1.30 and 1.31 do not ratchet status writes, so
		// it refused unreserving claims whose allocation was stored without
		// the webhook, and any CEL rule adds a cause to every schema error.)
		validationCase{name: "resourceHandle of 16 KiB + 1 byte in multibyte characters", version: "v1alpha1", existing: baseV1alpha1, status: true, who: byWebhook,
			change: setTo("status", map[string]interface{}{"driverName": "gpu.example.com", "allocation": map[string]interface{}{"resourceHandle": strings.Repeat("é", 8192) + "x"}}),
			want:   []cause{{Field: "status.allocation.resourceHandle", Type: causeTooLong, Detail: "may not be longer than 16384"}}},
		validationCase{name: "handle data of 16 KiB + 1 byte in multibyte characters", version: "v1alpha2", existing: baseV1alpha2, status: true, who: byWebhook,
			change: setTo("status", map[string]interface{}{"driverName": "gpu.example.com", "allocation": map[string]interface{}{
				"resourceHandles": []interface{}{map[string]interface{}{"driverName": "gpu.example.com", "data": strings.Repeat("é", 8192) + "x"}}}}),
			want: []cause{{Field: "status.allocation.resourceHandles[0].data", Type: causeTooLong, Detail: "may not be longer than 16384"}}},
		validationCase{name: "more than 32 resource handles", version: "v1alpha2", existing: baseV1alpha2, status: true, who: bySchema,
			change: setTo("status", map[string]interface{}{"driverName": "gpu.example.com", "allocation": map[string]interface{}{"resourceHandles": handles(33)}}),
			want:   []cause{{Field: "status.allocation.resourceHandles", Type: causeTooMany}}},
	)
	runValidationCases(t, claimsResource, ns, cases)
}

// deallocating is an allocated, unreserved claim with deallocationRequested
// (%s is the name).
func deallocating(version string) string {
	doc := allocated(version, "%s")
	doc = doc[:strings.Index(doc, "  reservedFor:")]
	return doc + "  deallocationRequested: true\n"
}

func handles(n int) []interface{} {
	out := make([]interface{}, 0, n)
	for i := range n {
		out = append(out, map[string]interface{}{"driverName": "gpu.example.com", "data": fmt.Sprintf("handle-%d", i)})
	}
	return out
}

// TestValidationCrossVersionBypass tries to break an invariant of one
// version by writing through another.
func TestValidationCrossVersionBypass(t *testing.T) {
	ns := newNamespace(t, "validation-bypass")

	t.Run("not shareable allocation via v1alpha2, second consumer via v1alpha3 status is denied", func(t *testing.T) {
		created := createClaim(t, fromYAML(t, "v1alpha2", ns, fmt.Sprintf(allocatedV1alpha2, "exclusive", false)))
		expectField(t, created, false, "status", "allocation", "shareable")
		expectField(t, get(t, claims("v1alpha2", ns), "exclusive"), false, "status", "allocation", "shareable")
		_, err := mutate(t, claims("v1alpha3", ns), "exclusive", true, func(u *unstructured.Unstructured) {
			set(t, u, consumers(2, "pod"), "status", "reservedFor")
		})
		// v1alpha3 has no shareable field: the refusal says where the rule comes from.
		expectInvalid(t, err, byWebhook, cause{Field: "status.reservedFor", Type: causeForbidden,
			Detail: "may not be reserved more than once: the allocation is not shareable as seen through v1alpha1 and v1alpha2"})
		if n := len(mustSlice(t, get(t, claims("v1alpha3", ns), "exclusive"), "status", "reservedFor")); n != 1 {
			t.Errorf("reservedFor has %d entries, want 1", n)
		}
	})

	t.Run("v1alpha3 claim with two requests", func(t *testing.T) {
		createClaim(t, fromYAML(t, "v1alpha3", ns, fmt.Sprintf(baseV1alpha3, "two-requests")))
		want := get(t, claims("v1alpha3", ns), "two-requests")
		key := restoreAnnotationPrefix + "v1alpha3"
		specDenied := cause{Field: "metadata.annotations", Type: causeInvalid, Detail: "field is immutable"}
		for _, tc := range []struct {
			name   string
			change func(t *testing.T, u *unstructured.Unstructured)
		}{
			{"v1alpha1 PUT dropping the restore-v1alpha3 annotation is denied as a spec change", func(t *testing.T, u *unstructured.Unstructured) {
				a := u.GetAnnotations()
				if a[key] == "" {
					t.Fatalf("the v1alpha1 view has no %s annotation: %v", key, a)
				}
				delete(a, key)
				u.SetAnnotations(a)
			}},
			{"v1alpha1 PUT editing the restore-v1alpha3 annotation is denied as a spec change", func(t *testing.T, u *unstructured.Unstructured) {
				a := u.GetAnnotations()
				if !strings.Contains(a[key], `"count":2`) {
					t.Fatalf("annotation %s does not hold the count: %s", key, a[key])
				}
				a[key] = strings.Replace(a[key], `"count":2`, `"count":3`, 1)
				u.SetAnnotations(a)
			}},
			{"v1alpha2 PUT editing the restore-v1alpha3 annotation is denied as a spec change", func(t *testing.T, u *unstructured.Unstructured) {
				a := u.GetAnnotations()
				a[key] = strings.Replace(a[key], `"nic"`, `"tpu"`, -1)
				u.SetAnnotations(a)
			}},
		} {
			t.Run(tc.name, func(t *testing.T) {
				version := tc.name[:8]
				_, err := mutate(t, claims(version, ns), "two-requests", false, func(u *unstructured.Unstructured) { tc.change(t, u) })
				expectInvalid(t, err, byWebhook, specDenied)
				expectSection(t, "spec", want, get(t, claims("v1alpha3", ns), "two-requests"))
			})
		}
	})

	t.Run("restore-v1alpha3 written on the v1alpha3 claim does not reach storage through a v1alpha2 label change", func(t *testing.T) {
		createClaim(t, fromYAML(t, "v1alpha3", ns, `
kind: ResourceClaim
metadata: {name: own-restore}
spec: {devices: {requests: [{name: request, deviceClassName: gpu.example.com}]}}
status:
  allocation:
    controller: gpu.example.com
    devices:
      results: [{request: request, driver: gpu.example.com, pool: gpu.example.com, device: handle-0}]
`))
		want := get(t, claims("v1alpha3", ns), "own-restore")
		// A genuine restore-v1alpha3 annotation, made for this claim with a
		// selector that does not compile and another device, neither of
		// which v1alpha2 shows.
		variant := want.DeepCopy()
		set(t, variant, []interface{}{map[string]interface{}{"name": "request", "deviceClassName": "gpu.example.com",
			"selectors": []interface{}{map[string]interface{}{"cel": map[string]interface{}{"expression": "1"}}}}}, "spec", "devices", "requests")
		set(t, variant, []interface{}{map[string]interface{}{"request": "request", "driver": "gpu.example.com", "pool": "gpu.example.com", "device": "someone-elses-gpu"}},
			"status", "allocation", "devices", "results")
		asV2, err := conversion.Convert(variant.Object, "v1alpha2")
		if err != nil {
			t.Fatal(err)
		}
		key := restoreAnnotationPrefix + "v1alpha3"
		forged, _ := field(asV2, "metadata", "annotations", key)
		if forged == nil {
			t.Fatalf("no %s annotation in %v", key, asV2)
		}
		if _, err := mutate(t, claims("v1alpha3", ns), "own-restore", false, func(u *unstructured.Unstructured) {
			u.SetAnnotations(map[string]string{key: forged.(string)})
		}); err != nil {
			t.Fatalf("annotating through v1alpha3: %s", describe(err))
		}
		if _, err := mutate(t, claims("v1alpha2", ns), "own-restore", false, func(u *unstructured.Unstructured) {
			u.SetLabels(map[string]string{"team": "b"})
		}); err != nil {
			t.Fatalf("labelling through v1alpha2: %s", describe(err))
		}
		got := get(t, claims("v1alpha3", ns), "own-restore")
		expectSection(t, "spec", want, got)
		expectSection(t, "status", want, got)
	})

	t.Run("annotations that leave no room for the v1alpha2 and v1alpha1 views are denied", func(t *testing.T) {
		// Every read through v1alpha2 of a claim it cannot show fails, and so
		// does every list and watch of claims through v1alpha2 that includes
		// it, in any namespace.
		filler := strings.Repeat("x", 256*1024-100)
		unreadable := func(version string) cause {
			return cause{Field: "metadata.annotations", Type: causeForbidden, Detail: "the object could not be read through " + version}
		}
		o := fromYAML(t, "v1alpha3", ns, fmt.Sprintf(baseV1alpha3, "filled"))
		o.SetAnnotations(map[string]string{"filler": filler})
		_, err := claims("v1alpha3", ns).Create(ctxFor(t), o, metav1.CreateOptions{})
		expectInvalid(t, err, byWebhook, unreadable("v1alpha1"), unreadable("v1alpha2"))

		createClaim(t, fromYAML(t, "v1alpha3", ns, fmt.Sprintf(baseV1alpha3, "to-be-filled")))
		_, err = mutate(t, claims("v1alpha3", ns), "to-be-filled", false, func(u *unstructured.Unstructured) {
			u.SetAnnotations(map[string]string{"filler": filler})
		})
		expectInvalid(t, err, byWebhook, unreadable("v1alpha1"), unreadable("v1alpha2"))
		for _, v := range []string{"v1alpha1", "v1alpha2"} {
			if _, err := env.Resource(v, claimsResource).List(ctxFor(t), metav1.ListOptions{}); err != nil {
				t.Errorf("listing claims through %s: %s", v, describe(err))
			}
		}
	})

	t.Run("an allocation that v1alpha1 could not show is denied", func(t *testing.T) {
		// 17 handles of 16 KiB are a valid v1alpha2 allocation; v1alpha1
		// would need more than the annotation limit for the 16 it cannot hold.
		createClaim(t, fromYAML(t, "v1alpha2", ns, fmt.Sprintf(baseV1alpha2, "many-handles")))
		handles := make([]interface{}, 17)
		for i := range handles {
			handles[i] = map[string]interface{}{"driverName": "gpu.example.com", "data": strings.Repeat("h", 16*1024)}
		}
		_, err := mutate(t, claims("v1alpha2", ns), "many-handles", true, func(u *unstructured.Unstructured) {
			set(t, u, "gpu.example.com", "status", "driverName")
			set(t, u, map[string]interface{}{"resourceHandles": handles, "shareable": true}, "status", "allocation")
		})
		expectInvalid(t, err, byWebhook, cause{Field: "status", Type: causeForbidden, Detail: "the object could not be read through v1alpha1"})
		if _, err := env.Resource("v1alpha1", claimsResource).List(ctxFor(t), metav1.ListOptions{}); err != nil {
			t.Errorf("listing claims through v1alpha1: %s", describe(err))
		}
	})

	t.Run("restore status data for a later status, written through v1alpha3, is not stored", func(t *testing.T) {
		// Planted on an allocated claim, it would change no view; once the
		// scheduler deallocated the claim (status {}), v1alpha2 and v1alpha1
		// clients would see an allocation of evil.example.com. /validate
		// refuses it (validation's unit tests); /default, which runs first,
		// keeps the stored claim's status data (none) instead, with a
		// warning, so the update is accepted and plants nothing.
		createClaim(t, fromYAML(t, "v1alpha3", ns, `
kind: ResourceClaim
metadata: {name: pending-status}
spec: {devices: {requests: [{name: request, deviceClassName: gpu.example.com}]}}
status:
  allocation:
    devices:
      results: [{request: request, driver: gpu.example.com, pool: node-1, device: gpu-0}]
  reservedFor:
  - {resource: pods, name: pod-0, uid: 00000000-0000-4000-8000-000000000001}
`))
		// A genuine restore-v1alpha2 annotation for status {}, its patch
		// replaced.
		probe := fromYAML(t, "v1alpha2", ns, "kind: ResourceClaim\nmetadata: {name: probe}\nspec: {resourceClassName: gpu}\nstatus: {unknown: 1}\n")
		asV3, err := conversion.Convert(probe.Object, "v1alpha3")
		if err != nil {
			t.Fatal(err)
		}
		key := restoreAnnotationPrefix + "v1alpha2"
		genuine, _ := field(asV3, "metadata", "annotations", key)
		var r map[string]interface{}
		if err := json.Unmarshal([]byte(genuine.(string)), &r); err != nil {
			t.Fatal(err)
		}
		r["status"].(map[string]interface{})["patch"] = []interface{}{
			map[string]interface{}{"op": "add", "path": "/status/driverName", "value": "evil.example.com"},
			map[string]interface{}{"op": "add", "path": "/status/allocation", "value": map[string]interface{}{
				"resourceHandles": []interface{}{map[string]interface{}{"driverName": "evil.example.com", "data": "attacker"}}, "shareable": true}},
		}
		forged, _ := json.Marshal(r)
		_, err = mutate(t, claims("v1alpha3", ns), "pending-status", false, func(u *unstructured.Unstructured) {
			u.SetAnnotations(map[string]string{key: string(forged)})
		})
		if err != nil {
			t.Fatalf("the update: %s", describe(err))
		}
		if ann := get(t, claims("v1alpha3", ns), "pending-status").GetAnnotations(); strings.Contains(ann[key], "evil") {
			t.Errorf("stored %s = %s: the planted status data was kept", key, ann[key])
		}
		if _, err := mutate(t, claims("v1alpha3", ns), "pending-status", true, func(u *unstructured.Unstructured) {
			u.Object["status"] = map[string]interface{}{}
		}); err != nil {
			t.Fatalf("deallocating: %s", describe(err))
		}
		if v2 := get(t, claims("v1alpha2", ns), "pending-status"); v2.Object["status"] != nil && fmt.Sprint(v2.Object["status"]) != "map[]" {
			t.Errorf("deallocated, the v1alpha2 view has status %v", v2.Object["status"])
		}
	})

	t.Run("allocation via v1alpha3, changed via v1alpha1 status is denied", func(t *testing.T) {
		createClaim(t, fromYAML(t, "v1alpha3", ns, fmt.Sprintf(allocatedV1alpha3, "allocated-v3")))
		want := get(t, claims("v1alpha3", ns), "allocated-v3")
		for _, tc := range []struct {
			name   string
			change func(t *testing.T, u *unstructured.Unstructured)
		}{
			{"availableOnNodes", setTo("status.allocation.availableOnNodes", nodeSelector("node-2"))},
			{"driverName", setTo("status.driverName", "other.example.com")},
			{"allocation removed while reserved", func(t *testing.T, u *unstructured.Unstructured) {
				unstructured.RemoveNestedField(u.Object, "status", "allocation")
			}},
		} {
			t.Run(tc.name, func(t *testing.T) {
				_, err := mutate(t, claims("v1alpha1", ns), "allocated-v3", true, func(u *unstructured.Unstructured) { tc.change(t, u) })
				if tc.name == "allocation removed while reserved" {
					expectInvalid(t, err, byWebhook, cause{Field: "status.reservedFor", Type: causeForbidden})
				} else {
					expectInvalid(t, err, byWebhook, cause{Field: "status.allocation", Type: causeInvalid, Detail: "field is immutable"})
				}
				expectSection(t, "status", want, get(t, claims("v1alpha3", ns), "allocated-v3"))
			})
		}
	})
}

// TestValidationAcceptsLimits writes values at the limits, which must be
// accepted, so that the rejections above are not a blanket denial.
func TestValidationAcceptsLimits(t *testing.T) {
	ns := newNamespace(t, "validation-limits")
	for _, v := range []string{"v1alpha1", "v1alpha2", "v1alpha3"} {
		t.Run(v+" status with 32 consumers is accepted", func(t *testing.T) {
			name := "limits-" + v
			createClaim(t, fromYAML(t, v, ns, allocated(v, name)))
			if _, err := mutate(t, claims(v, ns), name, true, func(u *unstructured.Unstructured) {
				set(t, u, consumers(32, "pod"), "status", "reservedFor")
			}); err != nil {
				t.Fatalf("status update: %s", describe(err))
			}
			if n := len(mustSlice(t, get(t, claims("v1alpha3", ns), name), "status", "reservedFor")); n != 32 {
				t.Errorf("reservedFor has %d entries, want 32", n)
			}
		})
	}
	t.Run("v1alpha1 resourceHandle of exactly 16 KiB is accepted", func(t *testing.T) {
		createClaim(t, fromYAML(t, "v1alpha1", ns, fmt.Sprintf(`
kind: ResourceClaim
metadata: {name: handle-16k}
spec: {resourceClassName: gpu.example.com}
status:
  driverName: gpu.example.com
  allocation: {resourceHandle: %s, shareable: true}
`, strings.Repeat("x", 16384))))
	})
	t.Run("v1alpha1 resourceHandle of exactly 16 KiB in multibyte characters is accepted", func(t *testing.T) {
		createClaim(t, fromYAML(t, "v1alpha1", ns, fmt.Sprintf(`
kind: ResourceClaim
metadata: {name: handle-16k-multibyte}
spec: {resourceClassName: gpu.example.com}
status:
  driverName: gpu.example.com
  allocation: {resourceHandle: %s, shareable: true}
`, strings.Repeat("é", 8192))))
	})
	t.Run("v1alpha3 All request without count and lawful deallocation are accepted", func(t *testing.T) {
		createClaim(t, fromYAML(t, "v1alpha3", ns, fmt.Sprintf(v3Claim(`
    requests:
    - {name: nic, deviceClassName: nic.example.com, allocationMode: All}
`), "all-mode")))
		name := "dealloc"
		createClaim(t, fromYAML(t, "v1alpha1", ns, deallocatingNamed("v1alpha1", name)))
		// Deallocate: clear allocation and deallocationRequested together.
		if _, err := mutate(t, claims("v1alpha1", ns), name, true, func(u *unstructured.Unstructured) {
			delete(u.Object, "status")
		}); err != nil {
			t.Fatalf("deallocating: %s", describe(err))
		}
	})
}

func deallocatingNamed(version, name string) string {
	return fmt.Sprintf(deallocating(version), name)
}
