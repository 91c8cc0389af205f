//go:build envtest

package live

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/manifest"
)

// TestUpgrade130 moves the DRA objects of a 1.30 cluster to the current
// release: export, migrate --verify, migrate --apply, export again from
// the target. Every exported object is re-created or named as left out,
// and nothing else is exported.
func TestUpgrade130(t *testing.T) {
	c := startClusters(t)
	createAll(t, c.old, "testdata/source-1.30.yaml")
	// The namespaces, as the user creates them on the new cluster.
	createAll(t, c.new, "testdata/namespaces.yaml")
	dir := t.TempDir()
	exported := filepath.Join(dir, "old.yaml")

	code, out, stderr := claimbridge(t, "", "export", "--kubeconfig", c.kubeconfig, "--context", "old")
	if code != 0 {
		t.Fatalf("export: exit %d: %s", code, stderr)
	}
	if err := os.WriteFile(exported, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
	wantExported := []string{
		"resource.k8s.io/v1alpha2 ResourceClaimParameters inference/two-accelerators",
		"resource.k8s.io/v1alpha2 ResourceClaim inference/classic-gpu",
		"resource.k8s.io/v1alpha2 ResourceClaim inference/pending",
		"resource.k8s.io/v1alpha2 ResourceClaim inference/server-7d9f8-x2k4q-accel-sbl6s",
		"resource.k8s.io/v1alpha2 ResourceClaim inference/shared-accel",
		"resource.k8s.io/v1alpha2 ResourceClaimTemplate inference/per-pod-accel",
		"resource.k8s.io/v1alpha2 ResourceClass accel.example.com",
		"resource.k8s.io/v1alpha2 ResourceClass gpu.example.com",
		"resource.k8s.io/v1alpha2 ResourceClassParameters accel-system/accel-defaults",
		"apps/v1 Deployment inference/server",
		"batch/v1 CronJob inference/nightly",
		"v1 Pod inference/client",
		"v1 Pod inference/server-7d9f8-x2k4q",
	}
	if d := cmp.Diff(wantExported, identities(t, out)); d != "" {
		t.Errorf("exported (-want +got):\n%s", d)
	}

	// Target discovered, each object verified in a server-side dry run.
	code, migrated, stderr := claimbridge(t, "", "migrate", "-f", exported, "--target-kubeconfig", c.kubeconfig, "--target-context", "new", "--verify")
	if code != 0 {
		t.Fatalf("migrate --verify: exit %d", code)
	}
	pos := exported + ": document 1 (line 1), "
	if want := "target: Kubernetes " + release(t, c.new) + ", resource.k8s.io/v1 (from the target cluster)"; stderr[0] != want {
		t.Errorf("first line %q, want %q", stderr[0], want)
	}
	// In the order of the dependencies: classes, claims and templates, the rest.
	wantAccepted := []string{
		"items[6]: DeviceClass accel.example.com",
		"items[7]: DeviceClass gpu.example.com",
		"items[1]: ResourceClaim inference/classic-gpu",
		"items[2]: ResourceClaim inference/pending",
		"items[4]: ResourceClaim inference/shared-accel",
		"items[5]: ResourceClaimTemplate inference/per-pod-accel",
		"items[9]: Deployment inference/server",
		"items[10]: CronJob inference/nightly",
		"items[11]: Pod inference/client",
	}
	wantLeftOut := []string{
		"items[0]: ResourceClaimParameters inference/two-accelerators",
		"items[3]: ResourceClaim inference/server-7d9f8-x2k4q-accel-sbl6s",
		"items[8]: ResourceClassParameters accel-system/accel-defaults",
		"items[12]: Pod inference/server-7d9f8-x2k4q",
	}
	accepted := reported(stderr, pos, ": accepted (server-side dry run)")
	if d := cmp.Diff(wantAccepted, accepted); d != "" {
		t.Errorf("accepted (-want +got):\n%s", d)
	}
	leftOut := reported(stderr, pos, ": left out: ")
	if d := cmp.Diff(wantLeftOut, leftOut); d != "" {
		t.Errorf("left out (-want +got):\n%s", d)
	}
	if n := len(identities(t, out)); len(accepted)+len(leftOut) != n {
		t.Errorf("%d objects accepted and %d left out of %d exported", len(accepted), len(leftOut), n)
	}

	code, _, stderr = claimbridge(t, "", "migrate", "-f", exported, "--target-kubeconfig", c.kubeconfig, "--target-context", "new", "--apply")
	if code != 0 {
		t.Fatalf("migrate --apply: exit %d", code)
	}
	if d := cmp.Diff(wantAccepted, reported(stderr, pos, ": applied (server-side apply, field manager claimbridge)")); d != "" {
		t.Errorf("applied (-want +got):\n%s", d)
	}

	// Read back: what migrate wrote, each object applied by claimbridge.
	code, back, stderr := claimbridge(t, "", "export", "--kubeconfig", c.kubeconfig, "--context", "new")
	if code != 0 {
		t.Fatalf("export from the target: exit %d: %s", code, stderr)
	}
	if d := cmp.Diff(identities(t, migrated), identities(t, back), cmpSorted); d != "" {
		t.Errorf("read back from the target (-migrated +read back):\n%s", d)
	}
	for _, obj := range objects(t, back) {
		managers, _ := obj["metadata"].(map[string]interface{})["managedFields"].([]interface{})
		if !slices.ContainsFunc(managers, func(m interface{}) bool {
			entry, _ := m.(map[string]interface{})
			return entry["manager"] == "claimbridge" && entry["operation"] == "Apply"
		}) {
			t.Errorf("%s: not applied by claimbridge: managedFields %v", api.Describe(obj), managers)
		}
	}

	t.Run("apply-again", func(t *testing.T) {
		code, _, stderr := claimbridge(t, "", "migrate", "-f", exported, "--target-context", "new", "--target-kubeconfig", c.kubeconfig, "--to", "v1", "--apply")
		if code != 0 {
			t.Fatalf("exit %d", code)
		}
		if d := cmp.Diff(wantAccepted, reported(stderr, pos, ": applied (server-side apply, field manager claimbridge)")); d != "" {
			t.Errorf("applied (-want +got):\n%s", d)
		}
	})
	t.Run("verify-existing", func(t *testing.T) {
		code, _, stderr := claimbridge(t, "", "migrate", "-f", exported, "--target-context", "new", "--target-kubeconfig", c.kubeconfig, "--verify")
		if code != 1 {
			t.Fatalf("exit %d, want 1", code)
		}
		rejected := reported(stderr, "Error: "+pos, " already exists: the target cluster rejects this object (409 AlreadyExists)")
		if len(rejected) != len(wantAccepted) || !slices.Contains(stderr,
			"Error: "+pos+`items[2]: ResourceClaim inference/pending: resourceclaims.resource.k8s.io "pending" already exists: the target cluster rejects this object (409 AlreadyExists)`) {
			t.Errorf("want each of the %d objects rejected as existing, got %q", len(wantAccepted), rejected)
		}
	})
	t.Run("to-cluster", func(t *testing.T) {
		// --to cluster: the release of the kubeconfig's current context, as
		// the Helm plugin asks for it.
		kc, err := clientcmd.LoadFromFile(c.kubeconfig)
		if err != nil {
			t.Fatal(err)
		}
		kc.CurrentContext = "new"
		current := filepath.Join(t.TempDir(), "kubeconfig")
		if err := clientcmd.WriteToFile(*kc, current); err != nil {
			t.Fatal(err)
		}
		const claim = "apiVersion: resource.k8s.io/v1beta1\nkind: ResourceClaim\nmetadata: {name: a, namespace: inference}\nspec: {devices: {requests: [{name: r, deviceClassName: gpu.example.com}]}}\n"
		code, out, stderr := claimbridge(t, claim, "convert", "-f", "-", "--to", "cluster", "--target-kubeconfig", current, "--target-context=")
		want := "target: Kubernetes " + release(t, c.new) + ", resource.k8s.io/v1 (from the target cluster)"
		if code != 0 || len(stderr) == 0 || stderr[0] != want || !strings.HasPrefix(out, "apiVersion: resource.k8s.io/v1\n") {
			t.Errorf("exit %d, stderr %q (want first %q), stdout:\n%s", code, stderr, want, out)
		}
	})
	t.Run("convert-verify", func(t *testing.T) {
		code, _, stderr := claimbridge(t, rejectedClaims, "convert", "-f", "-", "--target-context", "new", "--target-kubeconfig", c.kubeconfig, "--verify")
		if code != 1 {
			t.Fatalf("exit %d, want 1", code)
		}
		want := []string{
			"target: Kubernetes " + release(t, c.new) + ", resource.k8s.io/v1 (from the target cluster)",
			`Warning: spec.nodeSelector[beta.kubernetes.io/arch]: deprecated since v1.14; use "kubernetes.io/arch" instead`,
			"Error: <stdin>: document 1 (line 1): ResourceClaim inference/no-class: spec.devices.requests[0].exactly.deviceClassName: Required value: a Kubernetes " + release(t, c.new) + " apiserver rejects this object",
			"Error: <stdin>: document 3 (line 19): ResourceClaim inference/misspelt: spec.devices.requests[0].exactly.cuont: Forbidden: unknown field: a Kubernetes " + release(t, c.new) + " apiserver rejects this object",
			"Error: <stdin>: document 1 (line 1): ResourceClaim inference/no-class: spec.devices.requests[0].exactly.deviceClassName: Required value: the target cluster rejects this object (422 Invalid)",
			"<stdin>: document 2 (line 10): ResourceClaim inference/one-gpu: accepted (server-side dry run)",
			`Error: <stdin>: document 3 (line 19): ResourceClaim inference/misspelt: ResourceClaim in version "v1" cannot be handled as a ResourceClaim: strict decoding error: unknown field "spec.devices.requests[0].exactly.cuont": the target cluster rejects this object (400 BadRequest)`,
			"<stdin>: document 4 (line 28): Pod inference/old-selector: accepted (server-side dry run)",
			"claimbridge convert: 4 objects read: 3 converted, 0 rewritten, 1 passed through, 0 left out, 2 warned, 0 refused",
		}
		if d := cmp.Diff(want, stderr); d != "" {
			t.Errorf("stderr (-want +got):\n%s", d)
		}
	})
}

// rejectedClaims are claims of which the current release's apiserver
// rejects two, and a pod it warns about.
const rejectedClaims = `apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: no-class, namespace: inference}
spec:
  devices:
    requests:
    - name: gpu
      exactly: {count: 1}
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: one-gpu, namespace: inference}
spec:
  devices:
    requests:
    - name: gpu
      exactly: {deviceClassName: gpu.example.com}
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: misspelt, namespace: inference}
spec:
  devices:
    requests:
    - name: gpu
      exactly: {deviceClassName: gpu.example.com, cuont: 2}
---
apiVersion: v1
kind: Pod
metadata: {name: old-selector, namespace: inference}
spec:
  nodeSelector: {beta.kubernetes.io/arch: amd64}
  containers: [{name: c, image: registry.k8s.io/pause:3.9}]
`

var cmpSorted = cmp.Transformer("sorted", func(in []string) []string {
	out := slices.Clone(in)
	slices.Sort(out)
	return out
})

// objects are the objects of a manifest (a List's items).
func objects(t *testing.T, data string) []map[string]interface{} {
	t.Helper()
	docs, err := manifest.Parse("output", []byte(data))
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]interface{}
	for _, d := range docs {
		out = append(out, d.Object)
	}
	return out
}

// identities are "<apiVersion> <Kind> <ns/name>" of each object of data.
func identities(t *testing.T, data string) []string {
	t.Helper()
	var out []string
	for _, obj := range objects(t, data) {
		out = append(out, obj["apiVersion"].(string)+" "+api.Describe(obj))
	}
	return out
}

// reported are the objects of the lines that say what, without pos.
func reported(lines []string, pos, what string) []string {
	var out []string
	for _, l := range lines {
		if at, ok := strings.CutPrefix(l, pos); ok && strings.Contains(at, what) {
			out = append(out, at[:strings.Index(at, what)])
		}
	}
	return out
}
