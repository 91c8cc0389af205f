package validation

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/conversion"
	"github.com/claimbridge/claimbridge/validation/common"
)

// editRestore rewrites the restore annotation of version on o through edit,
// as a client editing it by hand would.
func editRestore(t *testing.T, o map[string]interface{}, version string, edit func(r map[string]interface{})) {
	t.Helper()
	ann := o["metadata"].(map[string]interface{})["annotations"].(map[string]interface{})
	key := api.RestoreAnnotation(version)
	var r map[string]interface{}
	if err := json.Unmarshal([]byte(ann[key].(string)), &r); err != nil {
		t.Fatalf("%s: %v", key, err)
	}
	edit(r)
	data, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	ann[key] = string(data)
}

// setPatchValue sets the value of the patch operation on path.
func setPatchValue(t *testing.T, section, path string, value interface{}) func(r map[string]interface{}) {
	return func(r map[string]interface{}) {
		for _, op := range r[section].(map[string]interface{})["patch"].([]interface{}) {
			if op := op.(map[string]interface{}); op["path"] == path {
				op["value"] = value
				return
			}
		}
		t.Fatalf("no operation on %s in %v", path, r)
	}
}

func TestCreateThroughRestoreAnnotations(t *testing.T) {
	requireConversion(t)
	withSelector := `{"apiVersion":"resource.claimbridge.dev/v1alpha3","kind":"ResourceClaim","metadata":{"name":"c","namespace":"ns"},"spec":{"devices":{"requests":[{"name":"gpu","deviceClassName":"gpu.example.com","selectors":[{"cel":{"expression":"true"}}]}]}}}`
	noRequests := `{"apiVersion":"resource.claimbridge.dev/v1alpha3","kind":"ResourceClaim","metadata":{"name":"c","namespace":"ns"},"spec":{"devices":{"requests":[]}}}`
	immediate := `{"apiVersion":"resource.claimbridge.dev/v1alpha2","kind":"ResourceClaim","metadata":{"name":"c","namespace":"ns"},"spec":{"resourceClassName":"gpu.example.com","parametersRef":{"kind":"Params","name":"p"}}}`
	annotations := field.NewPath("metadata", "annotations")

	scenarios := map[string]struct {
		obj  func(t *testing.T) map[string]interface{}
		want field.ErrorList
	}{
		"copy-of-a-converted-view-is-valid": {
			obj: func(t *testing.T) map[string]interface{} { return mustConvert(t, obj(t, withSelector), "v1alpha1") },
		},
		"v1alpha3-claim-without-requests-is-valid": {
			// Its v1alpha2 view has no class; that is not the annotations' doing.
			obj: func(t *testing.T) map[string]interface{} { return obj(t, noRequests) },
		},
		"v1alpha1-create-smuggling-a-bad-cel-selector": {
			obj: func(t *testing.T) map[string]interface{} {
				o := mustConvert(t, obj(t, withSelector), "v1alpha1")
				editRestore(t, o, "v1alpha3", setPatchValue(t, "spec", "/spec/devices/requests/0/selectors", []interface{}{map[string]interface{}{"cel": map[string]interface{}{"expression": "1 + 1"}}}))
				return o
			},
			want: field.ErrorList{field.Invalid(annotations, common.OmittedValue,
				`the restore annotations make the object invalid as seen through v1alpha3: spec.devices.requests[0].selectors[0].cel.expression: Invalid value: "1 + 1": must evaluate to bool or the unknown type, not int`)},
		},
		"v1alpha3-create-smuggling-an-empty-parameters-kind": {
			obj: func(t *testing.T) map[string]interface{} {
				o := mustConvert(t, obj(t, immediate), "v1alpha3")
				editRestore(t, o, "v1alpha2", setPatchValue(t, "spec", "/spec/parametersRef", map[string]interface{}{"kind": "", "name": "p"}))
				return o
			},
			want: field.ErrorList{
				field.Invalid(annotations, common.OmittedValue, "the restore annotations make the object invalid as seen through v1alpha1: spec.parametersRef.kind: Required value"),
				field.Invalid(annotations, common.OmittedValue, "the restore annotations make the object invalid as seen through v1alpha2: spec.parametersRef.kind: Required value"),
			},
		},
	}
	scenarios["v1alpha1-create-smuggling-a-value-of-the-wrong-type"] = struct {
		obj  func(t *testing.T) map[string]interface{}
		want field.ErrorList
	}{
		obj: func(t *testing.T) map[string]interface{} {
			o := mustConvert(t, obj(t, withSelector), "v1alpha1")
			editRestore(t, o, "v1alpha3", setPatchValue(t, "spec", "/spec/devices/requests/0/selectors", "not a list"))
			return o
		},
		// Conversion applies no patch that writes a value of another JSON
		// type than its field's (docs/conversion.md §3.2): every view is
		// the mapped one, and storing the object drops the annotation, as
		// a stale one.
		want: nil,
	}
	for name, sc := range scenarios {
		t.Run(name, func(t *testing.T) {
			resp, err := Validate(Request{Operation: Create, Object: sc.obj(t)})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(sc.want, resp.Errors); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
		})
	}
}

// A valid v1alpha2 claim whose handles cannot be shown as v1alpha1 (32
// handles of 16 KiB exceed the annotation limit there) is validated as
// upstream 1.30 did, without an error for the missing view.
func TestUpdateOfObjectWithoutAView(t *testing.T) {
	requireConversion(t)
	handles := make([]interface{}, 32)
	for i := range handles {
		handles[i] = map[string]interface{}{"driverName": "gpu.example.com", "data": strings.Repeat("x", 16*1024)}
	}
	claim := func(reservedFor ...interface{}) map[string]interface{} {
		o := map[string]interface{}{
			"apiVersion": "resource.claimbridge.dev/v1alpha2", "kind": "ResourceClaim",
			"metadata": map[string]interface{}{"name": "c", "namespace": "ns", "resourceVersion": "1"},
			"spec":     map[string]interface{}{"resourceClassName": "gpu.example.com"},
			"status": map[string]interface{}{"driverName": "gpu.example.com",
				"allocation": map[string]interface{}{"resourceHandles": handles, "shareable": true}},
		}
		if len(reservedFor) > 0 {
			o["status"].(map[string]interface{})["reservedFor"] = reservedFor
		}
		return o
	}
	if _, err := conversion.Convert(claim(), "v1alpha1"); err == nil {
		t.Fatal("the claim was expected not to fit v1alpha1; the test no longer tests what it says")
	}
	for name, req := range map[string]Request{
		"status-update-adding-a-reservation": {Operation: Update, SubResource: "status", OldObject: claim(),
			Object: claim(map[string]interface{}{"resource": "pods", "name": "p", "uid": "1"})},
		"main-update": {Operation: Update, OldObject: claim(), Object: claim()},
	} {
		t.Run(name, func(t *testing.T) {
			resp, err := Validate(req)
			if err != nil {
				t.Fatal(err)
			}
			if len(resp.Errors) != 0 {
				t.Errorf("want no errors, got %v", resp.Errors)
			}
		})
	}
}

// A version that cannot show an object fails every read of it through that
// version, and so every list and watch of claims through it that includes
// the object, for all of that version's clients. A main-resource write that
// makes an object so — its own annotations, or its spec, leaving no room for
// what the version cannot hold — is refused.
func TestWriteThatAVersionCannotShowIsRefused(t *testing.T) {
	requireConversion(t)
	// Two requests and a constraint: v1alpha2 and v1alpha1 keep them in
	// restore-v1alpha3.
	twoRequests := `{"apiVersion":"resource.claimbridge.dev/v1alpha3","kind":"ResourceClaim","metadata":{"name":"c","namespace":"ns","resourceVersion":"1"},` +
		`"spec":{"devices":{"requests":[{"name":"gpu","deviceClassName":"gpu.example.com"},{"name":"nic","deviceClassName":"nic.example.com"}],` +
		`"constraints":[{"requests":["gpu","nic"],"matchAttribute":"example.com/numa"}]}}}`
	filler := strings.Repeat("x", conversion.TotalAnnotationSizeLimitB-len("filler")-100) // fits alone, not with restore-v1alpha3
	filled := func(t *testing.T, s string) map[string]interface{} {
		o := obj(t, s)
		meta := o["metadata"].(map[string]interface{})
		ann, _ := meta["annotations"].(map[string]interface{})
		if ann == nil {
			ann = map[string]interface{}{}
			meta["annotations"] = ann
		}
		ann["filler"] = filler
		return o
	}
	// Long selectors: what v1alpha2 cannot hold exceeds the limit alone.
	var selectors []string
	for i := 0; i < 32; i++ {
		selectors = append(selectors, `{"cel":{"expression":"device.driver == \"`+strings.Repeat("a", 9000)+`\""}}`)
	}
	longSelectors := `{"apiVersion":"resource.claimbridge.dev/v1alpha3","kind":"ResourceClaim","metadata":{"name":"c","namespace":"ns"},` +
		`"spec":{"devices":{"requests":[{"name":"gpu","deviceClassName":"gpu.example.com","selectors":[` + strings.Join(selectors, ",") + `]}]}}}`
	// A copy of a converted view: restore-v1alpha2 holds the parameters.
	withParameters := `{"apiVersion":"resource.claimbridge.dev/v1alpha2","kind":"ResourceClaim","metadata":{"name":"c","namespace":"ns","resourceVersion":"1"},"spec":{"resourceClassName":"gpu.example.com","parametersRef":{"kind":"Params","name":"p"}}}`

	unreadable := func(t *testing.T, o map[string]interface{}, versions ...string) field.ErrorList {
		t.Helper()
		var want field.ErrorList
		for _, v := range versions {
			_, err := conversion.Convert(o, v)
			if err == nil {
				t.Fatalf("the object converts to %s: the test no longer tests what it says", v)
			}
			want = append(want, field.Forbidden(field.NewPath("metadata", "annotations"),
				"the object could not be read through "+v+", nor listed or watched with other claims through it: "+err.Error()))
		}
		return want
	}
	for name, sc := range map[string]struct {
		req  func(t *testing.T) Request
		want func(t *testing.T, req Request) field.ErrorList
	}{
		"create-with-annotations-filling-the-limit": {
			req: func(t *testing.T) Request { return Request{Operation: Create, Object: filled(t, twoRequests)} },
			want: func(t *testing.T, req Request) field.ErrorList {
				return unreadable(t, req.Object, "v1alpha1", "v1alpha2")
			},
		},
		"create-with-a-spec-whose-restore-exceeds-the-limit": {
			req: func(t *testing.T) Request { return Request{Operation: Create, Object: obj(t, longSelectors)} },
			want: func(t *testing.T, req Request) field.ErrorList {
				return unreadable(t, req.Object, "v1alpha1", "v1alpha2")
			},
		},
		"create-of-a-converted-view-with-annotations-filling-the-limit": {
			req: func(t *testing.T) Request {
				o := mustConvert(t, obj(t, withParameters), "v1alpha3")
				o["spec"] = obj(t, twoRequests)["spec"]
				ann := o["metadata"].(map[string]interface{})["annotations"].(map[string]interface{})
				ann["filler"] = filler[:len(filler)-len(ann[api.RestoreAnnotation("v1alpha2")].(string))]
				return Request{Operation: Create, Object: o}
			},
			want: func(t *testing.T, req Request) field.ErrorList {
				return unreadable(t, req.Object, "v1alpha1", "v1alpha2")
			},
		},
		"template-create-with-annotations-filling-the-limit": {
			req: func(t *testing.T) Request {
				claim := obj(t, twoRequests)
				template := `{"apiVersion":"resource.claimbridge.dev/v1alpha3","kind":"ResourceClaimTemplate","metadata":{"name":"t","namespace":"ns"},"spec":{"spec":` + toJSON(t, claim["spec"]) + `}}`
				return Request{Operation: Create, Object: filled(t, template)}
			},
			want: func(t *testing.T, req Request) field.ErrorList {
				return unreadable(t, req.Object, "v1alpha1", "v1alpha2")
			},
		},
		"update-adding-annotations-that-fill-the-limit": {
			req: func(t *testing.T) Request {
				return Request{Operation: Update, Object: filled(t, twoRequests), OldObject: obj(t, twoRequests)}
			},
			want: func(t *testing.T, req Request) field.ErrorList {
				return unreadable(t, req.Object, "v1alpha1", "v1alpha2")
			},
		},
		// The storage version is what every write is converted to: when it
		// cannot show the object, the failure is conversion's own, an
		// internal error (docs/validation.md, "A conversion failure to the
		// storage version").
		"update-through-v1alpha2-that-the-storage-version-cannot-show": {
			req: func(t *testing.T) Request {
				old := obj(t, withParameters)
				o := filled(t, withParameters) // restore-v1alpha2 (the parametersRef) no longer fits
				return Request{Operation: Update, Object: o, OldObject: old}
			},
			want: func(t *testing.T, req Request) field.ErrorList {
				_, err := conversion.Convert(req.Object, "v1alpha3")
				if err == nil {
					t.Fatal("the object converts to v1alpha3: the test no longer tests what it says")
				}
				return field.ErrorList{field.InternalError(field.NewPath("metadata", "annotations"), err)}
			},
		},
		"update-of-an-object-already-unreadable-is-not-refused-for-it": {
			req: func(t *testing.T) Request {
				o := filled(t, twoRequests)
				o["metadata"].(map[string]interface{})["labels"] = map[string]interface{}{"team": "a"}
				o["metadata"].(map[string]interface{})["annotations"].(map[string]interface{})["other"] = "x"
				return Request{Operation: Update, Object: o, OldObject: filled(t, twoRequests)}
			},
			want: func(*testing.T, Request) field.ErrorList { return nil },
		},
		// Removing what left no room makes the object readable again.
		"update-making-an-unreadable-object-readable": {
			req: func(t *testing.T) Request {
				return Request{Operation: Update, Object: obj(t, twoRequests), OldObject: filled(t, twoRequests)}
			},
			want: func(*testing.T, Request) field.ErrorList { return nil },
		},
		"create-with-large-annotations-that-leave-room": {
			req: func(t *testing.T) Request {
				o := filled(t, twoRequests)
				ann := o["metadata"].(map[string]interface{})["annotations"].(map[string]interface{})
				ann["filler"] = filler[:len(filler)-1024]
				return Request{Operation: Create, Object: o}
			},
			want: func(*testing.T, Request) field.ErrorList { return nil },
		},
	} {
		t.Run(name, func(t *testing.T) { checkScenario(t, sc.req, sc.want) })
	}
}

// viewsFit spares a create the conversions only when they cannot fail:
// every input of conversion's golden tests, and long selectors, with
// annotations filled up to where it still says so, convert to every
// version.
func TestViewsFitIsConservative(t *testing.T) {
	paths, err := filepath.Glob("../conversion/testdata/*.yaml")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no conversion inputs: %v", err)
	}
	inputs := map[string]map[string]interface{}{}
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		js, err := yaml.YAMLToJSON(data)
		if err != nil {
			t.Fatal(err)
		}
		if o := obj(t, string(js)); !strings.HasSuffix(o["kind"].(string), "List") {
			inputs[filepath.Base(p)] = o
		}
	}
	var selectors []string
	for i := 0; i < 4; i++ {
		selectors = append(selectors, `{"cel":{"expression":"device.driver == \"`+strings.Repeat("a", 2000)+`\""}}`)
	}
	inputs["long selectors"] = obj(t, `{"apiVersion":"resource.claimbridge.dev/v1alpha3","kind":"ResourceClaim","metadata":{"name":"c","namespace":"ns"},`+
		`"spec":{"devices":{"requests":[{"name":"gpu","deviceClassName":"gpu.example.com","selectors":[`+strings.Join(selectors, ",")+`]}]}}}`)
	for name, o := range inputs {
		t.Run(name, func(t *testing.T) {
			delete(o, "status") // a create drops it
			o, _ = withoutRestoreAnnotations(o)
			meta, _ := o["metadata"].(map[string]interface{})
			if meta == nil {
				meta = map[string]interface{}{}
				o["metadata"] = meta
			}
			ann, _ := meta["annotations"].(map[string]interface{})
			if ann == nil {
				ann = map[string]interface{}{}
				meta["annotations"] = ann
			}
			n := conversion.TotalAnnotationSizeLimitB - 64*1024 - 2*jsonLenBound(o["spec"]) - 4*jsonLenBound(o["status"]) - len("filler")
			for k, v := range ann {
				n -= len(k) + len(v.(string))
			}
			if n < 0 {
				t.Fatalf("the spec alone is too large for the gate (%d bytes at most)", jsonLenBound(o["spec"]))
			}
			ann["filler"] = strings.Repeat("x", n)
			if !viewsFit(ann, jsonLenBound(o["spec"]), jsonLenBound(o["status"])) {
				t.Fatal("viewsFit is false at the boundary")
			}
			for _, v := range api.ServedVersions {
				if _, err := conversion.Convert(o, v); err != nil {
					t.Errorf("viewsFit said it fits, but: %v", err)
				}
			}
		})
	}
}

func toJSON(t *testing.T, v interface{}) string {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// checkScenario validates the request req builds and requires exactly the
// errors want returns for it.
func checkScenario(t *testing.T, req func(*testing.T) Request, want func(*testing.T, Request) field.ErrorList) {
	t.Helper()
	r := req(t)
	resp, err := Validate(r)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want(t, r), resp.Errors, sameErrorText); diff != "" {
		t.Errorf("errors (-want +got):\n%s", diff)
	}
}

// sameErrorText compares errors by their text: an internal error's BadValue
// is the error itself, a new value on every conversion.
var sameErrorText = cmp.Comparer(func(a, b error) bool { return a.Error() == b.Error() })
