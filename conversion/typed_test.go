package conversion_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/api/v1alpha2"
	"github.com/claimbridge/claimbridge/api/v1alpha3"
	"github.com/claimbridge/claimbridge/conversion"
)

// typedClaim130 is an allocated 1.30 claim as a driver's Go code holds it:
// no TypeMeta, parameters and Immediate allocation that 1.31 cannot say.
func typedClaim130() *v1alpha2.ResourceClaim {
	return &v1alpha2.ResourceClaim{
		ObjectMeta: metav1.ObjectMeta{Name: "gpu", Namespace: "ml", Labels: map[string]string{"app": "trainer"}},
		Spec: v1alpha2.ResourceClaimSpec{
			ResourceClassName: "gpu.example.com",
			ParametersRef:     &v1alpha2.ResourceClaimParametersReference{APIGroup: "gpu.example.com", Kind: "GpuClaimParameters", Name: "two"},
			AllocationMode:    v1alpha2.AllocationModeImmediate,
		},
		Status: v1alpha2.ResourceClaimStatus{
			DriverName: "gpu.example.com",
			Allocation: &v1alpha2.AllocationResult{
				ResourceHandles: []v1alpha2.ResourceHandle{{DriverName: "gpu.example.com", Data: `{"gpus":2}`}},
				AvailableOnNodes: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{
					MatchFields: []corev1.NodeSelectorRequirement{{Key: "metadata.name", Operator: corev1.NodeSelectorOpIn, Values: []string{"worker-1"}}},
				}}},
				Shareable: true,
			},
			ReservedFor: []v1alpha2.ResourceClaimConsumerReference{{Resource: "pods", Name: "trainer-0", UID: "3c4d5e6f"}},
		},
	}
}

func withAPIVersion(c *v1alpha2.ResourceClaim, apiVersion string) *v1alpha2.ResourceClaim {
	c.APIVersion, c.Kind = apiVersion, "ResourceClaim"
	return c
}

// TestConvertTyped: ConvertTyped is ConvertWithWarnings of the tree of its
// input, with apiVersion and kind from the Go type where TypeMeta is empty,
// decoded into out; it refuses what the types cannot say, leaves its input
// alone and replaces out, or leaves it alone on an error.
func TestConvertTyped(t *testing.T) {
	tests := map[string]struct {
		in  runtime.Object
		out func() runtime.Object
		// tree is what ConvertWithWarnings is given for the same conversion.
		tree    map[string]interface{}
		wantErr string
	}{
		"v1alpha2-without-typemeta-to-v1alpha3": {
			in:   typedClaim130(),
			out:  func() runtime.Object { return &v1alpha3.ResourceClaim{} },
			tree: mustTree(withAPIVersion(typedClaim130(), "resource.claimbridge.dev/v1alpha2")),
		},
		"v1alpha2-of-resource.k8s.io-to-v1": {
			in:   withAPIVersion(typedClaim130(), "resource.k8s.io/v1alpha2"),
			out:  func() runtime.Object { return &resourcev1.ResourceClaim{} },
			tree: mustTree(withAPIVersion(typedClaim130(), "resource.k8s.io/v1alpha2")),
		},
		"v1alpha2-of-resource.k8s.io-to-v1alpha3": {
			in:   withAPIVersion(typedClaim130(), "resource.k8s.io/v1alpha2"),
			out:  func() runtime.Object { return &v1alpha3.ResourceClaim{} },
			tree: mustTree(withAPIVersion(typedClaim130(), "resource.k8s.io/v1alpha2")),
		},
		"same-version": {
			in:   typedClaim130(),
			out:  func() runtime.Object { return &v1alpha2.ResourceClaim{} },
			tree: mustTree(withAPIVersion(typedClaim130(), "resource.claimbridge.dev/v1alpha2")),
		},
		"list": {
			in: &v1alpha2.ResourceClaimList{Items: []v1alpha2.ResourceClaim{*typedClaim130(), *typedClaim130()}},
			out: func() runtime.Object {
				return &v1alpha3.ResourceClaimList{}
			},
			tree: mustTree(&v1alpha2.ResourceClaimList{
				TypeMeta: metav1.TypeMeta{APIVersion: "resource.claimbridge.dev/v1alpha2", Kind: "ResourceClaimList"},
				Items:    []v1alpha2.ResourceClaim{*typedClaim130(), *typedClaim130()},
			}),
		},
		// Items that name resource.k8s.io (as ConvertTyped's results do)
		// make a list without TypeMeta one of that group.
		"list-of-resource.k8s.io-items": {
			in: &v1alpha2.ResourceClaimList{Items: []v1alpha2.ResourceClaim{
				*withAPIVersion(typedClaim130(), "resource.k8s.io/v1alpha2"), *typedClaim130(),
			}},
			out: func() runtime.Object { return &resourcev1.ResourceClaimList{} },
			tree: mustTree(&v1alpha2.ResourceClaimList{
				TypeMeta: metav1.TypeMeta{APIVersion: "resource.k8s.io/v1alpha2", Kind: "ResourceClaimList"},
				Items:    []v1alpha2.ResourceClaim{*withAPIVersion(typedClaim130(), "resource.k8s.io/v1alpha2"), *typedClaim130()},
			}),
		},
		"template": {
			in: &v1alpha2.ResourceClaimTemplate{
				ObjectMeta: metav1.ObjectMeta{Name: "t", Namespace: "ml"},
				Spec:       v1alpha2.ResourceClaimTemplateSpec{Spec: typedClaim130().Spec},
			},
			out: func() runtime.Object { return &v1alpha3.ResourceClaimTemplate{} },
			tree: mustTree(&v1alpha2.ResourceClaimTemplate{
				TypeMeta:   metav1.TypeMeta{APIVersion: "resource.claimbridge.dev/v1alpha2", Kind: "ResourceClaimTemplate"},
				ObjectMeta: metav1.ObjectMeta{Name: "t", Namespace: "ml"},
				Spec:       v1alpha2.ResourceClaimTemplateSpec{Spec: typedClaim130().Spec},
			}),
		},
		"claimbridge-group-to-k8s.io-type": {
			in:  typedClaim130(),
			out: func() runtime.Object { return &resourcev1.ResourceClaim{} },
			wantErr: "target version v1 is not served by group resource.claimbridge.dev (only v1alpha1, v1alpha2, v1alpha3); it is a version of resource.k8s.io, " +
				"reached from manifests of that group: to move this object to the built-in API, give it apiVersion resource.k8s.io/v1alpha2",
		},
		"claim-into-template": {
			in:      typedClaim130(),
			out:     func() runtime.Object { return &v1alpha3.ResourceClaimTemplate{} },
			wantErr: "cannot convert a ResourceClaim (*v1alpha2.ResourceClaim) into a ResourceClaimTemplate (*v1alpha3.ResourceClaimTemplate)",
		},
		"typemeta-of-another-version": {
			in:      withAPIVersion(typedClaim130(), "resource.claimbridge.dev/v1alpha3"),
			out:     func() runtime.Object { return &v1alpha3.ResourceClaim{} },
			wantErr: `*v1alpha2.ResourceClaim has apiVersion "resource.claimbridge.dev/v1alpha3", which its type cannot hold: want resource.claimbridge.dev/v1alpha2 or an empty apiVersion`,
		},
		"typemeta-of-another-group": {
			in:      withAPIVersion(typedClaim130(), "example.com/v1alpha2"),
			out:     func() runtime.Object { return &v1alpha3.ResourceClaim{} },
			wantErr: `*v1alpha2.ResourceClaim has apiVersion "example.com/v1alpha2", which its type cannot hold: want resource.claimbridge.dev/v1alpha2 or an empty apiVersion`,
		},
		"typemeta-of-another-kind": {
			in: func() runtime.Object {
				c := typedClaim130()
				c.Kind = "ResourceClaimTemplate"
				return c
			}(),
			out:     func() runtime.Object { return &v1alpha3.ResourceClaim{} },
			wantErr: `*v1alpha2.ResourceClaim has kind "ResourceClaimTemplate": want ResourceClaim or an empty kind`,
		},
		"k8s.io-type-of-claimbridge-group": {
			in: &resourcev1.ResourceClaim{TypeMeta: metav1.TypeMeta{APIVersion: "resource.claimbridge.dev/v1"}},
			out: func() runtime.Object {
				return &v1alpha3.ResourceClaim{}
			},
			wantErr: `*v1.ResourceClaim has apiVersion "resource.claimbridge.dev/v1", which its type cannot hold: want resource.k8s.io/v1 or an empty apiVersion`,
		},
		"another-kind-of-the-group": {
			in:      &resourcev1.DeviceClass{},
			out:     func() runtime.Object { return &v1alpha3.ResourceClaim{} },
			wantErr: "*v1.DeviceClass is not a claim, template or list type of claimbridge's api/v1alpha1, v1alpha2 or v1alpha3 or of k8s.io/api/resource/v1beta1, v1beta2 or v1",
		},
		"unstructured-of-another-group": {
			in:      &unstructured.Unstructured{Object: map[string]interface{}{"apiVersion": "example.com/v1alpha2", "kind": "ResourceClaim"}},
			out:     func() runtime.Object { return &v1alpha3.ResourceClaim{} },
			wantErr: "*unstructured.Unstructured is not typed: convert its JSON tree (UnstructuredContent) with Convert or ConvertWithWarnings",
		},
		"unstructured-out": {
			in:      typedClaim130(),
			out:     func() runtime.Object { return &unstructured.Unstructured{} },
			wantErr: "*unstructured.Unstructured is not typed: convert its JSON tree (UnstructuredContent) with Convert or ConvertWithWarnings",
		},
		"no-out": {
			in:      typedClaim130(),
			out:     func() runtime.Object { return (*v1alpha3.ResourceClaim)(nil) },
			wantErr: "no object (*v1alpha3.ResourceClaim)",
		},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			before := mustJSON(tt.in)
			// out holds what the result does not: it must be replaced.
			out := tt.out()
			if m, ok := out.(metav1.Object); ok && !reflect.ValueOf(out).IsNil() {
				m.SetAnnotations(map[string]string{"stale": "true"})
			}
			outBefore := mustJSON(out)
			warnings, err := conversion.ConvertTyped(tt.in, out)
			if diff := cmp.Diff(before, mustJSON(tt.in)); diff != "" {
				t.Errorf("ConvertTyped modified its input (-before +after):\n%s", diff)
			}
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("error:\n got %v\nwant %s", err, tt.wantErr)
				}
				if got := mustJSON(out); got != outBefore {
					t.Errorf("out changed on an error:\n%s\n%s", outBefore, got)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			wantTree, wantWarnings, err := conversion.ConvertWithWarnings(tt.tree, version(out))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(wantWarnings, warnings); diff != "" {
				t.Errorf("warnings (-ConvertWithWarnings +ConvertTyped):\n%s", diff)
			}
			want := reflect.New(reflect.TypeOf(out).Elem()).Interface()
			if err := json.Unmarshal([]byte(mustJSON(wantTree)), want); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, out); diff != "" {
				t.Errorf("result (-ConvertWithWarnings +ConvertTyped):\n%s", diff)
			}
		})
	}
}

// TestConvertTypedRoundTrip: a typed claim converted to another type and
// back is the claim again, with the TypeMeta it was given: the typed decode
// and encode between the two conversions keep what the restore annotations
// need.
func TestConvertTypedRoundTrip(t *testing.T) {
	for _, via := range []runtime.Object{&v1alpha3.ResourceClaim{}, &v1alpha2.ResourceClaim{}, &resourcev1.ResourceClaim{}} {
		for _, apiVersion := range []string{"resource.claimbridge.dev/v1alpha2", "resource.k8s.io/v1alpha2"} {
			if _, ga := via.(*resourcev1.ResourceClaim); ga && apiVersion != "resource.k8s.io/v1alpha2" {
				continue // refused: TestConvertTyped
			}
			t.Run(fmt.Sprintf("%T-%s", via, apiVersion), func(t *testing.T) {
				in := withAPIVersion(typedClaim130(), apiVersion)
				if _, err := conversion.ConvertTyped(in, via); err != nil {
					t.Fatal(err)
				}
				back := &v1alpha2.ResourceClaim{}
				if _, err := conversion.ConvertTyped(via, back); err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(in, back); diff != "" {
					t.Errorf("round trip through %T (-in +back):\n%s", via, diff)
				}
			})
		}
	}
}

// TestToTree: the tree has the apiVersion and kind of TypeMeta, or of the
// Go type where TypeMeta is empty, and numbers as json.Number.
func TestToTree(t *testing.T) {
	tests := map[string]struct {
		obj            runtime.Object
		wantAPIVersion string
		wantKind       string
	}{
		"claimbridge-type-without-typemeta": {obj: typedClaim130(), wantAPIVersion: "resource.claimbridge.dev/v1alpha2", wantKind: "ResourceClaim"},
		"claimbridge-type-of-resource.k8s.io": {
			obj:            withAPIVersion(typedClaim130(), "resource.k8s.io/v1alpha2"),
			wantAPIVersion: "resource.k8s.io/v1alpha2", wantKind: "ResourceClaim",
		},
		"kind-only": {
			obj:            &v1alpha3.ResourceClaimTemplate{TypeMeta: metav1.TypeMeta{Kind: "ResourceClaimTemplate"}},
			wantAPIVersion: "resource.claimbridge.dev/v1alpha3", wantKind: "ResourceClaimTemplate",
		},
		"k8s.io-type-without-typemeta": {obj: &resourcev1.ResourceClaimList{}, wantAPIVersion: "resource.k8s.io/v1", wantKind: "ResourceClaimList"},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			tree, err := conversion.ToTree(tt.obj)
			if err != nil {
				t.Fatal(err)
			}
			if tree["apiVersion"] != tt.wantAPIVersion || tree["kind"] != tt.wantKind {
				t.Errorf("apiVersion %v, kind %v; want %s, %s", tree["apiVersion"], tree["kind"], tt.wantAPIVersion, tt.wantKind)
			}
			// The Go types write null for what they do not have
			// (metadata.creationTimestamp); the tree has none.
			if data := mustJSON(tree); strings.Contains(data, "null") {
				t.Errorf("null in the tree: %s", data)
			}
		})
	}
}

func mustTree(obj runtime.Object) map[string]interface{} {
	tree, err := conversion.ToTree(obj)
	if err != nil {
		panic(err)
	}
	return tree
}

// version is the version of the apiVersion a converted typed object got.
func version(obj runtime.Object) string {
	gv := obj.GetObjectKind().GroupVersionKind()
	if gv.Version == "" {
		panic(fmt.Sprintf("%T has no apiVersion", obj))
	}
	return gv.Version
}

// TestConvertTypedFixtures: every claim and template of conversion/testdata
// and examples/, as a Go client of resource.k8s.io holds it (decoded into
// its version's type), converted with ConvertTyped to the type of every
// other version and back, is what it was, without a restore annotation more.
// The tree a conversion gives back is exact for every object; a typed object
// between the two conversions is exact where the Go type writes what the
// conversion wrote, which holds for the objects valid in both versions.
func TestConvertTypedFixtures(t *testing.T) {
	// notTyped are the conversions through a type that writes a field the
	// intermediate tree does not have, which makes it another object.
	notTyped := map[string]string{
		// A 1.31 claim without requests has no resourceClassName in
		// v1alpha1 and v1alpha2 (1.26 and 1.30 refuse it: migrate does);
		// their types write it as "", a claim of class "" that converts
		// back to one request of it.
		"no-requests.v1alpha3.yaml-via-v1alpha1": "no resourceClassName",
		"no-requests.v1alpha3.yaml-via-v1alpha2": "no resourceClassName",
	}
	files, err := filepath.Glob("testdata/*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	examples, err := filepath.Glob("../examples/*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, file := range append(files, examples...) {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var tree map[string]interface{}
		if err := yaml.Unmarshal(data, &tree); err != nil {
			t.Fatal(err)
		}
		_, from, kind, err := conversion.Identify(tree)
		if err != nil || strings.HasSuffix(kind, "List") {
			continue
		}
		for _, to := range api.ConversionVersions {
			name := filepath.Base(file) + "-via-" + to
			if _, skip := notTyped[name]; skip {
				continue
			}
			t.Run(name, func(t *testing.T) {
				in := typedFor(from, kind).(runtime.Object)
				if err := json.Unmarshal([]byte(mustJSON(tree)), in); err != nil {
					t.Fatal(err)
				}
				setAPIVersion(in, "resource.k8s.io/"+from)
				via := typedFor(to, kind).(runtime.Object)
				if _, err := conversion.ConvertTyped(in, via); err != nil {
					t.Fatal(err)
				}
				back := typedFor(from, kind).(runtime.Object)
				if _, err := conversion.ConvertTyped(via, back); err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(mustJSON(in), mustJSON(back)); diff != "" {
					t.Errorf("(-in +back):\n%s\nvia:\n%s", diff, mustJSON(via))
				}
			})
		}
	}
}

func setAPIVersion(obj runtime.Object, apiVersion string) {
	gvk := obj.GetObjectKind().GroupVersionKind()
	obj.GetObjectKind().SetGroupVersionKind(schemaGVK(apiVersion, gvk.Kind))
}

func schemaGVK(apiVersion, kind string) schema.GroupVersionKind {
	gv, err := schema.ParseGroupVersion(apiVersion)
	if err != nil {
		panic(err)
	}
	return gv.WithKind(kind)
}

// TestToTreeKeepsOpaqueNulls: the nulls a Go type writes for what it does
// not have are dropped, but a null inside a driver's opaque parameters or
// device data (a RawExtension) is the driver's and stays, in every version
// that has such a field.
func TestToTreeKeepsOpaqueNulls(t *testing.T) {
	opaque := runtime.RawExtension{Raw: []byte(`{"mode":null,"gpus":[null,{"mig":null}]}`)}
	wantOpaque := map[string]interface{}{"mode": nil, "gpus": []interface{}{nil, map[string]interface{}{"mig": nil}}}
	tests := map[string]struct {
		obj  runtime.Object
		path []string // to the opaque object
	}{
		"v1alpha2-vendor-claim-parameters": {
			obj: &v1alpha2.ResourceClaim{Status: v1alpha2.ResourceClaimStatus{Allocation: &v1alpha2.AllocationResult{
				ResourceHandles: []v1alpha2.ResourceHandle{{DriverName: "gpu.example.com", StructuredData: &v1alpha2.StructuredResourceHandle{VendorClaimParameters: opaque}}},
			}}},
			path: []string{"status", "allocation", "resourceHandles", "0", "structuredData", "vendorClaimParameters"},
		},
		"v1alpha3-config-parameters": {
			obj: &v1alpha3.ResourceClaim{Spec: v1alpha3.ResourceClaimSpec{Devices: v1alpha3.DeviceClaim{
				Config: []v1alpha3.DeviceClaimConfiguration{{DeviceConfiguration: v1alpha3.DeviceConfiguration{Opaque: &v1alpha3.OpaqueDeviceConfiguration{Driver: "gpu.example.com", Parameters: opaque}}}},
			}}},
			path: []string{"spec", "devices", "config", "0", "opaque", "parameters"},
		},
		"v1-device-status-data": {
			obj: &resourcev1.ResourceClaim{Status: resourcev1.ResourceClaimStatus{
				Devices: []resourcev1.AllocatedDeviceStatus{{Driver: "gpu.example.com", Pool: "p", Device: "d", Data: &opaque}},
			}},
			path: []string{"status", "devices", "0", "data"},
		},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			tree, err := conversion.ToTree(tt.obj)
			if err != nil {
				t.Fatal(err)
			}
			var v interface{} = tree
			for _, p := range tt.path {
				switch n := v.(type) {
				case map[string]interface{}:
					v = n[p]
				case []interface{}:
					v = n[0]
				}
			}
			got, err := json.Marshal(v)
			if err != nil {
				t.Fatal(err)
			}
			want, _ := json.Marshal(wantOpaque)
			if string(got) != string(want) {
				t.Errorf("opaque content %s, want %s", got, want)
			}
			// Outside it, the Go type's nulls (creationTimestamp) are gone.
			meta, _ := tree["metadata"].(map[string]interface{})
			if _, ok := meta["creationTimestamp"]; ok {
				t.Errorf("metadata.creationTimestamp kept: %v", meta)
			}
		})
	}
}
