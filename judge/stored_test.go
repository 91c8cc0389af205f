package judge

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/claimbridge/claimbridge/api"
)

// judgedAt is obj, JSON, and release to with gates, as a test judges them.
func judgedAt(t *testing.T, obj string, to int, gates string) (map[string]interface{}, api.Cluster) {
	t.Helper()
	var o map[string]interface{}
	if err := json.Unmarshal([]byte(obj), &o); err != nil {
		t.Fatal(err)
	}
	c := api.Defaults(to)
	if err := c.Set(gates, ""); err != nil {
		t.Fatal(err)
	}
	return o, c
}

// TestCounted: what a target's scheduler counts of a stored slice's
// counters and a claim's shares, with its gates.
func TestCounted(t *testing.T) {
	const (
		// 1.33–1.34: the counters in the devices' slice.
		own = `{"apiVersion":"resource.k8s.io/v1","kind":"ResourceSlice","metadata":{"name":"s"},"spec":{"driver":"part.example.com","nodeName":"node-1","pool":{"name":"node-1","resourceSliceCount":1},
			"sharedCounters":[{"name":"gpu-mem","counters":{"memory":{"value":"40Gi"}}}],
			"devices":[{"name":"whole","consumesCounters":[{"counterSet":"gpu-mem","counters":{"memory":{"value":"40Gi"}}}]},{"name":"half-0","consumesCounters":[{"counterSet":"gpu-mem","counters":{"memory":{"value":"20Gi"}}}]}]}}`
		// From 1.35: the counters in a slice of their own.
		split = `{"apiVersion":"resource.k8s.io/v1","kind":"ResourceSlice","metadata":{"name":"s"},"spec":{"driver":"part.example.com","nodeName":"node-1","pool":{"name":"node-1","resourceSliceCount":2},
			"devices":[{"name":"plain"},{"name":"whole","consumesCounters":[{"counterSet":"gpu-mem","counters":{"memory":{"value":"40Gi"}}}]}]}}`
		basic = `{"apiVersion":"resource.k8s.io/v1beta1","kind":"ResourceSlice","metadata":{"name":"s"},"spec":{"driver":"part.example.com","nodeName":"node-1","pool":{"name":"node-1","resourceSliceCount":1},
			"sharedCounters":[{"name":"gpu-mem","counters":{"memory":{"value":"40Gi"}}}],
			"devices":[{"name":"whole","basic":{"consumesCounters":[{"counterSet":"gpu-mem","counters":{"memory":{"value":"40Gi"}}}]}}]}}`
		shared = `{"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaim","metadata":{"name":"c","namespace":"ns"},"spec":{},
			"status":{"allocation":{"devices":{"results":[{"request":"gpu","driver":"vgpu.example.com","pool":"node-2","device":"vgpu-0","shareID":"1a2b"}]}}}}`
		twice = ", so devices that share a counter are allocated to two claims at once"
	)
	for name, tc := range map[string]struct {
		obj, gates   string
		to           int
		errs, warned []string
	}{
		"own-counters-to-1.32": {own, "", 32, []string{"spec.devices[0].consumesCounters: Kubernetes 1.32 has no counters: it reads the slice without them, " +
			"and its scheduler allocates each device that consumes counters (2 in this slice) as a whole device" + twice}, nil},
		"v1beta1-to-1.32": {basic, "", 32, []string{"spec.devices[0].basic.consumesCounters: Kubernetes 1.32 has no counters: it reads the slice without them, " +
			"and its scheduler allocates each device that consumes counters (1 in this slice) as a whole device" + twice}, nil},
		"own-counters-to-1.33-gate-off": {own, "", 33, nil, []string{"spec.devices[0].consumesCounters: Kubernetes 1.33 with DRAPartitionableDevices off allocates no device that consumes counters (2 in this slice)"}},
		"own-counters-to-1.33-gate-on":  {own, "DRAPartitionableDevices=true", 33, nil, nil},
		"split-to-1.34": {split, "DRAPartitionableDevices=true", 34, []string{`spec.devices[1].consumesCounters[0].counterSet: Kubernetes 1.34 looks for counter set "gpu-mem" in the device's own slice, ` +
			"and this slice does not hold it (from 1.35 a slice holds devices or counters, not both): its scheduler allocates the devices that consume it without counting" + twice}, nil},
		"split-to-1.35": {split, "DRAPartitionableDevices=true", 35, nil, nil},
		"share-to-1.35-gate-off": {shared, "DRAConsumableCapacity=false", 35, nil, []string{"status.allocation.devices.results[0].shareID: Kubernetes 1.35 with DRAConsumableCapacity off " +
			"counts device vgpu.example.com/node-2/vgpu-0 as wholly allocated: no other claim gets a share of it until every claim that shares it is released"}},
		"share-to-1.35": {shared, "DRAConsumableCapacity=true", 35, nil, nil},
		"share-to-1.33": {shared, "", 33, nil, nil}, // 1.33 has no shares: statusUnknown says so
	} {
		t.Run(name, func(t *testing.T) {
			obj, c := judgedAt(t, tc.obj, tc.to, tc.gates)
			errs, warned := counted(obj, c, obj["kind"].(string), tc.to)
			if d := cmp.Diff(tc.errs, errs); d != "" {
				t.Errorf("errors (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tc.warned, warned); d != "" {
				t.Errorf("warnings (-want +got):\n%s", d)
			}
		})
	}
}

// TestStatusUnknown: the fields of a stored claim's status that an older
// release reads the claim without, each named once, and the allocation's
// timestamp only where a result's binding is timed from it.
func TestStatusUnknown(t *testing.T) {
	const (
		claim = `{"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaim","metadata":{"name":"c","namespace":"ns"},"spec":{},"status":%s}`
		drops = ": it reads the claim without it, and its scheduler and controllers drop it at their next write of the status"
		stamp = `"allocationTimestamp":"2026-11-28T10:00:00Z"`
	)
	for name, tc := range map[string]struct {
		status string
		to     int
		want   []string
	}{
		"timestamp-alone-to-1.33": {`{"allocation":{` + stamp + `,"devices":{"results":[{"request":"gpu","driver":"d","pool":"p","device":"gpu-0"}]}}}`, 33, nil},
		"timestamp-with-binding-to-1.33": {`{"allocation":{` + stamp + `,"devices":{"results":[{"request":"gpu","driver":"d","pool":"p","device":"gpu-0"},` +
			`{"request":"nic","driver":"d","pool":"p","device":"nic-0","bindingConditions":["attached"]}]}}}`, 33, []string{
			"status.allocation.allocationTimestamp: Kubernetes 1.33 does not have it (1.34+)" + drops,
			"status.allocation.devices.results[1].bindingConditions: Kubernetes 1.33 does not have it (1.34+)" + drops}},
		"timestamp-with-binding-to-1.34": {`{"allocation":{` + stamp + `,"devices":{"results":[{"request":"nic","driver":"d","pool":"p","device":"nic-0","bindingConditions":["attached"]}]}}}`, 34, nil},
		"shares-to-1.33": {`{"allocation":{"devices":{"results":[{"request":"gpu","driver":"d","pool":"p","device":"gpu-0","shareID":"1a","consumedCapacity":{"memory":"10Gi"}},` +
			`{"request":"gpu","driver":"d","pool":"p","device":"gpu-1","shareID":"2b","consumedCapacity":{"memory":"10Gi"}}]}}}`, 33, []string{
			"status.allocation.devices.results[0].consumedCapacity: Kubernetes 1.33 does not have it (1.34+)" + drops,
			"status.allocation.devices.results[0].shareID: Kubernetes 1.33 does not have it (1.34+)" + drops}},
		"devices-to-1.31": {`{"devices":[{"driver":"d","pool":"p","device":"gpu-0"}]}`, 31, []string{"status.devices: Kubernetes 1.31 does not have it (1.32+)" + drops}},
	} {
		t.Run(name, func(t *testing.T) {
			var obj map[string]interface{}
			if err := json.Unmarshal([]byte(fmt.Sprintf(claim, tc.status)), &obj); err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.want, statusUnknown(obj, tc.to)); d != "" {
				t.Errorf("warnings (-want +got):\n%s", d)
			}
		})
	}
}

// bindingSlice is a slice with two devices of three that have binding
// conditions.
const bindingSlice = `{"apiVersion":"resource.k8s.io/v1","kind":"ResourceSlice","metadata":{"name":"s"},"spec":{"driver":"fabric.example.com","nodeName":"node-1","pool":{"name":"node-1","resourceSliceCount":1},
	"devices":[{"name":"local"},{"name":"gpu-0","bindingConditions":["attached"]},{"name":"gpu-1","bindingConditions":["attached"],"bindingFailureConditions":["failed"]}]}}`

// TestUnbound: what a target's scheduler does with binding conditions when
// its gates are off.
func TestUnbound(t *testing.T) {
	const (
		claim = `{"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaim","metadata":{"name":"c","namespace":"ns"},"spec":{},"status":{
			"allocation":{"devices":{"results":[{"request":"gpu","driver":"fabric.example.com","pool":"node-1","device":"gpu-0","bindingConditions":["attached"]}]}},
			"reservedFor":[{"resource":"pods","name":"train-0","uid":"1"}]%s}}`
		attached = `,"devices":[{"driver":"fabric.example.com","pool":"node-1","device":"gpu-0","conditions":[{"type":"attached","status":"True","reason":"Done","message":"","lastTransitionTime":"2026-11-28T10:00:00Z"}]}]`
		waiting  = `,"devices":[{"driver":"fabric.example.com","pool":"node-1","device":"gpu-0","conditions":[{"type":"attached","status":"False","reason":"Attaching","message":"","lastTransitionTime":"2026-11-28T10:00:00Z"}]}]`
		binds    = "status.allocation.devices.results[0].bindingConditions: Kubernetes 1.35 with DRADeviceBindingConditions off does not wait for them, and condition \"attached\" of device " +
			"fabric.example.com/node-1/gpu-0 is not True yet: a Pod of the claim not yet on a node is bound there before the device is ready (Pod ns/train-0 holds claim ns/c); change once it is True"
	)
	for name, tc := range map[string]struct {
		obj, gates string
		to         int
		want       []string
	}{
		"slice-to-1.35":           {bindingSlice, "", 35, []string{"spec.devices[1].bindingConditions: Kubernetes 1.35 with DRADeviceBindingConditions off allocates no device with binding conditions (2 in this slice)"}},
		"slice-to-1.35-gate-on":   {bindingSlice, "DRADeviceBindingConditions=true", 35, nil},
		"slice-to-1.36":           {bindingSlice, "", 36, nil},
		"slice-to-1.37-gate-off":  {bindingSlice, "DRADeviceBindingConditions=false", 37, []string{"spec.devices[1].bindingConditions: Kubernetes 1.37 with DRADeviceBindingConditions off allocates no device with binding conditions (2 in this slice)"}},
		"slice-to-1.33":           {bindingSlice, "", 33, nil}, // no binding conditions: statusUnknown, or the slice unread
		"claim-no-status-to-1.35": {fmt.Sprintf(claim, ""), "", 35, []string{binds}},
		"claim-waiting-to-1.35":   {fmt.Sprintf(claim, waiting), "", 35, []string{binds}},
		"claim-attached-to-1.35":  {fmt.Sprintf(claim, attached), "", 35, nil},
		"claim-waiting-to-1.36":   {fmt.Sprintf(claim, waiting), "", 36, nil},
	} {
		t.Run(name, func(t *testing.T) {
			obj, c := judgedAt(t, tc.obj, tc.to, tc.gates)
			if d := cmp.Diff(tc.want, unbound(obj, c, obj["kind"].(string), tc.to)); d != "" {
				t.Errorf("warnings (-want +got):\n%s", d)
			}
		})
	}
}

// TestIgnored: what a target ignores of a stored class's extended resource
// and a slice's device taints when their gates are off there.
func TestIgnored(t *testing.T) {
	const (
		class   = `{"apiVersion":"resource.k8s.io/v1","kind":"DeviceClass","metadata":{"name":"gpu.example.com"},"spec":{"extendedResourceName":"example.com/gpu"}}`
		plain   = `{"apiVersion":"resource.k8s.io/v1","kind":"DeviceClass","metadata":{"name":"gpu.example.com"},"spec":{}}`
		tainted = `{"apiVersion":"resource.k8s.io/v1","kind":"ResourceSlice","metadata":{"name":"s"},"spec":{"driver":"gpu.example.com","nodeName":"node-1","pool":{"name":"node-1","resourceSliceCount":1},
			"devices":[{"name":"gpu-0"},{"name":"gpu-1","taints":[{"key":"example.com/unhealthy","effect":"NoSchedule"}]},{"name":"gpu-2","taints":[{"key":"example.com/unhealthy","effect":"NoExecute"}]}]}}`
		basic = `{"apiVersion":"resource.k8s.io/v1beta1","kind":"ResourceSlice","metadata":{"name":"s"},"spec":{"driver":"gpu.example.com","nodeName":"node-1","pool":{"name":"node-1","resourceSliceCount":1},
			"devices":[{"name":"gpu-0","basic":{"taints":[{"key":"example.com/unhealthy","effect":"NoSchedule"}]}}]}}`
		offers = "spec.extendedResourceName: Kubernetes 1.%d with DRAExtendedResource off gives no Pod example.com/gpu from this class: a Pod that requests it stays pending, " +
			"unless a device plugin offers it; the devices Pods hold through it stay theirs"
		taints = "%s: Kubernetes 1.%d with DRADeviceTaints off ignores device taints: its scheduler allocates the tainted devices (%d in this slice), and no Pod is evicted for a NoExecute taint"
	)
	for name, tc := range map[string]struct {
		obj, gates string
		to         int
		want       []string
	}{
		"class-to-1.35":          {class, "", 35, []string{fmt.Sprintf(offers, 35)}},
		"class-to-1.35-gate-on":  {class, "DRAExtendedResource=true", 35, nil},
		"class-to-1.34":          {class, "", 34, []string{fmt.Sprintf(offers, 34)}},
		"class-to-1.36":          {class, "", 36, nil},
		"class-to-1.36-gate-off": {class, "DRAExtendedResource=false", 36, []string{fmt.Sprintf(offers, 36)}},
		"class-to-1.33":          {class, "", 33, nil}, // no such field: read without it
		"plain-class-to-1.35":    {plain, "", 35, nil},
		"taints-to-1.35":         {tainted, "", 35, []string{fmt.Sprintf(taints, "spec.devices[1].taints", 35, 2)}},
		"taints-to-1.35-gate-on": {tainted, "DRADeviceTaints=true", 35, nil},
		"taints-to-1.36":         {tainted, "", 36, nil},
		"taints-to-1.32":         {tainted, "", 32, nil}, // no such field
		"basic-taints-to-1.34":   {basic, "", 34, []string{fmt.Sprintf(taints, "spec.devices[0].basic.taints", 34, 1)}},
	} {
		t.Run(name, func(t *testing.T) {
			obj, c := judgedAt(t, tc.obj, tc.to, tc.gates)
			if d := cmp.Diff(tc.want, ignored(obj, c, obj["kind"].(string), tc.to)); d != "" {
				t.Errorf("warnings (-want +got):\n%s", d)
			}
		})
	}
}
