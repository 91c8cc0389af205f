package webhook

import (
	"encoding/json"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/conversion"
	"github.com/claimbridge/claimbridge/manifest"
	"github.com/claimbridge/claimbridge/validation"
)

// TestAdmitIsTheWebhooks: validation.Admit, which `claimbridge validate`
// and `migrate` run on a manifest, gives the verdict and the warnings of
// the webhook's /default followed by /validate, for every conversion
// fixture in every served version: as a create, as an update of the
// stored object, and as a status write.
func TestAdmitIsTheWebhooks(t *testing.T) {
	h := newServer(t, nil).Handler()
	files, err := filepath.Glob("../conversion/testdata/*.v1alpha*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no fixtures: %v", err)
	}
	compared := 0
	for _, file := range files {
		fixture := readManifest(t, file)
		if strings.HasSuffix(fixture["kind"].(string), "List") {
			continue
		}
		// In the CRD's group, which the webhook serves.
		_, _, from, _, _ := api.TypeOf(fixture)
		fixture["apiVersion"] = api.Group + "/" + from
		// As stored: updates need a resourceVersion.
		meta, _ := fixture["metadata"].(map[string]interface{})
		if meta == nil {
			meta = map[string]interface{}{"name": "claim"}
			fixture["metadata"] = meta
		}
		meta["resourceVersion"] = "1"
		stored, err := conversion.Convert(fixture, api.StorageVersion)
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		for _, version := range api.ServedVersions {
			obj, err := conversion.Convert(fixture, version)
			if err != nil {
				t.Fatalf("%s to %s: %v", file, version, err)
			}
			// A re-applied copy: a label changed, restore data and all.
			changed := api.DeepCopyJSON(obj)
			changed["metadata"].(map[string]interface{})["labels"] = map[string]interface{}{"changed": "yes"}
			cases := map[string]validation.Request{
				"create": {Operation: validation.Create, Object: obj},
				"update": {Operation: validation.Update, Object: changed, OldObject: stored},
			}
			if obj["kind"] == api.KindClaim {
				cases["status"] = validation.Request{Operation: validation.Update, SubResource: "status", Object: changed, OldObject: stored}
			}
			for name, req := range cases {
				t.Run(filepath.Base(file)+"/"+version+"/"+name, func(t *testing.T) {
					want, err := validation.Admit(req)
					if err != nil {
						t.Fatal(err)
					}
					allowed, causes, warnings := throughWebhook(t, h, req)
					var wantCauses []string
					for _, e := range want.Errors {
						wantCauses = append(wantCauses, e.Field+": "+e.ErrorBody())
					}
					if diff := cmp.Diff(wantCauses, causes); diff != "" || allowed != (len(want.Errors) == 0) {
						t.Errorf("errors: Admit (-) and the webhook (+, allowed %v) differ:\n%s", allowed, diff)
					}
					// A denial carries no warnings.
					if diff := cmp.Diff(want.Warnings, warnings); allowed && diff != "" {
						t.Errorf("warnings: Admit (-) and the webhook (+) differ:\n%s", diff)
					}
					compared++
				})
			}
		}
	}
	if compared < 100 {
		t.Errorf("compared %d writes, want at least 100", compared)
	}
}

// throughWebhook sends req as kube-apiserver does: the object as it names
// it, the old one in its version, to /default, then the patched object to
// /validate; it returns /validate's verdict, its causes ("field: message")
// and the warnings of both.
func throughWebhook(t *testing.T, h http.Handler, req validation.Request) (allowed bool, causes, warnings []string) {
	t.Helper()
	obj := validation.AsSubmitted(req.Object, req.Operation)
	_, _, version, kind, _ := api.TypeOf(obj)
	ar := admissionv1.AdmissionRequest{
		UID:         "uid",
		Kind:        metav1.GroupVersionKind{Group: api.Group, Version: version, Kind: kind},
		Operation:   admissionv1.Operation(req.Operation),
		SubResource: req.SubResource,
		Object:      runtime.RawExtension{Raw: mustJSON(obj)},
	}
	if req.OldObject != nil {
		old, err := conversion.Convert(api.InDefaultNamespace(req.OldObject), version)
		if err != nil {
			t.Fatal(err)
		}
		ar.OldObject.Raw = mustJSON(old)
	}
	if req.SubResource == "" {
		resp := decodeAdmission(t, http.StatusOK, serve(h, "/default", admissionReview(ar)).Body.Bytes())
		if !resp.Allowed {
			t.Fatalf("/default denied: %v", resp.Result)
		}
		warnings = resp.Warnings
		if len(resp.Patch) > 0 {
			var ops []conversion.PatchOperation
			if err := json.Unmarshal(resp.Patch, &ops); err != nil {
				t.Fatal(err)
			}
			patched := api.DeepCopyJSON(obj)
			if err := conversion.ApplyPatch(patched, ops); err != nil {
				t.Fatal(err)
			}
			ar.Object.Raw = mustJSON(patched)
		}
	}
	rec := serve(h, "/validate", admissionReview(ar))
	resp := decodeAdmission(t, rec.Code, rec.Body.Bytes())
	if resp.Result != nil && resp.Result.Details != nil {
		for _, c := range resp.Result.Details.Causes {
			causes = append(causes, c.Field+": "+c.Message)
		}
	}
	return resp.Allowed, causes, append(warnings, resp.Warnings...)
}

// readManifest reads the one object of file with the CLI's reader.
func readManifest(t *testing.T, file string) map[string]interface{} {
	t.Helper()
	docs, err := manifest.ReadAll([]string{file}, nil)
	if err != nil || len(docs) != 1 {
		t.Fatalf("%s: %d objects, %v", file, len(docs), err)
	}
	return docs[0].Object
}
