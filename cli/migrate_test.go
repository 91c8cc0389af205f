package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestMigrateExample migrates the exported 1.30 objects of
// examples/migrate to 1.31; the output is the committed
// examples/migrate/migrated-1.31.yaml (refresh: UPDATE_GOLDEN=1) and the
// report on stderr is exact.
func TestMigrateExample(t *testing.T) {
	in := filepath.Join("..", "examples", "migrate", "exported-1.30.yaml")
	golden := filepath.Join("..", "examples", "migrate", "migrated-1.31.yaml")
	code, stdout, stderr := run(t, "", "migrate", "--to", "v1alpha3", "-f", in)
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
		pos + "0: ResourceClaim inference/accel-claim: changed metadata.finalizers: dra.k8s.io/delete-protection -> resource.kubernetes.io/delete-protection (Kubernetes 1.31)",
		pos + "0: ResourceClaim inference/accel-claim: changed spec.devices: 1 request(s) translated from ResourceClaimParameters two-accelerators",
		pos + "1: ResourceClaimTemplate inference/per-pod-accelerator: dropped metadata.uid, metadata.resourceVersion, metadata.creationTimestamp",
		pos + "1: ResourceClaimTemplate inference/per-pod-accelerator: changed spec.devices: 1 request(s) translated from ResourceClaimParameters one-big-accelerator",
		"Warning: " + pos + "1: ResourceClaimTemplate inference/per-pod-accelerator: driverRequests[0].requests[0]: quantity attributes are read as the device's capacity in 1.31",
		pos + "2: ResourceClaimParameters inference/two-accelerators: left out: Kubernetes 1.31 does not serve it",
		pos + "3: ResourceClaimParameters inference/one-big-accelerator: left out: Kubernetes 1.31 does not serve it",
		pos + "4: ResourceClass accel.example.com: left out: Kubernetes 1.31 does not serve it",
		pos + "5: ResourceClassParameters accel-system/accel-defaults: left out: Kubernetes 1.31 does not serve it",
	}
	if d := cmp.Diff(wantErr, strings.Split(strings.TrimSuffix(stderr, "\n"), "\n")); d != "" {
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
		{"unreadable", []string{"migrate", "--to", "v1alpha3", "-f", "-"}, "a: [", ExitBadInput, ""},
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
