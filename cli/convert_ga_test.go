package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestConvertToGA migrates every example to v1beta1, v1beta2 and v1 in one
// command, requires the result to pass validate, and converts it back.
func TestConvertToGA(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "examples", "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no examples: %v", err)
	}
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		// The GA versions are upstream's: examples of the claimbridge group
		// are converted as resource.k8s.io manifests.
		data = []byte(strings.ReplaceAll(string(data), "apiVersion: resource.claimbridge.dev/", "apiVersion: resource.k8s.io/"))
		orig := readObjects(t, string(data))
		from := strings.Split(orig[0]["apiVersion"].(string), "/")[1]
		for _, to := range []string{"v1beta1", "v1beta2", "v1"} {
			t.Run(filepath.Base(file)+"/"+to, func(t *testing.T) {
				code, out, stderr := run(t, string(data), "convert", "--to", to, "-f", "-", "--quiet")
				if code != ExitOK {
					t.Fatalf("convert --to %s: exit %d, stderr %q", to, code, stderr)
				}
				// --quiet silences the notes, never the warnings.
				for _, line := range strings.Split(strings.TrimSuffix(stderr, "\n"), "\n") {
					if line != "" && !strings.Contains(line, ": warning: ") {
						t.Errorf("--quiet: not a warning: %s", line)
					}
				}
				for _, obj := range readObjects(t, out) {
					if got := obj["apiVersion"]; got != "resource.k8s.io/"+to {
						t.Errorf("apiVersion %v", got)
					}
				}
				if code, vout, verr := run(t, out, "validate", "-f", "-"); code != ExitOK || vout != "" {
					t.Errorf("validate: exit %d\n%s%s", code, vout, verr)
				}
				code, back, stderr := run(t, out, "convert", "--to", from, "-f", "-")
				if code != ExitOK || stderr != "" {
					t.Fatalf("convert back: exit %d, stderr %q", code, stderr)
				}
				if diff := cmp.Diff(orig, readObjects(t, back), numbers); diff != "" {
					t.Errorf("%s→%s→%s (-want +got):\n%s", from, to, from, diff)
				}
			})
		}
	}
}

func TestConvertToGAWarnings(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "examples", "claim-v1alpha1.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	code, _, stderr := run(t, string(data), "convert", "--to", "v1", "-f", "-")
	// The v1alpha2→v1alpha3 step on the way reports its own loss first,
	// phrased for the target (v1, 1.34+).
	want := `<stdin>: document 1 (line 1): warning: ResourceClaim ml-training/gpu-claim: spec.parametersRef: the claim parameters GpuClaimParameters "two-gpus" (apiGroup "gpu.resource.example.com") have no v1 equivalent: a 1.34+ scheduler allocates one device of class "gpu.example.com" without them
<stdin>: document 1 (line 1): warning: ResourceClaim ml-training/gpu-claim: status.allocation.controller: allocated by classic DRA driver "gpu.resource.example.com": a 1.32+ resourceclaim controller never clears this allocation (it deallocates only claims with finalizer resource.kubernetes.io/delete-protection) and the driver's controller no longer runs; the controller is kept only in the restore annotation
<stdin>: document 1 (line 1): warning: ResourceClaim ml-training/gpu-claim: metadata.finalizers[0]: finalizer "gpu.resource.example.com/deletion-protection" of a claim allocated by classic DRA: no 1.32+ component removes it, so deleting the claim waits until it is removed by hand
<stdin>: document 1 (line 1): warning: ResourceClaim ml-training/gpu-claim: status: an apiserver discards the status when the claim is created: create the claim, then write the status through the status subresource (e.g. kubectl replace --subresource=status; from Kubernetes 1.36, whose DRAResourceClaimGranularStatusAuthorization is on by default, writing allocation or reservedFor also needs the write's own verb (update, or patch) on resourceclaims/binding cluster-wide, and status.devices a per-driver permission on resourceclaims/driver)
<stdin>: document 1 (line 1): warning: ResourceClaim ml-training/gpu-claim: spec: the claim's devices come from the classic DRA driver "gpu.resource.example.com" (1.26–1.30 control-plane controller); Kubernetes 1.32+ has no classic DRA and allocates every claim in the scheduler from ResourceSlices, which a classic driver does not publish: install the driver's structured-parameters version
`
	if code != ExitOK {
		t.Fatalf("exit %d", code)
	}
	if diff := cmp.Diff(want, stderr); diff != "" {
		t.Errorf("stderr (-want +got):\n%s", diff)
	}
	if code, _, quiet := run(t, string(data), "convert", "--to", "v1", "-f", "-", "--quiet"); code != ExitOK || quiet != stderr {
		t.Errorf("--quiet: exit %d, stderr %q; warnings are never silenced", code, quiet)
	}
}

func TestConvertToGAErrors(t *testing.T) {
	for _, c := range []struct {
		name, in, to string
		code         int
		want         string
	}{
		{"claimbridge group", "apiVersion: resource.claimbridge.dev/v1alpha2\nkind: ResourceClaim\nmetadata: {name: c}\nspec: {resourceClassName: gpu}\n", "v1", ExitInvalid,
			"<stdin>: document 1 (line 1): target version v1 is not served by group resource.claimbridge.dev (only v1alpha1, v1alpha2, v1alpha3); it is a version of resource.k8s.io, reached from manifests of that group: to move this object to the built-in API, give it apiVersion resource.k8s.io/v1alpha2\n"},
		{"v1alpha3 of 1.32", "apiVersion: resource.k8s.io/v1alpha3\nkind: ResourceClaim\nmetadata: {name: c, namespace: ns}\nspec: {devices: {requests: [{name: r, deviceClassName: gpu, tolerations: []}]}}\n", "v1", ExitInvalid,
			"<stdin>: document 1 (line 1): resource.k8s.io/v1alpha3 ResourceClaim ns/c has spec.devices.requests[0].tolerations, which the resource.k8s.io/v1alpha3 of Kubernetes 1.32 and 1.33 had; claimbridge's v1alpha3 is the Kubernetes 1.31 shape only: for a 1.32/1.33 v1alpha3 manifest set apiVersion to resource.k8s.io/v1beta1 (the same fields) and convert from there\n"},
		{"unknown version", "apiVersion: resource.k8s.io/v1alpha2\nkind: ResourceClaim\n", "v2", ExitBadInput,
			`--to "v2": unsupported version or release (supported: 1.26 … 1.38, 1.39, v1alpha1, v1alpha2, v1alpha3, v1beta1, v1beta2, v1)` + "\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, out, stderr := run(t, c.in, "convert", "--to", c.to, "-f", "-")
			if code != c.code || out != "" {
				t.Errorf("exit %d (want %d), stdout %q", code, c.code, out)
			}
			if !strings.HasSuffix(stderr, c.want) {
				t.Errorf("stderr %q\nwant suffix %q", stderr, c.want)
			}
		})
	}
}

func TestValidateGA(t *testing.T) {
	in := `apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: c, namespace: ns}
spec:
  devices:
    requests:
    - name: a
      deviceClassName: gpu
      count: 1
    - name: b
      exactly: {deviceClassName: gpu, adminAccess: true}
    config:
    - opaque: {driver: d, parameters: "not an object"}
`
	code, out, stderr := run(t, in, "validate", "-f", "-")
	// Every field v1 lacks is named at its path, as for the alpha versions.
	want := `<stdin>: document 1 (line 1): ResourceClaim ns/c: spec.devices.requests[0].count: Forbidden: unknown field
<stdin>: document 1 (line 1): ResourceClaim ns/c: spec.devices.requests[0].deviceClassName: Forbidden: unknown field
<stdin>: document 1 (line 1): ResourceClaim ns/c: spec.devices.requests[0]: Required value: exactly one of ` + "`exactly` or `firstAvailable`" + ` is required
<stdin>: document 1 (line 1): ResourceClaim ns/c: spec.devices.config[0].opaque.parameters: Invalid value: "<value omitted>": must be a valid JSON object
`
	if code != ExitInvalid {
		t.Errorf("exit %d, want %d", code, ExitInvalid)
	}
	if diff := cmp.Diff(want, out); diff != "" {
		t.Errorf("stdout (-want +got):\n%s", diff)
	}
	wantErr := "<stdin>: document 1 (line 1): warning: ResourceClaim ns/c: spec.devices.requests[1].exactly.adminAccess: needs a namespace labeled resource.kubernetes.io/admin-access=true (Kubernetes 1.34+; resource.k8s.io/admin-access=true in 1.33)\n"
	if diff := cmp.Diff(wantErr, stderr); diff != "" {
		t.Errorf("stderr (-want +got):\n%s", diff)
	}
}
