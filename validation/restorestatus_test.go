package validation

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/defaulting"
	"github.com/claimbridge/claimbridge/validation/common"
)

// The restore annotations are the client's to send, and conversion applies
// them when the apiserver stores the object — after it has dropped the
// status of a create, or put the stored status back on a main update. An
// edited annotation must therefore not write any version's status.

// forgedStatusPatch appends op to the status section of version's restore
// annotation on o, adding the section (for an object without status) when
// it has none.
func forgedStatusPatch(t *testing.T, o map[string]interface{}, version string, op map[string]interface{}) {
	t.Helper()
	meta := o["metadata"].(map[string]interface{})
	ann, _ := meta["annotations"].(map[string]interface{})
	if ann == nil {
		ann = map[string]interface{}{}
		meta["annotations"] = ann
	}
	if _, ok := ann[api.RestoreAnnotation(version)]; !ok {
		ann[api.RestoreAnnotation(version)] = `{"created":"annotations"}`
	}
	editRestore(t, o, version, func(r map[string]interface{}) {
		section, _ := r["status"].(map[string]interface{})
		if section == nil {
			if _, hasStatus := o["status"]; hasStatus {
				t.Fatalf("the %s annotation has no status section to extend: the test no longer tests what it says", version)
			}
			section = map[string]interface{}{"base": "", "patch": []interface{}{}}
			r["status"] = section
		}
		section["patch"] = append(section["patch"].([]interface{}), op)
	})
}

func TestCreateCannotSetStatusThroughRestoreAnnotations(t *testing.T) {
	requireConversion(t)
	v2 := `{"apiVersion":"resource.claimbridge.dev/v1alpha2","kind":"ResourceClaim","metadata":{"name":"c","namespace":"ns"},"spec":{"resourceClassName":"gpu.example.com"}}`
	v3 := `{"apiVersion":"resource.claimbridge.dev/v1alpha3","kind":"ResourceClaim","metadata":{"name":"c","namespace":"ns"},"spec":{"devices":{"requests":[{"name":"request","deviceClassName":"gpu.example.com"}]}}}`
	annotations := field.NewPath("metadata", "annotations")
	forbidden := func(version string) *field.Error {
		return field.Forbidden(annotations, "the restore annotations give the object a status as seen through "+version+": a create cannot set status")
	}
	for name, sc := range map[string]struct {
		obj  string
		via  string // the restore annotation forged
		add  map[string]interface{}
		want field.ErrorList
	}{
		"v1alpha2-create-storing-an-allocated-reserved-v1alpha3-status": {
			obj: v2, via: "v1alpha3",
			add: map[string]interface{}{"allocation": map[string]interface{}{"devices": map[string]interface{}{"results": []interface{}{
				map[string]interface{}{"request": "request", "driver": "gpu.example.com", "pool": "p", "device": "d"}}}},
				"reservedFor":           []interface{}{map[string]interface{}{"resource": "pods", "name": "ghost", "uid": "g"}},
				"deallocationRequested": true},
			want: field.ErrorList{forbidden("v1alpha3")},
		},
		"v1alpha3-create-showing-an-allocation-to-v1alpha2-and-v1alpha1": {
			obj: v3, via: "v1alpha2",
			add: map[string]interface{}{"driverName": "gpu.example.com",
				"allocation":  map[string]interface{}{"resourceHandles": []interface{}{map[string]interface{}{"driverName": "gpu.example.com", "data": "attacker-chosen"}}, "shareable": true},
				"reservedFor": []interface{}{map[string]interface{}{"resource": "pods", "name": "ghost", "uid": "g"}}},
			want: field.ErrorList{forbidden("v1alpha1"), forbidden("v1alpha2")},
		},
	} {
		t.Run(name, func(t *testing.T) {
			o := obj(t, sc.obj)
			forgedStatusPatch(t, o, sc.via, map[string]interface{}{"op": "add", "path": "/status", "value": sc.add})
			resp, err := Validate(Request{Operation: Create, Object: o})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(sc.want, resp.Errors); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
		})
	}
}

func TestMainUpdateCannotChangeStatusThroughRestoreAnnotations(t *testing.T) {
	requireConversion(t)
	// Not shareable as v1alpha2: its v1alpha3 form keeps shareable and the
	// handle in a status section of the restore-v1alpha2 annotation.
	notShareableV2 := `{"apiVersion":"resource.claimbridge.dev/v1alpha2","kind":"ResourceClaim","metadata":{"name":"c","namespace":"ns","resourceVersion":"1"},"spec":{"resourceClassName":"gpu"},"status":{"driverName":"gpu.example.com","allocation":{"resourceHandles":[{"driverName":"gpu.example.com","data":"h"}]},"reservedFor":[{"resource":"pods","name":"a","uid":"1"}]}}`
	annotations := field.NewPath("metadata", "annotations")
	forbidden := func(version string) *field.Error {
		return field.Forbidden(annotations, "the update changes status as seen through "+version+": status is written through the status subresource"+restoreHint)
	}
	stored := func(t *testing.T) map[string]interface{} { return mustConvert(t, obj(t, notShareableV2), "v1alpha3") }
	for name, sc := range map[string]struct {
		op   map[string]interface{}
		want field.ErrorList
	}{
		"hiding-the-reservations-from-v1alpha2-and-v1alpha1": {
			op:   map[string]interface{}{"op": "replace", "path": "/status/reservedFor", "value": []interface{}{}},
			want: field.ErrorList{forbidden("v1alpha1 and v1alpha2")}, // one finding for both views
		},
		"requesting-deallocation-as-seen-through-v1alpha2-and-v1alpha1": {
			op:   map[string]interface{}{"op": "add", "path": "/status/deallocationRequested", "value": true},
			want: field.ErrorList{forbidden("v1alpha1 and v1alpha2")},
		},
		"making-it-shareable-as-seen-through-v1alpha2-and-v1alpha1": { // the allocation's rule, as before
			op: map[string]interface{}{"op": "replace", "path": "/status/allocation/shareable", "value": true},
			want: field.ErrorList{
				field.Invalid(annotations, "<value omitted>", "field is immutable: the update changes status.allocation as seen through v1alpha1 and v1alpha2"+restoreHint),
			},
		},
	} {
		t.Run(name, func(t *testing.T) {
			o := stored(t)
			forgedStatusPatch(t, o, "v1alpha2", sc.op)
			resp, err := Validate(Request{Operation: Update, Object: o, OldObject: stored(t)})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(sc.want, resp.Errors); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
		})
	}
	t.Run("a-label-change-is-no-status-change", func(t *testing.T) {
		o := stored(t)
		o["metadata"].(map[string]interface{})["labels"] = map[string]interface{}{"team": "a"}
		resp, err := Validate(Request{Operation: Update, Object: o, OldObject: stored(t)})
		if err != nil {
			t.Fatal(err)
		}
		if len(resp.Errors) != 0 {
			t.Errorf("want no errors, got %v", resp.Errors)
		}
	})
}

// An allocation written through v1alpha3 whose handle, seen through
// v1alpha1 or v1alpha2, exceeds the 16 KiB those releases allowed does not
// keep their clients from unreserving (withoutUnchangedAllocationErrors);
// setting such a handle through those versions is still refused.
func TestUnchangedAllocationIsNotRevalidated(t *testing.T) {
	requireConversion(t)
	blob := strings.Repeat("x", 17000)
	v3 := `{"apiVersion":"resource.claimbridge.dev/v1alpha3","kind":"ResourceClaim","metadata":{"name":"c","namespace":"ns","resourceVersion":"1"},` +
		`"spec":{"devices":{"requests":[{"name":"request","deviceClassName":"gpu.example.com"}]}},` +
		`"status":{"allocation":{"controller":"gpu.example.com","devices":{"results":[{"request":"request","driver":"gpu.example.com","pool":"p","device":"d"}],` +
		`"config":[{"source":"FromClaim","opaque":{"driver":"gpu.example.com","parameters":{"blob":"` + blob + `"}}}]}},` +
		`"reservedFor":[{"resource":"pods","name":"a","uid":"1"}]}}`
	for _, version := range []string{"v1alpha1", "v1alpha2"} {
		t.Run(version, func(t *testing.T) {
			old := mustConvert(t, obj(t, v3), version)
			unreserved := mustConvert(t, obj(t, v3), version)
			delete(unreserved["status"].(map[string]interface{}), "reservedFor")
			resp, err := Validate(Request{Operation: Update, SubResource: "status", Object: unreserved, OldObject: old})
			if err != nil {
				t.Fatal(err)
			}
			if len(resp.Errors) != 0 {
				t.Errorf("unreserving: want no errors, got %v", resp.Errors)
			}
			// Setting the same allocation through this version is refused as upstream.
			unallocated := mustConvert(t, obj(t, v3), version)
			status := unallocated["status"].(map[string]interface{})
			delete(status, "allocation")
			delete(status, "reservedFor")
			delete(status, "driverName")
			allocating := mustConvert(t, obj(t, v3), version)
			delete(allocating["status"].(map[string]interface{}), "reservedFor")
			resp, err = Validate(Request{Operation: Update, SubResource: "status", Object: allocating, OldObject: unallocated})
			if err != nil {
				t.Fatal(err)
			}
			tooLong := false
			for _, e := range resp.Errors {
				tooLong = tooLong || e.Type == field.ErrorTypeTooLong && inside(e.Field, "status.allocation")
			}
			if !tooLong {
				t.Errorf("allocating: want the handle's TooLong error, got %v", resp.Errors)
			}
		})
	}
}

// A client may send the restore annotation of the very version it writes
// (restore-v1alpha2 on a v1alpha2 claim), which no conversion leaves there.
// It must not change what any version shows afterwards: validation looks at
// the other versions' views only, so one kept and applied on the way back
// would put an unvalidated spec and status into the writer's own view (and
// into the storage version's on the next write through an older version).
func TestOwnVersionRestoreAnnotationChangesNoView(t *testing.T) {
	requireConversion(t)
	// genuine returns the restore-<version> annotation that converting o
	// with the spec (and status) edits of edit to the neighbour to writes:
	// made for o itself, it applies when o comes back.
	genuine := func(t *testing.T, o map[string]interface{}, to string, edit func(o map[string]interface{})) string {
		t.Helper()
		variant := deepCopyJSON(o)
		edit(variant)
		converted := mustConvert(t, variant, to)
		a, _ := converted["metadata"].(map[string]interface{})["annotations"].(map[string]interface{})[api.RestoreAnnotation(variant["apiVersion"].(string)[len("resource.claimbridge.dev/"):])].(string)
		if a == "" {
			t.Fatalf("no restore annotation in %v", converted)
		}
		return a
	}
	views := func(t *testing.T, stored map[string]interface{}) map[string]interface{} {
		t.Helper()
		out := map[string]interface{}{}
		for _, v := range api.ServedVersions {
			view := mustConvert(t, stored, v)
			out[v] = map[string]interface{}{"spec": view["spec"], "status": view["status"]}
		}
		return out
	}

	t.Run("v1alpha2-create-with-restore-v1alpha2", func(t *testing.T) {
		plain := `{"apiVersion":"resource.claimbridge.dev/v1alpha2","kind":"ResourceClaim","metadata":{"name":"c","namespace":"ns","annotations":{"team":"a"}},"spec":{"resourceClassName":"gpu"}}`
		o := obj(t, plain)
		// An invalid class and an allocated, reserved status, as seen
		// through v1alpha2 and v1alpha1.
		o["metadata"].(map[string]interface{})["annotations"].(map[string]interface{})[api.RestoreAnnotation("v1alpha2")] =
			genuine(t, obj(t, plain), "v1alpha3", func(v map[string]interface{}) { v["spec"].(map[string]interface{})["unknown"] = true })
		editRestore(t, o, "v1alpha2", func(r map[string]interface{}) {
			r["spec"].(map[string]interface{})["patch"] = []interface{}{map[string]interface{}{"op": "replace", "path": "/spec/resourceClassName", "value": "INVALID_!"}}
		})
		forgedStatusPatch(t, o, "v1alpha2", map[string]interface{}{"op": "add", "path": "/status", "value": map[string]interface{}{
			"driverName": "gpu.example.com", "allocation": map[string]interface{}{"shareable": true},
			"reservedFor": []interface{}{map[string]interface{}{"resource": "pods", "name": "ghost", "uid": "g"}}}})
		resp, err := Validate(Request{Operation: Create, Object: o})
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(field.ErrorList(nil), resp.Errors); diff != "" {
			t.Errorf("errors (-want +got):\n%s", diff)
		}
		got := views(t, mustConvert(t, prepareForCreate(o, api.KindClaim), api.StorageVersion))
		want := views(t, mustConvert(t, obj(t, plain), api.StorageVersion))
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("views of the stored object (-without the annotation +with it):\n%s", diff)
		}
	})

	t.Run("restore-v1alpha3-on-v1alpha3-then-a-v1alpha2-label-change", func(t *testing.T) {
		stored := obj(t, `{"apiVersion":"resource.claimbridge.dev/v1alpha3","kind":"ResourceClaim","metadata":{"name":"c","namespace":"ns","resourceVersion":"1","annotations":{"team":"a"}},`+
			`"spec":{"devices":{"requests":[{"name":"request","deviceClassName":"gpu"}]}},`+
			`"status":{"allocation":{"controller":"gpu.example.com","devices":{"results":[{"request":"request","driver":"gpu.example.com","pool":"gpu.example.com","device":"handle-0"}]}}}}`)
		// A selector that does not compile, another device, and a consumer
		// written without the status subresource.
		forged := genuine(t, stored, "v1alpha2", func(v map[string]interface{}) {
			v["spec"].(map[string]interface{})["devices"].(map[string]interface{})["requests"].([]interface{})[0].(map[string]interface{})["selectors"] =
				[]interface{}{map[string]interface{}{"cel": map[string]interface{}{"expression": "1"}}}
			v["status"].(map[string]interface{})["allocation"].(map[string]interface{})["devices"].(map[string]interface{})["results"].([]interface{})[0].(map[string]interface{})["device"] = "someone-elses-gpu"
		})
		annotated := deepCopyJSON(stored)
		annotated["metadata"].(map[string]interface{})["annotations"].(map[string]interface{})[api.RestoreAnnotation("v1alpha3")] = forged
		resp, err := Validate(Request{Operation: Update, Object: annotated, OldObject: stored})
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(field.ErrorList(nil), resp.Errors); diff != "" {
			t.Errorf("annotating: errors (-want +got):\n%s", diff)
		}
		// Stored as written (v1alpha3 is the storage version); a v1alpha2
		// client adds a label.
		old := mustConvert(t, annotated, "v1alpha2")
		labelled := mustConvert(t, annotated, "v1alpha2")
		labelled["metadata"].(map[string]interface{})["labels"] = map[string]interface{}{"team": "b"}
		resp, err = Validate(Request{Operation: Update, Object: labelled, OldObject: old})
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(field.ErrorList(nil), resp.Errors); diff != "" {
			t.Errorf("labelling: errors (-want +got):\n%s", diff)
		}
		got := mustConvert(t, prepareForUpdate(labelled, old, api.KindClaim), api.StorageVersion)
		for _, section := range []string{"spec", "status"} {
			if diff := cmp.Diff(stored[section], got[section]); diff != "" {
				t.Errorf("stored %s after the v1alpha2 label change (-before +after):\n%s", section, diff)
			}
		}
	})
}

// Restore status data that applies to no present status changes no view
// today, and the view of its version once a status write brings the status
// to the one it names: a create or main update may not plant it.
func TestStatusRestoreDataForALaterStatus(t *testing.T) {
	requireConversion(t)
	allocatedV3 := `{"apiVersion":"resource.claimbridge.dev/v1alpha3","kind":"ResourceClaim","metadata":{"name":"c","namespace":"ns","resourceVersion":"1"},` +
		`"spec":{"devices":{"requests":[{"name":"request","deviceClassName":"gpu"}]}},` +
		`"status":{"allocation":{"devices":{"results":[{"request":"request","driver":"gpu.example.com","pool":"node-1","device":"gpu-0"}]}},"reservedFor":[{"resource":"pods","name":"a","uid":"1"}]}}`
	// forged is status data for the status a deallocation leaves ({}), as
	// seen through version: an allocation of the attacker's driver.
	forged := func(t *testing.T, version string) string {
		t.Helper()
		probe := obj(t, `{"apiVersion":"resource.claimbridge.dev/`+version+`","kind":"ResourceClaim","metadata":{"name":"c","namespace":"ns"},"spec":{"resourceClassName":"gpu"},"status":{"unknown":1}}`)
		o := mustConvert(t, probe, versionAfter(version))
		editRestore(t, o, version, func(r map[string]interface{}) {
			r["status"].(map[string]interface{})["patch"] = []interface{}{
				map[string]interface{}{"op": "add", "path": "/status/driverName", "value": "evil.example.com"},
				map[string]interface{}{"op": "add", "path": "/status/allocation", "value": map[string]interface{}{
					"resourceHandles": []interface{}{map[string]interface{}{"driverName": "evil.example.com", "data": "attacker"}}, "shareable": true}},
			}
		})
		return o["metadata"].(map[string]interface{})["annotations"].(map[string]interface{})[api.RestoreAnnotation(version)].(string)
	}
	key := func(version string) string { return api.RestoreAnnotation(version) }
	changed := func(version string) *field.Error {
		return field.Forbidden(field.NewPath("metadata", "annotations").Key(key(version)),
			"the update changes its status restore data: status is written through the status subresource, and this data would change it as seen through another version once the claim's status matches it")
	}
	forCreate := func(version string) *field.Error {
		return field.Forbidden(field.NewPath("metadata", "annotations").Key(key(version)),
			"holds status restore data: a create cannot set status, and this data would set it as seen through another version once the claim's status matches it")
	}
	for name, sc := range map[string]struct {
		req  func(t *testing.T) Request
		want field.ErrorList
	}{
		"v1alpha3-update-planting-an-allocation-for-the-deallocated-status": {
			req: func(t *testing.T) Request {
				return Request{Operation: Update, OldObject: obj(t, allocatedV3),
					Object: annotate(obj(t, allocatedV3), key("v1alpha2"), forged(t, "v1alpha2"))}
			},
			want: field.ErrorList{changed("v1alpha2")},
		},
		"v1alpha3-update-planting-it-for-v1alpha1": {
			req: func(t *testing.T) Request {
				return Request{Operation: Update, OldObject: obj(t, allocatedV3),
					Object: annotate(obj(t, allocatedV3), key("v1alpha1"), forged(t, "v1alpha1"))}
			},
			want: field.ErrorList{changed("v1alpha1")},
		},
		"v1alpha2-update-planting-it-for-v1alpha1": {
			req: func(t *testing.T) Request {
				return Request{Operation: Update, OldObject: mustConvert(t, obj(t, allocatedV3), "v1alpha2"),
					Object: annotate(mustConvert(t, obj(t, allocatedV3), "v1alpha2"), key("v1alpha1"), forged(t, "v1alpha1"))}
			},
			want: field.ErrorList{changed("v1alpha1")},
		},
		"v1alpha3-create-carrying-it": {
			req: func(t *testing.T) Request {
				o := obj(t, allocatedV3)
				delete(o, "status")
				delete(o["metadata"].(map[string]interface{}), "resourceVersion")
				return Request{Operation: Create, Object: annotate(o, key("v1alpha2"), forged(t, "v1alpha2"))}
			},
			want: field.ErrorList{forCreate("v1alpha2")},
		},
		"v1alpha2-create-carrying-status-data-of-v1alpha3-which-storing-it-drops": {
			req: func(t *testing.T) Request {
				// A classic allocation: v1alpha2 keeps its device names in
				// restore-v1alpha3.
				classic := strings.Replace(allocatedV3, `"allocation":{`, `"allocation":{"controller":"gpu.example.com",`, 1)
				o := mustConvert(t, obj(t, classic), "v1alpha2")
				if restoreStatusData(o, []string{key("v1alpha3")}) == nil {
					t.Fatal("the v1alpha2 view has no status data in restore-v1alpha3: the test no longer tests what it says")
				}
				delete(o, "status")
				delete(o["metadata"].(map[string]interface{}), "resourceVersion")
				return Request{Operation: Create, Object: o}
			},
		},
		"v1alpha3-update-keeping-it-with-another-annotation": {
			req: func(t *testing.T) Request {
				old := annotate(obj(t, allocatedV3), key("v1alpha2"), forged(t, "v1alpha2"))
				return Request{Operation: Update, OldObject: old, Object: annotate(deepCopyJSON(old), "team", "a")}
			},
		},
		"v1alpha3-update-changing-it": { // data the old object already had, changed: refused like added data
			req: func(t *testing.T) Request {
				old := annotate(obj(t, allocatedV3), key("v1alpha2"), forged(t, "v1alpha2"))
				o := deepCopyJSON(old)
				editRestore(t, o, "v1alpha2", func(r map[string]interface{}) {
					r["status"].(map[string]interface{})["patch"].([]interface{})[0].(map[string]interface{})["value"] = "other.example.com"
				})
				return Request{Operation: Update, OldObject: old, Object: o}
			},
			want: field.ErrorList{changed("v1alpha2")},
		},
		"v1alpha3-update-removing-it": {
			req: func(t *testing.T) Request {
				return Request{Operation: Update, OldObject: annotate(obj(t, allocatedV3), key("v1alpha2"), forged(t, "v1alpha2")), Object: obj(t, allocatedV3)}
			},
		},
	} {
		t.Run(name, func(t *testing.T) {
			resp, err := Validate(sc.req(t))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(sc.want, resp.Errors); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
		})
	}
}

// versionAfter is the served version after version.
func versionAfter(version string) string {
	return api.ServedVersions[slices.Index(api.ServedVersions, version)+1]
}

// A spec patch of a restore annotation cannot carry status: planted on an
// allocated claim it changed no view, and once a status write removed the
// status, v1alpha2 and v1alpha1 clients saw an allocation storage did not
// have. Conversion applies only the operations inside a patch's section.
func TestSpecRestoreDataCannotWriteStatus(t *testing.T) {
	requireConversion(t)
	stored := obj(t, `{"apiVersion":"resource.claimbridge.dev/v1alpha3","kind":"ResourceClaim","metadata":{"name":"c","namespace":"ns","resourceVersion":"1"},`+
		`"spec":{"devices":{"requests":[{"name":"request","deviceClassName":"gpu"}]}},`+
		`"status":{"allocation":{"devices":{"results":[{"request":"request","driver":"gpu.example.com","pool":"node-1","device":"gpu-0"}]}}}}`)
	// A genuine restore-v1alpha2 spec patch for this spec, with an
	// operation on /status added.
	probe := mustConvert(t, stored, "v1alpha2")
	probe["spec"].(map[string]interface{})["unknown"] = true
	planted := mustConvert(t, probe, "v1alpha3")
	editRestore(t, planted, "v1alpha2", func(r map[string]interface{}) {
		spec := r["spec"].(map[string]interface{})
		spec["patch"] = append(spec["patch"].([]interface{}), map[string]interface{}{"op": "add", "path": "/status", "value": map[string]interface{}{
			"driverName": "evil.example.com", "allocation": map[string]interface{}{"resourceHandles": []interface{}{map[string]interface{}{"driverName": "evil.example.com", "data": "attacker"}}, "shareable": true}}})
	})
	planted["status"] = stored["status"]
	resp, err := Validate(Request{Operation: Update, Object: planted, OldObject: stored})
	if err != nil {
		t.Fatal(err)
	}
	// No view's typed spec or status changes; the field no shape has is
	// what refuses it, as on a create.
	want := field.ErrorList{field.Invalid(field.NewPath("metadata", "annotations").Key("claimbridge.dev/restore-v1alpha2"), common.OmittedValue,
		"the restore annotations make the object invalid as seen through v1alpha2: spec.unknown: Forbidden: unknown field")}
	if diff := cmp.Diff(want, resp.Errors); diff != "" {
		t.Errorf("planting: errors (-want +got):\n%s", diff)
	}
	// Had it been stored, a status write removing the status would not
	// give the older versions one.
	cleared := deepCopyJSON(planted)
	delete(cleared, "status")
	for _, version := range []string{"v1alpha1", "v1alpha2"} {
		if status, ok := mustConvert(t, cleared, version)["status"]; ok {
			t.Errorf("%s view of the claim without status has status %v", version, status)
		}
	}
}

// KeepStoredStatusRestoreData gives a claim written through the main
// resource the stored claim's status data (none for a create), with one
// warning per annotation it changes, and returns the claim as it is when it
// already has it.
func TestKeepStoredStatusRestoreData(t *testing.T) {
	requireConversion(t)
	// As v1alpha3, the allocation of a claim that is not shareable as
	// v1alpha2 keeps the handle in the status data of restore-v1alpha2.
	notShareableV2 := `{"apiVersion":"resource.claimbridge.dev/v1alpha2","kind":"ResourceClaim","metadata":{"name":"c","namespace":"ns","resourceVersion":"1"},"spec":{"resourceClassName":"gpu"},"status":{"driverName":"gpu.example.com","allocation":{"resourceHandles":[{"driverName":"gpu.example.com","data":"h"}]},"reservedFor":[{"resource":"pods","name":"a","uid":"1"}]}}`
	stored := func(t *testing.T) map[string]interface{} { return mustConvert(t, obj(t, notShareableV2), "v1alpha3") }
	key := api.RestoreAnnotation("v1alpha2")
	for name, sc := range map[string]struct {
		obj, old func(t *testing.T) map[string]interface{} // old nil: a create
		// wantData is the status data the result has, from the object it
		// returns; nil: the claim is returned as it is.
		wantData     func(t *testing.T) map[string]interface{}
		wantWarnings []string
	}{
		"create-without-status-data": {
			obj: func(t *testing.T) map[string]interface{} {
				return annotate(obj(t, `{"apiVersion":"resource.claimbridge.dev/v1alpha3","kind":"ResourceClaim","metadata":{"name":"c","namespace":"ns"},"spec":{"devices":{"requests":[{"name":"request","deviceClassName":"gpu"}]}}}`), "team", "a")
			},
		},
		"create-of-a-backup-with-status-data": {
			obj:          stored,
			wantData:     func(*testing.T) map[string]interface{} { return nil },
			wantWarnings: []string{"metadata.annotations[" + key + "]: its status restore data was removed: a created claim starts without status"},
		},
		"update-with-the-stored-status-data": {
			obj: func(t *testing.T) map[string]interface{} { return annotate(stored(t), "team", "a") },
			old: stored,
		},
		"update-changing-the-status-data": {
			obj: func(t *testing.T) map[string]interface{} {
				o := stored(t)
				forgedStatusPatch(t, o, "v1alpha2", map[string]interface{}{"op": "add", "path": "/status/deallocationRequested", "value": true})
				return o
			},
			old: stored,
			wantData: func(t *testing.T) map[string]interface{} {
				return restoreStatusData(stored(t), []string{key})
			},
			wantWarnings: []string{"metadata.annotations[" + key + "]: its status restore data was kept as stored: status is written through the status subresource"},
		},
	} {
		t.Run(name, func(t *testing.T) {
			o := sc.obj(t)
			var old map[string]interface{}
			if sc.old != nil {
				old = sc.old(t)
			}
			before := deepCopyJSON(o)
			got, warnings := defaulting.KeepStoredStatusRestoreData(o, old, "v1alpha3")
			if diff := cmp.Diff(sc.wantWarnings, warnings); diff != "" {
				t.Errorf("warnings (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(before, o); diff != "" {
				t.Errorf("the claim was modified (-before +after):\n%s", diff)
			}
			if sc.wantData == nil {
				if diff := cmp.Diff(before, got); diff != "" {
					t.Errorf("the claim was changed (-want +got):\n%s", diff)
				}
				return
			}
			if diff := cmp.Diff(sc.wantData(t), restoreStatusData(got, []string{key})); diff != "" {
				t.Errorf("status restore data (-want +got):\n%s", diff)
			}
		})
	}
}
