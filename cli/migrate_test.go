package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestMigrateExample migrates the exported 1.30 objects of examples/migrate
// to 1.31 and to resource.k8s.io/v1; the outputs are the committed
// examples/migrate/migrated-*.yaml (refresh: UPDATE_GOLDEN=1) and the
// reports on stderr are exact.
func TestMigrateExample(t *testing.T) {
	in := filepath.Join("..", "examples", "migrate", "exported-1.30.yaml")
	for _, tt := range []struct{ to, release, golden string }{
		{"v1alpha3", "1.31", "migrated-1.31.yaml"},
		{"v1", "1.34+", "migrated-v1.yaml"},
	} {
		t.Run(tt.to, func(t *testing.T) {
			golden := filepath.Join("..", "examples", "migrate", tt.golden)
			code, stdout, stderr := run(t, "", "migrate", "--to", tt.to, "-f", in)
			if code != ExitOK {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			if os.Getenv("UPDATE_GOLDEN") != "" {
				if err := os.WriteFile(golden, []byte(stdout), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run UPDATE_GOLDEN=1 go test ./cli -run TestMigrateExample)", err)
			}
			if d := cmp.Diff(string(want), stdout); d != "" {
				t.Errorf("stdout (-golden +got):\n%s", d)
			}
			pos := in + ": document 1 (line 1), item "
			wantErr := []string{
				pos + "0: ResourceClaim inference/accel-claim: dropped metadata.uid, metadata.resourceVersion, metadata.creationTimestamp, metadata.managedFields, status (reset on create: the claim is allocated anew)",
				pos + "0: ResourceClaim inference/accel-claim: changed metadata.finalizers: dra.k8s.io/delete-protection -> resource.kubernetes.io/delete-protection (Kubernetes " + tt.release + ")",
				pos + "0: ResourceClaim inference/accel-claim: changed spec.devices: 1 request(s) translated from ResourceClaimParameters two-accelerators",
				pos + "1: ResourceClaimTemplate inference/per-pod-accelerator: dropped metadata.uid, metadata.resourceVersion, metadata.creationTimestamp",
				pos + "1: ResourceClaimTemplate inference/per-pod-accelerator: changed spec.devices: 1 request(s) translated from ResourceClaimParameters one-big-accelerator",
				"Warning: " + pos + "1: ResourceClaimTemplate inference/per-pod-accelerator: driverRequests[0].requests[0]: quantity attributes are read as the device's capacity in 1.31",
				pos + "2: ResourceClaimParameters inference/two-accelerators: left out: Kubernetes " + tt.release + " does not serve it",
				pos + "3: ResourceClaimParameters inference/one-big-accelerator: left out: Kubernetes " + tt.release + " does not serve it",
				pos + "4: ResourceClass accel.example.com: left out: Kubernetes " + tt.release + " does not serve it",
				pos + "5: ResourceClassParameters accel-system/accel-defaults: left out: Kubernetes " + tt.release + " does not serve it",
			}
			if d := cmp.Diff(wantErr, strings.Split(strings.TrimSuffix(stderr, "\n"), "\n")); d != "" {
				t.Errorf("stderr (-want +got):\n%s", d)
			}
		})
	}
}

// TestMigrate126ToV1 is the README's example: a 1.26 claim allocated by a
// classic driver, re-created on a cluster of today in one command; README.md
// shows this output.
func TestMigrate126ToV1(t *testing.T) {
	in := filepath.Join("..", "examples", "claim-v1alpha1.yaml")
	code, stdout, stderr := run(t, "", "migrate", "--to", "v1", "-f", in)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	want := `apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata:
  labels:
    app.kubernetes.io/name: trainer
  name: gpu-claim
  namespace: ml-training
spec:
  devices:
    requests:
    - exactly:
        deviceClassName: gpu.example.com
      name: request
`
	if d := cmp.Diff(want, stdout); d != "" {
		t.Errorf("stdout (-want +got):\n%s", d)
	}
	readme, err := os.ReadFile(filepath.Join("..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(readme), "```yaml\n"+want+"```\n") {
		t.Errorf("README.md does not show the output of migrate --to v1 -f examples/claim-v1alpha1.yaml:\n%s", want)
	}
	who := in + ": document 1 (line 1): ResourceClaim ml-training/gpu-claim: "
	wantErr := who + "dropped metadata.uid, metadata.resourceVersion, metadata.creationTimestamp, " +
		"metadata.finalizers[gpu.resource.example.com/deletion-protection] (classic DRA driver's: Kubernetes 1.34+ runs no classic driver that would remove it), " +
		"status (reset on create: the claim is allocated anew)\n" +
		"Warning: " + who + `spec.parametersRef: GpuClaimParameters ml-training/two-gpus (apiGroup "gpu.resource.example.com") has no 1.30 ResourceClaimParameters in the input: the migrated claim asks for one device of class gpu.example.com with no selector and no configuration` + "\n"
	if d := cmp.Diff(wantErr, stderr); d != "" {
		t.Errorf("stderr (-want +got):\n%s", d)
	}
}

func TestMigrateTypedListAndPassThrough(t *testing.T) {
	in := `apiVersion: resource.claimbridge.dev/v1alpha3
kind: ResourceClaimList
items:
- metadata: {name: a, namespace: ns, uid: x, finalizers: [resource.kubernetes.io/delete-protection]}
  spec: {devices: {requests: [{name: gpu, deviceClassName: gpu.example.com}]}}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: cm, uid: u1}
`
	code, stdout, stderr := run(t, in, "migrate", "--to", "v1alpha2", "-f", "-")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	want := `apiVersion: resource.claimbridge.dev/v1alpha2
kind: ResourceClaim
metadata:
  finalizers:
  - dra.k8s.io/delete-protection
  name: a
  namespace: ns
spec:
  resourceClassName: gpu.example.com
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: cm
  uid: u1
`
	if d := cmp.Diff(want, stdout); d != "" {
		t.Errorf("stdout (-want +got):\n%s", d)
	}
	wantErr := "<stdin>: document 1 (line 1): ResourceClaim ns/a: dropped metadata.uid\n" +
		"<stdin>: document 1 (line 1): ResourceClaim ns/a: changed metadata.finalizers: resource.kubernetes.io/delete-protection -> dra.k8s.io/delete-protection (Kubernetes 1.27-1.30)\n"
	if d := cmp.Diff(wantErr, stderr); d != "" {
		t.Errorf("stderr (-want +got):\n%s", d)
	}
}

func TestMigrateBadInput(t *testing.T) {
	tests := []struct {
		name   string
		args   []string
		stdin  string
		code   int
		stderr string
	}{
		{"no-target", []string{"migrate", "-f", "-"}, "", ExitBadInput, "Error: --to is required (one of v1alpha1, v1alpha2, v1alpha3, v1beta1, v1beta2, v1)\n"},
		{"bad-target", []string{"migrate", "--to", "v9", "-f", "-"}, "", ExitBadInput, "Error: --to \"v9\": unsupported version (supported: v1alpha1, v1alpha2, v1alpha3, v1beta1, v1beta2, v1)\n"},
		{"claimbridge-group-to-v1", []string{"migrate", "--to", "v1", "-f", "-"}, "apiVersion: resource.claimbridge.dev/v1alpha2\nkind: ResourceClaim\nmetadata: {name: c}\nspec: {resourceClassName: x}\n", ExitInvalid,
			"Error: <stdin>: document 1 (line 1): target version v1 is a version of resource.k8s.io (Kubernetes 1.34+), not of resource.claimbridge.dev; give the manifest apiVersion resource.k8s.io/v1alpha2 to migrate it to the upstream API\n"},
		{"rejected-by-1.36", []string{"migrate", "--to", "v1beta2", "-f", "-"}, "apiVersion: resource.k8s.io/v1alpha3\nkind: ResourceClaim\nmetadata: {name: c}\nspec: {devices: {requests: [{name: r, deviceClassName: x}], config: [{opaque: {driver: d, parameters: 5}}]}}\n", ExitInvalid,
			"Error: <stdin>: document 1 (line 1): ResourceClaim c: a Kubernetes 1.33 apiserver would reject the migrated object: spec.devices.config[0].opaque.parameters: Invalid value: must be a JSON object\n"},
		{"unreadable", []string{"migrate", "--to", "v1alpha3", "-f", "-"}, "a: [", ExitBadInput, ""},
		{"malformed-as-convert", []string{"migrate", "--to", "v1alpha2", "-f", "-"}, "apiVersion: resource.k8s.io/v1alpha3\nkind: ResourceClaim\nmetadata: {name: c, namespace: ns}\nspec: {devices: []}\n", ExitBadInput,
			"Error: <stdin>: document 1 (line 1): ResourceClaim ns/c is malformed: spec.devices must be an object, not an array\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := run(t, tt.stdin, tt.args...)
			if code != tt.code || stdout != "" {
				t.Fatalf("exit %d, stdout %q; want exit %d and no output", code, stdout, tt.code)
			}
			if tt.stderr != "" && stderr != tt.stderr {
				t.Errorf("stderr %q, want %q", stderr, tt.stderr)
			}
			if stderr == "" {
				t.Error("no message on stderr")
			}
		})
	}
}
