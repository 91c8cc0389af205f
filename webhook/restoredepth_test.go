package webhook

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/conversion"
	"github.com/claimbridge/claimbridge/validation"
)

// withDeepRestoreData returns obj (JSON, of its own version) with the
// restore annotation of version view that a client can write itself: the
// base is what conversion computes for obj's spec, the patch adds an
// unknown spec field holding objects nested depth levels, so that obj's view
// in that version nests depth+2 levels ({"spec":{"x":…}}).
func withDeepRestoreData(t *testing.T, obj []byte, view string, depth int) []byte {
	t.Helper()
	var tree map[string]interface{}
	if err := json.Unmarshal(obj, &tree); err != nil {
		t.Fatal(err)
	}
	_, own, _ := strings.Cut(tree["apiVersion"].(string), "/")
	seen, err := conversion.Convert(tree, view)
	if err != nil {
		t.Fatal(err)
	}
	seen["spec"].(map[string]interface{})["x"] = "PLACEHOLDER"
	back, err := conversion.Convert(seen, own)
	if err != nil {
		t.Fatal(err)
	}
	ann := back["metadata"].(map[string]interface{})["annotations"].(map[string]interface{})
	key := conversion.RestoreAnnotation(view)
	data, _ := ann[key].(string)
	if !strings.Contains(data, `"PLACEHOLDER"`) {
		t.Fatalf("%s holds no placeholder: %q", key, data)
	}
	ann[key] = strings.Replace(data, `"PLACEHOLDER"`, strings.Repeat(`{"a":`, depth-1)+"{}"+strings.Repeat("}", depth-1), 1)
	out, err := json.Marshal(back)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// withAnnotation returns obj (JSON) with the annotation key set to value.
func withAnnotation(t *testing.T, obj []byte, key, value string) []byte {
	t.Helper()
	var tree map[string]interface{}
	if err := json.Unmarshal(obj, &tree); err != nil {
		t.Fatal(err)
	}
	tree["metadata"].(map[string]interface{})["annotations"].(map[string]interface{})[key] = value
	out, err := json.Marshal(tree)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// templateOf is a template of the claim fixture of version (its spec as
// the template's).
func templateOf(t *testing.T, version string) []byte {
	t.Helper()
	var claim map[string]interface{}
	if err := json.Unmarshal(fixture(t, version), &claim); err != nil {
		t.Fatal(err)
	}
	meta := claim["metadata"].(map[string]interface{})
	out, err := json.Marshal(map[string]interface{}{
		"apiVersion": claim["apiVersion"], "kind": api.KindTemplate,
		"metadata": map[string]interface{}{"name": meta["name"], "namespace": meta["namespace"], "uid": meta["uid"], "resourceVersion": meta["resourceVersion"]},
		"spec":     map[string]interface{}{"spec": claim["spec"]},
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestRestoreDataBeyondConversionDepthRefused: a restore annotation is a
// patch its client can write (its base is conversion's fingerprint of the
// spec), and the data it restores comes back in its version's view only.
// A main update through v1alpha3 is stored without any conversion; one
// that put an unknown spec field nested beyond what /convert returns
// (--max-json-depth less a ConversionReview's 3 levels) into the v1alpha2
// or v1alpha1 view was admitted (the views' typed specs ignore unknown
// fields), and then every read of the claim and every list of claims
// through that version, in all namespaces, failed. /validate refuses what
// /convert would refuse, at the annotation (and now the unknown field
// itself, at any depth).
func TestRestoreDataBeyondConversionDepthRefused(t *testing.T) {
	const maxDepth = 1000 // testConfig's
	limit := maxDepth - reviewNesting
	validate := newTestValidateHandler(validation.Validate)
	convert := newTestConvertHandler(conversion.ConvertShared)
	type cause struct{ Type, Field string }
	for _, tc := range []struct {
		name       string
		kind       string
		op         admissionv1.Operation
		version    string // written through
		view       string // the version whose restore data it is
		nesting    int    // of the view
		stored     bool   // the old object nests so already
		wantCauses []cause
	}{
		// An update's views are decoded strictly too: the unknown field is
		// refused besides (TestRestoreDataAddingUnknownFieldsRefused).
		{"update-v1alpha3-restores-v1alpha2", api.KindClaim, admissionv1.Update, "v1alpha3", "v1alpha2", limit + 1, false,
			[]cause{{"FieldValueForbidden", "metadata.annotations[claimbridge.dev/restore-v1alpha2]"}, {"FieldValueInvalid", "metadata.annotations[claimbridge.dev/restore-v1alpha2]"}}},
		{"update-v1alpha3-restores-v1alpha1", api.KindClaim, admissionv1.Update, "v1alpha3", "v1alpha1", limit + 1, false,
			[]cause{{"FieldValueForbidden", "metadata.annotations[claimbridge.dev/restore-v1alpha1]"}, {"FieldValueInvalid", "metadata.annotations[claimbridge.dev/restore-v1alpha1]"}}},
		{"update-v1alpha2-restores-v1alpha1", api.KindClaim, admissionv1.Update, "v1alpha2", "v1alpha1", limit + 1, false,
			[]cause{{"FieldValueForbidden", "metadata.annotations[claimbridge.dev/restore-v1alpha1]"}, {"FieldValueInvalid", "metadata.annotations[claimbridge.dev/restore-v1alpha1]"}}},
		{"template-update-v1alpha3-restores-v1alpha2", api.KindTemplate, admissionv1.Update, "v1alpha3", "v1alpha2", limit + 1, false,
			[]cause{{"FieldValueForbidden", "metadata.annotations[claimbridge.dev/restore-v1alpha2]"}, {"FieldValueInvalid", "metadata.annotations[claimbridge.dev/restore-v1alpha2]"}}},
		{"create-v1alpha3-restores-v1alpha2", api.KindClaim, admissionv1.Create, "v1alpha3", "v1alpha2", limit + 1, false,
			[]cause{{"FieldValueInvalid", "metadata.annotations"}, {"FieldValueForbidden", "metadata.annotations[claimbridge.dev/restore-v1alpha2]"}}},
		// At the limit, /convert converts the view; the unknown field alone
		// is refused.
		{"update-at-the-limit", api.KindClaim, admissionv1.Update, "v1alpha3", "v1alpha2", limit, false,
			[]cause{{"FieldValueInvalid", "metadata.annotations[claimbridge.dev/restore-v1alpha2]"}}},
		{"template-update-at-the-limit", api.KindTemplate, admissionv1.Update, "v1alpha3", "v1alpha1", limit, false,
			[]cause{{"FieldValueInvalid", "metadata.annotations[claimbridge.dev/restore-v1alpha1]"}}},
		// One stored before these checks (its annotation added or
		// changed, as its finalizer removed) is not refused for it.
		{"update-of-a-claim-stored-so", api.KindClaim, admissionv1.Update, "v1alpha3", "v1alpha2", limit + 1, true, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req := claimRequest(t, tc.op, tc.version, "")
			if tc.kind == api.KindTemplate {
				req.Kind.Kind, req.Resource.Resource = api.KindTemplate, "resourceclaimtemplates"
				req.Object.Raw = templateOf(t, tc.version)
				if tc.op == admissionv1.Update {
					req.OldObject.Raw = req.Object.Raw
				}
			}
			obj := withDeepRestoreData(t, req.Object.Raw, tc.view, tc.nesting-2)
			req.Object.Raw = obj
			if tc.stored {
				req.OldObject.Raw = obj
				req.Object.Raw = withAnnotation(t, obj, "example.com/reviewed", "yes")
			}
			out := decodeAdmissionResponse(t, post(validate, admissionReview("admission.k8s.io/v1", req)))
			if tc.wantCauses == nil {
				if !out.Response.Allowed {
					t.Fatalf("denied: %+v", out.Response.Result)
				}
				return
			}
			// The depth finding is exactly /convert's refusal to show it.
			review := decodeConversionResponse(t, post(convert, conversionReview("apiextensions.k8s.io/v1", "u", api.Group+"/"+tc.view, obj)))
			if converted := review.Response.Result.Status == metav1.StatusSuccess; converted != (tc.nesting <= limit) {
				t.Fatalf("/convert to %s of a view nesting %d levels (limit %d): converted %v", tc.view, tc.nesting, limit, converted)
			}
			r := out.Response
			if r.Allowed || r.Result == nil || r.Result.Code != http.StatusUnprocessableEntity || r.Result.Details == nil {
				t.Fatalf("want a 422 denial, got %+v", r)
			}
			var got []cause
			for _, c := range r.Result.Details.Causes {
				got = append(got, cause{string(c.Type), c.Field})
				if c.Type == "FieldValueForbidden" {
					want := "the object could not be read through " + tc.view + ", nor listed or watched with other claims through it: converted to " + tc.view + " it nests deeper than 997 levels"
					if !strings.HasPrefix(c.Message, "Forbidden: "+want) {
						t.Errorf("message %q, want it to start with %q", c.Message, want)
					}
				}
			}
			if d := cmp.Diff(tc.wantCauses, got); d != "" {
				t.Errorf("causes (-want +got):\n%s", d)
			}
		})
	}
}
