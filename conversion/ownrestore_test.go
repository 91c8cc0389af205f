package conversion_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/conversion"
)

// An object of version X never carries conversion's restore-X annotation:
// the step into X consumes it, and the step out of X writes what it records
// or nothing. One a client sends anyway must not survive the step out of X,
// or the way back would apply it: a v1alpha2 claim created with its own
// restore-v1alpha2 annotation would, read back as v1alpha2, show what the
// annotation says instead of what was validated, and a restore-v1alpha3
// annotation on a stored v1alpha3 claim would be written into the stored
// spec and status by the next write through v1alpha2.
func TestOwnRestoreAnnotationIsNotCarried(t *testing.T) {
	claims := map[string]string{
		api.V1alpha1: `{"apiVersion":"resource.claimbridge.dev/v1alpha1","kind":"ResourceClaim","metadata":{"name":"c","namespace":"ns","annotations":{"team":"a"}},
			"spec":{"resourceClassName":"gpu","allocationMode":"WaitForFirstConsumer"},
			"status":{"driverName":"gpu.example.com","allocation":{"resourceHandle":"h","shareable":true}}}`,
		api.V1alpha2: `{"apiVersion":"resource.claimbridge.dev/v1alpha2","kind":"ResourceClaim","metadata":{"name":"c","namespace":"ns","annotations":{"team":"a"}},
			"spec":{"resourceClassName":"gpu","allocationMode":"WaitForFirstConsumer"},
			"status":{"driverName":"gpu.example.com","allocation":{"resourceHandles":[{"driverName":"gpu.example.com","data":"h"}],"shareable":true}}}`,
		api.V1alpha3: `{"apiVersion":"resource.claimbridge.dev/v1alpha3","kind":"ResourceClaim","metadata":{"name":"c","namespace":"ns","annotations":{"team":"a"}},
			"spec":{"devices":{"requests":[{"name":"request","deviceClassName":"gpu","allocationMode":"ExactCount","count":1}]}},
			"status":{"allocation":{"controller":"gpu.example.com","devices":{"results":[{"request":"request","driver":"gpu.example.com","pool":"gpu.example.com","device":"handle-0"}]}}}}`,
	}
	template := `{"apiVersion":"resource.claimbridge.dev/v1alpha2","kind":"ResourceClaimTemplate","metadata":{"name":"t","namespace":"ns","annotations":{"team":"a"}},
		"spec":{"spec":{"resourceClassName":"gpu","allocationMode":"WaitForFirstConsumer"}}}`
	for _, tc := range []struct {
		name     string
		obj      string
		from, to string
	}{
		{"v1alpha1 claim via v1alpha2", claims[api.V1alpha1], api.V1alpha1, api.V1alpha2},
		{"v1alpha2 claim via v1alpha1", claims[api.V1alpha2], api.V1alpha2, api.V1alpha1},
		{"v1alpha2 claim via v1alpha3", claims[api.V1alpha2], api.V1alpha2, api.V1alpha3},
		{"v1alpha3 claim via v1alpha2", claims[api.V1alpha3], api.V1alpha3, api.V1alpha2},
		{"v1alpha2 template via v1alpha3", template, api.V1alpha2, api.V1alpha3},
		{"v1alpha2 claim via v1alpha3, the annotation alone", strings.Replace(claims[api.V1alpha2], `{"team":"a"}`, `{}`, 1), api.V1alpha2, api.V1alpha3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// The forged annotation is a genuine restore-<from> annotation,
			// made for this very object: that of the same object with an
			// unknown spec and status field, which have no home in to.
			variant := tblDecode(t, tc.obj)
			if tc.obj == template {
				variant["spec"].(map[string]interface{})["spec"].(map[string]interface{})["forged"] = "spec"
			} else {
				variant["spec"].(map[string]interface{})["forged"] = "spec"
				variant["status"].(map[string]interface{})["forged"] = "status"
			}
			converted, err := conversion.Convert(variant, tc.to)
			if err != nil {
				t.Fatal(err)
			}
			forged := converted["metadata"].(map[string]interface{})["annotations"].(map[string]interface{})[api.RestoreAnnotation(tc.from)]
			if forged == nil {
				t.Fatalf("converting the variant to %s wrote no %s annotation: the test no longer tests what it says", tc.to, api.RestoreAnnotation(tc.from))
			}

			in := tblDecode(t, tc.obj)
			in["metadata"].(map[string]interface{})["annotations"].(map[string]interface{})[api.RestoreAnnotation(tc.from)] = forged
			there, err := conversion.Convert(in, tc.to)
			if err != nil {
				t.Fatal(err)
			}
			if got := there["metadata"].(map[string]interface{})["annotations"].(map[string]interface{})[api.RestoreAnnotation(tc.from)]; got != nil {
				t.Errorf("the %s form carries the client's %s annotation: %v", tc.to, api.RestoreAnnotation(tc.from), got)
			}
			back, err := conversion.Convert(there, tc.from)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tblDecode(t, tc.obj), back); diff != "" {
				t.Errorf("back in %s (-want: the object without the annotation, +got):\n%s", tc.from, diff)
			}
		})
	}
}

// A restore patch writes only inside its section: diff writes nothing else,
// so anything else is a client's. A spec patch adding /status would give a
// view a status whenever the object has none (the status is mapped after the
// spec patch is applied): planted on an allocated claim it changes no view,
// and once a status write clears the status, v1alpha2 clients would see an
// allocation storage does not have.
func TestRestoreOperationsStayInTheirSection(t *testing.T) {
	in := tblDecode(t, `{"apiVersion":"resource.claimbridge.dev/v1alpha3","kind":"ResourceClaim","metadata":{"name":"c","namespace":"ns"},
		"spec":{"devices":{"requests":[{"name":"request","deviceClassName":"gpu","allocationMode":"ExactCount","count":1}]}}}`)
	// A genuine restore-v1alpha2 annotation for this spec: that of its
	// v1alpha2 view with an unknown spec field added.
	v2, err := conversion.Convert(in, api.V1alpha2)
	if err != nil {
		t.Fatal(err)
	}
	v2["spec"].(map[string]interface{})["unknown"] = true
	back, err := conversion.Convert(v2, api.V1alpha3)
	if err != nil {
		t.Fatal(err)
	}
	r := tblDecode(t, back["metadata"].(map[string]interface{})["annotations"].(map[string]interface{})[api.RestoreAnnotation(api.V1alpha2)].(string))
	spec := r["spec"].(map[string]interface{})
	spec["patch"] = append(spec["patch"].([]interface{}), map[string]interface{}{"op": "add", "path": "/status",
		"value": map[string]interface{}{"driverName": "evil.example.com", "allocation": map[string]interface{}{"shareable": true}}})
	in["metadata"].(map[string]interface{})["annotations"] = map[string]interface{}{api.RestoreAnnotation(api.V1alpha2): tblJSON(t, r)}

	got, err := conversion.Convert(in, api.V1alpha2)
	if err != nil {
		t.Fatal(err)
	}
	want := tblDecode(t, `{"resourceClassName":"gpu","allocationMode":"WaitForFirstConsumer","unknown":true}`)
	if diff := cmp.Diff(want, got["spec"]); diff != "" {
		t.Errorf("v1alpha2 spec: the genuine part of the patch applies (-want +got):\n%s", diff)
	}
	if status, ok := got["status"]; ok {
		t.Errorf("the v1alpha2 view has a status: %v", status)
	}
}

// TestRestorePatchesOnlyAsDiffWritesThem: a section patch with an operation
// diff never writes (RFC 6902's test, move or copy, an unknown op, a path
// that is no JSON pointer) or that gives the section itself a value other
// than an object or null, or a field a value of another JSON type than its
// version gives it, is not applied at all: the view is the mapped one,
// never a guess at the operation's meaning nor a malformed object (status
// an array fails every typed client's list of the version).
func TestRestorePatchesOnlyAsDiffWritesThem(t *testing.T) {
	in := tblDecode(t, `{"apiVersion":"resource.claimbridge.dev/v1alpha3","kind":"ResourceClaim","metadata":{"name":"c","namespace":"ns"},
		"spec":{"devices":{"requests":[{"name":"request","deviceClassName":"gpu","allocationMode":"ExactCount","count":1}]}}}`)
	mapped, err := conversion.Convert(in, api.V1alpha2)
	if err != nil {
		t.Fatal(err)
	}
	// A genuine restore-v1alpha2 annotation: the v1alpha2 view with an
	// unknown spec field, stored.
	v2 := api.DeepCopyJSON(mapped)
	v2["spec"].(map[string]interface{})["unknown"] = true
	back, err := conversion.Convert(v2, api.V1alpha3)
	if err != nil {
		t.Fatal(err)
	}
	genuine := back["metadata"].(map[string]interface{})["annotations"].(map[string]interface{})[api.RestoreAnnotation(api.V1alpha2)].(string)
	for name, op := range map[string]map[string]interface{}{
		"test":                  {"op": "test", "path": "/spec/resourceClassName", "value": "zzz"},
		"move":                  {"op": "move", "from": "/spec/unknown", "path": "/spec/resourceClassName"},
		"copy":                  {"op": "copy", "from": "/spec/unknown", "path": "/spec/other"},
		"unknown-op":            {"op": "Remove", "path": "/spec/resourceClassName"},
		"not-a-pointer":         {"op": "add", "path": "spec/x", "value": 1},
		"section-a-string":      {"op": "replace", "path": "/spec", "value": "Immediate"},
		"section-an-array":      {"op": "add", "path": "/spec", "value": []interface{}{1.0, 2.0}},
		"genuine-then-a-forged": {"op": "replace", "path": "/spec", "value": 5.0},
		// Values of the wrong JSON type for their field in the target
		// version: the converted object would be malformed, and the next
		// step could not map it.
		"field-a-number":   {"op": "replace", "path": "/spec/resourceClassName", "value": 5.0},
		"object-a-string":  {"op": "add", "path": "/spec/parametersRef", "value": "params"},
		"nested-a-boolean": {"op": "add", "path": "/spec/parametersRef", "value": map[string]interface{}{"kind": true, "name": "p"}},
	} {
		t.Run(name, func(t *testing.T) {
			r := tblDecode(t, genuine)
			spec := r["spec"].(map[string]interface{})
			spec["patch"] = append(spec["patch"].([]interface{}), op)
			obj := api.DeepCopyJSON(back)
			obj["metadata"].(map[string]interface{})["annotations"] = map[string]interface{}{api.RestoreAnnotation(api.V1alpha2): tblJSON(t, r)}
			got, err := conversion.Convert(obj, api.V1alpha2)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(mapped["spec"], got["spec"]); diff != "" {
				t.Errorf("v1alpha2 spec, want the mapped one (-want +got):\n%s", diff)
			}
		})
	}
	// The genuine annotation alone applies.
	got, err := conversion.Convert(back, api.V1alpha2)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(v2["spec"], got["spec"]); diff != "" {
		t.Errorf("genuine annotation (-want +got):\n%s", diff)
	}
}

// TestForgedRestoreMakesNoStepPanic: a forged restore-v1beta2 annotation
// that makes a template's spec.spec a number on the way from v1 to the
// alpha versions is not applied (before, the next step mapped the number
// to a nil map and the one after that panicked writing into it).
func TestForgedRestoreMakesNoStepPanic(t *testing.T) {
	in := tblDecode(t, `{"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaimTemplate","metadata":{"annotations":{
		"claimbridge.dev/restore-v1beta1":"{\"spec\":{\"base\":\"c3cf6708b9357d43\",\"patch\":[{\"op\":\"add\",\"path\":\"/spec/spec/devices\",\"value\":{\"requests\":[{\"allocationMode\":\"ExactCount\",\"count\":1,\"deviceClassName\":\"gpu\",\"name\":\"r\"}]}}]}}",
		"claimbridge.dev/restore-v1beta2":"{\"spec\":{\"base\":\"c3cf6708b9357d43\",\"patch\":[{\"op\":\"replace\",\"path\":\"/spec/spec\",\"value\":5}]}}"},
		"name":"t","namespace":"ns"},"spec":{"spec":null}}`)
	for _, to := range []string{api.V1beta1, api.V1alpha3, api.V1alpha1} {
		got, err := conversion.Convert(api.DeepCopyJSON(in), to)
		if err != nil {
			t.Fatalf("to %s: %v", to, err)
		}
		if err := conversion.CheckShape(got); err != nil {
			t.Errorf("to %s: the result is malformed: %v", to, err)
		}
	}
}

// TestDroppedRestoreDataIsReported: restore data that is not applied — made
// for another section than the object has (here a request changed in v1),
// or not as conversion writes it — is said by ConvertWithWarnings, naming
// what it would have restored; Losses, whose warnings validation turns into
// storage warnings, does not say it.
func TestDroppedRestoreDataIsReported(t *testing.T) {
	in := tblDecode(t, `{"apiVersion":"resource.k8s.io/v1alpha3","kind":"ResourceClaim","metadata":{"name":"c","namespace":"ns"},
		"spec":{"controller":"dra.example.com","devices":{"requests":[{"name":"r","deviceClassName":"gpu"}]}}}`)
	v1, err := conversion.Convert(in, api.V1)
	if err != nil {
		t.Fatal(err)
	}
	exactly := v1["spec"].(map[string]interface{})["devices"].(map[string]interface{})["requests"].([]interface{})[0].(map[string]interface{})["exactly"].(map[string]interface{})
	exactly["deviceClassName"] = "other"
	const path = "metadata.annotations[claimbridge.dev/restore-v1alpha3].spec"
	got, ws, err := conversion.ConvertWithWarnings(v1, api.V1alpha3)
	if err != nil {
		t.Fatal(err)
	}
	if _, has := got["spec"].(map[string]interface{})["controller"]; has {
		t.Fatalf("the stale patch applied: %v", got["spec"])
	}
	var found []string
	for _, w := range ws {
		if w.Path == path {
			found = append(found, w.Message)
		}
	}
	if len(found) != 1 || !strings.Contains(found[0], "was made for another spec") || !strings.HasSuffix(found[0], "not restored: spec.controller") {
		t.Errorf("warnings at %s: %q; all: %v", path, found, ws)
	}
	if losses, err := conversion.Losses(v1, api.V1alpha3); err != nil {
		t.Fatal(err)
	} else {
		for _, w := range losses {
			if w.Path == path {
				t.Errorf("Losses reports the dropped restore data: %v", w)
			}
		}
	}

	// A patch not as conversion writes it.
	ann := v1["metadata"].(map[string]interface{})["annotations"].(map[string]interface{})
	ann[api.RestoreAnnotation(api.V1alpha3)] = `{"spec":{"base":"x","patch":[{"op":"add","path":"/spec/controller","value":5}]}}`
	if _, ws, err = conversion.ConvertWithWarnings(v1, api.V1alpha3); err != nil {
		t.Fatal(err)
	}
	found = nil
	for _, w := range ws {
		if w.Path == path {
			found = append(found, w.Message)
		}
	}
	if len(found) != 1 || !strings.Contains(found[0], "is not as conversion writes it") {
		t.Errorf("warnings at %s: %q; all: %v", path, found, ws)
	}

	// Stale status data is not reported: the status changes in every
	// version, and the data describes an allocation the claim no longer
	// has (here a 1.26 classic allocation, cleared through v1alpha3).
	v1a1 := tblDecode(t, `{"apiVersion":"resource.claimbridge.dev/v1alpha1","kind":"ResourceClaim","metadata":{"name":"c","namespace":"ns"},
		"spec":{"resourceClassName":"gpu","allocationMode":"WaitForFirstConsumer"},"status":{"driverName":"d","allocation":{"resourceHandle":"h","shareable":false}}}`)
	v3, err := conversion.Convert(v1a1, api.V1alpha3)
	if err != nil {
		t.Fatal(err)
	}
	v3["status"] = map[string]interface{}{}
	if _, ws, err = conversion.ConvertWithWarnings(v3, api.V1alpha1); err != nil {
		t.Fatal(err)
	}
	for _, w := range ws {
		if strings.HasPrefix(w.Path, "metadata.annotations[") {
			t.Errorf("stale status restore data reported: %v", w)
		}
	}
}

// TestRestoreSurvivesGAStoredDefaults: a claim converted to v1 and stored by
// a 1.32+ apiserver comes back with the mode of every request and the count
// of every ExactCount request written out, and an allocation's devices;
// converted back to v1alpha3 it is the original again (spec.controller and
// the classic allocation restored, the defaults it lacked left out, what
// its requests had kept), and back to v1 the stored object. A single
// request without defaults is no older build's output: its defaults are
// those the step from v1alpha2 writes, but they go as the apiserver's.
func TestRestoreSurvivesGAStoredDefaults(t *testing.T) {
	nine := make([]string, 9) // more than the sets tried: all are left out
	for i := range nine {
		nine[i] = fmt.Sprintf(`{"name":"r%d","deviceClassName":"gpu"}`, i)
	}
	for _, tc := range []struct{ name, requests string }{{
		name:     "nine requests",
		requests: "[" + strings.Join(nine, ",") + "]",
	}, {
		name:     "two requests",
		requests: `[{"name":"a","deviceClassName":"gpu"},{"name":"b","deviceClassName":"gpu"}]`,
	}, {
		name:     "one request",
		requests: `[{"name":"a","deviceClassName":"gpu"}]`,
	}, {
		name:     "requests with a mode or count of their own",
		requests: `[{"name":"a","deviceClassName":"gpu"},{"name":"b","deviceClassName":"gpu","allocationMode":"ExactCount","count":2},{"name":"c","deviceClassName":"gpu","allocationMode":"All"}]`,
	}, {
		// The apiserver's defaults cannot be told from b's own: only
		// leaving them on b matches the restore data.
		name:     "a request with the default mode and count written out",
		requests: `[{"name":"a","deviceClassName":"gpu"},{"name":"b","deviceClassName":"gpu","allocationMode":"ExactCount","count":1}]`,
	}, {
		name:     "requests with the default mode and count written out around one without",
		requests: `[{"name":"a","deviceClassName":"gpu","allocationMode":"ExactCount","count":1},{"name":"b","deviceClassName":"gpu"},{"name":"c","deviceClassName":"gpu","allocationMode":"ExactCount","count":1}]`,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			in := tblDecode(t, `{"apiVersion":"resource.k8s.io/v1alpha3","kind":"ResourceClaim","metadata":{"name":"c","namespace":"ns"},
				"spec":{"controller":"dra.example.com","devices":{"requests":`+tc.requests+`}},
				"status":{"allocation":{"controller":"dra.example.com","nodeSelector":{"nodeSelectorTerms":[{"matchFields":[{"key":"metadata.name","operator":"In","values":["n1"]}]}]}},"deallocationRequested":true}}`)
			v1, err := conversion.Convert(api.DeepCopyJSON(in), api.V1)
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range v1["spec"].(map[string]interface{})["devices"].(map[string]interface{})["requests"].([]interface{}) {
				exactly := r.(map[string]interface{})["exactly"].(map[string]interface{})
				if _, ok := exactly["allocationMode"]; !ok {
					exactly["allocationMode"] = "ExactCount"
				}
				if _, ok := exactly["count"]; !ok && exactly["allocationMode"] == "ExactCount" {
					exactly["count"] = json.Number("1")
				}
			}
			v1["status"].(map[string]interface{})["allocation"].(map[string]interface{})["devices"] = map[string]interface{}{}
			stored := api.DeepCopyJSON(v1)
			back, ws, err := conversion.ConvertWithWarnings(v1, api.V1alpha3)
			if err != nil {
				t.Fatal(err)
			}
			for _, section := range []string{"spec", "status"} {
				if diff := cmp.Diff(in[section], back[section]); diff != "" {
					t.Errorf("%s back in v1alpha3 (-original +got):\n%s", section, diff)
				}
			}
			for _, w := range ws {
				if strings.HasPrefix(w.Path, "metadata.annotations[") {
					t.Errorf("restore data reported as not applied: %v", w)
				}
			}
			again, err := conversion.Convert(back, api.V1)
			if err != nil {
				t.Fatal(err)
			}
			for _, section := range []string{"spec", "status"} {
				if diff := cmp.Diff(stored[section], again[section]); diff != "" {
					t.Errorf("%s in v1 again (-stored +got):\n%s", section, diff)
				}
			}
		})
	}
}
