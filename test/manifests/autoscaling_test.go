//go:build envtest

package manifests

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
)

// TestAutoscalingComponent builds config/autoscaling as its comment says to
// use it, in an overlay of each install: a HorizontalPodAutoscaler on the
// overlay's Deployment, which then sets no replicas.
func TestAutoscalingComponent(t *testing.T) {
	root := repoRoot(t)
	for _, base := range []string{"config/default", "config/self-managed"} {
		t.Run(base, func(t *testing.T) {
			overlay := t.TempDir()
			rel, err := filepath.Rel(overlay, root)
			if err != nil {
				t.Fatal(err)
			}
			k := "resources:\n- " + filepath.ToSlash(filepath.Join(rel, base)) +
				"\ncomponents:\n- " + filepath.ToSlash(filepath.Join(rel, "config/autoscaling")) + "\n"
			if err := os.WriteFile(filepath.Join(overlay, "kustomization.yaml"), []byte(k), 0o644); err != nil {
				t.Fatal(err)
			}
			r := build(t, overlay)
			var deploy appsv1.Deployment
			r.one(t, "Deployment", &deploy)
			if deploy.Spec.Replicas != nil {
				t.Errorf("Deployment replicas = %d; want none: the HorizontalPodAutoscaler sets them", *deploy.Spec.Replicas)
			}
			var hpa autoscalingv2.HorizontalPodAutoscaler
			r.one(t, "HorizontalPodAutoscaler", &hpa)
			ref := hpa.Spec.ScaleTargetRef
			got := []interface{}{hpa.Namespace, ref.APIVersion, ref.Kind, ref.Name, *hpa.Spec.MinReplicas, hpa.Spec.MaxReplicas}
			want := []interface{}{deploy.Namespace, "apps/v1", "Deployment", deploy.Name, int32(2), int32(6)}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("HorizontalPodAutoscaler: namespace, target, min, max (-want +got):\n%s", diff)
			}
			m := hpa.Spec.Metrics
			if len(m) != 1 || m[0].Resource == nil || m[0].Resource.Name != "cpu" || m[0].Resource.Target.AverageValue == nil || m[0].Resource.Target.AverageValue.String() != "600m" {
				t.Errorf("HorizontalPodAutoscaler metrics = %+v; want cpu at an average of 600m", m)
			}
		})
	}
	// Without the component, both installs keep their two replicas and no
	// autoscaler.
	for _, base := range []string{"config/default", "config/self-managed"} {
		r := build(t, base)
		var deploy appsv1.Deployment
		r.one(t, "Deployment", &deploy)
		if deploy.Spec.Replicas == nil || *deploy.Spec.Replicas != 2 || len(r.byKind["HorizontalPodAutoscaler"]) != 0 {
			t.Errorf("%s: replicas %v, %d autoscalers; want 2 and none", base, deploy.Spec.Replicas, len(r.byKind["HorizontalPodAutoscaler"]))
		}
	}
}
