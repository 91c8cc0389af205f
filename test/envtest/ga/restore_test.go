//go:build envtest

package ga

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/conversion"
)

// TestConvertedBackFromTheApiserver: a hand-written 1.31 claim (classic DRA,
// requests without mode and count, a deallocation request) converted to each
// GA version, created and its status written in kube-apiserver 1.37, which
// stores it with its defaults written out, converts back from what the
// apiserver returns to the original spec and status, with no warning that
// restore data was not applied.
func TestConvertedBackFromTheApiserver(t *testing.T) {
	useNamespace(t)
	ctx := context.Background()
	const original = `
apiVersion: resource.k8s.io/v1alpha3
kind: ResourceClaim
metadata: {name: NAME, namespace: NAMESPACE}
spec:
  controller: dra.example.com
  devices:
    requests:
    - {name: a, deviceClassName: gpu.example.com}
    - {name: b, deviceClassName: gpu.example.com}
status:
  allocation:
    controller: dra.example.com
    nodeSelector:
      nodeSelectorTerms:
      - matchFields: [{key: metadata.name, operator: In, values: [worker-1]}]
  deallocationRequested: true
`
	for _, version := range api.UpstreamOnlyVersions {
		name := "converted-back-" + version
		t.Run(name, func(t *testing.T) {
			var in map[string]interface{}
			if err := yaml.Unmarshal([]byte(original), &in); err != nil {
				t.Fatal(err)
			}
			in["metadata"].(map[string]interface{})["name"] = name
			in["metadata"].(map[string]interface{})["namespace"] = namespace
			out, err := conversion.Convert(in, version)
			if err != nil {
				t.Fatal(err)
			}
			client := s.dynamic.Resource(gvr(version, api.KindClaim)).Namespace(namespace)
			created, err := client.Create(ctx, &unstructured.Unstructured{Object: out}, metav1.CreateOptions{})
			if err != nil {
				t.Fatalf("create: %v", err)
			}
			created.Object["status"] = out["status"]
			if _, err := client.UpdateStatus(ctx, created, metav1.UpdateOptions{}); err != nil {
				t.Fatalf("status: %v", err)
			}
			for _, readAs := range []string{version, api.V1} {
				got, err := s.dynamic.Resource(gvr(readAs, api.KindClaim)).Namespace(namespace).Get(ctx, name, metav1.GetOptions{})
				if err != nil {
					t.Fatal(err)
				}
				back, ws, err := conversion.ConvertWithWarnings(got.Object, api.V1alpha3)
				if err != nil {
					t.Fatalf("read as %s, converting back: %v", readAs, err)
				}
				for _, section := range []string{"spec", "status"} {
					if diff := cmp.Diff(in[section], back[section]); diff != "" {
						t.Errorf("read as %s: %s back in v1alpha3 (-original +got):\n%s", readAs, section, diff)
					}
				}
				for _, w := range ws {
					if w.Path == "metadata.annotations[claimbridge.dev/restore-v1alpha3].spec" || w.Path == "metadata.annotations[claimbridge.dev/restore-v1alpha3].status" {
						t.Errorf("read as %s: %s", readAs, w)
					}
				}
			}
		})
	}
}
