//go:build envtest

package envtest_test

import (
	"strings"
	"sync"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"

	"github.com/claimbridge/claimbridge/api"
)

// warningRecorder collects the Warning headers a client receives.
type warningRecorder struct {
	mu   sync.Mutex
	seen []string
}

func (w *warningRecorder) HandleWarningHeader(_ int, _ string, text string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.seen = append(w.seen, text)
}

// take returns the warnings received since the last take.
func (w *warningRecorder) take() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	seen := w.seen
	w.seen = nil
	return seen
}

// resourceWithWarnings returns resource of version in namespace ns through
// a client whose Warning headers the returned recorder collects.
func resourceWithWarnings(t *testing.T, version, resource, ns string) (dynamic.ResourceInterface, *warningRecorder) {
	t.Helper()
	rec := &warningRecorder{}
	cfg := rest.CopyConfig(env.Config)
	cfg.WarningHandler = rec
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return dyn.Resource(schema.GroupVersionResource{Group: api.Group, Version: version, Resource: resource}).Namespace(ns), rec
}

// TestValidationStorageWarnings: through the real apiserver, a client that
// creates a claim or template through v1alpha2 whose stored v1alpha3 form
// loses meaning for 1.31 consumers receives admission warnings naming the
// fields; a plain object gets none.
func TestValidationStorageWarnings(t *testing.T) {
	ns := newNamespace(t, "storage-warnings")
	for _, c := range []struct {
		name, resource, doc string
		want                []string
	}{{
		name: "claim with parametersRef", resource: claimsResource,
		doc: `
kind: ResourceClaim
metadata: {name: with-params}
spec:
  resourceClassName: gpu.example.com
  allocationMode: WaitForFirstConsumer
  parametersRef: {apiGroup: resource.k8s.io, kind: ResourceClaimParameters, name: two-gpus}
`,
		want: []string{`stored as v1alpha3: spec.parametersRef: ResourceClaimParameters have no v1alpha3 equivalent: a 1.31 scheduler allocates one device of class "gpu.example.com" without the parameters' selectors and counts`},
	}, {
		name: "template with parametersRef", resource: templatesResource,
		doc: `
kind: ResourceClaimTemplate
metadata: {name: with-params}
spec:
  spec:
    resourceClassName: gpu.example.com
    parametersRef: {apiGroup: resource.k8s.io, kind: ResourceClaimParameters, name: two-gpus}
`,
		want: []string{`stored as v1alpha3: spec.spec.parametersRef: ResourceClaimParameters have no v1alpha3 equivalent: a 1.31 scheduler allocates one device of class "gpu.example.com" without the parameters' selectors and counts`},
	}, {
		name: "plain claim", resource: claimsResource,
		doc: `
kind: ResourceClaim
metadata: {name: plain}
spec: {resourceClassName: gpu.example.com, allocationMode: WaitForFirstConsumer}
`,
	}} {
		t.Run(c.name, func(t *testing.T) {
			ri, rec := resourceWithWarnings(t, "v1alpha2", c.resource, ns)
			obj := fromYAML(t, "v1alpha2", ns, c.doc)
			if _, err := ri.Create(ctxFor(t), obj, metav1.CreateOptions{}); err != nil {
				t.Fatalf("create: %v", err)
			}
			seen := rec.take()
			var got []string
			for _, w := range seen {
				if strings.HasPrefix(w, "stored as ") {
					got = append(got, w)
				}
			}
			if strings.Join(got, "\n") != strings.Join(c.want, "\n") {
				t.Errorf("warnings %q, want %q (all: %q)", got, c.want, seen)
			}
		})
	}
}
