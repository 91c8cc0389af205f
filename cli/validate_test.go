package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/conversion"
)

const (
	validClaimYAML = `apiVersion: resource.claimbridge.dev/v1alpha3
kind: ResourceClaim
metadata:
  name: gpu
  namespace: ns
spec:
  devices:
    requests:
    - name: gpu
      deviceClassName: gpu.example.com
`
	invalidClaimYAML = `apiVersion: resource.k8s.io/v1alpha2
kind: ResourceClaim
metadata:
  name: bad
  namespace: ns
spec:
  resourceClassName: Bad_Class
`
	configMapYAML = `apiVersion: v1
kind: ConfigMap
metadata:
  name: cm
`
)

func runValidate(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := Main(append([]string{"validate"}, args...), strings.NewReader(stdin), &out, &errOut)
	return code, out.String(), withoutSummary(t, errOut.String())
}

func writeValidateFile(t *testing.T, name, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestValidateCommand(t *testing.T) {
	scenarios := map[string]struct {
		stdin      string
		args       []string
		wantCode   int
		wantOut    string
		wantErrOut string
	}{
		"valid-claim": {
			stdin: validClaimYAML, args: []string{"-f", "-"}, wantCode: ExitOK,
		},
		"invalid-claim-and-skipped-object": {
			stdin:    validClaimYAML + "---\n" + invalidClaimYAML + "---\n" + configMapYAML,
			args:     []string{"-f", "-"},
			wantCode: ExitInvalid,
			wantOut: `<stdin>: document 2 (line 12): ResourceClaim ns/bad: spec.resourceClassName: Invalid value: "Bad_Class": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')
`,
			wantErrOut: "<stdin>: document 3 (line 20): skipping object v1 ConfigMap cm: not a DRA object\n",
		},
		"dra-group-unknown-version": {
			stdin:      strings.Replace(validClaimYAML, "resource.claimbridge.dev/v1alpha3", "resource.k8s.io/v2", 1),
			args:       []string{"-f", "-"},
			wantCode:   ExitOK,
			wantErrOut: "<stdin>: document 1 (line 1): skipping object resource.k8s.io/v2 ResourceClaim ns/gpu: not a ResourceClaim or ResourceClaimTemplate of resource.claimbridge.dev v1alpha1-v1alpha3 or resource.k8s.io v1alpha1-v1alpha3, v1beta1, v1beta2, v1\n",
		},
		"warning": {
			stdin:      strings.Replace(invalidClaimYAML, "Bad_Class", "gpu\n  allocationMode: Immediate", 1),
			args:       []string{"-f", "-"},
			wantCode:   ExitOK,
			wantErrOut: "<stdin>: document 1 (line 1): warning: ResourceClaim ns/bad: spec.allocationMode: Immediate allocation does not exist in v1alpha3 (Kubernetes 1.31+); the claim is allocated when a pod needs it\n",
		},
		// kubectl create takes the namespace of a manifest without one from
		// its context (intel-resource-drivers' resourceclaim.yaml).
		"no-namespace": {
			stdin:    "apiVersion: resource.k8s.io/v1alpha1\nkind: ResourceClaim\nmetadata: {name: gpu-claim-standalone}\nspec: {resourceClassName: intel-gpu}\n",
			args:     []string{"-f", "-"},
			wantCode: ExitOK,
		},
		// The apiserver names an object from its generateName before
		// validating it, so kubectl create accepts one without a name.
		"generate-name": {
			stdin:    "apiVersion: resource.k8s.io/v1alpha2\nkind: ResourceClaimTemplate\nmetadata: {generateName: gpu-, namespace: ns}\nspec: {spec: {resourceClassName: gpu}}\n",
			args:     []string{"-f", "-"},
			wantCode: ExitOK,
		},
		"generate-name-invalid": {
			stdin:    "apiVersion: resource.k8s.io/v1alpha1\nkind: ResourceClaim\nmetadata: {generateName: Gpu-, namespace: ns}\nspec: {resourceClassName: gpu}\n",
			args:     []string{"-f", "-"},
			wantCode: ExitInvalid,
			wantOut: `<stdin>: document 1 (line 1): ResourceClaim ns/Gpu-*: metadata.generateName: Invalid value: "Gpu-": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')
<stdin>: document 1 (line 1): ResourceClaim ns/Gpu-*: metadata.name: Invalid value: "Gpu-xxxxx": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')
`,
		},
		"undecodable-object": {
			stdin:    strings.Replace(validClaimYAML, "name: gpu\n      device", "name: [1]\n      device", 1),
			args:     []string{"-f", "-"},
			wantCode: ExitInvalid,
			wantOut:  "<stdin>: document 1 (line 1): ResourceClaim ns/gpu: decoding object: spec.devices.requests[0].name must be a string, not an array\n",
		},
		// The path names the list index, in the version's JSON types (not
		// encoding/json's Go field and type names without indices).
		"malformed-second-request": {
			stdin:    "apiVersion: resource.claimbridge.dev/v1alpha3\nkind: ResourceClaim\nmetadata: {name: c, namespace: ns}\nspec:\n  devices:\n    requests:\n    - {name: a, deviceClassName: gpu}\n    - {name: b, deviceClassName: gpu, count: \"2\"}\n",
			args:     []string{"-f", "-"},
			wantCode: ExitInvalid,
			wantOut:  "<stdin>: document 1 (line 1): ResourceClaim ns/c: decoding object: spec.devices.requests[1].count must be a number, not a string\n",
		},
		"malformed-ga-object": {
			stdin: "apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: c, namespace: ns}\nspec: {devices: []}\n",
			args:  []string{"-f", "-"},
			// Invalid, as a DeviceClass that does not decode: the file was read.
			wantCode: ExitInvalid,
			wantOut:  "<stdin>: document 1 (line 1): ResourceClaim ns/c is malformed: spec.devices must be an object, not an array\n",
		},
		// kubectl creates the items of a typed list (ResourceClaimList from
		// the API); they are checked like any other claim.
		"typed-list": {
			stdin: `apiVersion: resource.k8s.io/v1alpha2
kind: ResourceClaimList
metadata: {resourceVersion: "7"}
items:
- metadata: {name: bad, namespace: ns}
  spec: {resourceClassName: Bad_Class}
- apiVersion: resource.k8s.io/v1alpha2
  kind: ResourceClaim
  metadata: {name: good, namespace: ns}
  spec: {resourceClassName: gpu}
`,
			args:     []string{"-f", "-"},
			wantCode: ExitInvalid,
			wantOut: `<stdin>: document 1 (line 1), items[0]: ResourceClaim ns/bad: spec.resourceClassName: Invalid value: "Bad_Class": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')
`,
		},
		"typed-list-ga": {
			stdin:    "apiVersion: resource.k8s.io/v1\nkind: ResourceClaimList\nitems:\n- metadata: {name: c, namespace: ns}\n  spec: {devices: {requests: [{name: r}]}}\n",
			args:     []string{"-f", "-"},
			wantCode: ExitInvalid,
			wantOut:  "<stdin>: document 1 (line 1), items[0]: ResourceClaim ns/c: spec.devices.requests[0]: Required value: exactly one of `exactly` or `firstAvailable` is required\n",
		},
		"typed-list-item-not-an-object": {
			stdin:      "apiVersion: resource.k8s.io/v1alpha2\nkind: ResourceClaimList\nitems: [5]\n",
			args:       []string{"-f", "-"},
			wantCode:   ExitBadInput,
			wantErrOut: "<stdin>: document 1 (line 1): items[0] of the ResourceClaimList is not an object",
		},
		"missing-filename":        {args: nil, wantCode: ExitBadInput, wantErrOut: "at least one -f/--filename is required"},
		"status-without-old":      {args: []string{"-f", "-", "--subresource", "status"}, wantCode: ExitBadInput, wantErrOut: "--subresource status needs --old"},
		"unsupported-subresource": {args: []string{"-f", "-", "--subresource", "scale", "--old", "x"}, wantCode: ExitBadInput, wantErrOut: "unsupported --subresource"},
		// Standard input can be read once: the second reader would get
		// nothing, and --old - would pair nothing.
		"stdin-twice":      {stdin: validClaimYAML, args: []string{"-f", "-", "-f", "-"}, wantCode: ExitBadInput, wantErrOut: `standard input ("-") can be read only once`},
		"stdin-as-old-too": {stdin: validClaimYAML, args: []string{"-f", "-", "--old", "-"}, wantCode: ExitBadInput, wantErrOut: `standard input ("-") can be read only once`},
	}
	for name, scenario := range scenarios {
		t.Run(name, func(t *testing.T) {
			code, out, errOut := runValidate(t, scenario.stdin, scenario.args...)
			if code != scenario.wantCode {
				t.Errorf("exit code %d, want %d (stderr %q)", code, scenario.wantCode, errOut)
			}
			if diff := cmp.Diff(scenario.wantOut, out); diff != "" {
				t.Errorf("stdout (-want +got):\n%s", diff)
			}
			if !strings.Contains(errOut, scenario.wantErrOut) {
				t.Errorf("stderr %q does not contain %q", errOut, scenario.wantErrOut)
			}
		})
	}
}

func TestValidateCommandUpdate(t *testing.T) {
	old := writeValidateFile(t, "old.yaml", strings.Replace(validClaimYAML, "namespace: ns", "namespace: ns\n  resourceVersion: \"1\"", 1))
	changed := strings.Replace(strings.Replace(validClaimYAML, "namespace: ns", "namespace: ns\n  resourceVersion: \"1\"", 1), "gpu.example.com", "fpga.example.com", 1)

	code, out, errOut := runValidate(t, changed, "-f", "-", "--old", old)
	if code != ExitInvalid || !strings.Contains(out, "ResourceClaim ns/gpu: spec: Invalid value: ") || !strings.Contains(out, "field is immutable") {
		t.Errorf("spec change: code %d, stdout %q, stderr %q", code, out, errOut)
	}

	status := strings.Replace(validClaimYAML, "namespace: ns", "namespace: ns\n  resourceVersion: \"1\"", 1) + "status:\n  deallocationRequested: true\n"
	code, out, errOut = runValidate(t, status, "-f", "-", "--old", old, "--subresource", "status")
	want := "<stdin>: document 1 (line 1): ResourceClaim ns/gpu: status: Forbidden: `allocation` must be set when `deallocationRequested` is set\n"
	if code != ExitInvalid || out != want {
		t.Errorf("status update: code %d, stdout %q (want %q), stderr %q", code, out, want, errOut)
	}

	other := strings.Replace(validClaimYAML, "name: gpu\n  namespace", "name: other\n  namespace", 1)
	code, _, errOut = runValidate(t, validClaimYAML+"---\n"+other, "-f", "-", "--old", old)
	if code != ExitBadInput || !strings.Contains(errOut, "ResourceClaim ns/other: no old object with the same kind, namespace and name") {
		t.Errorf("unmatched old: code %d, stderr %q", code, errOut)
	}

	// An old object of a GA version is not used: those are checked as
	// creates, and the note says so rather than calling it unsupported.
	gaOld := writeValidateFile(t, "old-ga.yaml", strings.Replace(validClaimYAML, "namespace: ns", "namespace: ns\n  resourceVersion: \"1\"", 1)+
		"---\napiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: ga, namespace: ns}\nspec: {}\n")
	_, _, errOut = runValidate(t, validClaimYAML, "-f", "-", "--old", gaOld)
	want = "skipping old object resource.k8s.io/v1 ResourceClaim ns/ga: resource.k8s.io v1 claims and templates are checked as creates only; " +
		"to check an update, send it to the cluster: kubectl replace --dry-run=server -f FILE\n"
	if !strings.Contains(errOut, want) {
		t.Errorf("GA old object: stderr %q, want it to contain %q", errOut, want)
	}
}

// TestValidateStorageWarningsOnlyForTheCRD: "stored as v1alpha3" warnings
// are about claimbridge's CRD, which stores v1alpha3; a resource.k8s.io
// object (validated as its own release would) is never stored there and
// gets none, while the same claim of the CRD's group does.
func TestValidateStorageWarningsOnlyForTheCRD(t *testing.T) {
	claim := func(group string) string {
		return "apiVersion: " + group + `/v1alpha2
kind: ResourceClaim
metadata: {name: c, namespace: ns}
spec:
  resourceClassName: gpu
  parametersRef: {apiGroup: gpu.example.com, kind: GpuClaimParameters, name: p}
`
	}
	code, _, stderr := run(t, claim("resource.k8s.io"), "validate", "-f", "-")
	if code != ExitOK || strings.Contains(stderr, "stored as v1alpha3") {
		t.Errorf("resource.k8s.io claim: exit %d, stderr:\n%s", code, stderr)
	}
	code, _, stderr = run(t, claim("resource.claimbridge.dev"), "validate", "-f", "-")
	if code != ExitOK || !strings.Contains(stderr, "<stdin>: document 1 (line 1): warning: ResourceClaim ns/c: stored as v1alpha3: spec.parametersRef:") {
		t.Errorf("resource.claimbridge.dev claim: exit %d, stderr:\n%s", code, stderr)
	}
}

// TestValidateBackupAsTheWebhooksDo: a backup of a claim allocated through
// v1alpha2, as read through v1alpha3 without its status, carries status
// restore data; the defaulting webhook takes it out on a create and keeps
// the stored claim's on an update (applied again), so the cluster accepts
// both with a warning, and validate says the same instead of refusing them.
func TestValidateBackupAsTheWebhooksDo(t *testing.T) {
	allocated := map[string]interface{}{
		"apiVersion": api.Group + "/v1alpha2", "kind": "ResourceClaim",
		"metadata": map[string]interface{}{"name": "c", "namespace": "ns", "resourceVersion": "1"},
		"spec":     map[string]interface{}{"resourceClassName": "gpu", "allocationMode": "Immediate"},
		"status": map[string]interface{}{"driverName": "d", "allocation": map[string]interface{}{"shareable": false,
			"resourceHandles": []interface{}{map[string]interface{}{"driverName": "d", "data": "h"}}}},
	}
	view, err := conversion.Convert(allocated, "v1alpha3")
	if err != nil {
		t.Fatal(err)
	}
	delete(view, "status")
	backup, _ := json.Marshal(view)
	code, out, errOut := runValidate(t, string(backup), "-f", "-")
	want := "<stdin>: document 1 (line 1): warning: ResourceClaim ns/c: metadata.annotations[claimbridge.dev/restore-v1alpha2]: its status restore data was removed: a created claim starts without status\n"
	if code != ExitOK || out != "" || errOut != want {
		t.Errorf("create: exit %d, stdout %q, stderr %q; want 0, nothing, %q", code, out, errOut, want)
	}
	// Stored after that create: the spec data without status data, here
	// in the v1alpha2 view the --old file holds.
	stored := map[string]interface{}{
		"apiVersion": api.Group + "/v1alpha2", "kind": "ResourceClaim",
		"metadata": map[string]interface{}{"name": "c", "namespace": "ns", "resourceVersion": "1"},
		"spec":     map[string]interface{}{"resourceClassName": "gpu", "allocationMode": "Immediate"},
	}
	storedJSON, _ := json.Marshal(stored)
	old := writeValidateFile(t, "stored.json", string(storedJSON))
	code, out, errOut = runValidate(t, string(backup), "-f", "-", "--old", old)
	want = "<stdin>: document 1 (line 1): warning: ResourceClaim ns/c: metadata.annotations[claimbridge.dev/restore-v1alpha2]: its status restore data was kept as stored: status is written through the status subresource\n"
	if code != ExitOK || out != "" || errOut != want {
		t.Errorf("update: exit %d, stdout %q, stderr %q; want 0, nothing, %q", code, out, errOut, want)
	}
	// Against the allocated claim itself (--old in v1alpha2, with its
	// status), the view read is the stored one: nothing to keep, no warning
	// (the old object is compared in the new one's version).
	allocatedJSON, _ := json.Marshal(allocated)
	old = writeValidateFile(t, "allocated.json", string(allocatedJSON))
	if code, out, errOut = runValidate(t, string(backup), "-f", "-", "--old", old); code != ExitOK || out != "" || errOut != "" {
		t.Errorf("update of the allocated claim: exit %d, stdout %q, stderr %q; want 0 and nothing", code, out, errOut)
	}
}
