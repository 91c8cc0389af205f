package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCurrentDirectory: `-f .` reads the manifests of the working
// directory, as `-f dir` does, in all three commands.
func TestCurrentDirectory(t *testing.T) {
	dir := t.TempDir()
	claim := "apiVersion: resource.k8s.io/v1alpha2\nkind: ResourceClaim\nmetadata: {name: gpu, namespace: ml}\nspec: {resourceClassName: gpu.example.com}\n"
	if err := os.WriteFile(filepath.Join(dir, "claim.yaml"), []byte(claim), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	for _, args := range [][]string{
		{"convert", "--to", "v1alpha3", "-f", "."},
		{"migrate", "--to", "v1", "-f", "."},
		{"validate", "-f", "."},
		{"validate", "-f", "./"},
	} {
		code, stdout, stderr := run(t, "", args...)
		if code != ExitOK || strings.Contains(stderr, "no objects") || (args[0] != "validate" && !strings.Contains(stdout, "name: gpu")) {
			t.Errorf("%v: exit %d\nstdout:\n%s\nstderr:\n%s", args, code, stdout, stderr)
		}
	}
	// A directory beside the working one is not inside it.
	if err := os.Mkdir(filepath.Join(dir, "empty"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "empty", "none.yaml"), []byte("# no claims yet\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := run(t, "", "validate", "-f", "empty", "-f", "claim.yaml"); code != ExitBadInput || stderr != "Error: no objects in empty\n" {
		t.Errorf("an empty directory beside a file: exit %d, %s", code, stderr)
	}
}

// TestNewerV1alpha3Advice: a 1.32/1.33 v1alpha3 template is told to be
// labelled v1beta1 by migrate too, whatever the target serves.
func TestNewerV1alpha3Advice(t *testing.T) {
	in := `apiVersion: resource.k8s.io/v1alpha3
kind: ResourceClaimTemplate
metadata: {name: gpu, namespace: ml}
spec:
  spec:
    devices:
      requests:
      - name: gpu
        deviceClassName: gpu.example.com
        tolerations: [{key: example.com/taint, operator: Exists}]
`
	for _, to := range []string{"v1", "v1beta1", "v1alpha3"} {
		code, stdout, stderr := run(t, in, "migrate", "--to", to, "-f", "-")
		want := "Error: <stdin>: document 1 (line 1): resource.k8s.io/v1alpha3 ResourceClaimTemplate ml/gpu has spec.spec.devices.requests[0].tolerations, which the resource.k8s.io/v1alpha3 of Kubernetes 1.32 and 1.33 had; claimbridge's v1alpha3 is the Kubernetes 1.31 shape only: for a 1.32/1.33 v1alpha3 manifest set apiVersion to resource.k8s.io/v1beta1 (the same fields) and convert from there\n"
		if code != ExitInvalid || stdout != "" || stderr != want {
			t.Errorf("migrate --to %s: exit %d\nstdout:\n%s\nstderr:\n%s\nwant:\n%s", to, code, stdout, stderr, want)
		}
	}
}

// TestPodTemplatesOfAnyKind: the pod templates of kinds claimbridge does
// not know by name (a JobSet here) are found by their shape and converted
// as a Deployment's are.
func TestPodTemplatesOfAnyKind(t *testing.T) {
	in := `apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata: {name: train, namespace: ml}
spec:
  replicatedJobs:
  - name: workers
    template:
      spec:
        template:
          spec:
            containers:
            - name: trainer
              image: registry.example.com/trainer:1.0
              resources: {claims: [{name: gpu}]}
            resourceClaims:
            - name: gpu
              source: {resourceClaimTemplateName: gpu-template}
`
	for _, cmd := range []string{"convert", "migrate"} {
		code, stdout, stderr := run(t, in, cmd, "--to", "v1", "-f", "-")
		if code != ExitOK || !strings.Contains(stdout, "      - name: gpu\n                resourceClaimTemplateName: gpu-template\n") && !strings.Contains(stdout, "resourceClaimTemplateName: gpu-template") || strings.Contains(stdout, "source:") {
			t.Errorf("%s --to v1: exit %d\nstdout:\n%s\nstderr:\n%s", cmd, code, stdout, stderr)
		}
		if !strings.Contains(stderr, "spec.replicatedJobs[0].template.spec.template.spec.resourceClaims[0]") {
			t.Errorf("%s --to v1 does not name the entry it changed:\n%s", cmd, stderr)
		}
	}
}

// TestStringClaimReference: a container's claim given as a string (as an
// upstream e2e manifest has it) is read by no release: convert writes it
// with an error (exit 1), migrate and validate refuse it.
func TestStringClaimReference(t *testing.T) {
	in := `apiVersion: v1
kind: Pod
metadata: {name: test, namespace: e2e}
spec:
  containers:
  - name: ctr
    image: registry.example.com/pause:3.10
    resources: {claims: [resource]}
  resourceClaims:
  - name: resource
    resourceClaimName: external-claim
`
	const field = "spec.containers[0].resources.claims[0]: string, where every release reads an object with a name (- name: <the pod's resourceClaims entry>)"
	code, _, stderr := run(t, in, "convert", "--to", "v1", "-f", "-")
	if want := "Error: <stdin>: document 1 (line 1): Pod e2e/test: " + field + ": the apiserver rejects this object\n"; code != ExitInvalid || stderr != want {
		t.Errorf("convert: exit %d, stderr:\n%s\nwant:\n%s", code, stderr, want)
	}
	code, stdout, stderr := run(t, in, "migrate", "--to", "v1", "-f", "-")
	if code != ExitInvalid || stdout != "" || !strings.Contains(stderr, field) {
		t.Errorf("migrate: exit %d, stdout %q, stderr:\n%s", code, stdout, stderr)
	}
}

// TestValidateQuiet: validate -q silences the notes on skipped objects,
// never a finding.
func TestValidateQuiet(t *testing.T) {
	in := `apiVersion: v1
kind: ConfigMap
metadata: {name: settings, namespace: ml}
---
apiVersion: resource.k8s.io/v1alpha2
kind: ResourceClaim
metadata: {name: gpu, namespace: ml}
spec: {resourceClassName: ""}
`
	code, stdout, stderr := run(t, in, "validate", "-f", "-")
	if code != ExitInvalid || !strings.Contains(stderr, "skipping object v1 ConfigMap ml/settings") || !strings.Contains(stdout, "spec.resourceClassName") {
		t.Errorf("validate: exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	quietCode, quietOut, quietErr := run(t, in, "validate", "-q", "-f", "-")
	if quietCode != code || quietOut != stdout || quietErr != "" {
		t.Errorf("validate -q: exit %d\nstdout:\n%s\nstderr:\n%s\nwant exit %d, the same findings and no notes", quietCode, quietOut, quietErr, code)
	}
}
