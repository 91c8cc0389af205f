package validation

import (
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/conversion"
)

func mustConvert(t *testing.T, o map[string]interface{}, version string) map[string]interface{} {
	t.Helper()
	out, err := conversion.Convert(o, version)
	if err != nil {
		t.Fatalf("convert to %s: %v", version, err)
	}
	return out
}

func TestCrossVersionInvariants(t *testing.T) {
	requireConversion(t)
	notShareableV2 := `{"apiVersion":"resource.claimbridge.dev/v1alpha2","kind":"ResourceClaim","metadata":{"name":"c","namespace":"ns","resourceVersion":"1"},"spec":{"resourceClassName":"gpu"},"status":{"driverName":"gpu.example.com","allocation":{"resourceHandles":[{"driverName":"gpu.example.com","data":"h"}]},"reservedFor":[{"resource":"pods","name":"a","uid":"1"}]}}`
	v3Only := `{"apiVersion":"resource.claimbridge.dev/v1alpha3","kind":"ResourceClaim","metadata":{"name":"c","namespace":"ns","resourceVersion":"1"},"spec":{"devices":{"requests":[{"name":"gpu","deviceClassName":"gpu.example.com"}],"constraints":[{"requests":["gpu"],"matchAttribute":"gpu.example.com/numa"}]}}}`
	v3Allocated := `{"apiVersion":"resource.claimbridge.dev/v1alpha3","kind":"ResourceClaim","metadata":{"name":"c","namespace":"ns","resourceVersion":"1"},"spec":{"devices":{"requests":[{"name":"gpu","deviceClassName":"gpu.example.com"}]}},"status":{"allocation":{"devices":{"results":[{"request":"gpu","driver":"gpu.example.com","pool":"node-1","device":"gpu-0"}]}}}}`

	unallocatedV2 := `{"apiVersion":"resource.claimbridge.dev/v1alpha2","kind":"ResourceClaim","metadata":{"name":"c","namespace":"ns","resourceVersion":"1"},"spec":{"resourceClassName":"gpu"}}`
	structuredV2 := func(device string) string {
		return strings.TrimSuffix(unallocatedV2, "}") + `,"status":{"driverName":"gpu.example.com","allocation":{"shareable":true,"resourceHandles":[` +
			`{"driverName":"gpu.example.com","structuredData":{"nodeName":"node-1","results":[{"namedResources":{"name":"` + device + `"}}]}}]}}}`
	}
	// storedV2 is structuredV2(device) as stored before the rule (the
	// storage version's form, read back through v1alpha2).
	storedV2 := func(t *testing.T, device string) map[string]interface{} {
		return mustConvert(t, mustConvert(t, obj(t, structuredV2(device)), "v1alpha3"), "v1alpha2")
	}

	// withChangedHandle changes the handle data of notShareableV2 as stored
	// (v1alpha3: an opaque config's parameters), which the v1alpha2 view
	// shows; changedHandleErrors are the findings of that write alone,
	// v1alpha3's own (the allocation is immutable).
	withChangedHandle := func(t *testing.T, o map[string]interface{}) map[string]interface{} {
		config := o["status"].(map[string]interface{})["allocation"].(map[string]interface{})["devices"].(map[string]interface{})["config"].([]interface{})
		config[0].(map[string]interface{})["opaque"].(map[string]interface{})["parameters"].(map[string]interface{})["data"] = "other"
		return o
	}
	changedHandleErrors := func() field.ErrorList {
		old := mustConvert(t, obj(t, notShareableV2), "v1alpha3")
		resp, err := Validate(Request{Operation: Update, SubResource: "status", Object: withChangedHandle(t, deepCopyJSON(old)), OldObject: old})
		if err != nil || len(resp.Errors) != 1 || resp.Errors[0].Field != "status.allocation" {
			t.Fatalf("want v1alpha3's immutability error alone, got %v, %v", resp.Errors, err)
		}
		return resp.Errors
	}()

	appliedV1 := `{"apiVersion":"resource.claimbridge.dev/v1alpha1","kind":"ResourceClaim","metadata":{"name":"c","namespace":"ns","resourceVersion":"1"},"spec":{"resourceClassName":"gpu.example.com","allocationMode":"Immediate","parametersRef":{"apiGroup":"gpu.example.com","kind":"GpuParams","name":"small"}}}`
	managedByOp := func(manager, operation, version string) []interface{} {
		return []interface{}{map[string]interface{}{
			"manager": manager, "operation": operation, "apiVersion": "resource.claimbridge.dev/" + version,
			"fieldsType": "FieldsV1", "fieldsV1": map[string]interface{}{"f:spec": map[string]interface{}{}},
		}}
	}
	managedBy := func(manager, version string) []interface{} { return managedByOp(manager, "Apply", version) }
	invalidLabel := field.Invalid(field.NewPath("metadata", "labels"), "-a", "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', "+
		"and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')")
	// appliedByTeamA is appliedV1 as stored (v1alpha3) after team-a's
	// apply through version; appliedV3ByTeamA is what team-a's apply of a
	// v1alpha3 manifest of the same claim sends, without the restore
	// annotation its former fields left.
	appliedByTeamA := func(version string) func(t *testing.T) map[string]interface{} {
		return func(t *testing.T) map[string]interface{} {
			o := mustConvert(t, obj(t, appliedV1), "v1alpha3")
			o["metadata"].(map[string]interface{})["managedFields"] = managedBy("team-a", version)
			return o
		}
	}
	appliedV3ByTeamA := func(t *testing.T) map[string]interface{} {
		o := appliedByTeamA("v1alpha3")(t)
		delete(o["metadata"].(map[string]interface{}), "annotations")
		return o
	}

	scenarios := map[string]struct {
		sub          string
		old, new     func(t *testing.T) map[string]interface{}
		wantFailures field.ErrorList
	}{
		"not-shareable-stays-single-consumer-through-v1alpha3": { // rule 50 across versions
			sub: "status",
			old: func(t *testing.T) map[string]interface{} { return mustConvert(t, obj(t, notShareableV2), "v1alpha3") },
			new: func(t *testing.T) map[string]interface{} {
				o := mustConvert(t, obj(t, notShareableV2), "v1alpha3")
				status := o["status"].(map[string]interface{})
				status["reservedFor"] = append(status["reservedFor"].([]interface{}), map[string]interface{}{"resource": "pods", "name": "b", "uid": "2"})
				return o
			},
			// v1alpha3 has no shareable field: the refusal says where the rule comes from.
			wantFailures: field.ErrorList{field.Forbidden(field.NewPath("status", "reservedFor"), "may not be reserved more than once: the allocation is not shareable "+
				"as seen through v1alpha1 and v1alpha2 (status.allocation.shareable: false, kept in the claimbridge.dev/restore-* annotations for the 1.26–1.30 "+
				"driver that allocated it), whose consumers allow it one consumer only")},
		},
		// The rule looks at the old view: a write that also changes the
		// allocation (refused for that, by v1alpha3's own rules) has a
		// v1alpha2 view that no longer applies the old allocation's restore
		// data (shareable: false), and is refused for the second consumer
		// all the same (docs/validation.md, "Not shareable stays
		// single-consumer").
		"not-shareable-stays-single-consumer-when-the-allocation-changes-too": {
			sub: "status",
			old: func(t *testing.T) map[string]interface{} { return mustConvert(t, obj(t, notShareableV2), "v1alpha3") },
			new: func(t *testing.T) map[string]interface{} {
				o := withChangedHandle(t, mustConvert(t, obj(t, notShareableV2), "v1alpha3"))
				status := o["status"].(map[string]interface{})
				status["reservedFor"] = append(status["reservedFor"].([]interface{}), map[string]interface{}{"resource": "pods", "name": "b", "uid": "2"})
				return o
			},
			wantFailures: append(changedHandleErrors, field.Forbidden(field.NewPath("status", "reservedFor"), "may not be reserved more than once: the allocation is not shareable "+
				"as seen through v1alpha1 and v1alpha2 (status.allocation.shareable: false, kept in the claimbridge.dev/restore-* annotations for the 1.26–1.30 "+
				"driver that allocated it), whose consumers allow it one consumer only")),
		},
		"allocation-cleared-with-two-consumers-reports-the-allocation-rule-only": { // rule 50 applies while allocated (1.30)
			sub: "status",
			old: func(t *testing.T) map[string]interface{} { return obj(t, notShareableV2) },
			new: func(t *testing.T) map[string]interface{} {
				o := obj(t, notShareableV2)
				status := o["status"].(map[string]interface{})
				delete(status, "allocation")
				status["reservedFor"] = append(status["reservedFor"].([]interface{}), map[string]interface{}{"resource": "pods", "name": "b", "uid": "2"})
				return o
			},
			wantFailures: field.ErrorList{field.Forbidden(field.NewPath("status", "reservedFor"), "may not be specified when `allocated` is not set")},
		},
		"shareable-v1alpha3-claim-may-have-two-consumers": {
			sub: "status",
			old: func(t *testing.T) map[string]interface{} { return obj(t, v3Allocated) },
			new: func(t *testing.T) map[string]interface{} {
				o := obj(t, v3Allocated)
				o["status"].(map[string]interface{})["reservedFor"] = []interface{}{
					map[string]interface{}{"resource": "pods", "name": "a", "uid": "1"},
					map[string]interface{}{"resource": "pods", "name": "b", "uid": "2"},
				}
				return o
			},
		},
		"v1alpha1-update-dropping-v1alpha3-spec": { // rule 5 across versions
			old: func(t *testing.T) map[string]interface{} { return mustConvert(t, obj(t, v3Only), "v1alpha1") },
			new: func(t *testing.T) map[string]interface{} {
				o := mustConvert(t, obj(t, v3Only), "v1alpha1")
				delete(o["metadata"].(map[string]interface{}), "annotations")
				return o
			},
			wantFailures: field.ErrorList{
				field.Invalid(field.NewPath("metadata", "annotations"), "<value omitted>", "field is immutable: the update changes the spec as seen through v1alpha3"+restoreHint),
			},
		},
		"v1alpha1-driver-change-changes-stored-allocation": { // rule 52 across versions
			sub: "status",
			old: func(t *testing.T) map[string]interface{} { return mustConvert(t, obj(t, v3Allocated), "v1alpha1") },
			new: func(t *testing.T) map[string]interface{} {
				o := mustConvert(t, obj(t, v3Allocated), "v1alpha1")
				o["status"].(map[string]interface{})["driverName"] = "other.example.com"
				return o
			},
			wantFailures: field.ErrorList{
				field.Invalid(field.NewPath("status", "allocation"), "<value omitted>", "field is immutable: the update changes the allocation as seen through v1alpha3"),
			},
		},
		// An allocation set through v1alpha2 is stored as v1alpha3, which
		// every 1.31 consumer reads: it must pass v1alpha3's status rules as
		// stored (docs/validation.md, "An unchanged allocation is not
		// validated again on status writes"; TestOlderStatusWriteKeepsV1alpha3Rules
		// through kube-apiserver). A v1alpha2 device name may have a dot, a
		// v1alpha3 one may not.
		"v1alpha2-allocation-breaking-a-v1alpha3-rule-as-stored": {
			sub: "status",
			old: func(t *testing.T) map[string]interface{} { return obj(t, unallocatedV2) },
			new: func(t *testing.T) map[string]interface{} { return obj(t, structuredV2("gpu.0")) },
			wantFailures: field.ErrorList{field.Invalid(field.NewPath("status", "allocation"), "<value omitted>",
				"the allocation breaks a rule as seen through v1alpha3, the storage version: "+
					`status.allocation.devices.results[0].device: Invalid value: "gpu.0": must not contain dots`)},
		},
		"v1alpha2-allocation-valid-as-stored": {
			sub: "status",
			old: func(t *testing.T) map[string]interface{} { return obj(t, unallocatedV2) },
			new: func(t *testing.T) map[string]interface{} { return obj(t, structuredV2("gpu-0")) },
		},
		// The rule is about the write that sets the allocation: an
		// allocation stored already is unchanged (or refused as changed).
		"v1alpha2-reservation-of-an-allocation-stored-already": {
			sub: "status",
			old: func(t *testing.T) map[string]interface{} { return storedV2(t, "gpu.0") },
			new: func(t *testing.T) map[string]interface{} {
				o := storedV2(t, "gpu.0")
				o["status"].(map[string]interface{})["reservedFor"] = []interface{}{map[string]interface{}{"resource": "pods", "name": "a", "uid": "1"}}
				return o
			},
		},
		"v1alpha2-no-op-update-of-v1alpha3-claim": {
			old: func(t *testing.T) map[string]interface{} { return mustConvert(t, obj(t, v3Only), "v1alpha2") },
			new: func(t *testing.T) map[string]interface{} { return mustConvert(t, obj(t, v3Only), "v1alpha2") },
		},
		"v1alpha1-allocation-change-reported-once": { // rule 52, stricter than 1.26, not repeated from other views
			sub: "status",
			old: func(t *testing.T) map[string]interface{} { return mustConvert(t, obj(t, v3Allocated), "v1alpha1") },
			new: func(t *testing.T) map[string]interface{} {
				o := mustConvert(t, obj(t, v3Allocated), "v1alpha1")
				o["status"].(map[string]interface{})["allocation"].(map[string]interface{})["resourceHandle"] = "changed"
				return o
			},
			wantFailures: nil, // filled in below: the v1alpha1 error only
		},
		// A server-side apply through v1alpha3 by a field manager that
		// applied the claim through v1alpha1: kube-apiserver removes the
		// fields it applied then and does not apply now, parametersRef and
		// Immediate among them, which v1alpha3 holds in the restore
		// annotation only. The refusal names the apply, not a client that
		// edited the annotations (TestApplyAcrossVersions).
		"v1alpha3-apply-by-a-manager-that-applied-through-v1alpha1": {
			old: appliedByTeamA("v1alpha1"),
			new: appliedV3ByTeamA,
			wantFailures: field.ErrorList{field.Invalid(field.NewPath("metadata", "annotations"), "<value omitted>",
				"field is immutable: the update changes the spec as seen through v1alpha1 and v1alpha2 (server-side apply by field manager "+
					`"team-a" through v1alpha3 removes the fields it applied through v1alpha1 before and does not apply now, among them what v1alpha3 `+
					"cannot show, which the claimbridge.dev/restore-* annotations held: apply through v1alpha1 as before, or through v1alpha3 with "+
					`another field manager, which leaves "team-a"'s fields in place (with --force-conflicts where their fields overlap))`)},
		},
		// A former update (not an apply) through another version is no
		// switch either: kube-apiserver prunes only what a manager applied.
		"v1alpha3-apply-by-a-manager-that-updated-through-v1alpha1": {
			old: func(t *testing.T) map[string]interface{} {
				o := appliedByTeamA("v1alpha1")(t)
				o["metadata"].(map[string]interface{})["managedFields"] = managedByOp("team-a", "Update", "v1alpha1")
				return o
			},
			new: appliedV3ByTeamA,
			wantFailures: field.ErrorList{field.Invalid(field.NewPath("metadata", "annotations"), "<value omitted>",
				"field is immutable: the update changes the spec as seen through v1alpha1 and v1alpha2"+restoreHint)},
		},
		// An invalid label, reported by the client version's own rules, does
		// not hide the spec change another version sees: only a finding at
		// spec itself stands for it.
		"v1alpha1-update-dropping-v1alpha3-spec-with-an-invalid-label": {
			old: func(t *testing.T) map[string]interface{} { return mustConvert(t, obj(t, v3Only), "v1alpha1") },
			new: func(t *testing.T) map[string]interface{} {
				o := mustConvert(t, obj(t, v3Only), "v1alpha1")
				delete(o["metadata"].(map[string]interface{}), "annotations")
				o["metadata"].(map[string]interface{})["labels"] = map[string]interface{}{"team": "-a"}
				return o
			},
			// The label twice: the metadata update rules, then the create
			// rules again (1.26 ValidateClaimUpdate).
			wantFailures: field.ErrorList{
				invalidLabel, invalidLabel,
				field.Invalid(field.NewPath("metadata", "annotations"), "<value omitted>", "field is immutable: the update changes the spec as seen through v1alpha3"+restoreHint),
			},
		},
		// The same manager's former apply through the same version is no
		// switch: the usual hint.
		"v1alpha3-update-by-a-manager-that-applied-through-v1alpha3": {
			old: appliedByTeamA("v1alpha3"),
			new: appliedV3ByTeamA,
			wantFailures: field.ErrorList{field.Invalid(field.NewPath("metadata", "annotations"), "<value omitted>",
				"field is immutable: the update changes the spec as seen through v1alpha1 and v1alpha2"+restoreHint)},
		},
	}
	for name, scenario := range scenarios {
		t.Run(name, func(t *testing.T) {
			resp, err := Validate(Request{Operation: Update, SubResource: scenario.sub, Object: scenario.new(t), OldObject: scenario.old(t)})
			if err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			want := scenario.wantFailures
			if name == "v1alpha1-allocation-change-reported-once" {
				if len(resp.Errors) != 1 || resp.Errors[0].Field != "status.allocation" || resp.Errors[0].Detail != "field is immutable" {
					t.Errorf("want exactly the v1alpha1 immutability error, got %v", resp.Errors)
				}
				return
			}
			if diff := cmp.Diff(want, resp.Errors); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCrossVersionOldInOtherVersion(t *testing.T) {
	requireConversion(t)
	// The CLI may pair a v1alpha3 old object with a v1alpha2 new one.
	resp, err := Validate(Request{Operation: Update, Object: obj(t, strings.Replace(claimV2, `"allocationMode":"Immediate"`, `"allocationMode":"WaitForFirstConsumer"`, 1)), OldObject: mustConvert(t, obj(t, claimV2), "v1alpha3")})
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Errors) == 0 || resp.Errors[0].Field != "spec" {
		t.Errorf("want the spec immutability error first, got %v", resp.Errors)
	}
	// The same claim as old and new: the old one, converted to the new
	// one's version, is the new one (unconverted, its spec would differ).
	resp, err = Validate(Request{Operation: Update, Object: obj(t, claimV2), OldObject: mustConvert(t, obj(t, claimV2), "v1alpha3")})
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Errors) != 0 {
		t.Errorf("unchanged claim, old object in v1alpha3: want no errors, got %v", resp.Errors)
	}
}

// TestValidateKeepsCEL: Validate keeps the selectors it compiles in
// Request.CEL, for a create and, in the stored-expressions environment, an
// update.
func TestValidateKeepsCEL(t *testing.T) {
	o := obj(t, strings.Replace(claimV3, `"deviceClassName"`, `"selectors":[{"cel":{"expression":"device.driver == \"gpu.example.com\""}}],"deviceClassName"`, 1))
	cel := NewCELCache()
	for _, req := range []Request{{Operation: Create, Object: o, CEL: cel}, {Operation: Update, Object: o, OldObject: o, CEL: cel}} {
		if resp, err := Validate(req); err != nil || len(resp.Errors) != 0 {
			t.Fatal(req.Operation, err, resp.Errors)
		}
	}
	if cel.Len() != 2 {
		t.Errorf("the cache holds %d compilations, want 2", cel.Len())
	}
}

func BenchmarkValidateCreateV1alpha3(b *testing.B) {
	o := obj(b, strings.Replace(claimV3, `"deviceClassName"`, `"selectors":[{"cel":{"expression":"device.driver == \"gpu.example.com\""}}],"deviceClassName"`, 1))
	cel := NewCELCache() // the warm path, as a server or a CLI run validates
	if _, err := Validate(Request{Operation: Create, Object: o, CEL: cel}); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if resp, err := Validate(Request{Operation: Create, Object: o, CEL: cel}); err != nil || len(resp.Errors) != 0 {
			b.Fatal(err, resp.Errors)
		}
	}
}

// BenchmarkValidateStatusUpdateV1alpha3: the status writes of
// examples/claim-v1alpha3.yaml that make bench times, as JSON as the
// webhook holds them: the release of its pod, its deallocation, its
// allocation and its reservation for a pod.
func BenchmarkValidateStatusUpdateV1alpha3(b *testing.B) {
	data, err := os.ReadFile("../examples/claim-v1alpha3.yaml")
	if err != nil {
		b.Fatal(err)
	}
	if data, err = yaml.YAMLToJSON(data); err != nil {
		b.Fatal(err)
	}
	reserved := obj(b, string(data))
	allocated, unallocated := deepCopyJSON(reserved), deepCopyJSON(reserved)
	delete(allocated["status"].(map[string]interface{}), "reservedFor")
	delete(unallocated, "status")
	for _, bm := range []struct {
		name     string
		new, old map[string]interface{}
	}{{"unreserve", allocated, reserved}, {"deallocate", unallocated, allocated}, {"allocate", allocated, unallocated}, {"reserve", reserved, allocated}} {
		b.Run(bm.name, func(b *testing.B) {
			req := Request{Operation: Update, SubResource: "status", ObjectJSON: mustAppendJSON(b, bm.new), OldObjectJSON: mustAppendJSON(b, bm.old)}
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if resp, err := Validate(req); err != nil || len(resp.Errors) != 0 {
					b.Fatal(err, resp.Errors)
				}
			}
		})
	}
}

func mustAppendJSON(tb testing.TB, v interface{}) []byte {
	tb.Helper()
	data, err := api.AppendJSON(nil, v)
	if err != nil {
		tb.Fatal(err)
	}
	return data
}
