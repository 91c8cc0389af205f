package validation

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/claimbridge/claimbridge/api"
	apiv1 "github.com/claimbridge/claimbridge/api/v1alpha1"
)

func mustSpecV1(class string) apiv1.ResourceClaimSpec {
	return apiv1.ResourceClaimSpec{ResourceClassName: class, AllocationMode: apiv1.AllocationModeWaitForFirstConsumer}
}

// restoreHint ends a main update's cross-version finding when the update's
// restore annotations are not the old object's.
const restoreHint = " (the update's claimbridge.dev/restore-* annotations differ from the stored object's: they hold what the other versions " +
	"show, and only claimbridge writes them; send them as read: write back the object as read, or patch or apply only the fields you change; " +
	"while claimbridge replicas of two builds serve, during an upgrade, read it again once they are one)"

// wantOnlyWarnings validates req and wants no error and exactly the warnings want.
func wantOnlyWarnings(t *testing.T, req Request, want []string) {
	t.Helper()
	resp, err := Validate(req)
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Errors) > 0 {
		t.Fatalf("errors: %v", resp.Errors)
	}
	if diff := cmp.Diff(want, resp.Warnings); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
}

// annotate sets the annotation key of o to value and returns o.
func annotate(o map[string]interface{}, key, value string) map[string]interface{} {
	meta := o["metadata"].(map[string]interface{})
	ann, _ := meta["annotations"].(map[string]interface{})
	if ann == nil {
		ann = map[string]interface{}{}
		meta["annotations"] = ann
	}
	ann[key] = value
	return o
}

func deepCopyJSON(obj map[string]interface{}) map[string]interface{} { return api.DeepCopyJSON(obj) }

func meta(o map[string]interface{}) map[string]interface{} {
	return o["metadata"].(map[string]interface{})
}
