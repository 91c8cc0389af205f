package conversion_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/conversion"
)

// Semantic properties: what the consumers of the target release (scheduler,
// kubelet, drivers) read in a converted object, and which losses are
// reported. Every case also converts back and requires the input exactly.

type semanticCase struct {
	name string
	in   string
	to   string
	// fields maps a field path (dots and [i]) to its expected JSON value in
	// the output; "<absent>" means the field must not exist.
	fields map[string]string
	// warnings are the expected warnings as "from→to path", in order.
	warnings []string
}

const absent = "<absent>"

func runSemantic(t *testing.T, cases []semanticCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := tblDecode(t, c.in)
			out, ws, err := conversion.ConvertWithWarnings(in, c.to)
			if err != nil {
				t.Fatalf("ConvertWithWarnings: %v", err)
			}
			for path, want := range c.fields {
				got, ok := lookup(out, path)
				gotJSON := absent
				if ok {
					gotJSON = tblJSON(t, got)
				}
				if want != absent {
					want = tblJSON(t, tblDecode(t, `{"v":`+want+`}`)["v"])
				}
				if gotJSON != want {
					t.Errorf("%s = %s, want %s", path, gotJSON, want)
				}
			}
			var got []string
			for _, w := range ws {
				got = append(got, w.From+"→"+w.To+" "+w.Path)
				if w.Message == "" || w.Kind == "" || w.Object == "" {
					t.Errorf("incomplete warning %+v", w)
				}
			}
			if diff := cmp.Diff(c.warnings, got); diff != "" {
				t.Errorf("warnings (-want +got):\n%s\nall: %v", diff, ws)
			}
			_, from, _, _ := conversion.Identify(in)
			back, err := conversion.Convert(out, from)
			if err != nil {
				t.Fatalf("converting back: %v", err)
			}
			if diff := cmp.Diff(tblDecode(t, c.in), back, treeComparer); diff != "" {
				t.Errorf("round trip (-want +got):\n%s", diff)
			}
		})
	}
}

// lookup follows a path like status.allocation.resourceHandles[0].data.
func lookup(v interface{}, path string) (interface{}, bool) {
	for _, part := range strings.Split(path, ".") {
		name, rest, _ := strings.Cut(part, "[")
		m, ok := v.(map[string]interface{})
		if !ok {
			return nil, false
		}
		if v, ok = m[name]; !ok {
			return nil, false
		}
		for rest != "" {
			idx, after, _ := strings.Cut(rest, "]")
			rest = strings.TrimPrefix(after, "[")
			i, _ := strconv.Atoi(idx)
			s, ok := v.([]interface{})
			if !ok || i >= len(s) {
				return nil, false
			}
			v = s[i]
		}
	}
	return v, true
}

const (
	v2Claim    = `{"apiVersion":"resource.k8s.io/v1alpha2","kind":"ResourceClaim","metadata":{"name":"c","namespace":"ns"},`
	v2Template = `{"apiVersion":"resource.k8s.io/v1alpha2","kind":"ResourceClaimTemplate","metadata":{"name":"t","namespace":"ns"},`
	v3Claim    = `{"apiVersion":"resource.k8s.io/v1alpha3","kind":"ResourceClaim","metadata":{"name":"c","namespace":"ns"},`
	v3Template = `{"apiVersion":"resource.k8s.io/v1alpha3","kind":"ResourceClaimTemplate","metadata":{"name":"t","namespace":"ns"},`
	v1Claim    = `{"apiVersion":"resource.k8s.io/v1alpha1","kind":"ResourceClaim","metadata":{"name":"c","namespace":"ns"},`
	nodeSel    = `{"nodeSelectorTerms":[{"matchFields":[{"key":"metadata.name","operator":"In","values":["n1"]}]}]}`
)

func TestSemanticV2ToV3(t *testing.T) {
	runSemantic(t, []semanticCase{{
		name: "1.30 classic claim: controller = driverName (a 1.31 scheduler leaves deallocation to the driver); silent",
		in: v2Claim + `"spec":{"resourceClassName":"gpu","allocationMode":"WaitForFirstConsumer"},
			"status":{"driverName":"d","allocation":{"shareable":true,"resourceHandles":[{"driverName":"d","data":"{\"gpu\":1}"}]}}}`,
		to: api.V1alpha3,
		fields: map[string]string{
			"status.allocation.controller":                    `"d"`,
			"status.allocation.devices.results[0].device":     `"handle-0"`,
			"status.allocation.devices.config[0].opaque":      `{"driver":"d","parameters":{"gpu":1}}`,
			"status.allocation.devices.config[1]":             absent,
			"spec.devices.requests[0].deviceClassName":        `"gpu"`,
			"status.allocation.devices.config[0].requests[0]": `"request"`,
		},
	}, {
		name: "1.30 structured claim: no controller (a 1.31 scheduler deallocates it itself); devices in pool nodeName",
		in: v2Claim + `"spec":{"resourceClassName":"gpu","allocationMode":"WaitForFirstConsumer"},
			"status":{"driverName":"d","allocation":{"shareable":true,"availableOnNodes":` + nodeSel + `,"resourceHandles":[{"driverName":"d","structuredData":{"nodeName":"n1",
				"vendorClaimParameters":{"clm":1},"results":[{"namedResources":{"name":"gpu-0"}},{"namedResources":{"name":"gpu-1"}}]}}]}}}`,
		to: api.V1alpha3,
		fields: map[string]string{
			"status.allocation.controller":               `<absent>`,
			"status.allocation.devices.results[1]":       `{"request":"request","driver":"d","pool":"n1","device":"gpu-1"}`,
			"status.allocation.devices.config[0].opaque": `{"driver":"d","parameters":{"clm":1}}`,
			"status.allocation.devices.config[0].source": `"FromClaim"`,
			"status.allocation.nodeSelector":             nodeSel,
			"metadata.annotations":                       absent,
		},
	}, {
		name: "per-device vendorRequestParameters: one DeviceParameters config per driver, reported",
		in: v2Claim + `"spec":{"resourceClassName":"gpu","allocationMode":"WaitForFirstConsumer"},
			"status":{"driverName":"d","allocation":{"shareable":true,"resourceHandles":[{"driverName":"d","structuredData":{"nodeName":"n1",
				"results":[{"namedResources":{"name":"gpu-0"},"vendorRequestParameters":{"a":1}},{"namedResources":{"name":"gpu-1"},"vendorRequestParameters":{"b":2}}]}}]}}}`,
		to: api.V1alpha3,
		fields: map[string]string{
			"status.allocation.devices.config[0].opaque.parameters": `{"apiVersion":"resource.claimbridge.dev/v1alpha2","kind":"DeviceParameters",
				"devices":[{"device":"gpu-0","parameters":{"a":1}},{"device":"gpu-1","parameters":{"b":2}}]}`,
			"status.allocation.devices.config[1]": absent,
		},
		warnings: []string{
			"v1alpha2→v1alpha3 status.allocation.resourceHandles[0].structuredData.results[0].vendorRequestParameters",
			"v1alpha2→v1alpha3 status.allocation.resourceHandles[0].structuredData.results[1].vendorRequestParameters",
		},
	}, {
		name: "several handles of one driver: one config, not configs that override each other; reported",
		in: v2Claim + `"spec":{"resourceClassName":"gpu","allocationMode":"WaitForFirstConsumer"},
			"status":{"driverName":"d","allocation":{"shareable":true,"resourceHandles":[{"driverName":"d","data":"{\"gpu\":0}"},{"driverName":"d","data":"{\"gpu\":1}"},{"driverName":"e","data":"{\"nic\":0}"}]}}}`,
		to: api.V1alpha3,
		fields: map[string]string{
			"status.allocation.controller": `"d"`,
			"status.allocation.devices.config[0].opaque": `{"driver":"d","parameters":{"apiVersion":"resource.claimbridge.dev/v1alpha2","kind":"DeviceParameters",
				"devices":[{"device":"handle-0","parameters":{"gpu":0}},{"device":"handle-1","parameters":{"gpu":1}}]}}`,
			"status.allocation.devices.config[1].opaque": `{"driver":"e","parameters":{"nic":0}}`,
			"status.allocation.devices.config[2]":        absent,
		},
		warnings: []string{
			"v1alpha2→v1alpha3 status.allocation.resourceHandles[0].data",
			"v1alpha2→v1alpha3 status.allocation.resourceHandles[1].data",
		},
	}, {
		// docs/conversion.md §2.6, handle data wrapper: ⚠ warned.
		name: "handle data that is not a JSON object: wrapped as ResourceHandle, reported",
		in: v2Claim + `"spec":{"resourceClassName":"gpu","allocationMode":"WaitForFirstConsumer"},
			"status":{"driverName":"d","allocation":{"shareable":true,"resourceHandles":[{"driverName":"d","data":"gpu=0"}]}}}`,
		to: api.V1alpha3,
		fields: map[string]string{
			"status.allocation.devices.config[0].opaque": `{"driver":"d","parameters":{"apiVersion":"resource.claimbridge.dev/v1alpha2","kind":"ResourceHandle","data":"gpu=0"}}`,
		},
		warnings: []string{"v1alpha2→v1alpha3 status.allocation.resourceHandles[0].data"},
	}, {
		// Only the wrapper (its apiVersion and its kind) is reported, not a
		// driver's own object that shares one of them.
		name: "handle data that is a JSON object of kind ResourceHandle but another apiVersion: parameters as they are, silent",
		in: v2Claim + `"spec":{"resourceClassName":"gpu","allocationMode":"WaitForFirstConsumer"},
			"status":{"driverName":"d","allocation":{"shareable":true,"resourceHandles":[{"driverName":"d","data":"{\"apiVersion\":\"d.example.com/v1\",\"kind\":\"ResourceHandle\"}"}]}}}`,
		to: api.V1alpha3,
		fields: map[string]string{
			"status.allocation.devices.config[0].opaque": `{"driver":"d","parameters":{"apiVersion":"d.example.com/v1","kind":"ResourceHandle"}}`,
		},
	}, {
		// docs/conversion.md §2.3: vendorRequestParameters become device
		// configuration only as an object of a named resource.
		name: "vendorRequestParameters that are not an object, or of a result without a named resource: no configuration, reported",
		in: v2Claim + `"spec":{"resourceClassName":"gpu","allocationMode":"WaitForFirstConsumer"},
			"status":{"driverName":"d","allocation":{"shareable":true,"resourceHandles":[{"driverName":"d","structuredData":{"nodeName":"n1",
				"results":[{"namedResources":{"name":"gpu-0"},"vendorRequestParameters":"a=1"},{"vendorRequestParameters":{"b":2}}]}}]}}}`,
		to: api.V1alpha3,
		fields: map[string]string{
			"status.allocation.devices.results": `[{"request":"request","driver":"d","pool":"n1","device":"gpu-0"}]`,
			"status.allocation.devices.config":  absent,
		},
		warnings: []string{
			"v1alpha2→v1alpha3 status.allocation.resourceHandles[0].structuredData.results[0].vendorRequestParameters",
			"v1alpha2→v1alpha3 status.allocation.resourceHandles[0].structuredData.results[1].vendorRequestParameters",
		},
	}, {
		// docs/conversion.md §2.3: a structured handle's request parameters
		// are per-device configuration even for its only device: the
		// driver's DeviceParameters config, never its plain claim
		// configuration (which reaches every device of the driver).
		name: "vendorRequestParameters of the only named resource of the only handle: a DeviceParameters config, reported",
		in: v2Claim + `"spec":{"resourceClassName":"gpu","allocationMode":"WaitForFirstConsumer"},
			"status":{"driverName":"d","allocation":{"shareable":true,"resourceHandles":[{"driverName":"d","structuredData":{"nodeName":"n1",
				"results":[{"namedResources":{"name":"gpu-0"},"vendorRequestParameters":{"r":1}}]}}]}}}`,
		to: api.V1alpha3,
		fields: map[string]string{
			"status.allocation.devices.results": `[{"request":"request","driver":"d","pool":"n1","device":"gpu-0"}]`,
			"status.allocation.devices.config": `[{"source":"FromClaim","requests":["request"],"opaque":{"driver":"d","parameters":{"apiVersion":"resource.claimbridge.dev/v1alpha2",
				"kind":"DeviceParameters","devices":[{"device":"gpu-0","parameters":{"r":1}}]}}}]`,
		},
		warnings: []string{"v1alpha2→v1alpha3 status.allocation.resourceHandles[0].structuredData.results[0].vendorRequestParameters"},
	}, {
		// docs/conversion.md §2.3: class and claim parameters become
		// configuration only as objects.
		name: "vendorClassParameters and vendorClaimParameters that are not objects: no configuration, reported",
		in: v2Claim + `"spec":{"resourceClassName":"gpu","allocationMode":"WaitForFirstConsumer"},
			"status":{"driverName":"d","allocation":{"shareable":true,"resourceHandles":[{"driverName":"d","structuredData":{"nodeName":"n1",
				"vendorClassParameters":"c=1","vendorClaimParameters":[1],"results":[{"namedResources":{"name":"gpu-0"}}]}}]}}}`,
		to: api.V1alpha3,
		fields: map[string]string{
			"status.allocation.devices.results": `[{"request":"request","driver":"d","pool":"n1","device":"gpu-0"}]`,
			"status.allocation.devices.config":  absent,
		},
		warnings: []string{
			"v1alpha2→v1alpha3 status.allocation.resourceHandles[0].structuredData.vendorClassParameters",
			"v1alpha2→v1alpha3 status.allocation.resourceHandles[0].structuredData.vendorClaimParameters",
		},
	}, {
		// docs/conversion.md §2.3: a driver's configuration is the
		// parameters of its first handle; other handles' equal ones are
		// that configuration, differing ones are reported.
		name: "structured handles of one driver: equal class parameters silent, differing claim parameters reported",
		in: v2Claim + `"spec":{"resourceClassName":"gpu","allocationMode":"WaitForFirstConsumer"},
			"status":{"driverName":"d","allocation":{"shareable":true,"resourceHandles":[
				{"driverName":"d","structuredData":{"nodeName":"n1","vendorClassParameters":{"c":1},"vendorClaimParameters":{"x":1},"results":[{"namedResources":{"name":"gpu-0"}}]}},
				{"driverName":"d","structuredData":{"nodeName":"n1","vendorClassParameters":{"c":1},"vendorClaimParameters":{"x":2},"results":[{"namedResources":{"name":"gpu-1"}}]}}]}}}`,
		to: api.V1alpha3,
		fields: map[string]string{
			"status.allocation.devices.config": `[{"source":"FromClass","requests":["request"],"opaque":{"driver":"d","parameters":{"c":1}}},
				{"source":"FromClaim","requests":["request"],"opaque":{"driver":"d","parameters":{"x":1}}}]`,
		},
		warnings: []string{"v1alpha2→v1alpha3 status.allocation.resourceHandles[1].structuredData.vendorClaimParameters"},
	}, {
		name: "parametersRef and Immediate: reported (a 1.31 scheduler allocates one device of the class, when a pod needs it)",
		in:   v2Claim + `"spec":{"resourceClassName":"gpu","allocationMode":"Immediate","parametersRef":{"kind":"ResourceClaimParameters","name":"p"}}}`,
		to:   api.V1alpha3,
		fields: map[string]string{
			"spec.devices.requests": `[{"name":"request","deviceClassName":"gpu","allocationMode":"ExactCount","count":1}]`,
		},
		warnings: []string{"v1alpha2→v1alpha3 spec.parametersRef", "v1alpha2→v1alpha3 spec.allocationMode"},
	}, {
		name:     "parametersRef template: reported at spec.spec",
		in:       v2Template + `"spec":{"metadata":{"labels":{"a":"b"}},"spec":{"resourceClassName":"gpu","parametersRef":{"kind":"ResourceClaimParameters","name":"p"}}}}`,
		to:       api.V1alpha3,
		fields:   map[string]string{"spec.spec.devices.requests[0].deviceClassName": `"gpu"`, "spec.metadata": `{"labels":{"a":"b"}}`},
		warnings: []string{"v1alpha2→v1alpha3 spec.spec.parametersRef"},
	}, {
		name:   "plain template: silent",
		in:     v2Template + `"spec":{"spec":{"resourceClassName":"gpu","allocationMode":"WaitForFirstConsumer"}}}`,
		to:     api.V1alpha3,
		fields: map[string]string{"spec.spec.devices.requests[0].deviceClassName": `"gpu"`},
	}, {
		name:   "plain unallocated claim: silent",
		in:     v2Claim + `"spec":{"resourceClassName":"gpu","allocationMode":"WaitForFirstConsumer"},"status":{}}`,
		to:     api.V1alpha3,
		fields: map[string]string{"status": `{}`},
	}, {
		name:     "shareable false: reported (1.31 lets up to 32 consumers reserve the claim)",
		in:       v2Claim + `"spec":{"resourceClassName":"gpu","allocationMode":"WaitForFirstConsumer"},"status":{"driverName":"d","allocation":{"shareable":false,"resourceHandles":[{"driverName":"d"}]}}}`,
		to:       api.V1alpha3,
		fields:   map[string]string{"status.allocation.controller": `"d"`},
		warnings: []string{"v1alpha2→v1alpha3 status.allocation.shareable"},
	}, {
		// shareable is an omitempty bool: every 1.26-1.30 apiserver writes
		// an allocation for one consumer without it.
		name:     "shareable absent: reported as false is",
		in:       v2Claim + `"spec":{"resourceClassName":"gpu","allocationMode":"WaitForFirstConsumer"},"status":{"driverName":"d","allocation":{"resourceHandles":[{"driverName":"d"}]},"reservedFor":[{"resource":"pods","name":"p1","uid":"u1"}]}}`,
		to:       api.V1alpha3,
		fields:   map[string]string{"status.allocation.controller": `"d"`},
		warnings: []string{"v1alpha2→v1alpha3 status.allocation.shareable"},
	}, {
		// The 1.30 scheduler's allocation from parameters asking for no
		// device: no handles, its finalizer. Mapped by shape as classic.
		name:     "structured allocation without handles: reported",
		in:       strings.Replace(v2Claim, `"metadata":{`, `"metadata":{"finalizers":["dra.k8s.io/delete-protection"],`, 1) + `"spec":{"resourceClassName":"gpu","allocationMode":"WaitForFirstConsumer"},"status":{"driverName":"d","allocation":{"shareable":true}}}`,
		to:       api.V1alpha3,
		fields:   map[string]string{"status.allocation.controller": `"d"`},
		warnings: []string{"v1alpha2→v1alpha3 status.allocation"},
	}, {
		name:   "shareable true: silent",
		in:     v2Claim + `"spec":{"resourceClassName":"gpu","allocationMode":"WaitForFirstConsumer"},"status":{"driverName":"d","allocation":{"shareable":true,"resourceHandles":[{"driverName":"d"}]}}}`,
		to:     api.V1alpha3,
		fields: map[string]string{"status.allocation.controller": `"d"`},
	}, {
		name: "list: one warning per item, located by items[i]",
		in: `{"apiVersion":"resource.k8s.io/v1alpha2","kind":"ResourceClaimList","items":[
			{"metadata":{"name":"a"},"spec":{"resourceClassName":"gpu","allocationMode":"WaitForFirstConsumer"}},
			{"metadata":{"name":"b"},"spec":{"resourceClassName":"gpu","parametersRef":{"name":"p"}}}]}`,
		to:       api.V1alpha3,
		fields:   map[string]string{"items[1].spec.devices.requests[0].deviceClassName": `"gpu"`},
		warnings: []string{"v1alpha2→v1alpha3 items[1].spec.parametersRef"},
	}})
}

func TestSemanticV3ToV2(t *testing.T) {
	runSemantic(t, []semanticCase{{
		// A 1.31 claim without requests is allocated with no results: a
		// 1.31 kubelet prepares nothing, a 1.30 kubelet calls the plugin
		// of status.driverName with an empty handle, or fails the pod
		// without one.
		name:     "1.31 classic allocation without results: reported (a 1.30 kubelet calls the controller's plugin)",
		in:       v3Claim + `"spec":{"controller":"ctrl","devices":{}},"status":{"allocation":{"controller":"ctrl","devices":{}}}}`,
		to:       api.V1alpha2,
		fields:   map[string]string{"status.driverName": `"ctrl"`, "status.allocation.resourceHandles": absent},
		warnings: []string{"v1alpha3→v1alpha2 spec.controller", "v1alpha3→v1alpha2 status.allocation.devices.results"},
	}, {
		name:     "1.31 structured allocation without results: reported (a 1.30 kubelet has no plugin to call)",
		in:       v3Claim + `"spec":{"devices":{"requests":[]}},"status":{"allocation":{"devices":{}}}}`,
		to:       api.V1alpha2,
		fields:   map[string]string{"status.driverName": absent, "status.allocation.resourceHandles": absent},
		warnings: []string{"v1alpha3→v1alpha2 status.allocation.devices.results"},
	}, {
		name:     "1.31 allocation without results to v1alpha1: reported once, at the step that loses it",
		in:       v3Claim + `"spec":{"devices":{}},"status":{"allocation":{"devices":{}}}}`,
		to:       api.V1alpha1,
		fields:   map[string]string{"status.driverName": absent, "status.allocation.resourceHandle": absent},
		warnings: []string{"v1alpha3→v1alpha2 status.allocation.devices.results"},
	}, {
		// 1.31's allocator writes the class's configuration once per
		// request: the copies reach the 1.30 driver as the one
		// vendorClassParameters; only a different one is reported.
		name: "1.31 structured allocation of two requests of one class: the class configuration's copies silent",
		in: v3Claim + `"spec":{"devices":{"requests":[{"name":"a","deviceClassName":"gpu","allocationMode":"ExactCount","count":1},{"name":"b","deviceClassName":"gpu","allocationMode":"ExactCount","count":1}]}},
			"status":{"allocation":{"nodeSelector":` + nodeSel + `,"devices":{
				"results":[{"request":"a","driver":"d","pool":"n1","device":"gpu-0"},{"request":"b","driver":"d","pool":"n1","device":"gpu-1"}],
				"config":[{"source":"FromClass","requests":["a"],"opaque":{"driver":"d","parameters":{"cls":1}}},{"source":"FromClass","requests":["b"],"opaque":{"driver":"d","parameters":{"cls":1}}},
					{"source":"FromClass","requests":["b"],"opaque":{"driver":"d","parameters":{"cls":2}}}]}}}}`,
		to:       api.V1alpha2,
		fields:   map[string]string{"status.allocation.resourceHandles[0].structuredData.vendorClassParameters": `{"cls":1}`},
		warnings: []string{"v1alpha3→v1alpha2 spec.devices.requests[1]", "v1alpha3→v1alpha2 status.allocation.devices.config[2]"},
	}, {
		name: "1.31 classic allocation (controller): opaque handles only, driverName = controller; device names reported",
		in: v3Claim + `"spec":{"devices":{"requests":[{"name":"request","deviceClassName":"gpu","allocationMode":"ExactCount","count":1}]}},
			"status":{"allocation":{"controller":"ctrl","nodeSelector":` + nodeSel + `,"devices":{
				"results":[{"request":"request","driver":"d","pool":"n1","device":"gpu-0"}],
				"config":[{"source":"FromClaim","requests":["request"],"opaque":{"driver":"d","parameters":{"x":1}}}]}}}}`,
		to: api.V1alpha2,
		fields: map[string]string{
			"status.driverName":                 `"ctrl"`,
			"status.allocation.resourceHandles": `[{"driverName":"d","data":"{\"x\":1}"}]`,
			"status.allocation.shareable":       `true`,
		},
		warnings: []string{"v1alpha3→v1alpha2 status.allocation.devices.results[0]"},
	}, {
		// docs/conversion.md §2.6, handle data wrapper: exactly its three
		// keys are unwrapped on the way back; a driver's object with a
		// fourth key is its data as JSON text.
		name: "1.31 classic allocation: ResourceHandle wrapper parameters are the handle's data, an object with more keys its JSON",
		in: v3Claim + `"spec":{"devices":{"requests":[{"name":"request","deviceClassName":"gpu","allocationMode":"ExactCount","count":1}]}},
			"status":{"allocation":{"controller":"d","devices":{
				"results":[{"request":"request","driver":"d","pool":"d","device":"handle-0"},{"request":"request","driver":"d","pool":"d","device":"handle-1"}],
				"config":[{"source":"FromClaim","requests":["request"],"opaque":{"driver":"d","parameters":{"apiVersion":"resource.claimbridge.dev/v1alpha2","kind":"DeviceParameters",
					"devices":[{"device":"handle-0","parameters":{"apiVersion":"resource.claimbridge.dev/v1alpha2","kind":"ResourceHandle","data":"gpu=0"}},
						{"device":"handle-1","parameters":{"apiVersion":"resource.claimbridge.dev/v1alpha2","kind":"ResourceHandle","data":"gpu=1","x":1}}]}}}]}}}}`,
		to: api.V1alpha2,
		fields: map[string]string{
			"status.allocation.resourceHandles": `[{"driverName":"d","data":"gpu=0"},
				{"driverName":"d","data":"{\"apiVersion\":\"resource.claimbridge.dev/v1alpha2\",\"data\":\"gpu=1\",\"kind\":\"ResourceHandle\",\"x\":1}"}]`,
		},
	}, {
		// docs/conversion.md §2.4: a 1.31 driver applies an entry to the
		// devices of the requests it names only; a 1.30 handle's parameters
		// reach all its devices. Another driver's entry is no widening.
		name: "1.31 structured allocation: configuration scoped to some of a driver's requests reported, another driver's not",
		in: v3Claim + `"spec":{"devices":{"requests":[{"name":"r1","deviceClassName":"gpu","allocationMode":"ExactCount","count":1},{"name":"r2","deviceClassName":"nic","allocationMode":"ExactCount","count":1}]}},
			"status":{"allocation":{"devices":{
				"results":[{"request":"r2","driver":"e","pool":"n1","device":"nic-0"},{"request":"r1","driver":"d","pool":"n1","device":"gpu-0"},{"request":"r2","driver":"d","pool":"n1","device":"gpu-1"}],
				"config":[{"source":"FromClaim","requests":["r2"],"opaque":{"driver":"e","parameters":{"e":1}}},{"source":"FromClaim","requests":["r1"],"opaque":{"driver":"d","parameters":{"d":1}}}]}}}}`,
		to: api.V1alpha2,
		fields: map[string]string{
			"status.driverName": `"e"`,
			"status.allocation.resourceHandles": `[{"driverName":"e","structuredData":{"nodeName":"n1","vendorClaimParameters":{"e":1},"results":[{"namedResources":{"name":"nic-0"}}]}},
				{"driverName":"d","structuredData":{"nodeName":"n1","vendorClaimParameters":{"d":1},"results":[{"namedResources":{"name":"gpu-0"}},{"namedResources":{"name":"gpu-1"}}]}}]`,
		},
		warnings: []string{"v1alpha3→v1alpha2 spec.devices.requests[1]", "v1alpha3→v1alpha2 status.allocation.devices.config[1].requests"},
	}, {
		// Only copies (the same source and opaque configuration) scope an
		// entry together: a claim configuration equal to the class's is
		// another entry, and each is widened on its own.
		name: "1.31 structured allocation: class and claim configuration alike but scoped to different requests, each reported",
		in: v3Claim + `"spec":{"devices":{"requests":[{"name":"r1","deviceClassName":"gpu","allocationMode":"ExactCount","count":1},{"name":"r2","deviceClassName":"gpu","allocationMode":"ExactCount","count":1}]}},
			"status":{"allocation":{"devices":{
				"results":[{"request":"r1","driver":"d","pool":"n1","device":"gpu-0"},{"request":"r2","driver":"d","pool":"n1","device":"gpu-1"}],
				"config":[{"source":"FromClass","requests":["r1"],"opaque":{"driver":"d","parameters":{"c":1}}},{"source":"FromClaim","requests":["r2"],"opaque":{"driver":"d","parameters":{"c":1}}}]}}}}`,
		to: api.V1alpha2,
		fields: map[string]string{
			"status.allocation.resourceHandles": `[{"driverName":"d","structuredData":{"nodeName":"n1","vendorClassParameters":{"c":1},"vendorClaimParameters":{"c":1},
				"results":[{"namedResources":{"name":"gpu-0"}},{"namedResources":{"name":"gpu-1"}}]}}]`,
		},
		warnings: []string{"v1alpha3→v1alpha2 spec.devices.requests[1]", "v1alpha3→v1alpha2 status.allocation.devices.config[0].requests", "v1alpha3→v1alpha2 status.allocation.devices.config[1].requests"},
	}, {
		// Copies of a class's configuration, one of them for every
		// request, are configuration for every device of the driver.
		name: "1.31 structured allocation: a class configuration with a copy for all requests is not widened, silent but for the further request",
		in: v3Claim + `"spec":{"devices":{"requests":[{"name":"r1","deviceClassName":"gpu","allocationMode":"ExactCount","count":1},{"name":"r2","deviceClassName":"gpu","allocationMode":"ExactCount","count":1}]}},
			"status":{"allocation":{"devices":{
				"results":[{"request":"r1","driver":"d","pool":"n1","device":"gpu-0"},{"request":"r2","driver":"d","pool":"n1","device":"gpu-1"}],
				"config":[{"source":"FromClass","requests":["r1"],"opaque":{"driver":"d","parameters":{"c":1}}},{"source":"FromClass","opaque":{"driver":"d","parameters":{"c":1}}}]}}}}`,
		to: api.V1alpha2,
		fields: map[string]string{
			"status.allocation.resourceHandles": `[{"driverName":"d","structuredData":{"nodeName":"n1","vendorClassParameters":{"c":1},"results":[{"namedResources":{"name":"gpu-0"}},{"namedResources":{"name":"gpu-1"}}]}}]`,
		},
		warnings: []string{"v1alpha3→v1alpha2 spec.devices.requests[1]"},
	}, {
		// docs/conversion.md §2.4: results of one driver whose devices are
		// all handle-<i> give one classic handle per result.
		name: "1.31 classic allocation of handle devices: one handle per result, silent",
		in: v3Claim + `"spec":{"devices":{"requests":[{"name":"request","deviceClassName":"gpu","allocationMode":"ExactCount","count":1}]}},
			"status":{"allocation":{"controller":"d","devices":{
				"results":[{"request":"request","driver":"d","pool":"d","device":"handle-0"},{"request":"request","driver":"d","pool":"d","device":"handle-1"}]}}}}`,
		to: api.V1alpha2,
		fields: map[string]string{
			"status.allocation.resourceHandles": `[{"driverName":"d"},{"driverName":"d"}]`,
		},
	}, {
		// docs/conversion.md §2.4: the k-th plain FromClaim entry is the
		// k-th handle's data. A 1.31 driver applies an entry to every device
		// of the requests it names, so a handle left without one loses it.
		name: "1.31 classic allocation of handle devices with one claim configuration: the second handle has no data; reported",
		in: v3Claim + `"spec":{"devices":{"requests":[{"name":"request","deviceClassName":"gpu","allocationMode":"ExactCount","count":1}]}},
			"status":{"allocation":{"controller":"d","devices":{
				"results":[{"request":"request","driver":"d","pool":"d","device":"handle-0"},{"request":"request","driver":"d","pool":"d","device":"handle-1"}],
				"config":[{"source":"FromClaim","opaque":{"driver":"d","parameters":{"x":1}}}]}}}}`,
		to: api.V1alpha2,
		fields: map[string]string{
			"status.allocation.resourceHandles": `[{"driverName":"d","data":"{\"x\":1}"},{"driverName":"d"}]`,
		},
		warnings: []string{"v1alpha3→v1alpha2 status.allocation.devices.results[1]"},
	}, {
		name: "1.31 classic allocation of handle devices with as many claim configurations: one each, silent",
		in: v3Claim + `"spec":{"devices":{"requests":[{"name":"request","deviceClassName":"gpu","allocationMode":"ExactCount","count":1}]}},
			"status":{"allocation":{"controller":"d","devices":{
				"results":[{"request":"request","driver":"d","pool":"d","device":"handle-0"},{"request":"request","driver":"d","pool":"d","device":"handle-1"}],
				"config":[{"source":"FromClaim","requests":["request"],"opaque":{"driver":"d","parameters":{"x":1}}},{"source":"FromClaim","requests":["request"],"opaque":{"driver":"d","parameters":{"x":2}}}]}}}}`,
		to: api.V1alpha2,
		fields: map[string]string{
			"status.allocation.resourceHandles": `[{"driverName":"d","data":"{\"x\":1}"},{"driverName":"d","data":"{\"x\":2}"}]`,
		},
	}, {
		name: "1.31 classic allocation of handle devices whose claim configuration names another request: the handle without data is not reported for it",
		in: v3Claim + `"spec":{"devices":{"requests":[{"name":"a","deviceClassName":"gpu","allocationMode":"ExactCount","count":1},{"name":"b","deviceClassName":"gpu","allocationMode":"ExactCount","count":1}]}},
			"status":{"allocation":{"controller":"d","devices":{
				"results":[{"request":"a","driver":"d","pool":"d","device":"handle-0"},{"request":"b","driver":"d","pool":"d","device":"handle-1"}],
				"config":[{"source":"FromClaim","requests":["a"],"opaque":{"driver":"d","parameters":{"x":1}}}]}}}}`,
		to: api.V1alpha2,
		fields: map[string]string{
			"status.allocation.resourceHandles": `[{"driverName":"d","data":"{\"x\":1}"},{"driverName":"d"}]`,
		},
		warnings: []string{"v1alpha3→v1alpha2 spec.devices.requests[1]"},
	}, {
		name: "1.31 classic allocation of handle devices whose claim configuration names the second request: the first handle carries it, the second none; both reported",
		in: v3Claim + `"spec":{"devices":{"requests":[{"name":"a","deviceClassName":"gpu","allocationMode":"ExactCount","count":1},{"name":"b","deviceClassName":"gpu","allocationMode":"ExactCount","count":1}]}},
			"status":{"allocation":{"controller":"d","devices":{
				"results":[{"request":"a","driver":"d","pool":"d","device":"handle-0"},{"request":"b","driver":"d","pool":"d","device":"handle-1"}],
				"config":[{"source":"FromClaim","requests":["b"],"opaque":{"driver":"d","parameters":{"x":1}}}]}}}}`,
		to: api.V1alpha2,
		fields: map[string]string{
			"status.allocation.resourceHandles": `[{"driverName":"d","data":"{\"x\":1}"},{"driverName":"d"}]`,
		},
		warnings: []string{"v1alpha3→v1alpha2 spec.devices.requests[1]", "v1alpha3→v1alpha2 status.allocation.devices.results[0]", "v1alpha3→v1alpha2 status.allocation.devices.results[1]"},
	}, {
		name: "1.31 classic allocation with DeviceParameters naming a device twice: the first entry with parameters is its handle's data",
		in: v3Claim + `"spec":{"devices":{"requests":[{"name":"request","deviceClassName":"gpu","allocationMode":"ExactCount","count":1}]}},
			"status":{"allocation":{"controller":"d","devices":{
				"results":[{"request":"request","driver":"d","pool":"d","device":"handle-0"},{"request":"request","driver":"d","pool":"d","device":"handle-1"}],
				"config":[{"source":"FromClaim","requests":["request"],"opaque":{"driver":"d","parameters":{"apiVersion":"resource.claimbridge.dev/v1alpha2","kind":"DeviceParameters",
					"devices":[{"device":"handle-0"},{"device":"handle-0","parameters":{"gpu":0}},{"device":"handle-0","parameters":{"gpu":2}},{"device":"handle-1","parameters":{"gpu":1}}]}}}]}}}}`,
		to: api.V1alpha2,
		fields: map[string]string{
			"status.allocation.resourceHandles": `[{"driverName":"d","data":"{\"gpu\":0}"},{"driverName":"d","data":"{\"gpu\":1}"}]`,
		},
	}, {
		name: "1.31 classic allocation with DeviceParameters naming one request: a device of another request with an entry reported, one without silent",
		in: v3Claim + `"spec":{"devices":{"requests":[{"name":"a","deviceClassName":"gpu","allocationMode":"ExactCount","count":1},{"name":"b","deviceClassName":"gpu","allocationMode":"ExactCount","count":1}]}},
			"status":{"allocation":{"controller":"d","devices":{
				"results":[{"request":"a","driver":"d","pool":"d","device":"handle-0"},{"request":"b","driver":"d","pool":"d","device":"handle-1"},{"request":"b","driver":"d","pool":"d","device":"handle-2"}],
				"config":[{"source":"FromClaim","requests":["a"],"opaque":{"driver":"d","parameters":{"apiVersion":"resource.claimbridge.dev/v1alpha2","kind":"DeviceParameters",
					"devices":[{"device":"handle-0","parameters":{"gpu":0}},{"device":"handle-1","parameters":{"gpu":1}}]}}}]}}}}`,
		to: api.V1alpha2,
		fields: map[string]string{
			"status.allocation.resourceHandles": `[{"driverName":"d","data":"{\"gpu\":0}"},{"driverName":"d","data":"{\"gpu\":1}"},{"driverName":"d"}]`,
		},
		warnings: []string{"v1alpha3→v1alpha2 spec.devices.requests[1]", "v1alpha3→v1alpha2 status.allocation.devices.results[1]"},
	}, {
		name: "1.31 classic allocation of a handle device and a device named handle-<not a number>: one handle for the driver; device names reported",
		in: v3Claim + `"spec":{"devices":{"requests":[{"name":"request","deviceClassName":"gpu","allocationMode":"ExactCount","count":1}]}},
			"status":{"allocation":{"controller":"d","devices":{
				"results":[{"request":"request","driver":"d","pool":"d","device":"handle-0"},{"request":"request","driver":"d","pool":"d","device":"handle-gpu"}]}}}}`,
		to: api.V1alpha2,
		fields: map[string]string{
			"status.allocation.resourceHandles": `[{"driverName":"d"}]`,
		},
		warnings: []string{"v1alpha3→v1alpha2 status.allocation.devices.results[0]", "v1alpha3→v1alpha2 status.allocation.devices.results[1]"},
	}, {
		name: "1.31 structured allocation (no controller): structuredData with the node of the nodeSelector and one named resource per device; silent",
		in: v3Claim + `"spec":{"devices":{"requests":[{"name":"request","deviceClassName":"gpu","allocationMode":"ExactCount","count":1}]}},
			"status":{"allocation":{"nodeSelector":` + nodeSel + `,"devices":{
				"results":[{"request":"request","driver":"d","pool":"pool-a","device":"gpu-0"},{"request":"request","driver":"d","pool":"pool-a","device":"gpu-1"}],
				"config":[{"source":"FromClass","requests":["request"],"opaque":{"driver":"d","parameters":{"cls":1}}}]}}}}`,
		to: api.V1alpha2,
		fields: map[string]string{
			"status.driverName": `"d"`,
			"status.allocation.resourceHandles": `[{"driverName":"d","structuredData":{"nodeName":"n1","vendorClassParameters":{"cls":1},
				"results":[{"namedResources":{"name":"gpu-0"}},{"namedResources":{"name":"gpu-1"}}]}}]`,
			"status.allocation.availableOnNodes": nodeSel,
		},
	}, {
		name: "DeviceParameters config: per-device vendorRequestParameters and claim parameters",
		in: v3Claim + `"spec":{"devices":{"requests":[{"name":"request","deviceClassName":"gpu","allocationMode":"ExactCount","count":1}]}},
			"status":{"allocation":{"devices":{
				"results":[{"request":"request","driver":"d","pool":"n1","device":"gpu-0"},{"request":"request","driver":"d","pool":"n1","device":"gpu-1"}],
				"config":[{"source":"FromClaim","requests":["request"],"opaque":{"driver":"d","parameters":{"apiVersion":"resource.claimbridge.dev/v1alpha2",
					"kind":"DeviceParameters","claimParameters":{"c":0},"devices":[{"device":"gpu-1","parameters":{"b":2}}]}}}]}}}}`,
		to: api.V1alpha2,
		fields: map[string]string{
			"status.allocation.resourceHandles": `[{"driverName":"d","structuredData":{"nodeName":"n1","vendorClaimParameters":{"c":0},
				"results":[{"namedResources":{"name":"gpu-0"}},{"namedResources":{"name":"gpu-1"},"vendorRequestParameters":{"b":2}}]}}]`,
		},
	}, {
		name: "config a 1.30 driver never receives: reported",
		in: v3Claim + `"spec":{"devices":{"requests":[{"name":"request","deviceClassName":"gpu","allocationMode":"ExactCount","count":1}]}},
			"status":{"allocation":{"devices":{
				"results":[{"request":"request","driver":"d","pool":"n1","device":"gpu-0"}],
				"config":[{"source":"FromClaim","opaque":{"driver":"d","parameters":{"a":1}}},{"source":"FromClaim","opaque":{"driver":"d","parameters":{"b":2}}},
					{"source":"FromClaim","opaque":{"driver":"other","parameters":{"c":3}}}]}}}}`,
		to:     api.V1alpha2,
		fields: map[string]string{"status.allocation.resourceHandles[0].structuredData.vendorClaimParameters": `{"a":1}`},
		warnings: []string{
			"v1alpha3→v1alpha2 status.allocation.devices.config[1]",
			"v1alpha3→v1alpha2 status.allocation.devices.config[2]",
		},
	}, {
		name: "count, selectors, admin access, further requests, constraints, config and controller: reported",
		in: v3Claim + `"spec":{"controller":"ctrl","devices":{"requests":[{"name":"gpu","deviceClassName":"gpu","count":2,"adminAccess":true,
				"selectors":[{"cel":{"expression":"true"}}]},{"name":"nic","deviceClassName":"nic","allocationMode":"All"}],
				"constraints":[{"matchAttribute":"x.example.com/numa"}],"config":[{"opaque":{"driver":"d","parameters":{}}}]}}}`,
		to:     api.V1alpha2,
		fields: map[string]string{"spec": `{"resourceClassName":"gpu","allocationMode":"WaitForFirstConsumer"}`},
		warnings: []string{
			"v1alpha3→v1alpha2 spec.devices.requests[0].selectors",
			"v1alpha3→v1alpha2 spec.devices.requests[0].count",
			"v1alpha3→v1alpha2 spec.devices.requests[0].adminAccess",
			"v1alpha3→v1alpha2 spec.devices.requests[1]",
			"v1alpha3→v1alpha2 spec.devices.constraints",
			"v1alpha3→v1alpha2 spec.devices.config",
			"v1alpha3→v1alpha2 spec.controller",
		},
	}, {
		name:     "template with allocationMode All: reported at spec.spec",
		in:       v3Template + `"spec":{"spec":{"devices":{"requests":[{"name":"gpu","deviceClassName":"gpu","allocationMode":"All"}]}}}}`,
		to:       api.V1alpha2,
		fields:   map[string]string{"spec.spec": `{"resourceClassName":"gpu","allocationMode":"WaitForFirstConsumer"}`},
		warnings: []string{"v1alpha3→v1alpha2 spec.spec.devices.requests[0].allocationMode"},
	}, {
		name:   "plain claim with its request name, ExactCount and count 1: silent",
		in:     v3Claim + `"spec":{"devices":{"requests":[{"name":"gpu","deviceClassName":"gpu","allocationMode":"ExactCount","count":1}]}}}`,
		to:     api.V1alpha2,
		fields: map[string]string{"spec": `{"resourceClassName":"gpu","allocationMode":"WaitForFirstConsumer"}`},
	}, {
		// null stands for absent (docs/conversion.md §2.10): 1.31 defaults
		// the count of an ExactCount request without one to 1.
		name:   "request with count null: silent",
		in:     v3Claim + `"spec":{"devices":{"requests":[{"name":"gpu","deviceClassName":"gpu","allocationMode":"ExactCount","count":null}]}}}`,
		to:     api.V1alpha2,
		fields: map[string]string{"spec": `{"resourceClassName":"gpu","allocationMode":"WaitForFirstConsumer"}`},
	}, {
		name:   "plain template: silent",
		in:     v3Template + `"spec":{"spec":{"devices":{"requests":[{"name":"gpu","deviceClassName":"gpu"}]}}}}`,
		to:     api.V1alpha2,
		fields: map[string]string{"spec.spec": `{"resourceClassName":"gpu","allocationMode":"WaitForFirstConsumer"}`},
	}})
}

func TestSemanticV2ToV1(t *testing.T) {
	runSemantic(t, []semanticCase{{
		name: "foreign-driver handles: resourceHandle is the data of status.driverName's handle; the others are reported",
		in: v2Claim + `"spec":{"resourceClassName":"gpu","allocationMode":"WaitForFirstConsumer"},
			"status":{"driverName":"d","allocation":{"shareable":true,"resourceHandles":[{"driverName":"plugin","data":"p"},{"driverName":"d","data":"mine"},{"driverName":"d","data":"more"}]}}}`,
		to:     api.V1alpha1,
		fields: map[string]string{"status.allocation.resourceHandle": `"mine"`, "status.driverName": `"d"`},
		warnings: []string{
			"v1alpha2→v1alpha1 status.allocation.resourceHandles[0]",
			"v1alpha2→v1alpha1 status.allocation.resourceHandles[2]",
		},
	}, {
		name: "two handles of status.driverName's driver: resourceHandle is the first's data; the further one is reported",
		in: v2Claim + `"spec":{"resourceClassName":"gpu","allocationMode":"WaitForFirstConsumer"},
			"status":{"driverName":"d","allocation":{"shareable":true,"resourceHandles":[{"driverName":"d","data":"mine"},{"driverName":"d","data":"more"}]}}}`,
		to:       api.V1alpha1,
		fields:   map[string]string{"status.allocation.resourceHandle": `"mine"`, "status.driverName": `"d"`},
		warnings: []string{"v1alpha2→v1alpha1 status.allocation.resourceHandles[1]"},
	}, {
		name: "only foreign handles: no resourceHandle (a 1.26 kubelet would hand it to the wrong plugin)",
		in: v2Claim + `"spec":{"resourceClassName":"gpu","allocationMode":"WaitForFirstConsumer"},
			"status":{"driverName":"d","allocation":{"shareable":true,"resourceHandles":[{"driverName":"plugin","data":"p"}]}}}`,
		to:       api.V1alpha1,
		fields:   map[string]string{"status.allocation.resourceHandle": absent},
		warnings: []string{"v1alpha2→v1alpha1 status.allocation.resourceHandles[0]"},
	}, {
		name: "1.30 structured claim: reported",
		in: v2Claim + `"spec":{"resourceClassName":"gpu","allocationMode":"WaitForFirstConsumer"},
			"status":{"driverName":"d","allocation":{"shareable":true,"resourceHandles":[{"driverName":"d","structuredData":{"results":[{"namedResources":{"name":"x"}}]}}]}}}`,
		to:       api.V1alpha1,
		fields:   map[string]string{"status.allocation": `{"shareable":true}`},
		warnings: []string{"v1alpha2→v1alpha1 status.allocation.resourceHandles[0].structuredData"},
	}, {
		name: "plain classic claim and parametersRef (1.26 has it too): silent",
		in: v2Claim + `"spec":{"resourceClassName":"gpu","parametersRef":{"kind":"ConfigMap","name":"p"}},
			"status":{"driverName":"d","allocation":{"shareable":true,"resourceHandles":[{"driverName":"d","data":"h"}]}}}`,
		to:     api.V1alpha1,
		fields: map[string]string{"status.allocation.resourceHandle": `"h"`, "metadata.annotations": absent},
	}})
}

func TestSemanticAcrossTwoSteps(t *testing.T) {
	runSemantic(t, []semanticCase{{
		name: "1.26 classic claim to v1alpha3: controller, silent",
		in: v1Claim + `"spec":{"resourceClassName":"gpu","allocationMode":"WaitForFirstConsumer"},
			"status":{"driverName":"d","allocation":{"shareable":true,"resourceHandle":"{\"a\":1}"}}}`,
		to: api.V1alpha3,
		fields: map[string]string{
			"status.allocation.controller":               `"d"`,
			"status.allocation.devices.config[0].opaque": `{"driver":"d","parameters":{"a":1}}`,
		},
	}, {
		name: "1.31 multi-driver structured allocation to v1alpha1: each step reports its own losses",
		in: v3Claim + `"spec":{"devices":{"requests":[{"name":"request","deviceClassName":"gpu","allocationMode":"ExactCount","count":1}]}},
			"status":{"allocation":{"devices":{"results":[{"request":"request","driver":"a","pool":"n","device":"x"},{"request":"request","driver":"b","pool":"n","device":"y"}]}}}}`,
		to:     api.V1alpha1,
		fields: map[string]string{"status.driverName": `"a"`, "status.allocation": `{"shareable":true}`},
		warnings: []string{
			"v1alpha2→v1alpha1 status.allocation.resourceHandles[0].structuredData",
			"v1alpha2→v1alpha1 status.allocation.resourceHandles[1]",
		},
	}})
}

// TestWarningString pins whole warnings, messages included: the paths the
// semantic tables compare do not tell a message that names the wrong thing.
func TestWarningString(t *testing.T) {
	for _, c := range []struct {
		name, in, to string
		want         []string
	}{{
		name: "allocation mode",
		in:   v2Claim + `"spec":{"resourceClassName":"gpu","allocationMode":"Immediate"}}`,
		to:   api.V1alpha3,
		want: []string{`ResourceClaim ns/c: spec.allocationMode: 1.31 has no allocation mode "Immediate": the claim is allocated only when the first pod that uses it is scheduled (v1alpha2→v1alpha3)`},
	}, {
		// docs/conversion.md §2.4: a 1.30 kubelet calls the plugin of
		// status.driverName with an empty handle, or fails the pod without one.
		name: "classic allocation without results: names the plugin a 1.30 kubelet calls",
		in:   v3Claim + `"spec":{"devices":{}},"status":{"allocation":{"controller":"ctrl","devices":{}}}}`,
		to:   api.V1alpha2,
		want: []string{`ResourceClaim ns/c: status.allocation.devices.results: a 1.31 kubelet prepares nothing for an allocation without results; a 1.27–1.30 kubelet calls the kubelet plugin of "ctrl" with an empty handle (v1alpha3→v1alpha2)`},
	}, {
		name: "structured allocation without results: no plugin to call",
		in:   v3Claim + `"spec":{"devices":{}},"status":{"allocation":{"devices":{}}}}`,
		to:   api.V1alpha2,
		want: []string{`ResourceClaim ns/c: status.allocation.devices.results: a 1.31 kubelet prepares nothing for an allocation without results; a 1.27–1.30 kubelet looks for the kubelet plugin named status.driverName, which this allocation has none of, and does not start the pod (v1alpha3→v1alpha2)`},
	}} {
		t.Run(c.name, func(t *testing.T) {
			_, ws, err := conversion.ConvertWithWarnings(tblDecode(t, c.in), c.to)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, w := range ws {
				got = append(got, w.String())
			}
			if diff := cmp.Diff(c.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
