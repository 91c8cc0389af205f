package validation

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/claimbridge/claimbridge/conversion"
)

// TestOlderClientsCanWriteClaimsWithoutRequests: a v1alpha3 claim or
// template without requests is valid in 1.31, and its v1alpha1/v1alpha2 view
// has no resourceClassName (and, once allocated, no status.driverName). A
// 1.26–1.30 client must still be able to label it, remove its finalizer and
// drop its reservation: the spec and the allocation are not its to change.
// A spec that is invalid in the storage version too is still reported on
// update, as upstream reports it.
func TestOlderClientsCanWriteClaimsWithoutRequests(t *testing.T) {
	const (
		claimMeta    = `"metadata":{"name":"c","namespace":"ns","resourceVersion":"1","finalizers":["example.com/protect"]}`
		templateMeta = `"metadata":{"name":"t","namespace":"ns","resourceVersion":"1"}`
		allocated    = `,"status":{"allocation":{"devices":{}},"reservedFor":[{"resource":"pods","name":"p","uid":"u1"}]}`
	)
	stored := map[string]string{
		"claim with requests: []":           `{"apiVersion":"resource.claimbridge.dev/v1alpha3","kind":"ResourceClaim",` + claimMeta + `,"spec":{"devices":{"requests":[]}}}`,
		"claim with spec: {}":               `{"apiVersion":"resource.claimbridge.dev/v1alpha3","kind":"ResourceClaim",` + claimMeta + `,"spec":{}}`,
		"allocated, reserved claim":         `{"apiVersion":"resource.claimbridge.dev/v1alpha3","kind":"ResourceClaim",` + claimMeta + `,"spec":{"devices":{"requests":[]}}` + allocated + `}`,
		"template with requests: []":        `{"apiVersion":"resource.claimbridge.dev/v1alpha3","kind":"ResourceClaimTemplate",` + templateMeta + `,"spec":{"spec":{"devices":{"requests":[]}}}}`,
		"template with an empty claim spec": `{"apiVersion":"resource.claimbridge.dev/v1alpha3","kind":"ResourceClaimTemplate",` + templateMeta + `,"spec":{"spec":{}}}`,
	}
	for name, doc := range stored {
		for _, version := range []string{"v1alpha1", "v1alpha2"} {
			t.Run(name+" through "+version, func(t *testing.T) {
				view, err := conversion.Convert(obj(t, doc), version)
				if err != nil {
					t.Fatal(err)
				}
				write := func(what, subResource string, change func(map[string]interface{})) {
					t.Helper()
					updated, err := conversion.Convert(obj(t, doc), version)
					if err != nil {
						t.Fatal(err)
					}
					change(updated)
					resp, err := Validate(Request{Operation: Update, SubResource: subResource, Object: updated, OldObject: view})
					if err != nil {
						t.Fatalf("%s: %v", what, err)
					}
					if len(resp.Errors) > 0 {
						t.Errorf("%s: %v", what, resp.Errors)
					}
				}
				meta := func(o map[string]interface{}) map[string]interface{} { return o["metadata"].(map[string]interface{}) }
				write("label", "", func(o map[string]interface{}) { meta(o)["labels"] = map[string]interface{}{"a": "b"} })
				write("unchanged", "", func(map[string]interface{}) {})
				// The CRD defaults allocationMode of a v1alpha1/v1alpha2
				// write, which the view of a spec without a resource class
				// does not show.
				write("label, spec defaulted", "", func(o map[string]interface{}) {
					meta(o)["labels"] = map[string]interface{}{"a": "b"}
					spec := o["spec"].(map[string]interface{})
					if inner, ok := spec["spec"].(map[string]interface{}); ok {
						spec = inner
					}
					spec["allocationMode"] = "WaitForFirstConsumer"
				})
				if _, ok := meta(view)["finalizers"]; ok {
					write("finalizer removed", "", func(o map[string]interface{}) { delete(meta(o), "finalizers") })
				}
				if status, ok := view["status"].(map[string]interface{}); ok && status["reservedFor"] != nil {
					write("reservation removed", "status", func(o map[string]interface{}) {
						delete(o["status"].(map[string]interface{}), "reservedFor")
					})
				}
			})
		}
	}

	// A spec the storage version rejects too: a class name that is no DNS
	// subdomain in either version.
	bad := `{"apiVersion":"resource.claimbridge.dev/v1alpha2","kind":"ResourceClaim",` + claimMeta + `,"spec":{"resourceClassName":"Bad_Class"}}`
	labelled := strings.Replace(bad, `"finalizers"`, `"labels":{"a":"b"},"finalizers"`, 1)
	resp, err := Validate(Request{Operation: Update, Object: obj(t, labelled), OldObject: obj(t, bad)})
	if err != nil {
		t.Fatal(err)
	}
	want := field.ErrorList{field.Invalid(field.NewPath("spec", "resourceClassName"), "Bad_Class",
		"a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')")}
	if diff := cmp.Diff(want, resp.Errors); diff != "" {
		t.Errorf("label update of a claim with an invalid class (-want +got):\n%s", diff)
	}
}

// withoutStoredSpecErrors drops, on a main update through v1alpha1 or
// v1alpha2 that leaves the spec as it was, the findings inside a spec shown
// from a valid v1alpha3 spec, and nothing else (docs/validation.md, "An
// unchanged spec shown from a valid v1alpha3 spec is not validated again on
// updates"): a spec an older version wrote, or one the storage version
// rejects too, is reported as upstream reports it, and so is every finding
// outside the spec.
func TestStoredSpecRatchetScope(t *testing.T) {
	requireConversion(t)
	const meta = `"metadata":{"name":"c","namespace":"ns","resourceVersion":"1"}`
	noRequestsV3 := `{"apiVersion":"resource.claimbridge.dev/v1alpha3","kind":"ResourceClaim",` + meta + `,"spec":{"devices":{"requests":[]}}}`
	metaOf := func(o map[string]interface{}) map[string]interface{} { return o["metadata"].(map[string]interface{}) }
	label := func(value string) func(o map[string]interface{}) {
		return func(o map[string]interface{}) { metaOf(o)["labels"] = map[string]interface{}{"team": value} }
	}
	classInvalid := func(class string) *field.Error {
		return field.Invalid(field.NewPath("spec", "resourceClassName"), class, "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, "+
			"'-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is "+
			"'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')")
	}
	invalidLabel := field.Invalid(field.NewPath("metadata", "labels"), "-a", "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', "+
		"and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')")
	for name, tc := range map[string]struct {
		old  func(t *testing.T) map[string]interface{} // the stored object's view, the request's version
		edit func(o map[string]interface{})
		want field.ErrorList
	}{
		// Findings outside the spec stay (twice: the metadata update rules,
		// then the create rules again, as 1.26 ValidateClaimUpdate).
		"invalid-label-on-a-claim-without-requests": {
			old:  func(t *testing.T) map[string]interface{} { return mustConvert(t, obj(t, noRequestsV3), "v1alpha2") },
			edit: label("-a"),
			want: field.ErrorList{invalidLabel, invalidLabel},
		},
		// A write without the allocationMode the stored view shows has the
		// same spec once defaulted (the CRD defaults it).
		"label-with-the-spec-sent-undefaulted": {
			old: func(t *testing.T) map[string]interface{} { return mustConvert(t, obj(t, noRequestsV3), "v1alpha1") },
			edit: func(o map[string]interface{}) {
				label("a")(o)
				delete(o["spec"].(map[string]interface{}), "allocationMode")
			},
		},
		// The storage version rejects the class too (a device class name is
		// a DNS subdomain as well).
		"class-invalid-in-v1alpha3-too": {
			old: func(t *testing.T) map[string]interface{} {
				return obj(t, `{"apiVersion":"resource.claimbridge.dev/v1alpha2","kind":"ResourceClaim",`+meta+`,"spec":{"resourceClassName":"Bad_Class","allocationMode":"WaitForFirstConsumer"}}`)
			},
			edit: label("a"),
			want: field.ErrorList{classInvalid("Bad_Class")},
		},
		// A parametersRef the older version wrote, kept in restore data: its
		// view is not what the stored v1alpha3 spec shows.
		"parameters-written-through-v1alpha2": {
			old: func(t *testing.T) map[string]interface{} {
				return obj(t, `{"apiVersion":"resource.claimbridge.dev/v1alpha2","kind":"ResourceClaim",`+meta+`,"spec":{"parametersRef":{"name":"p"},"allocationMode":"WaitForFirstConsumer"}}`)
			},
			edit: label("a"),
			want: field.ErrorList{classInvalid(""), field.Required(field.NewPath("spec", "parametersRef", "kind"), "")},
		},
		// An old object that does not convert to the storage version (given
		// offline, claimbridge validate --old: its restore-v1alpha2 would not
		// fit beside its annotations) shows no stored spec to stand for it.
		"old-object-the-storage-version-cannot-show": {
			old: func(t *testing.T) map[string]interface{} {
				o := obj(t, `{"apiVersion":"resource.claimbridge.dev/v1alpha2","kind":"ResourceClaim",`+meta+`,"spec":{"parametersRef":{"name":"p"},"allocationMode":"WaitForFirstConsumer"}}`)
				metaOf(o)["annotations"] = map[string]interface{}{"filler": strings.Repeat("x", conversion.TotalAnnotationSizeLimitB-len("filler")-10)}
				if _, err := conversion.Convert(o, "v1alpha3"); err == nil {
					t.Fatal("the old object converts to v1alpha3: the row no longer tests what it says")
				}
				return o
			},
			edit: label("a"),
			want: field.ErrorList{classInvalid(""), field.Required(field.NewPath("spec", "parametersRef", "kind"), "")},
		},
	} {
		t.Run(name, func(t *testing.T) {
			old := tc.old(t)
			o := deepCopyJSON(old)
			tc.edit(o)
			resp, err := Validate(Request{Operation: Update, Object: o, OldObject: old})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, resp.Errors, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
		})
	}
}
