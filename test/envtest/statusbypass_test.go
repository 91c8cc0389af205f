//go:build envtest

package envtest_test

import (
	"fmt"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/claimbridge/claimbridge/validation"
)

// refused requires err to be the webhook's 422 denial whose message holds
// every one of want.
func refused(t *testing.T, what string, err error, want ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("%s was accepted; want it refused", what)
	}
	if !apierrors.IsInvalid(err) {
		t.Fatalf("%s: %s; want a 422 denial", what, describe(err))
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("%s: %s; want it to say %q", what, describe(err), w)
		}
	}
}

// TestV1alpha3StatusWriteKeepsOlderVersionsReadable: a v1alpha3 status
// write (the scheduler's, whose views the webhook skips for speed) whose
// allocation an older version could not show within the annotation size
// limit is refused, so that no read, list or watch of claims through that
// version fails for everyone (found by an audit: the shortcut skipped the
// conversions that find it).
func TestV1alpha3StatusWriteKeepsOlderVersionsReadable(t *testing.T) {
	ns := newNamespace(t, "v3-status-readable")
	// 17 DeviceParameters entries of 16 KiB are 17 handles in v1alpha2,
	// which v1alpha1 cannot hold; a 300 KB class config fits no older view.
	var results, devs []interface{}
	for i := range 17 {
		results = append(results, map[string]interface{}{"request": "request", "driver": "gpu.example.com", "pool": "gpu.example.com", "device": fmt.Sprintf("handle-%d", i)})
		devs = append(devs, map[string]interface{}{"device": fmt.Sprintf("handle-%d", i), "parameters": map[string]interface{}{
			"apiVersion": "resource.claimbridge.dev/v1alpha2", "kind": "ResourceHandle", "data": strings.Repeat("h", 16384)}})
	}
	handles17 := map[string]interface{}{"controller": "gpu.example.com", "devices": map[string]interface{}{
		"results": results,
		"config": []interface{}{map[string]interface{}{"source": "FromClaim", "requests": []interface{}{"request"}, "opaque": map[string]interface{}{
			"driver": "gpu.example.com", "parameters": map[string]interface{}{"apiVersion": "resource.claimbridge.dev/v1alpha2", "kind": "DeviceParameters", "devices": devs}}}}}}
	bigClassConfig := map[string]interface{}{"controller": "gpu.example.com", "devices": map[string]interface{}{
		"results": []interface{}{map[string]interface{}{"request": "request", "driver": "gpu.example.com", "pool": "gpu.example.com", "device": "handle-0"}},
		"config": []interface{}{map[string]interface{}{"source": "FromClass", "requests": []interface{}{"request"}, "opaque": map[string]interface{}{
			"driver": "gpu.example.com", "parameters": map[string]interface{}{"blob": strings.Repeat("x", 300000)}}}}}}
	v3Claim := "kind: ResourceClaim\nmetadata: {name: %s}\nspec: {controller: gpu.example.com, devices: {requests: [{name: request, deviceClassName: gpu.example.com}]}}\n"
	for _, tc := range []struct {
		name, createVersion, create string
		alloc                       map[string]interface{}
		unreadable                  string
	}{
		{"v3-17-handles", "v1alpha3", v3Claim, handles17, "v1alpha1"},
		{"v2-17-handles", "v1alpha2", baseV1alpha2, handles17, "v1alpha1"},
		{"v3-big-class-config", "v1alpha3", v3Claim, bigClassConfig, "v1alpha2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			createClaim(t, fromYAML(t, tc.createVersion, ns, fmt.Sprintf(tc.create, tc.name)))
			_, err := mutate(t, claims("v1alpha3", ns), tc.name, true, func(u *unstructured.Unstructured) {
				set(t, u, tc.alloc, "status", "allocation")
			})
			refused(t, "the v1alpha3 status write", err, "status: Forbidden: the object could not be read through "+tc.unreadable)
			for _, v := range []string{"v1alpha1", "v1alpha2"} {
				if _, err := claims(v, ns).Get(ctxFor(t), tc.name, metav1.GetOptions{}); err != nil {
					t.Errorf("GET through %s: %s", v, describe(err))
				}
				if _, err := claims(v, ns).List(ctxFor(t), metav1.ListOptions{}); err != nil {
					t.Errorf("LIST through %s: %s", v, describe(err))
				}
			}
		})
	}
}

// TestOlderStatusWriteKeepsV1alpha3Rules: an allocation written through
// v1alpha1 or v1alpha2 that breaks a v1alpha3 rule as stored is refused, as
// the same allocation written through v1alpha3 is: every 1.31 consumer reads
// the stored form (found by an audit).
func TestOlderStatusWriteKeepsV1alpha3Rules(t *testing.T) {
	ns := newNamespace(t, "older-status-v3-rules")
	structured := func(names ...string) map[string]interface{} {
		var results []interface{}
		for _, n := range names {
			results = append(results, map[string]interface{}{"namedResources": map[string]interface{}{"name": n}})
		}
		return map[string]interface{}{"shareable": true, "resourceHandles": []interface{}{map[string]interface{}{
			"driverName": "gpu.example.com", "structuredData": map[string]interface{}{"nodeName": "node-1", "results": results}}}}
	}
	var forty []string
	for i := range 40 {
		forty = append(forty, fmt.Sprintf("gpu-%d", i))
	}
	for _, tc := range []struct {
		name, version, create string
		alloc                 map[string]interface{}
		want                  string
	}{
		// A valid v1alpha2 device name (a DNS subdomain) that a v1alpha3
		// device name (a DNS label) cannot be.
		{"dotted-device", "v1alpha2", fmt.Sprintf(baseV1alpha2, "dotted-device"), structured("gpu.0"), "status.allocation.devices.results[0].device"},
		// 40 results where v1alpha3 (and its CRD schema) allow 32.
		{"forty-results", "v1alpha2", fmt.Sprintf(baseV1alpha2, "forty-results"), structured(forty...), "status.allocation.devices.results: Too long: may not be longer than 32"},
		// A v1alpha3 claim without requests: the stored results name a
		// request the claim does not have.
		{"no-requests-v1alpha2", "v1alpha2", "kind: ResourceClaim\nmetadata: {name: no-requests-v1alpha2}\nspec: {devices: {}}\n",
			map[string]interface{}{"shareable": true, "resourceHandles": []interface{}{map[string]interface{}{"driverName": "gpu.example.com", "data": `{"a":1}`}}},
			"status.allocation.devices.results[0].request"},
		{"no-requests-v1alpha1", "v1alpha1", "kind: ResourceClaim\nmetadata: {name: no-requests-v1alpha1}\nspec: {devices: {}}\n",
			map[string]interface{}{"shareable": true, "resourceHandle": `{"a":1}`},
			"status.allocation.devices.results[0].request"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			createVersion := "v1alpha2"
			if strings.HasPrefix(tc.name, "no-requests") {
				createVersion = "v1alpha3"
			}
			createClaim(t, fromYAML(t, createVersion, ns, tc.create))
			_, err := mutate(t, claims(tc.version, ns), tc.name, true, func(u *unstructured.Unstructured) {
				set(t, u, "gpu.example.com", "status", "driverName")
				set(t, u, tc.alloc, "status", "allocation")
			})
			refused(t, "the "+tc.version+" status write", err, "as seen through v1alpha3", tc.want)
			stored := get(t, claims("v1alpha3", ns), tc.name)
			if _, found, _ := unstructured.NestedFieldNoCopy(stored.Object, "status", "allocation"); found {
				t.Errorf("an allocation was stored: %v", stored.Object["status"])
			}
		})
	}
	// A valid one still goes through, and is valid as stored.
	t.Run("valid", func(t *testing.T) {
		createClaim(t, fromYAML(t, "v1alpha2", ns, fmt.Sprintf(baseV1alpha2, "valid")))
		if _, err := mutate(t, claims("v1alpha2", ns), "valid", true, func(u *unstructured.Unstructured) {
			set(t, u, "gpu.example.com", "status", "driverName")
			set(t, u, structured("gpu-0", "gpu-1"), "status", "allocation")
		}); err != nil {
			t.Fatalf("v1alpha2 status write: %s", describe(err))
		}
		obj := get(t, claims("v1alpha3", ns), "valid")
		old := obj.DeepCopy()
		delete(old.Object, "status")
		resp, err := validation.Validate(validation.Request{Operation: validation.Update, SubResource: "status", Object: obj.Object, OldObject: old.Object})
		if err != nil || len(resp.Errors) > 0 {
			t.Errorf("the stored allocation as a v1alpha3 status write: %v %v", err, resp.Errors)
		}
	})
}

// TestHandleDataBeyondFloat64IsStored: 1.30 handle data is opaque text; as
// JSON it may hold a number no float64 holds (1e400), which the apiserver
// cannot decode in a stored object. Such data stays text in v1alpha3 (the
// handle wrapper), so the 1.30 driver's status write is stored and reads
// back as written, where it failed with the apiserver's JSON error (found
// by an audit).
func TestHandleDataBeyondFloat64IsStored(t *testing.T) {
	ns := newNamespace(t, "handle-data-1e400")
	createClaim(t, fromYAML(t, "v1alpha2", ns, fmt.Sprintf(baseV1alpha2, "bignum")))
	data := `{"a":1e400,"b":123456789012345678901234567890}`
	if _, err := mutate(t, claims("v1alpha2", ns), "bignum", true, func(u *unstructured.Unstructured) {
		set(t, u, "gpu.example.com", "status", "driverName")
		set(t, u, map[string]interface{}{"shareable": true, "resourceHandles": []interface{}{map[string]interface{}{"driverName": "gpu.example.com", "data": data}}}, "status", "allocation")
	}); err != nil {
		t.Fatalf("v1alpha2 status write: %s", describe(err))
	}
	got := get(t, claims("v1alpha2", ns), "bignum")
	handles := mustSlice(t, got, "status", "allocation", "resourceHandles")
	if d, _ := handles[0].(map[string]interface{})["data"].(string); d != data {
		t.Errorf("handle data read back through v1alpha2: %q, want %q", d, data)
	}
	stored := get(t, claims("v1alpha3", ns), "bignum")
	config := mustSlice(t, stored, "status", "allocation", "devices", "config")
	params, _, _ := unstructured.NestedMap(config[0].(map[string]interface{}), "opaque", "parameters")
	if params["kind"] != "ResourceHandle" || params["data"] != data {
		t.Errorf("stored parameters %v; want the data wrapped as text", params)
	}
}
