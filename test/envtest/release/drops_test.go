package release

import (
	"context"
	"fmt"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/conversion"
	"github.com/claimbridge/claimbridge/manifest"
)

// TestPlainConversionNeedsMigrate backs what migrate drops from an exported
// object with the release's apiserver: the plain conversion (`claimbridge
// convert`) of an exported, allocated claim is rejected for its
// resourceVersion, and without it the apiserver discards the status, so
// migrate's "dropped status (reset on create)" loses nothing the create
// would have kept.
func TestPlainConversionNeedsMigrate(t *testing.T) {
	ctx := context.Background()
	for _, r := range releases {
		c := clusters[r.name]
		t.Run(r.name, func(t *testing.T) {
			docs, err := manifest.ReadAll([]string{"../../../examples/claim-v1alpha1.yaml"}, nil)
			if err != nil {
				t.Fatal(err)
			}
			plain, err := conversion.Convert(docs[0].Object, r.version)
			if err != nil {
				t.Fatal(err)
			}
			plain = normalize(plain)
			if _, ok := plain["status"].(map[string]interface{})["allocation"]; !ok {
				t.Fatalf("the exported claim has no status.allocation: %s", mustJSON(plain["status"]))
			}
			ns := fmt.Sprintf("r%s-plain", strings.ReplaceAll(r.name, ".", ""))
			ns = c.createNamespace(t, ns)
			meta := plain["metadata"].(map[string]interface{})
			meta["namespace"] = ns
			res := c.dynamic.Resource(gvr(r.version, api.KindClaim)).Namespace(ns)
			_, err = res.Create(ctx, &unstructured.Unstructured{Object: plain}, metav1.CreateOptions{})
			if err == nil || !strings.Contains(err.Error(), "resourceVersion should not be set on objects to be created") {
				t.Fatalf("create of the plain conversion: %v, want the resourceVersion refused", err)
			}
			delete(meta, "resourceVersion")
			created, err := res.Create(ctx, &unstructured.Unstructured{Object: plain}, metav1.CreateOptions{})
			if err != nil {
				t.Fatalf("create without resourceVersion: %v", err)
			}
			if st, _ := created.Object["status"].(map[string]interface{}); len(st) != 0 {
				t.Errorf("Kubernetes %s kept the status of a created claim: %s", r.name, mustJSON(st))
			}
			if uid := string(created.GetUID()); uid == meta["uid"] {
				t.Errorf("Kubernetes %s kept the exported uid %s", r.name, uid)
			}
		})
	}
}
