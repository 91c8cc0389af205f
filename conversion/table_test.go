package conversion_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/conversion"
)

// Table-driven tests of every mapping rule, one table per direction. Inputs
// and expected outputs are JSON. In expected outputs, the value of a
// claimbridge.dev/restore-<version> annotation is written as the JSON object
// it encodes, and {"$fp": X} stands for the fingerprint of the JSON tree X
// (the section, as mapped back from the target version, that the patch
// applies to).

type tableCase struct {
	name string
	in   string
	want string
}

// tblDecode decodes JSON the way the webhook does: numbers as json.Number.
func tblDecode(t *testing.T, s string) map[string]interface{} {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var m map[string]interface{}
	if err := dec.Decode(&m); err != nil {
		t.Fatalf("bad test JSON: %v\n%s", err, s)
	}
	return m
}

// tblFingerprint is the documented fingerprint: the first 8 bytes of the
// SHA-256 of the canonical JSON (sorted keys, no HTML escaping), in hex.
func tblFingerprint(t *testing.T, v interface{}) string {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
	return hex.EncodeToString(sum[:8])
}

// tblExpandWant replaces {"$fp": X} by the fingerprint of X. As conversion
// does for a status, reservedFor and deallocationRequested are left out.
func tblExpandWant(t *testing.T, v interface{}) interface{} {
	switch v := v.(type) {
	case map[string]interface{}:
		if x, ok := v["$fp"]; ok && len(v) == 1 {
			if m, isMap := x.(map[string]interface{}); isMap {
				rest := map[string]interface{}{}
				for k, e := range m {
					if k != "reservedFor" && k != "deallocationRequested" {
						rest[k] = e
					}
				}
				x = rest
			}
			return tblFingerprint(t, x)
		}
		out := map[string]interface{}{}
		for k, e := range v {
			out[k] = tblExpandWant(t, e)
		}
		return out
	case []interface{}:
		out := make([]interface{}, len(v))
		for i, e := range v {
			out[i] = tblExpandWant(t, e)
		}
		return out
	}
	return v
}

// tblExpandGot decodes the restore annotations of obj (and of list items)
// into JSON trees, in a copy.
func tblExpandGot(t *testing.T, obj map[string]interface{}) map[string]interface{} {
	t.Helper()
	cp := tblDecode(t, tblJSON(t, obj))
	objs := []map[string]interface{}{cp}
	if items, ok := cp["items"].([]interface{}); ok {
		for _, it := range items {
			if m, ok := it.(map[string]interface{}); ok {
				objs = append(objs, m)
			}
		}
	}
	for _, o := range objs {
		meta, _ := o["metadata"].(map[string]interface{})
		ann, _ := meta["annotations"].(map[string]interface{})
		for k, v := range ann {
			if !strings.HasPrefix(k, api.AnnotationPrefix+"restore-") {
				continue
			}
			s, ok := v.(string)
			if !ok {
				t.Errorf("annotation %s is not a string: %#v", k, v)
				continue
			}
			ann[k] = tblDecode(t, s)
		}
	}
	return cp
}

func tblJSON(t *testing.T, v interface{}) string {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// tblCheck converts in to version to and compares with want; it also checks
// that the input is not modified and that converting back gives the input.
func tblCheck(t *testing.T, in, want, to string) map[string]interface{} {
	t.Helper()
	obj := tblDecode(t, in)
	before := tblDecode(t, in)
	got, err := conversion.Convert(obj, to)
	if err != nil {
		t.Fatalf("Convert: %v", err)
	}
	if diff := cmp.Diff(before, obj); diff != "" {
		t.Errorf("Convert modified its input (-before +after):\n%s", diff)
	}
	gotTree := tblExpandGot(t, got)
	if os.Getenv("TABLE_PRINT") != "" {
		t.Logf("got: %s", tblJSON(t, gotTree))
	}
	if diff := cmp.Diff(tblExpandWant(t, tblDecode(t, want)), interface{}(gotTree)); diff != "" {
		t.Errorf("Convert to %s (-want +got):\n%s", to, diff)
	}
	_, from, _, err := conversion.Identify(obj)
	if err != nil {
		t.Fatal(err)
	}
	back, err := conversion.Convert(got, from)
	if err != nil {
		t.Fatalf("converting back: %v", err)
	}
	if diff := cmp.Diff(before, back); diff != "" {
		t.Errorf("converting back to %s does not give the input (-want +got):\n%s", from, diff)
	}
	return got
}

func runTable(t *testing.T, to string, cases []tableCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { tblCheck(t, c.in, c.want, to) })
	}
}

// ---------------------------------------------------------------------------
// v1alpha1 → v1alpha2

func TestTableV1ToV2(t *testing.T) {
	runTable(t, api.V1alpha2, []tableCase{{
		name: "allocated: resourceHandle and status.driverName become resourceHandles[0]; the rest is copied",
		in: `{"apiVersion":"resource.k8s.io/v1alpha1","kind":"ResourceClaim",
			"metadata":{"name":"c","namespace":"ns","uid":"u-1"},
			"spec":{"resourceClassName":"gpu.example.com","parametersRef":{"apiGroup":"g.example.com","kind":"P","name":"p"},"allocationMode":"Immediate"},
			"status":{"driverName":"drv.example.com",
				"allocation":{"resourceHandle":"h-data","availableOnNodes":{"nodeSelectorTerms":[{"matchFields":[{"key":"metadata.name","operator":"In","values":["n1"]}]}]},"shareable":true},
				"reservedFor":[{"resource":"pods","name":"p","uid":"u-2"}],"deallocationRequested":false}}`,
		want: `{"apiVersion":"resource.k8s.io/v1alpha2","kind":"ResourceClaim",
			"metadata":{"name":"c","namespace":"ns","uid":"u-1"},
			"spec":{"resourceClassName":"gpu.example.com","parametersRef":{"apiGroup":"g.example.com","kind":"P","name":"p"},"allocationMode":"Immediate"},
			"status":{"driverName":"drv.example.com",
				"allocation":{"resourceHandles":[{"driverName":"drv.example.com","data":"h-data"}],"availableOnNodes":{"nodeSelectorTerms":[{"matchFields":[{"key":"metadata.name","operator":"In","values":["n1"]}]}]},"shareable":true},
				"reservedFor":[{"resource":"pods","name":"p","uid":"u-2"}],"deallocationRequested":false}}`,
	}, {
		name: "shareable false and deallocationRequested are copied as they are",
		in: `{"apiVersion":"resource.claimbridge.dev/v1alpha1","kind":"ResourceClaim","metadata":{"name":"c"},
			"spec":{"resourceClassName":"c","allocationMode":"WaitForFirstConsumer"},
			"status":{"driverName":"d","allocation":{"resourceHandle":"x","shareable":false},"deallocationRequested":true}}`,
		want: `{"apiVersion":"resource.claimbridge.dev/v1alpha2","kind":"ResourceClaim","metadata":{"name":"c"},
			"spec":{"resourceClassName":"c","allocationMode":"WaitForFirstConsumer"},
			"status":{"driverName":"d","allocation":{"resourceHandles":[{"driverName":"d","data":"x"}],"shareable":false},"deallocationRequested":true}}`,
	}, {
		name: "an empty resourceHandle is a handle without data; the explicit empty string travels in restore-v1alpha1 (annotations created)",
		in: `{"apiVersion":"resource.k8s.io/v1alpha1","kind":"ResourceClaim","metadata":{"name":"c"},
			"spec":{"resourceClassName":"c","allocationMode":"WaitForFirstConsumer"},
			"status":{"driverName":"d","allocation":{"resourceHandle":"","shareable":true}}}`,
		want: `{"apiVersion":"resource.k8s.io/v1alpha2","kind":"ResourceClaim",
			"metadata":{"name":"c","annotations":{"claimbridge.dev/restore-v1alpha1":{
				"status":{"base":{"$fp":{"driverName":"d","allocation":{"shareable":true}}},"patch":[{"op":"add","path":"/status/allocation/resourceHandle","value":""}]},
				"created":"annotations"}}},
			"spec":{"resourceClassName":"c","allocationMode":"WaitForFirstConsumer"},
			"status":{"driverName":"d","allocation":{"resourceHandles":[{"driverName":"d"}],"shareable":true}}}`,
	}, {
		name: "a handle without status.driverName has no driverName",
		in: `{"apiVersion":"resource.k8s.io/v1alpha1","kind":"ResourceClaim","metadata":{"name":"c"},
			"spec":{"resourceClassName":"c","allocationMode":"WaitForFirstConsumer"},"status":{"allocation":{"resourceHandle":"x"}}}`,
		want: `{"apiVersion":"resource.k8s.io/v1alpha2","kind":"ResourceClaim","metadata":{"name":"c"},
			"spec":{"resourceClassName":"c","allocationMode":"WaitForFirstConsumer"},"status":{"allocation":{"resourceHandles":[{"data":"x"}]}}}`,
	}, {
		name: "unknown spec and status fields have no home and travel in restore-v1alpha1",
		in: `{"apiVersion":"resource.k8s.io/v1alpha1","kind":"ResourceClaim","metadata":{"name":"c","annotations":{"a":"b"}},
			"spec":{"resourceClassName":"c","futureField":1},"status":{"futureStatus":{"x":[]}}}`,
		want: `{"apiVersion":"resource.k8s.io/v1alpha2","kind":"ResourceClaim",
			"metadata":{"name":"c","annotations":{"a":"b","claimbridge.dev/restore-v1alpha1":{
				"spec":{"base":{"$fp":{"resourceClassName":"c"}},"patch":[{"op":"add","path":"/spec/futureField","value":1}]},
				"status":{"base":{"$fp":{}},"patch":[{"op":"add","path":"/status/futureStatus","value":{"x":[]}}]}}}},
			"spec":{"resourceClassName":"c"},"status":{}}`,
	}, {
		name: "partial object without metadata and status (server-side apply): no annotation, nothing created",
		in:   `{"apiVersion":"resource.k8s.io/v1alpha1","kind":"ResourceClaim","spec":{"resourceClassName":"c","allocationMode":"WaitForFirstConsumer"}}`,
		want: `{"apiVersion":"resource.k8s.io/v1alpha2","kind":"ResourceClaim","spec":{"resourceClassName":"c","allocationMode":"WaitForFirstConsumer"}}`,
	}, {
		name: "partial object without spec",
		in:   `{"apiVersion":"resource.k8s.io/v1alpha1","kind":"ResourceClaim","metadata":{"name":"c"},"status":{"driverName":"d","allocation":{"resourceHandle":"x"}}}`,
		want: `{"apiVersion":"resource.k8s.io/v1alpha2","kind":"ResourceClaim","metadata":{"name":"c"},"status":{"driverName":"d","allocation":{"resourceHandles":[{"driverName":"d","data":"x"}]}}}`,
	}, {
		name: "template: spec.metadata is kept, spec.spec mapped",
		in: `{"apiVersion":"resource.k8s.io/v1alpha1","kind":"ResourceClaimTemplate","metadata":{"name":"t"},
			"spec":{"metadata":{"labels":{"a":"b"}},"spec":{"resourceClassName":"c","allocationMode":"WaitForFirstConsumer"}}}`,
		want: `{"apiVersion":"resource.k8s.io/v1alpha2","kind":"ResourceClaimTemplate","metadata":{"name":"t"},
			"spec":{"metadata":{"labels":{"a":"b"}},"spec":{"resourceClassName":"c","allocationMode":"WaitForFirstConsumer"}}}`,
	}})
}

// ---------------------------------------------------------------------------
// v1alpha2 → v1alpha1

func TestTableV2ToV1(t *testing.T) {
	runTable(t, api.V1alpha1, []tableCase{{
		name: "one handle of the allocating driver becomes resourceHandle; no annotation",
		in: `{"apiVersion":"resource.k8s.io/v1alpha2","kind":"ResourceClaim","metadata":{"name":"c"},
			"spec":{"resourceClassName":"c","allocationMode":"Immediate"},
			"status":{"driverName":"d","allocation":{"resourceHandles":[{"driverName":"d","data":"x"}],"shareable":false,
				"availableOnNodes":{"nodeSelectorTerms":[]}},"reservedFor":[{"resource":"pods","name":"p","uid":"u"}]}}`,
		want: `{"apiVersion":"resource.k8s.io/v1alpha1","kind":"ResourceClaim","metadata":{"name":"c"},
			"spec":{"resourceClassName":"c","allocationMode":"Immediate"},
			"status":{"driverName":"d","allocation":{"resourceHandle":"x","shareable":false,
				"availableOnNodes":{"nodeSelectorTerms":[]}},"reservedFor":[{"resource":"pods","name":"p","uid":"u"}]}}`,
	}, {
		name: "no handles: no resourceHandle; that there was no handle at all travels in restore-v1alpha2",
		in: `{"apiVersion":"resource.k8s.io/v1alpha2","kind":"ResourceClaim","metadata":{"name":"c"},
			"spec":{"resourceClassName":"c","allocationMode":"WaitForFirstConsumer"},"status":{"driverName":"d","allocation":{"shareable":true}}}`,
		want: `{"apiVersion":"resource.k8s.io/v1alpha1","kind":"ResourceClaim",
			"metadata":{"name":"c","annotations":{"claimbridge.dev/restore-v1alpha2":{
				"status":{"base":{"$fp":{"driverName":"d","allocation":{"resourceHandles":[{"driverName":"d"}],"shareable":true}}},
					"patch":[{"op":"remove","path":"/status/allocation/resourceHandles"}]},
				"created":"annotations"}}},
			"spec":{"resourceClassName":"c","allocationMode":"WaitForFirstConsumer"},"status":{"driverName":"d","allocation":{"shareable":true}}}`,
	}, {
		name: "a handle of a driver other than status.driverName is not resourceHandle (a 1.26 kubelet would hand it to the wrong plugin); it travels in restore-v1alpha2",
		in: `{"apiVersion":"resource.k8s.io/v1alpha2","kind":"ResourceClaim","metadata":{"name":"c"},
			"spec":{"resourceClassName":"c","allocationMode":"WaitForFirstConsumer"},"status":{"driverName":"ctrl","allocation":{"resourceHandles":[{"driverName":"kubelet-plugin","data":"x"}]}}}`,
		want: `{"apiVersion":"resource.k8s.io/v1alpha1","kind":"ResourceClaim",
			"metadata":{"name":"c","annotations":{"claimbridge.dev/restore-v1alpha2":{
				"status":{"base":{"$fp":{"driverName":"ctrl","allocation":{"resourceHandles":[{"driverName":"ctrl"}]}}},
					"patch":[{"op":"add","path":"/status/allocation/resourceHandles/0/data","value":"x"},
						{"op":"replace","path":"/status/allocation/resourceHandles/0/driverName","value":"kubelet-plugin"}]},
				"created":"annotations"}}},
			"spec":{"resourceClassName":"c","allocationMode":"WaitForFirstConsumer"},"status":{"driverName":"ctrl","allocation":{}}}`,
	}, {
		name: "the handle of status.driverName becomes resourceHandle even when a foreign handle comes first",
		in: `{"apiVersion":"resource.k8s.io/v1alpha2","kind":"ResourceClaim","metadata":{"name":"c"},
			"spec":{"resourceClassName":"c","allocationMode":"WaitForFirstConsumer"},"status":{"driverName":"d","allocation":{"resourceHandles":[{"driverName":"other","data":"o"},{"driverName":"d","data":"x"}]}}}`,
		want: `{"apiVersion":"resource.k8s.io/v1alpha1","kind":"ResourceClaim",
			"metadata":{"name":"c","annotations":{"claimbridge.dev/restore-v1alpha2":{
				"status":{"base":{"$fp":{"driverName":"d","allocation":{"resourceHandles":[{"driverName":"d","data":"x"}]}}},
					"patch":[{"op":"replace","path":"/status/allocation/resourceHandles","value":[{"driverName":"other","data":"o"},{"driverName":"d","data":"x"}]}]},
				"created":"annotations"}}},
			"spec":{"resourceClassName":"c","allocationMode":"WaitForFirstConsumer"},"status":{"driverName":"d","allocation":{"resourceHandle":"x"}}}`,
	}, {
		name: "extra handles travel in restore-v1alpha2; the first handle's data is resourceHandle",
		in: `{"apiVersion":"resource.k8s.io/v1alpha2","kind":"ResourceClaim","metadata":{"name":"c"},
			"spec":{"resourceClassName":"c","allocationMode":"WaitForFirstConsumer"},"status":{"driverName":"a","allocation":{"resourceHandles":[{"driverName":"a","data":"1"},{"driverName":"b","data":"2"}]}}}`,
		want: `{"apiVersion":"resource.k8s.io/v1alpha1","kind":"ResourceClaim",
			"metadata":{"name":"c","annotations":{"claimbridge.dev/restore-v1alpha2":{
				"status":{"base":{"$fp":{"driverName":"a","allocation":{"resourceHandles":[{"driverName":"a","data":"1"}]}}},
					"patch":[{"op":"replace","path":"/status/allocation/resourceHandles","value":[{"driverName":"a","data":"1"},{"driverName":"b","data":"2"}]}]},
				"created":"annotations"}}},
			"spec":{"resourceClassName":"c","allocationMode":"WaitForFirstConsumer"},"status":{"driverName":"a","allocation":{"resourceHandle":"1"}}}`,
	}, {
		name: "structured data has no place in v1alpha1 and travels in restore-v1alpha2",
		in: `{"apiVersion":"resource.k8s.io/v1alpha2","kind":"ResourceClaim","metadata":{"name":"c"},
			"spec":{"resourceClassName":"c","allocationMode":"WaitForFirstConsumer"},"status":{"driverName":"d","allocation":{"resourceHandles":[
				{"driverName":"d","structuredData":{"nodeName":"n","results":[{"namedResources":{"name":"r0"}}]}}],"shareable":true}}}`,
		want: `{"apiVersion":"resource.k8s.io/v1alpha1","kind":"ResourceClaim",
			"metadata":{"name":"c","annotations":{"claimbridge.dev/restore-v1alpha2":{
				"status":{"base":{"$fp":{"driverName":"d","allocation":{"resourceHandles":[{"driverName":"d"}],"shareable":true}}},
					"patch":[{"op":"add","path":"/status/allocation/resourceHandles/0/structuredData","value":{"nodeName":"n","results":[{"namedResources":{"name":"r0"}}]}}]},
				"created":"annotations"}}},
			"spec":{"resourceClassName":"c","allocationMode":"WaitForFirstConsumer"},"status":{"driverName":"d","allocation":{"shareable":true}}}`,
	}, {
		name: "an explicitly empty handle list travels in restore-v1alpha2",
		in: `{"apiVersion":"resource.k8s.io/v1alpha2","kind":"ResourceClaim","metadata":{"name":"c","annotations":{}},
			"spec":{"resourceClassName":"c","allocationMode":"WaitForFirstConsumer"},"status":{"driverName":"d","allocation":{"resourceHandles":[]}}}`,
		want: `{"apiVersion":"resource.k8s.io/v1alpha1","kind":"ResourceClaim",
			"metadata":{"name":"c","annotations":{"claimbridge.dev/restore-v1alpha2":{
				"status":{"base":{"$fp":{"driverName":"d","allocation":{"resourceHandles":[{"driverName":"d"}]}}},
					"patch":[{"op":"replace","path":"/status/allocation/resourceHandles","value":[]}]}}}},
			"spec":{"resourceClassName":"c","allocationMode":"WaitForFirstConsumer"},"status":{"driverName":"d","allocation":{}}}`,
	}})
}

// ---------------------------------------------------------------------------
// v1alpha2 → v1alpha3

func TestTableV2ToV3(t *testing.T) {
	runTable(t, api.V1alpha3, []tableCase{{
		name: "spec: resourceClassName becomes the device class of request \"request\"; allocationMode and parametersRef travel in restore-v1alpha2",
		in: `{"apiVersion":"resource.k8s.io/v1alpha2","kind":"ResourceClaim","metadata":{"name":"c"},
			"spec":{"resourceClassName":"gpu.example.com","parametersRef":{"kind":"ConfigMap","name":"p"},"allocationMode":"Immediate"}}`,
		want: `{"apiVersion":"resource.k8s.io/v1alpha3","kind":"ResourceClaim",
			"metadata":{"name":"c","annotations":{"claimbridge.dev/restore-v1alpha2":{
				"spec":{"base":{"$fp":{"resourceClassName":"gpu.example.com","allocationMode":"WaitForFirstConsumer"}},"patch":[
					{"op":"replace","path":"/spec/allocationMode","value":"Immediate"},
					{"op":"add","path":"/spec/parametersRef","value":{"kind":"ConfigMap","name":"p"}}]},
				"created":"annotations"}}},
			"spec":{"devices":{"requests":[{"name":"request","deviceClassName":"gpu.example.com","allocationMode":"ExactCount","count":1}]}}}`,
	}, {
		name: "spec without resourceClassName has no requests",
		in:   `{"apiVersion":"resource.k8s.io/v1alpha2","kind":"ResourceClaim","metadata":{"name":"c"},"spec":{"allocationMode":"WaitForFirstConsumer"}}`,
		want: `{"apiVersion":"resource.k8s.io/v1alpha3","kind":"ResourceClaim","metadata":{"name":"c"},"spec":{}}`,
	}, {
		name: "opaque handle with non-JSON data: result handle-0 in pool <driver>, data wrapped in a ResourceHandle config; driverName becomes controller; availableOnNodes becomes nodeSelector",
		in: `{"apiVersion":"resource.k8s.io/v1alpha2","kind":"ResourceClaim","metadata":{"name":"c"},
			"spec":{"resourceClassName":"c","allocationMode":"WaitForFirstConsumer"},
			"status":{"driverName":"d","allocation":{"resourceHandles":[{"driverName":"d","data":"gpu-0"}],"shareable":true,
				"availableOnNodes":{"nodeSelectorTerms":[{"matchExpressions":[{"key":"k","operator":"Exists"}]}]}},
				"reservedFor":[{"resource":"pods","name":"p","uid":"u"}],"deallocationRequested":true}}`,
		want: `{"apiVersion":"resource.k8s.io/v1alpha3","kind":"ResourceClaim","metadata":{"name":"c"},
			"spec":{"devices":{"requests":[{"name":"request","deviceClassName":"c","allocationMode":"ExactCount","count":1}]}},
			"status":{"allocation":{"controller":"d",
				"devices":{"results":[{"request":"request","driver":"d","pool":"d","device":"handle-0"}],
					"config":[{"source":"FromClaim","requests":["request"],"opaque":{"driver":"d","parameters":{"apiVersion":"resource.claimbridge.dev/v1alpha2","kind":"ResourceHandle","data":"gpu-0"}}}]},
				"nodeSelector":{"nodeSelectorTerms":[{"matchExpressions":[{"key":"k","operator":"Exists"}]}]}},
				"reservedFor":[{"resource":"pods","name":"p","uid":"u"}],"deallocationRequested":true}}`,
	}, {
		name: "canonical JSON-object data becomes the parameters as they are; no annotation",
		in: `{"apiVersion":"resource.k8s.io/v1alpha2","kind":"ResourceClaim","metadata":{"name":"c"},
			"spec":{"resourceClassName":"c","allocationMode":"WaitForFirstConsumer"},
			"status":{"driverName":"d","allocation":{"resourceHandles":[{"driverName":"d","data":"{\"a\":[1,2.5,1e-7],\"b\":{\"c\":null}}"}],"shareable":true}}}`,
		want: `{"apiVersion":"resource.k8s.io/v1alpha3","kind":"ResourceClaim","metadata":{"name":"c"},
			"spec":{"devices":{"requests":[{"name":"request","deviceClassName":"c","allocationMode":"ExactCount","count":1}]}},
			"status":{"allocation":{"controller":"d","devices":{
				"results":[{"request":"request","driver":"d","pool":"d","device":"handle-0"}],
				"config":[{"source":"FromClaim","requests":["request"],"opaque":{"driver":"d","parameters":{"a":[1,2.5,1e-7],"b":{"c":null}}}}]}}}}`,
	}, {
		name: "JSON-object data with numbers the apiserver rewrites: parameters hold them as it stores them, the exact text travels in restore-v1alpha2",
		in: `{"apiVersion":"resource.k8s.io/v1alpha2","kind":"ResourceClaim","metadata":{"name":"c"},
			"spec":{"resourceClassName":"c","allocationMode":"WaitForFirstConsumer"},
			"status":{"driverName":"d","allocation":{"resourceHandles":[{"driverName":"d","data":"{\"a\":[1.0,2.50,0.0000001],\"b\":{\"c\":null}}"}],"shareable":true}}}`,
		want: `{"apiVersion":"resource.k8s.io/v1alpha3","kind":"ResourceClaim",
			"metadata":{"name":"c","annotations":{"claimbridge.dev/restore-v1alpha2":{
				"status":{"base":{"$fp":{"driverName":"d","allocation":{"resourceHandles":[{"driverName":"d","data":"{\"a\":[1,2.5,1e-7],\"b\":{\"c\":null}}"}],"shareable":true}}},"patch":[
					{"op":"replace","path":"/status/allocation/resourceHandles/0/data","value":"{\"a\":[1.0,2.50,0.0000001],\"b\":{\"c\":null}}"}]},
				"created":"annotations"}}},
			"spec":{"devices":{"requests":[{"name":"request","deviceClassName":"c","allocationMode":"ExactCount","count":1}]}},
			"status":{"allocation":{"controller":"d","devices":{
				"results":[{"request":"request","driver":"d","pool":"d","device":"handle-0"}],
				"config":[{"source":"FromClaim","requests":["request"],"opaque":{"driver":"d","parameters":{"a":[1,2.5,1e-7],"b":{"c":null}}}}]}}}}`,
	}, {
		name: "non-canonical JSON-object data: parameters hold the object, the exact text travels in restore-v1alpha2; shareable false too",
		in: `{"apiVersion":"resource.k8s.io/v1alpha2","kind":"ResourceClaim","metadata":{"name":"c"},
			"spec":{"resourceClassName":"c","allocationMode":"WaitForFirstConsumer"},
			"status":{"driverName":"d","allocation":{"resourceHandles":[{"driverName":"d","data":"{\"b\": 1, \"a\": 2}"}],"shareable":false}}}`,
		want: `{"apiVersion":"resource.k8s.io/v1alpha3","kind":"ResourceClaim",
			"metadata":{"name":"c","annotations":{"claimbridge.dev/restore-v1alpha2":{
				"status":{"base":{"$fp":{"driverName":"d","allocation":{"resourceHandles":[{"driverName":"d","data":"{\"a\":2,\"b\":1}"}],"shareable":true}}},"patch":[
					{"op":"replace","path":"/status/allocation/resourceHandles/0/data","value":"{\"b\": 1, \"a\": 2}"},
					{"op":"replace","path":"/status/allocation/shareable","value":false}]},
				"created":"annotations"}}},
			"spec":{"devices":{"requests":[{"name":"request","deviceClassName":"c","allocationMode":"ExactCount","count":1}]}},
			"status":{"allocation":{"controller":"d","devices":{
				"results":[{"request":"request","driver":"d","pool":"d","device":"handle-0"}],
				"config":[{"source":"FromClaim","requests":["request"],"opaque":{"driver":"d","parameters":{"a":2,"b":1}}}]}}}}`,
	}, {
		name: "handles of several drivers: one result per handle with the handle's driver, config only for handles with data",
		in: `{"apiVersion":"resource.k8s.io/v1alpha2","kind":"ResourceClaim","metadata":{"name":"c"},
			"spec":{"resourceClassName":"c","allocationMode":"WaitForFirstConsumer"},
			"status":{"driverName":"ctrl","allocation":{"resourceHandles":[{"driverName":"a","data":"x"},{"driverName":"b"}],"shareable":true}}}`,
		want: `{"apiVersion":"resource.k8s.io/v1alpha3","kind":"ResourceClaim","metadata":{"name":"c"},
			"spec":{"devices":{"requests":[{"name":"request","deviceClassName":"c","allocationMode":"ExactCount","count":1}]}},
			"status":{"allocation":{"controller":"ctrl","devices":{
				"results":[{"request":"request","driver":"a","pool":"a","device":"handle-0"},{"request":"request","driver":"b","pool":"b","device":"handle-1"}],
				"config":[{"source":"FromClaim","requests":["request"],"opaque":{"driver":"a","parameters":{"apiVersion":"resource.claimbridge.dev/v1alpha2","kind":"ResourceHandle","data":"x"}}}]}}}}`,
	}, {
		name: "no handles: one result handle-0 for the allocating driver; that there was no handle travels in restore-v1alpha2",
		in: `{"apiVersion":"resource.k8s.io/v1alpha2","kind":"ResourceClaim","metadata":{"name":"c"},
			"spec":{"resourceClassName":"c","allocationMode":"WaitForFirstConsumer"},"status":{"driverName":"d","allocation":{"shareable":true}}}`,
		want: `{"apiVersion":"resource.k8s.io/v1alpha3","kind":"ResourceClaim",
			"metadata":{"name":"c","annotations":{"claimbridge.dev/restore-v1alpha2":{
				"status":{"base":{"$fp":{"driverName":"d","allocation":{"resourceHandles":[{"driverName":"d"}],"shareable":true}}},
					"patch":[{"op":"remove","path":"/status/allocation/resourceHandles"}]},
				"created":"annotations"}}},
			"spec":{"devices":{"requests":[{"name":"request","deviceClassName":"c","allocationMode":"ExactCount","count":1}]}},
			"status":{"allocation":{"controller":"d","devices":{"results":[{"request":"request","driver":"d","pool":"d","device":"handle-0"}]}}}}`,
	}, {
		name: "structured handle (1.30 scheduler allocation): no controller; one result per named resource in pool nodeName; class parameters become FromClass, claim and per-device request parameters one DeviceParameters FromClaim config",
		in: `{"apiVersion":"resource.k8s.io/v1alpha2","kind":"ResourceClaim","metadata":{"name":"c"},
			"spec":{"resourceClassName":"c","allocationMode":"WaitForFirstConsumer"},
			"status":{"driverName":"d","allocation":{"shareable":true,"resourceHandles":[{"driverName":"d","structuredData":{
				"vendorClassParameters":{"cls":1},"vendorClaimParameters":{"clm":2},"nodeName":"node-1",
				"results":[{"namedResources":{"name":"r0"}},{"namedResources":{"name":"r1"},"vendorRequestParameters":{"req":3}}]}}]}}}`,
		want: `{"apiVersion":"resource.k8s.io/v1alpha3","kind":"ResourceClaim","metadata":{"name":"c"},
			"spec":{"devices":{"requests":[{"name":"request","deviceClassName":"c","allocationMode":"ExactCount","count":1}]}},
			"status":{"allocation":{"devices":{
				"results":[{"request":"request","driver":"d","pool":"node-1","device":"r0"},{"request":"request","driver":"d","pool":"node-1","device":"r1"}],
				"config":[
					{"source":"FromClass","requests":["request"],"opaque":{"driver":"d","parameters":{"cls":1}}},
					{"source":"FromClaim","requests":["request"],"opaque":{"driver":"d","parameters":{
						"apiVersion":"resource.claimbridge.dev/v1alpha2","kind":"DeviceParameters","claimParameters":{"clm":2},
						"devices":[{"device":"r1","parameters":{"req":3}}]}}}]}}}}`,
	}, {
		name: "several opaque handles of one driver: one DeviceParameters config instead of configs that override each other",
		in: `{"apiVersion":"resource.k8s.io/v1alpha2","kind":"ResourceClaim","metadata":{"name":"c"},
			"spec":{"resourceClassName":"c","allocationMode":"WaitForFirstConsumer"},
			"status":{"driverName":"d","allocation":{"shareable":true,"resourceHandles":[{"driverName":"d","data":"{\"gpu\":0}"},{"driverName":"d"},{"driverName":"d","data":"raw"}]}}}`,
		want: `{"apiVersion":"resource.k8s.io/v1alpha3","kind":"ResourceClaim","metadata":{"name":"c"},
			"spec":{"devices":{"requests":[{"name":"request","deviceClassName":"c","allocationMode":"ExactCount","count":1}]}},
			"status":{"allocation":{"controller":"d","devices":{
				"results":[{"request":"request","driver":"d","pool":"d","device":"handle-0"},{"request":"request","driver":"d","pool":"d","device":"handle-1"},
					{"request":"request","driver":"d","pool":"d","device":"handle-2"}],
				"config":[{"source":"FromClaim","requests":["request"],"opaque":{"driver":"d","parameters":{
					"apiVersion":"resource.claimbridge.dev/v1alpha2","kind":"DeviceParameters","devices":[
						{"device":"handle-0","parameters":{"gpu":0}},
						{"device":"handle-2","parameters":{"apiVersion":"resource.claimbridge.dev/v1alpha2","kind":"ResourceHandle","data":"raw"}}]}}}]}}}}`,
	}, {
		name: "opaque and structured handles mixed: structured (no controller); what the structured view cannot say travels in restore-v1alpha2; non-object parameters have no place",
		in: `{"apiVersion":"resource.k8s.io/v1alpha2","kind":"ResourceClaim","metadata":{"name":"c"},
			"spec":{"resourceClassName":"c","allocationMode":"WaitForFirstConsumer"},
			"status":{"driverName":"d","allocation":{"resourceHandles":[{"driverName":"d","data":"x"},{"driverName":"e","structuredData":{"vendorClassParameters":"text","results":[]}}]}}}`,
		want: `{"apiVersion":"resource.k8s.io/v1alpha3","kind":"ResourceClaim",
			"metadata":{"name":"c","annotations":{"claimbridge.dev/restore-v1alpha2":{
				"status":{"base":{"$fp":{"driverName":"d","allocation":{"shareable":true,"resourceHandles":[
						{"driverName":"d","structuredData":{"nodeName":"d","results":[{"namedResources":{"name":"handle-0"}}],
							"vendorClaimParameters":{"apiVersion":"resource.claimbridge.dev/v1alpha2","kind":"ResourceHandle","data":"x"}}},
						{"driverName":"e","structuredData":{"nodeName":"e","results":[{"namedResources":{"name":"handle-1"}}]}}]}}},
					"patch":[{"op":"add","path":"/status/allocation/resourceHandles/0/data","value":"x"},
						{"op":"remove","path":"/status/allocation/resourceHandles/0/structuredData"},
						{"op":"replace","path":"/status/allocation/resourceHandles/1/structuredData/results","value":[]},
						{"op":"add","path":"/status/allocation/resourceHandles/1/structuredData/vendorClassParameters","value":"text"},
						{"op":"remove","path":"/status/allocation/resourceHandles/1/structuredData/nodeName"},
						{"op":"remove","path":"/status/allocation/shareable"}]},
				"created":"annotations"}}},
			"spec":{"devices":{"requests":[{"name":"request","deviceClassName":"c","allocationMode":"ExactCount","count":1}]}},
			"status":{"allocation":{"devices":{
				"results":[{"request":"request","driver":"d","pool":"d","device":"handle-0"},{"request":"request","driver":"e","pool":"e","device":"handle-1"}],
				"config":[{"source":"FromClaim","requests":["request"],"opaque":{"driver":"d","parameters":{"apiVersion":"resource.claimbridge.dev/v1alpha2","kind":"ResourceHandle","data":"x"}}}]}}}}`,
	}, {
		name: "template",
		in: `{"apiVersion":"resource.claimbridge.dev/v1alpha2","kind":"ResourceClaimTemplate","metadata":{"name":"t"},
			"spec":{"metadata":{"labels":{"a":"b"}},"spec":{"resourceClassName":"c","allocationMode":"WaitForFirstConsumer"}}}`,
		want: `{"apiVersion":"resource.claimbridge.dev/v1alpha3","kind":"ResourceClaimTemplate","metadata":{"name":"t"},
			"spec":{"metadata":{"labels":{"a":"b"}},"spec":{"devices":{"requests":[{"name":"request","deviceClassName":"c","allocationMode":"ExactCount","count":1}]}}}}`,
	}, {
		name: "list: every item is converted and gets its own apiVersion",
		in: `{"apiVersion":"resource.k8s.io/v1alpha2","kind":"ResourceClaimList","metadata":{"resourceVersion":"7"},"items":[
			{"apiVersion":"resource.k8s.io/v1alpha2","kind":"ResourceClaim","metadata":{"name":"a"},"spec":{"resourceClassName":"c","allocationMode":"WaitForFirstConsumer"}},
			{"kind":"ResourceClaim","metadata":{"name":"b"},"spec":{"resourceClassName":"c","allocationMode":"Immediate"}}]}`,
		want: `{"apiVersion":"resource.k8s.io/v1alpha3","kind":"ResourceClaimList","metadata":{"resourceVersion":"7"},"items":[
			{"apiVersion":"resource.k8s.io/v1alpha3","kind":"ResourceClaim","metadata":{"name":"a"},"spec":{"devices":{"requests":[{"name":"request","deviceClassName":"c","allocationMode":"ExactCount","count":1}]}}},
			{"kind":"ResourceClaim","metadata":{"name":"b","annotations":{"claimbridge.dev/restore-v1alpha2":{
				"spec":{"base":{"$fp":{"resourceClassName":"c","allocationMode":"WaitForFirstConsumer"}},"patch":[{"op":"replace","path":"/spec/allocationMode","value":"Immediate"}]},"created":"annotations"}}},
				"spec":{"devices":{"requests":[{"name":"request","deviceClassName":"c","allocationMode":"ExactCount","count":1}]}}}]}`,
	}, {
		name: "template list",
		in: `{"apiVersion":"resource.k8s.io/v1alpha2","kind":"ResourceClaimTemplateList","items":[
			{"apiVersion":"resource.k8s.io/v1alpha2","kind":"ResourceClaimTemplate","metadata":{"name":"a"},"spec":{"spec":{"resourceClassName":"c","allocationMode":"WaitForFirstConsumer"}}}]}`,
		want: `{"apiVersion":"resource.k8s.io/v1alpha3","kind":"ResourceClaimTemplateList","items":[
			{"apiVersion":"resource.k8s.io/v1alpha3","kind":"ResourceClaimTemplate","metadata":{"name":"a"},"spec":{"spec":{"devices":{"requests":[{"name":"request","deviceClassName":"c","allocationMode":"ExactCount","count":1}]}}}}]}`,
	}})
}

// ---------------------------------------------------------------------------
// v1alpha3 → v1alpha2

func TestTableV3ToV2(t *testing.T) {
	runTable(t, api.V1alpha2, []tableCase{{
		name: "spec: the first request's class becomes resourceClassName; names, selectors, count, adminAccess, extra requests, constraints, config and controller travel in restore-v1alpha3",
		in: `{"apiVersion":"resource.k8s.io/v1alpha3","kind":"ResourceClaim","metadata":{"name":"c"},
			"spec":{"controller":"ctrl","devices":{
				"requests":[{"name":"gpu","deviceClassName":"gpu.example.com","selectors":[{"cel":{"expression":"true"}}],"allocationMode":"ExactCount","count":2},
					{"name":"nic","deviceClassName":"nic.example.com","allocationMode":"All","adminAccess":true}],
				"constraints":[{"requests":["gpu","nic"],"matchAttribute":"example.com/numa"}],
				"config":[{"requests":["gpu"],"opaque":{"driver":"gpu.example.com","parameters":{"k":"v"}}}]}}}`,
		want: `{"apiVersion":"resource.k8s.io/v1alpha2","kind":"ResourceClaim",
			"metadata":{"name":"c","annotations":{"claimbridge.dev/restore-v1alpha3":{
				"spec":{"base":{"$fp":{"devices":{"requests":[{"name":"request","deviceClassName":"gpu.example.com","allocationMode":"ExactCount","count":1}]}}},"patch":[
					{"op":"add","path":"/spec/controller","value":"ctrl"},
					{"op":"add","path":"/spec/devices/config","value":[{"requests":["gpu"],"opaque":{"driver":"gpu.example.com","parameters":{"k":"v"}}}]},
					{"op":"add","path":"/spec/devices/constraints","value":[{"requests":["gpu","nic"],"matchAttribute":"example.com/numa"}]},
					{"op":"replace","path":"/spec/devices/requests","value":[
						{"name":"gpu","deviceClassName":"gpu.example.com","selectors":[{"cel":{"expression":"true"}}],"allocationMode":"ExactCount","count":2},
						{"name":"nic","deviceClassName":"nic.example.com","allocationMode":"All","adminAccess":true}]}]},
				"created":"annotations"}}},
			"spec":{"resourceClassName":"gpu.example.com","allocationMode":"WaitForFirstConsumer"}}`,
	}, {
		name: "adminAccess false on the only request, and that its allocationMode was not written out, travel field by field",
		in: `{"apiVersion":"resource.k8s.io/v1alpha3","kind":"ResourceClaim","metadata":{"name":"c"},
			"spec":{"devices":{"requests":[{"name":"request","deviceClassName":"c","count":1,"adminAccess":false}]}}}`,
		want: `{"apiVersion":"resource.k8s.io/v1alpha2","kind":"ResourceClaim",
			"metadata":{"name":"c","annotations":{"claimbridge.dev/restore-v1alpha3":{
				"spec":{"base":{"$fp":{"devices":{"requests":[{"name":"request","deviceClassName":"c","allocationMode":"ExactCount","count":1}]}}},"patch":[
					{"op":"add","path":"/spec/devices/requests/0/adminAccess","value":false},
					{"op":"remove","path":"/spec/devices/requests/0/allocationMode"}]},
				"created":"annotations"}}},
			"spec":{"resourceClassName":"c","allocationMode":"WaitForFirstConsumer"}}`,
	}, {
		name: "structured allocation (no controller): one structured handle per driver, pool becomes nodeName, FromClass/FromClaim config become vendor parameters; driverName is the first result's driver",
		in: `{"apiVersion":"resource.k8s.io/v1alpha3","kind":"ResourceClaim","metadata":{"name":"c"},
			"spec":{"devices":{"requests":[{"name":"request","deviceClassName":"c","allocationMode":"ExactCount","count":1}]}},
			"status":{"allocation":{
				"devices":{"results":[{"request":"request","driver":"a","pool":"n1","device":"a0"},{"request":"request","driver":"b","pool":"n1","device":"b0"},{"request":"request","driver":"a","pool":"n1","device":"a1"}],
					"config":[{"source":"FromClass","requests":["request"],"opaque":{"driver":"a","parameters":{"cls":1}}},
						{"source":"FromClaim","requests":["request"],"opaque":{"driver":"a","parameters":{"clm":2}}}]},
				"nodeSelector":{"nodeSelectorTerms":[{"matchFields":[{"key":"metadata.name","operator":"In","values":["n1"]}]}]}},
				"reservedFor":[{"resource":"pods","name":"p","uid":"u"}]}}`,
		want: `{"apiVersion":"resource.k8s.io/v1alpha2","kind":"ResourceClaim",
			"metadata":{"name":"c","annotations":{"claimbridge.dev/restore-v1alpha3":{
				"status":{"base":{"$fp":{"allocation":{
					"devices":{"results":[{"request":"request","driver":"a","pool":"n1","device":"a0"},{"request":"request","driver":"a","pool":"n1","device":"a1"},{"request":"request","driver":"b","pool":"n1","device":"b0"}],
						"config":[{"source":"FromClass","requests":["request"],"opaque":{"driver":"a","parameters":{"cls":1}}},
							{"source":"FromClaim","requests":["request"],"opaque":{"driver":"a","parameters":{"clm":2}}}]},
					"nodeSelector":{"nodeSelectorTerms":[{"matchFields":[{"key":"metadata.name","operator":"In","values":["n1"]}]}]}},
					"reservedFor":[{"resource":"pods","name":"p","uid":"u"}]}},
					"patch":[{"op":"replace","path":"/status/allocation/devices/results/1/device","value":"b0"},
						{"op":"replace","path":"/status/allocation/devices/results/1/driver","value":"b"},
						{"op":"replace","path":"/status/allocation/devices/results/2/device","value":"a1"},
						{"op":"replace","path":"/status/allocation/devices/results/2/driver","value":"a"}]},
				"created":"annotations"}}},
			"spec":{"resourceClassName":"c","allocationMode":"WaitForFirstConsumer"},
			"status":{"driverName":"a","allocation":{"shareable":true,
				"resourceHandles":[
					{"driverName":"a","structuredData":{"nodeName":"n1","results":[{"namedResources":{"name":"a0"}},{"namedResources":{"name":"a1"}}],"vendorClassParameters":{"cls":1},"vendorClaimParameters":{"clm":2}}},
					{"driverName":"b","structuredData":{"nodeName":"n1","results":[{"namedResources":{"name":"b0"}}]}}],
				"availableOnNodes":{"nodeSelectorTerms":[{"matchFields":[{"key":"metadata.name","operator":"In","values":["n1"]}]}]}},
				"reservedFor":[{"resource":"pods","name":"p","uid":"u"}]}}`,
	}, {
		name: "results of one driver in several pools: no nodeName, pools travel in restore-v1alpha3",
		in: `{"apiVersion":"resource.k8s.io/v1alpha3","kind":"ResourceClaim","metadata":{"name":"c"},
			"spec":{"devices":{"requests":[{"name":"request","deviceClassName":"c","allocationMode":"ExactCount","count":1}]}},
			"status":{"allocation":{"devices":{"results":[{"request":"request","driver":"a","pool":"p1","device":"x"},{"request":"request","driver":"a","pool":"p2","device":"y"}]}}}}`,
		want: `{"apiVersion":"resource.k8s.io/v1alpha2","kind":"ResourceClaim",
			"metadata":{"name":"c","annotations":{"claimbridge.dev/restore-v1alpha3":{
				"status":{"base":{"$fp":{"allocation":{"devices":{"results":[{"request":"request","driver":"a","pool":"a","device":"x"},{"request":"request","driver":"a","pool":"a","device":"y"}]}}}},
					"patch":[{"op":"replace","path":"/status/allocation/devices/results/0/pool","value":"p1"},
						{"op":"replace","path":"/status/allocation/devices/results/1/pool","value":"p2"}]},
				"created":"annotations"}}},
			"spec":{"resourceClassName":"c","allocationMode":"WaitForFirstConsumer"},
			"status":{"driverName":"a","allocation":{"shareable":true,"resourceHandles":[{"driverName":"a","structuredData":{"results":[{"namedResources":{"name":"x"}},{"namedResources":{"name":"y"}}]}}]}}}`,
	}, {
		name: "controller allocation with handle-<i> devices: opaque handles, FromClaim parameters become data (wrapper unwrapped); controller becomes driverName",
		in: `{"apiVersion":"resource.k8s.io/v1alpha3","kind":"ResourceClaim","metadata":{"name":"c"},
			"spec":{"devices":{"requests":[{"name":"request","deviceClassName":"c","allocationMode":"ExactCount","count":1}]}},
			"status":{"allocation":{"controller":"ctrl","devices":{
				"results":[{"request":"request","driver":"a","pool":"a","device":"handle-0"},{"request":"request","driver":"b","pool":"b","device":"handle-1"}],
				"config":[{"source":"FromClaim","requests":["request"],"opaque":{"driver":"a","parameters":{"apiVersion":"resource.claimbridge.dev/v1alpha2","kind":"ResourceHandle","data":"raw"}}},
					{"source":"FromClaim","requests":["request"],"opaque":{"driver":"b","parameters":{"x":true}}}]}},
				"deallocationRequested":true}}`,
		want: `{"apiVersion":"resource.k8s.io/v1alpha2","kind":"ResourceClaim","metadata":{"name":"c"},
			"spec":{"resourceClassName":"c","allocationMode":"WaitForFirstConsumer"},
			"status":{"driverName":"ctrl","allocation":{"shareable":true,"resourceHandles":[{"driverName":"a","data":"raw"},{"driverName":"b","data":"{\"x\":true}"}]},
				"deallocationRequested":true}}`,
	}, {
		name: "controller allocation with one data-less result of the controller: one handle without data",
		in: `{"apiVersion":"resource.k8s.io/v1alpha3","kind":"ResourceClaim","metadata":{"name":"c"},
			"spec":{"devices":{"requests":[{"name":"request","deviceClassName":"c","allocationMode":"ExactCount","count":1}]}},
			"status":{"allocation":{"controller":"d","devices":{"results":[{"request":"request","driver":"d","pool":"d","device":"handle-0"}]}}}}`,
		want: `{"apiVersion":"resource.k8s.io/v1alpha2","kind":"ResourceClaim","metadata":{"name":"c"},
			"spec":{"resourceClassName":"c","allocationMode":"WaitForFirstConsumer"},"status":{"driverName":"d","allocation":{"resourceHandles":[{"driverName":"d"}],"shareable":true}}}`,
	}, {
		name: "status results name the first request; other request names travel in restore-v1alpha3",
		in: `{"apiVersion":"resource.k8s.io/v1alpha3","kind":"ResourceClaim","metadata":{"name":"c"},
			"spec":{"devices":{"requests":[{"name":"a","deviceClassName":"c"},{"name":"b","deviceClassName":"c"}]}},
			"status":{"allocation":{"devices":{"results":[{"request":"a","driver":"d","pool":"p","device":"x"},{"request":"b","driver":"d","pool":"p","device":"y"}]}}}}`,
		want: `{"apiVersion":"resource.k8s.io/v1alpha2","kind":"ResourceClaim",
			"metadata":{"name":"c","annotations":{"claimbridge.dev/restore-v1alpha3":{
				"spec":{"base":{"$fp":{"devices":{"requests":[{"name":"request","deviceClassName":"c","allocationMode":"ExactCount","count":1}]}}},"patch":[
					{"op":"replace","path":"/spec/devices/requests","value":[{"name":"a","deviceClassName":"c"},{"name":"b","deviceClassName":"c"}]}]},
				"status":{"base":{"$fp":{"allocation":{"devices":{"results":[{"request":"a","driver":"d","pool":"p","device":"x"},{"request":"a","driver":"d","pool":"p","device":"y"}]}}}},
					"patch":[{"op":"replace","path":"/status/allocation/devices/results/1/request","value":"b"}]},
				"created":"annotations"}}},
			"spec":{"resourceClassName":"c","allocationMode":"WaitForFirstConsumer"},
			"status":{"driverName":"d","allocation":{"shareable":true,"resourceHandles":[{"driverName":"d","structuredData":{"nodeName":"p","results":[{"namedResources":{"name":"x"}},{"namedResources":{"name":"y"}}]}}]}}}`,
	}, {
		name: "empty allocation: shareable true, nothing else",
		in: `{"apiVersion":"resource.k8s.io/v1alpha3","kind":"ResourceClaim","metadata":{"name":"c","annotations":{"keep":"me"}},
			"spec":{"devices":{"requests":[]}},"status":{"allocation":{}}}`,
		want: `{"apiVersion":"resource.k8s.io/v1alpha2","kind":"ResourceClaim","metadata":{"name":"c","annotations":{"keep":"me",
			"claimbridge.dev/restore-v1alpha3":{"spec":{"base":{"$fp":{}},"patch":[{"op":"add","path":"/spec/devices","value":{"requests":[]}}]}}}},
			"spec":{"allocationMode":"WaitForFirstConsumer"},"status":{"allocation":{"shareable":true}}}`,
	}})
}

// ---------------------------------------------------------------------------
// v1alpha1 → v1alpha3 and back: the composition through v1alpha2

func TestTableV1ToV3(t *testing.T) {
	runTable(t, api.V1alpha3, []tableCase{{
		name: "classic allocation: handle data, driver and nodes arrive in v1alpha3; allocationMode and shareable false travel in restore-v1alpha2",
		in: `{"apiVersion":"resource.claimbridge.dev/v1alpha1","kind":"ResourceClaim","metadata":{"name":"c"},
			"spec":{"resourceClassName":"c","allocationMode":"Immediate"},
			"status":{"driverName":"d","allocation":{"resourceHandle":"{\"a\":1}","shareable":false,
				"availableOnNodes":{"nodeSelectorTerms":[{"matchFields":[{"key":"metadata.name","operator":"In","values":["n"]}]}]}},
				"reservedFor":[{"resource":"pods","name":"p","uid":"u"}]}}`,
		want: `{"apiVersion":"resource.claimbridge.dev/v1alpha3","kind":"ResourceClaim",
			"metadata":{"name":"c","annotations":{"claimbridge.dev/restore-v1alpha2":{
				"spec":{"base":{"$fp":{"resourceClassName":"c","allocationMode":"WaitForFirstConsumer"}},"patch":[{"op":"replace","path":"/spec/allocationMode","value":"Immediate"}]},
				"status":{"base":{"$fp":{"driverName":"d","allocation":{"shareable":true,"resourceHandles":[{"driverName":"d","data":"{\"a\":1}"}],
					"availableOnNodes":{"nodeSelectorTerms":[{"matchFields":[{"key":"metadata.name","operator":"In","values":["n"]}]}]}},
					"reservedFor":[{"resource":"pods","name":"p","uid":"u"}]}},
					"patch":[{"op":"replace","path":"/status/allocation/shareable","value":false}]},
				"created":"annotations"}}},
			"spec":{"devices":{"requests":[{"name":"request","deviceClassName":"c","allocationMode":"ExactCount","count":1}]}},
			"status":{"allocation":{"controller":"d",
				"devices":{"results":[{"request":"request","driver":"d","pool":"d","device":"handle-0"}],
					"config":[{"source":"FromClaim","requests":["request"],"opaque":{"driver":"d","parameters":{"a":1}}}]},
				"nodeSelector":{"nodeSelectorTerms":[{"matchFields":[{"key":"metadata.name","operator":"In","values":["n"]}]}]}},
				"reservedFor":[{"resource":"pods","name":"p","uid":"u"}]}}`,
	}, {
		name: "an empty resourceHandle and Immediate: restore-v1alpha1 (which created the annotations) and restore-v1alpha2",
		in: `{"apiVersion":"resource.k8s.io/v1alpha1","kind":"ResourceClaim","metadata":{"name":"c"},
			"spec":{"resourceClassName":"c","allocationMode":"Immediate"},
			"status":{"driverName":"d","allocation":{"resourceHandle":""},"deallocationRequested":true}}`,
		want: `{"apiVersion":"resource.k8s.io/v1alpha3","kind":"ResourceClaim",
			"metadata":{"name":"c","annotations":{
				"claimbridge.dev/restore-v1alpha1":{
					"status":{"base":{"$fp":{"driverName":"d","allocation":{},"deallocationRequested":true}},"patch":[{"op":"add","path":"/status/allocation/resourceHandle","value":""}]},
					"created":"annotations"},
				"claimbridge.dev/restore-v1alpha2":{
					"spec":{"base":{"$fp":{"resourceClassName":"c","allocationMode":"WaitForFirstConsumer"}},"patch":[{"op":"replace","path":"/spec/allocationMode","value":"Immediate"}]},
					"status":{"base":{"$fp":{"driverName":"d","allocation":{"resourceHandles":[{"driverName":"d"}],"shareable":true},"deallocationRequested":true}},"patch":[{"op":"remove","path":"/status/allocation/shareable"}]}}}},
			"spec":{"devices":{"requests":[{"name":"request","deviceClassName":"c","allocationMode":"ExactCount","count":1}]}},
			"status":{"allocation":{"controller":"d","devices":{"results":[{"request":"request","driver":"d","pool":"d","device":"handle-0"}]}},"deallocationRequested":true}}`,
	}})
}

func TestTableV3ToV1(t *testing.T) {
	runTable(t, api.V1alpha1, []tableCase{{
		name: "controller allocation with one opaque handle arrives as resourceHandle; v1alpha3-only spec fields travel in restore-v1alpha3",
		in: `{"apiVersion":"resource.k8s.io/v1alpha3","kind":"ResourceClaim","metadata":{"name":"c"},
			"spec":{"controller":"d","devices":{"requests":[{"name":"request","deviceClassName":"c","allocationMode":"ExactCount","count":1}]}},
			"status":{"allocation":{"controller":"d","devices":{
				"results":[{"request":"request","driver":"d","pool":"d","device":"handle-0"}],
				"config":[{"source":"FromClaim","requests":["request"],"opaque":{"driver":"d","parameters":{"apiVersion":"resource.claimbridge.dev/v1alpha2","kind":"ResourceHandle","data":"h"}}}]}},
				"reservedFor":[{"resource":"pods","name":"p","uid":"u"}]}}`,
		want: `{"apiVersion":"resource.k8s.io/v1alpha1","kind":"ResourceClaim",
			"metadata":{"name":"c","annotations":{"claimbridge.dev/restore-v1alpha3":{
				"spec":{"base":{"$fp":{"devices":{"requests":[{"name":"request","deviceClassName":"c","allocationMode":"ExactCount","count":1}]}}},"patch":[{"op":"add","path":"/spec/controller","value":"d"}]},
				"created":"annotations"}}},
			"spec":{"resourceClassName":"c","allocationMode":"WaitForFirstConsumer"},
			"status":{"driverName":"d","allocation":{"resourceHandle":"h","shareable":true},"reservedFor":[{"resource":"pods","name":"p","uid":"u"}]}}`,
	}, {
		name: "structured allocation: devices have no place in v1alpha1 and travel in restore-v1alpha2 (written by the v1alpha2→v1alpha1 step)",
		in: `{"apiVersion":"resource.k8s.io/v1alpha3","kind":"ResourceClaim","metadata":{"name":"c"},
			"spec":{"devices":{"requests":[{"name":"request","deviceClassName":"c","allocationMode":"ExactCount","count":1}]}},
			"status":{"allocation":{"devices":{"results":[{"request":"request","driver":"d","pool":"n","device":"x"}]}}}}`,
		want: `{"apiVersion":"resource.k8s.io/v1alpha1","kind":"ResourceClaim",
			"metadata":{"name":"c","annotations":{
				"claimbridge.dev/restore-v1alpha2":{
					"status":{"base":{"$fp":{"driverName":"d","allocation":{"resourceHandles":[{"driverName":"d"}],"shareable":true}}},
						"patch":[{"op":"add","path":"/status/allocation/resourceHandles/0/structuredData","value":{"nodeName":"n","results":[{"namedResources":{"name":"x"}}]}}]},
					"created":"annotations"}}},
			"spec":{"resourceClassName":"c","allocationMode":"WaitForFirstConsumer"},
			"status":{"driverName":"d","allocation":{"shareable":true}}}`,
	}})
}

// ---------------------------------------------------------------------------
// The restore annotation: staleness, created containers, stacking

// TestStaleRestoreIsDropped: a v1alpha2 claim with fields v1alpha3 cannot
// hold is stored as v1alpha3; there its allocation is cleared and set again
// to different devices. Converting back applies the spec patch (the spec is
// unchanged) but drops the status patch, whose section no longer matches.
func TestStaleRestoreIsDropped(t *testing.T) {
	v2 := tblDecode(t, `{"apiVersion":"resource.k8s.io/v1alpha2","kind":"ResourceClaim","metadata":{"name":"c"},
		"spec":{"resourceClassName":"c","allocationMode":"Immediate"},
		"status":{"driverName":"d","allocation":{"resourceHandles":[{"driverName":"d","data":"old"}],"shareable":false}}}`)
	v3, err := conversion.Convert(v2, api.V1alpha3)
	if err != nil {
		t.Fatal(err)
	}
	restore := tblExpandGot(t, v3)["metadata"].(map[string]interface{})["annotations"].(map[string]interface{})[api.RestoreAnnotation(api.V1alpha2)].(map[string]interface{})
	if restore["spec"] == nil || restore["status"] == nil {
		t.Fatalf("want spec and status patches in the restore annotation, got %v", restore)
	}

	t.Run("unchanged status: both patches apply", func(t *testing.T) {
		back, err := conversion.Convert(v3, api.V1alpha2)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(v2, back); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
	})

	t.Run("allocation cleared: the status patch is dropped", func(t *testing.T) {
		changed := tblDecode(t, tblJSON(t, v3))
		delete(changed["status"].(map[string]interface{}), "allocation")
		back, err := conversion.Convert(changed, api.V1alpha2)
		if err != nil {
			t.Fatal(err)
		}
		want := tblDecode(t, `{"apiVersion":"resource.k8s.io/v1alpha2","kind":"ResourceClaim","metadata":{"name":"c"},
			"spec":{"resourceClassName":"c","allocationMode":"Immediate"},"status":{}}`)
		if diff := cmp.Diff(want, back); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
	})

	t.Run("allocation cleared and set again to other devices: the status patch is dropped", func(t *testing.T) {
		changed := tblDecode(t, tblJSON(t, v3))
		changed["status"] = tblDecode(t, `{"allocation":{"controller":"d","devices":{
			"results":[{"request":"request","driver":"d","pool":"d","device":"handle-0"}],
			"config":[{"source":"FromClaim","requests":["request"],"opaque":{"driver":"d","parameters":{"apiVersion":"resource.claimbridge.dev/v1alpha2","kind":"ResourceHandle","data":"new"}}}]}}}`)
		back, err := conversion.Convert(changed, api.V1alpha2)
		if err != nil {
			t.Fatal(err)
		}
		want := tblDecode(t, `{"apiVersion":"resource.k8s.io/v1alpha2","kind":"ResourceClaim","metadata":{"name":"c"},
			"spec":{"resourceClassName":"c","allocationMode":"Immediate"},
			"status":{"driverName":"d","allocation":{"resourceHandles":[{"driverName":"d","data":"new"}],"shareable":true}}}`)
		if diff := cmp.Diff(want, back); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
	})

	t.Run("allocation cleared and set again to the same devices: the patch applies again", func(t *testing.T) {
		changed := tblDecode(t, tblJSON(t, v3))
		alloc := changed["status"].(map[string]interface{})["allocation"]
		delete(changed["status"].(map[string]interface{}), "allocation")
		changed["status"].(map[string]interface{})["allocation"] = alloc
		back, err := conversion.Convert(changed, api.V1alpha2)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(v2, back); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
	})

	t.Run("spec changed: the spec patch is dropped, the status patch still applies", func(t *testing.T) {
		changed := tblDecode(t, tblJSON(t, v3))
		changed["spec"] = tblDecode(t, `{"devices":{"requests":[{"name":"request","deviceClassName":"other","allocationMode":"ExactCount","count":1}]}}`)
		back, err := conversion.Convert(changed, api.V1alpha2)
		if err != nil {
			t.Fatal(err)
		}
		want := tblDecode(t, `{"apiVersion":"resource.k8s.io/v1alpha2","kind":"ResourceClaim","metadata":{"name":"c"},
			"spec":{"resourceClassName":"other","allocationMode":"WaitForFirstConsumer"},
			"status":{"driverName":"d","allocation":{"resourceHandles":[{"driverName":"d","data":"old"}],"shareable":false}}}`)
		if diff := cmp.Diff(want, back); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
	})

	key := api.RestoreAnnotation(api.V1alpha2)
	genuine := v3["metadata"].(map[string]interface{})["annotations"].(map[string]interface{})[key].(string)
	for _, c := range []struct {
		name  string
		value interface{}
	}{
		{"an annotation that is not valid JSON is removed and ignored", "{not json"},
		// encoding/json decodes what it can and reports the first member
		// of the wrong type: here the genuine patches and "created" come
		// after one.
		{"an annotation that decodes only in part is removed and ignored as a whole", `{"status":[],` + strings.TrimPrefix(genuine, "{")},
		{"an annotation that is null is removed", nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			changed := tblDecode(t, tblJSON(t, v3))
			changed["metadata"].(map[string]interface{})["annotations"].(map[string]interface{})[key] = c.value
			back, err := conversion.Convert(changed, api.V1alpha2)
			if err != nil {
				t.Fatal(err)
			}
			want := tblDecode(t, `{"apiVersion":"resource.k8s.io/v1alpha2","kind":"ResourceClaim","metadata":{"name":"c","annotations":{}},
				"spec":{"resourceClassName":"c","allocationMode":"WaitForFirstConsumer"},
				"status":{"driverName":"d","allocation":{"resourceHandles":[{"driverName":"d","data":"old"}],"shareable":true}}}`)
			if diff := cmp.Diff(want, back); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestAnnotationContainers: the annotation map (and metadata) that a restore
// annotation needs is created, and removed again on the way back, exactly.
func TestAnnotationContainers(t *testing.T) {
	const spec = `"spec":{"resourceClassName":"c","allocationMode":"Immediate"}`
	for _, c := range []struct {
		name, meta, created string
	}{
		{"no metadata", ``, "metadata"},
		{"metadata null", `"metadata":null,`, "metadata=null"},
		{"metadata without annotations", `"metadata":{"name":"c"},`, "annotations"},
		{"annotations null", `"metadata":{"name":"c","annotations":null},`, "annotations=null"},
		{"empty annotations", `"metadata":{"name":"c","annotations":{}},`, ""},
		{"other annotations", `"metadata":{"name":"c","annotations":{"a":"b"}},`, ""},
		{"empty metadata", `"metadata":{},`, "annotations"},
	} {
		t.Run(c.name, func(t *testing.T) {
			in := `{"apiVersion":"resource.k8s.io/v1alpha2","kind":"ResourceClaim",` + c.meta + spec + `}`
			obj := tblDecode(t, in)
			out := tblCheck(t, in, tblJSON(t, tblExpandGot(t, mustConvertTbl(t, obj, api.V1alpha3))), api.V1alpha3)
			r := tblExpandGot(t, out)["metadata"].(map[string]interface{})["annotations"].(map[string]interface{})[api.RestoreAnnotation(api.V1alpha2)].(map[string]interface{})
			got, _ := r["created"].(string)
			if got != c.created {
				t.Errorf("created = %q, want %q", got, c.created)
			}

			// An annotation added in v1alpha3 keeps the containers the
			// restore annotation created.
			out["metadata"].(map[string]interface{})["annotations"].(map[string]interface{})["x"] = "y"
			back := mustConvertTbl(t, out, api.V1alpha2)
			want := tblDecode(t, in)
			meta, _ := want["metadata"].(map[string]interface{})
			if meta == nil {
				meta = map[string]interface{}{}
				want["metadata"] = meta
			}
			annotations, _ := meta["annotations"].(map[string]interface{})
			if annotations == nil {
				annotations = map[string]interface{}{}
				meta["annotations"] = annotations
			}
			annotations["x"] = "y"
			if diff := cmp.Diff(want, back); diff != "" {
				t.Errorf("annotation added in v1alpha3, back in v1alpha2 (-want +got):\n%s", diff)
			}

			// So does a label added in v1alpha3, while the annotations
			// the restore annotation created go.
			out = mustConvertTbl(t, obj, api.V1alpha3)
			out["metadata"].(map[string]interface{})["labels"] = map[string]interface{}{"l": "v"}
			back = mustConvertTbl(t, out, api.V1alpha2)
			want = tblDecode(t, in)
			meta, _ = want["metadata"].(map[string]interface{})
			if meta == nil {
				meta = map[string]interface{}{}
				want["metadata"] = meta
			}
			meta["labels"] = map[string]interface{}{"l": "v"}
			if diff := cmp.Diff(want, back); diff != "" {
				t.Errorf("label added in v1alpha3, back in v1alpha2 (-want +got):\n%s", diff)
			}
		})
	}
	t.Run("lossless conversion of an object without metadata adds nothing", func(t *testing.T) {
		tblCheck(t, `{"apiVersion":"resource.k8s.io/v1alpha2","kind":"ResourceClaim","spec":{"resourceClassName":"c","allocationMode":"WaitForFirstConsumer"}}`,
			`{"apiVersion":"resource.k8s.io/v1alpha1","kind":"ResourceClaim","spec":{"resourceClassName":"c","allocationMode":"WaitForFirstConsumer"}}`, api.V1alpha1)
	})
}

func mustConvertTbl(t *testing.T, obj map[string]interface{}, to string) map[string]interface{} {
	t.Helper()
	out, err := conversion.Convert(obj, to)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestSameVersionIsACopy: converting to the object's own version returns an
// equal tree that shares nothing with the input.
func TestSameVersionIsACopy(t *testing.T) {
	in := tblDecode(t, `{"apiVersion":"resource.k8s.io/v1alpha2","kind":"ResourceClaim","metadata":{"name":"c","annotations":{"a":"b"}},
		"spec":{"resourceClassName":"c","allocationMode":"WaitForFirstConsumer"},"status":{"allocation":{"resourceHandles":[{"driverName":"d"}]}}}`)
	out := mustConvertTbl(t, in, api.V1alpha2)
	if diff := cmp.Diff(in, out); diff != "" {
		t.Fatalf("(-in +out):\n%s", diff)
	}
	out["metadata"].(map[string]interface{})["annotations"].(map[string]interface{})["a"] = "changed"
	out["status"].(map[string]interface{})["allocation"].(map[string]interface{})["resourceHandles"].([]interface{})[0].(map[string]interface{})["driverName"] = "changed"
	if in["metadata"].(map[string]interface{})["annotations"].(map[string]interface{})["a"] != "b" ||
		in["status"].(map[string]interface{})["allocation"].(map[string]interface{})["resourceHandles"].([]interface{})[0].(map[string]interface{})["driverName"] != "d" {
		t.Error("the output shares maps or slices with the input")
	}
}

// TestInputNeverModified converts every golden input and a claim carrying
// restore annotations in every direction, with Convert and with
// ConvertWithWarnings, and checks the input afterwards.
func TestInputNeverModified(t *testing.T) {
	var inputs []map[string]interface{}
	for _, in := range goldenInputs(t) {
		inputs = append(inputs, goldenReadTree(t, in.path))
	}
	withRestore := mustConvertTbl(t, tblDecode(t, `{"apiVersion":"resource.k8s.io/v1alpha1","kind":"ResourceClaim","metadata":{"name":"c"},
		"spec":{"resourceClassName":"c","allocationMode":"Immediate"},"status":{"driverName":"d","allocation":{"resourceHandle":""}}}`), api.V1alpha3)
	inputs = append(inputs, withRestore)
	convertWithWarnings := func(in map[string]interface{}, to string) (map[string]interface{}, error) {
		out, _, err := conversion.ConvertWithWarnings(in, to)
		return out, err
	}
	for _, f := range []struct {
		name    string
		convert func(map[string]interface{}, string) (map[string]interface{}, error)
	}{{"Convert", conversion.Convert}, {"ConvertWithWarnings", convertWithWarnings}} {
		for i, in := range inputs {
			for _, to := range api.ServedVersions {
				before := tblJSON(t, in)
				out, err := f.convert(in, to)
				if err != nil {
					t.Fatalf("%s: input %d to %s: %v", f.name, i, to, err)
				}
				if after := tblJSON(t, in); after != before {
					t.Errorf("%s: input %d to %s: input modified:\nbefore %s\nafter  %s", f.name, i, to, before, after)
				}
				// Modifying the output must not reach the input either.
				tblScribble(out)
				if after := tblJSON(t, in); after != before {
					t.Errorf("%s: input %d to %s: output shares containers with the input", f.name, i, to)
				}
			}
		}
	}
}

// tblScribble changes every string in a tree in place.
func tblScribble(v interface{}) {
	switch v := v.(type) {
	case map[string]interface{}:
		for k, e := range v {
			if s, ok := e.(string); ok {
				v[k] = s + "!"
			} else {
				tblScribble(e)
			}
		}
	case []interface{}:
		for i, e := range v {
			if s, ok := e.(string); ok {
				v[i] = s + "!"
			} else {
				tblScribble(e)
			}
		}
	}
}

// ---------------------------------------------------------------------------
// Errors

func TestErrors(t *testing.T) {
	for _, c := range []struct {
		name, in, to, want string
	}{
		{"unsupported kind", `{"apiVersion":"resource.k8s.io/v1alpha2","kind":"ResourceClass","metadata":{"name":"c"}}`, "v1alpha3",
			`kind "ResourceClass" of resource.k8s.io/v1alpha2 is not converted (only ResourceClaim, ResourceClaimTemplate and their lists)`},
		{"no kind", `{"apiVersion":"resource.k8s.io/v1alpha2"}`, "v1alpha3", `kind "" of resource.k8s.io/v1alpha2 is not converted`},
		{"unsupported group", `{"apiVersion":"resource.example.com/v1alpha2","kind":"ResourceClaim"}`, "v1alpha3",
			`apiVersion "resource.example.com/v1alpha2" is not in group resource.claimbridge.dev or resource.k8s.io`},
		{"no group", `{"apiVersion":"v1","kind":"ResourceClaim"}`, "v1alpha3", `apiVersion "v1" is not in group`},
		{"apiVersion not a string", `{"apiVersion":1,"kind":"ResourceClaim"}`, "v1alpha3", `apiVersion "" is not in group`},
		{"unsupported source version", `{"apiVersion":"resource.k8s.io/v2","kind":"ResourceClaim"}`, "v1alpha3",
			`apiVersion "resource.k8s.io/v2": unsupported version "v2" (supported: v1alpha1, v1alpha2, v1alpha3, v1beta1, v1beta2, v1)`},
		{"GA source version of the claimbridge group", `{"apiVersion":"resource.claimbridge.dev/v1","kind":"ResourceClaim"}`, "v1alpha3",
			`apiVersion "resource.claimbridge.dev/v1": unsupported version "v1" (supported: v1alpha1, v1alpha2, v1alpha3)`},
		{"unsupported target version", `{"apiVersion":"resource.k8s.io/v1alpha2","kind":"ResourceClaim"}`, "v2",
			`unsupported target version "v2": supported versions are v1alpha1, v1alpha2, v1alpha3, v1beta1, v1beta2, v1`},
		{"GA target version of the claimbridge group", `{"apiVersion":"resource.claimbridge.dev/v1alpha2","kind":"ResourceClaim"}`, "v1",
			`target version v1 is not served by group resource.claimbridge.dev (only v1alpha1, v1alpha2, v1alpha3); it is a version of resource.k8s.io`},
		{"v1alpha3 of Kubernetes 1.32", `{"apiVersion":"resource.k8s.io/v1alpha3","kind":"ResourceClaim","metadata":{"name":"c","namespace":"ns"},"spec":{"devices":{"requests":[{"name":"r","firstAvailable":[]}]}},"status":{"allocation":{"devices":{"results":[{"request":"r","adminAccess":false}]}}}}`, "v1",
			`resource.k8s.io/v1alpha3 ResourceClaim ns/c has spec.devices.requests[0].firstAvailable, status.allocation.devices.results[0].adminAccess, which the resource.k8s.io/v1alpha3 of Kubernetes 1.32 and 1.33 had; claimbridge's v1alpha3 is the Kubernetes 1.31 shape only: for a 1.32/1.33 v1alpha3 manifest set apiVersion to resource.k8s.io/v1beta1 (the same fields) and convert from there`},
		{"v1alpha3 claim with exactly, the request of v1beta2 and v1", `{"apiVersion":"resource.k8s.io/v1alpha3","kind":"ResourceClaim","metadata":{"name":"c","namespace":"ns"},"spec":{"devices":{"requests":[{"name":"r","exactly":{"deviceClassName":"gpu"}}]}}}`, "v1",
			`resource.k8s.io/v1alpha3 ResourceClaim ns/c has spec.devices.requests[0].exactly, which no release's resource.k8s.io/v1alpha3 had: a request with exactly is the shape of resource.k8s.io/v1beta2 and v1: set apiVersion to the one it was written for and convert from there`},
		{"v1alpha3 template of Kubernetes 1.33 in a list", `{"apiVersion":"resource.k8s.io/v1alpha3","kind":"ResourceClaimTemplateList","items":[{"spec":{"spec":{"devices":{"requests":[{"name":"r"},{"name":"s","tolerations":[]}],"constraints":[{"distinctAttribute":"a"}]}}}}]}`, "v1",
			`has items[0].spec.spec.devices.requests[1].tolerations, items[0].spec.spec.devices.constraints[0].distinctAttribute, which`},
		{"v1alpha3 claim of Kubernetes 1.33 with a status of that release, in a list", `{"apiVersion":"resource.k8s.io/v1alpha3","kind":"ResourceClaimList","items":[{"metadata":{"name":"a"}},{"metadata":{"name":"c","namespace":"ns"},"status":{"devices":[],"allocation":{"allocationTimestamp":"2025-01-01T00:00:00Z"}}}]}`, "v1",
			`has items[1].status.devices, items[1].status.allocation.allocationTimestamp, which`},
		{"metadata not an object", `{"apiVersion":"resource.k8s.io/v1alpha2","kind":"ResourceClaim","metadata":"x","spec":{"resourceClassName":"c","allocationMode":"WaitForFirstConsumer"}}`, "v1alpha1",
			`ResourceClaim (unnamed) is malformed: metadata must be an object, not a string`},
		{"GA metadata not an object", `{"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaim","metadata":"x","spec":"any"}`, "v1beta2",
			`ResourceClaim (unnamed) is malformed: metadata must be an object, not a string`},
		{"annotations not an object", `{"apiVersion":"resource.k8s.io/v1alpha2","kind":"ResourceClaim","metadata":{"name":"c","namespace":"ns","annotations":[]},"spec":{"resourceClassName":"c","allocationMode":"Immediate"}}`, "v1alpha3",
			`ResourceClaim ns/c is malformed: metadata.annotations must be an object, not an array`},
		{"list item that cannot be converted", `{"apiVersion":"resource.k8s.io/v1alpha2","kind":"ResourceClaimList","items":[{"metadata":{"name":"ok"}},{"metadata":{"name":"bad","annotations":"x"},"spec":{"resourceClassName":"c","allocationMode":"Immediate"}}]}`, "v1alpha3",
			`ResourceClaim bad is malformed: items[1].metadata.annotations must be an object, not a string`},
	} {
		t.Run(c.name, func(t *testing.T) {
			out, err := conversion.Convert(tblDecode(t, c.in), c.to)
			if err == nil {
				t.Fatalf("no error; got %s", tblJSON(t, out))
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %q\ndoes not contain %q", err, c.want)
			}
			if out != nil {
				t.Errorf("output %v with the error", out)
			}
			// The other entry points fail alike, with nothing else returned.
			wout, ws, werr := conversion.ConvertWithWarnings(tblDecode(t, c.in), c.to)
			if werr == nil || werr.Error() != err.Error() || wout != nil || ws != nil {
				t.Errorf("ConvertWithWarnings: %v, %v, error %v; want nil, nil, error %v", wout, ws, werr, err)
			}
			ls, lerr := conversion.Losses(tblDecode(t, c.in), c.to)
			if lerr == nil || lerr.Error() != err.Error() || ls != nil {
				t.Errorf("Losses: %v, error %v; want nil, error %v", ls, lerr, err)
			}
		})
	}
}

// bigHandles returns a v1alpha2 claim with n handles of drivers d0…d<n-1>
// (or one driver), each with size bytes of data made by dataFn.
func bigHandles(n int, sameDriver bool, dataFn func(i int) string) map[string]interface{} {
	var handles []interface{}
	for i := 0; i < n; i++ {
		driver := "d.example.com"
		if !sameDriver {
			driver = fmt.Sprintf("d%d.example.com", i)
		}
		handles = append(handles, map[string]interface{}{"driverName": driver, "data": dataFn(i)})
	}
	return map[string]interface{}{
		"apiVersion": "resource.k8s.io/v1alpha2", "kind": "ResourceClaim",
		"metadata": map[string]interface{}{"name": "big", "namespace": "ns"},
		"spec":     map[string]interface{}{"resourceClassName": "c", "allocationMode": "WaitForFirstConsumer"},
		"status": map[string]interface{}{"driverName": "d.example.com",
			"allocation": map[string]interface{}{"resourceHandles": handles, "shareable": true}},
	}
}

const maxHandleData = 16 * 1024

func TestAnnotationSizeLimit(t *testing.T) {
	opaque := func(i int) string { return strings.Repeat(string(rune('a'+i%26)), maxHandleData) }

	// 32 handles of 16 KiB data that is not JSON: v1alpha3 holds all of it
	// (wrapped config), so there is no restore annotation at all.
	for _, same := range []bool{false, true} {
		t.Run(fmt.Sprintf("32 opaque 16 KiB handles to v1alpha3 fit (one driver: %v)", same), func(t *testing.T) {
			in := bigHandles(32, same, opaque)
			out := mustConvertTbl(t, in, api.V1alpha3)
			if ann, ok := out["metadata"].(map[string]interface{})["annotations"]; ok {
				t.Errorf("unexpected annotations: %d bytes", len(tblJSON(t, ann)))
			}
			back := mustConvertTbl(t, out, api.V1alpha2)
			if diff := cmp.Diff(in, back); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}

	// The same claim to v1alpha1: the 31 extra handles (~500 KiB) really
	// overflow the 256 KiB annotation limit.
	t.Run("32 opaque 16 KiB handles to v1alpha1 overflow", func(t *testing.T) {
		in := bigHandles(32, false, opaque)
		before := tblJSON(t, in)
		out, err := conversion.Convert(in, api.V1alpha1)
		if err == nil {
			t.Fatal("no error")
		}
		if out != nil {
			t.Error("output returned with the error")
		}
		msg := err.Error()
		for _, want := range []string{
			"converting ResourceClaim ns/big from v1alpha2 to v1alpha1",
			"annotation claimbridge.dev/restore-v1alpha2",
			"above the limit of 262144 bytes",
		} {
			if !strings.Contains(msg, want) {
				t.Errorf("error %q does not contain %q", msg, want)
			}
		}
		if tblJSON(t, in) != before {
			t.Error("input modified by a failed conversion")
		}
	})

	// Existing annotations count towards the limit: 255.9 KiB of them plus
	// a small restore annotation overflow.
	t.Run("huge existing annotations overflow", func(t *testing.T) {
		in := tblDecode(t, `{"apiVersion":"resource.k8s.io/v1alpha2","kind":"ResourceClaim","metadata":{"name":"c","namespace":"ns","annotations":{}},
			"spec":{"resourceClassName":"c","allocationMode":"Immediate"}}`)
		in["metadata"].(map[string]interface{})["annotations"].(map[string]interface{})["example.com/blob"] = strings.Repeat("x", 262000)
		_, err := conversion.Convert(in, api.V1alpha3)
		if err == nil || !strings.Contains(err.Error(), "above the limit of 262144 bytes") {
			t.Fatalf("error = %v, want the annotation size limit", err)
		}
		// Without the field that needs restoring, the same object converts.
		delete(in["spec"].(map[string]interface{}), "allocationMode")
		mustConvertTbl(t, in, api.V1alpha3)
	})

	// Losses builds no restore annotation, so the limit does not refuse it:
	// it gives what it gives without the blob.
	t.Run("losses are not refused", func(t *testing.T) {
		in := tblDecode(t, `{"apiVersion":"resource.k8s.io/v1alpha2","kind":"ResourceClaim","metadata":{"name":"c","namespace":"ns","annotations":{}},
			"spec":{"resourceClassName":"c","allocationMode":"Immediate","parametersRef":{"kind":"GpuClaimParameters","name":"p"}}}`)
		_, wantWarnings, err := conversion.ConvertWithWarnings(in, api.V1alpha3)
		if err != nil {
			t.Fatal(err)
		}
		if len(wantWarnings) == 0 {
			t.Fatal("no warnings to compare")
		}
		in["metadata"].(map[string]interface{})["annotations"].(map[string]interface{})["example.com/blob"] = strings.Repeat("x", 262000)
		if _, err := conversion.Convert(in, api.V1alpha3); err == nil {
			t.Fatal("Convert is not refused")
		}
		warnings, err := conversion.Losses(in, api.V1alpha3)
		if err != nil {
			t.Errorf("Losses: %v", err)
		}
		if diff := cmp.Diff(wantWarnings, warnings); diff != "" {
			t.Errorf("Losses (-want +got):\n%s", diff)
		}
	})

	t.Run("just under the limit fits", func(t *testing.T) {
		in := tblDecode(t, `{"apiVersion":"resource.k8s.io/v1alpha2","kind":"ResourceClaim","metadata":{"name":"c","annotations":{}},
			"spec":{"resourceClassName":"c","allocationMode":"Immediate"}}`)
		out := mustConvertTbl(t, in, api.V1alpha3)
		value := out["metadata"].(map[string]interface{})["annotations"].(map[string]interface{})[api.RestoreAnnotation(api.V1alpha2)].(string)
		used := len(api.RestoreAnnotation(api.V1alpha2)) + len(value)
		key := "example.com/blob"
		in["metadata"].(map[string]interface{})["annotations"].(map[string]interface{})[key] = strings.Repeat("x", conversion.TotalAnnotationSizeLimitB-used-len(key))
		mustConvertTbl(t, in, api.V1alpha3)
		in["metadata"].(map[string]interface{})["annotations"].(map[string]interface{})[key] = strings.Repeat("x", conversion.TotalAnnotationSizeLimitB-used-len(key)+1)
		if _, err := conversion.Convert(in, api.V1alpha3); err == nil {
			t.Error("one byte over the limit converted")
		}
	})
}

// TestUnencodableRestoreValueIsAnError: a value without a JSON encoding (a
// NaN or an infinity in a tree built in Go passes as a number) that the
// target cannot hold fails the conversion, naming the annotation, instead
// of being left out of the restore annotation or writing part of it.
func TestUnencodableRestoreValueIsAnError(t *testing.T) {
	for _, c := range []struct {
		name, section string
		value         interface{}
		want          string
	}{
		{"an unknown spec field NaN", "spec", math.NaN(), "json: unsupported value: NaN"},
		{"an unknown status field +Inf", "status", math.Inf(1), "json: unsupported value: +Inf"},
	} {
		t.Run(c.name, func(t *testing.T) {
			in := tblDecode(t, `{"apiVersion":"resource.k8s.io/v1alpha2","kind":"ResourceClaim","metadata":{"name":"c","namespace":"ns"},
				"spec":{"resourceClassName":"c","allocationMode":"WaitForFirstConsumer"},"status":{"reservedFor":[{"resource":"pods","name":"p","uid":"1"}]}}`)
			in[c.section].(map[string]interface{})["future"] = c.value
			out, err := conversion.Convert(in, api.V1alpha3)
			want := "converting ResourceClaim ns/c from v1alpha2 to v1alpha3: keeping the fields of v1alpha2 that v1alpha3 cannot hold: encoding claimbridge.dev/restore-v1alpha2: " + c.want
			if err == nil || err.Error() != want {
				t.Errorf("error %v, want %s", err, want)
			}
			if out != nil {
				t.Errorf("output %v with the error", out)
			}
		})
	}
}

// ---------------------------------------------------------------------------
// Regressions found while writing the golden and table tests.

// An explicit "allocation": null means "not allocated" (as absent does); it
// must not become an allocation object in the target version.
func TestNullAllocationStaysNull(t *testing.T) {
	for _, c := range []struct{ in, to, want string }{
		{`{"apiVersion":"resource.k8s.io/v1alpha2","kind":"ResourceClaim","metadata":{"name":"c"},"spec":{"resourceClassName":"c","allocationMode":"WaitForFirstConsumer"},"status":{"allocation":null}}`, "v1alpha3",
			`{"apiVersion":"resource.k8s.io/v1alpha3","kind":"ResourceClaim","metadata":{"name":"c"},"spec":{"devices":{"requests":[{"name":"request","deviceClassName":"c","allocationMode":"ExactCount","count":1}]}},"status":{"allocation":null}}`},
		{`{"apiVersion":"resource.k8s.io/v1alpha2","kind":"ResourceClaim","metadata":{"name":"c"},"spec":{"resourceClassName":"c","allocationMode":"WaitForFirstConsumer"},"status":{"allocation":null}}`, "v1alpha1",
			`{"apiVersion":"resource.k8s.io/v1alpha1","kind":"ResourceClaim","metadata":{"name":"c"},"spec":{"resourceClassName":"c","allocationMode":"WaitForFirstConsumer"},"status":{"allocation":null}}`},
		{`{"apiVersion":"resource.k8s.io/v1alpha3","kind":"ResourceClaim","metadata":{"name":"c"},"spec":{"devices":{"requests":[{"name":"request","deviceClassName":"c","allocationMode":"ExactCount","count":1}]}},"status":{"allocation":null}}`, "v1alpha2",
			`{"apiVersion":"resource.k8s.io/v1alpha2","kind":"ResourceClaim","metadata":{"name":"c"},"spec":{"resourceClassName":"c","allocationMode":"WaitForFirstConsumer"},"status":{"allocation":null}}`},
	} {
		tblCheck(t, c.in, c.want, c.to)
	}
}

// JSON-object handle data whose text is not canonical (keys not sorted, as
// Go structs marshal them, or with spaces) would have its exact text travel
// in the restore annotation; large data is wrapped instead, so that a valid
// v1alpha2 claim with 32 such handles of 16 KiB still converts.
func TestNonCanonicalJSONDataFits(t *testing.T) {
	in := bigHandles(32, false, func(i int) string {
		return `{"name":"gpu-` + fmt.Sprint(i) + `","blob":"` + strings.Repeat("x", maxHandleData-40) + `"}`
	})
	if _, err := conversion.Convert(in, api.V1alpha3); err != nil {
		t.Errorf("a valid v1alpha2 claim does not convert to v1alpha3: %v", err)
	}
}
