package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/claimbridge/claimbridge/api"
)

// A Kubernetes 1.26 claim as the 1.26 docs show it: classic DRA only.
const claim126 = `apiVersion: resource.k8s.io/v1alpha1
kind: ResourceClaim
metadata:
  name: gpu-claim
  namespace: demo
spec:
  resourceClassName: gpu.example.com
  allocationMode: Immediate
`

// TestWarningsForTheTarget: one line format for convert and migrate
// ("<position>: warning: <Kind> ns/name: <path>: <message>"), phrased for
// the target release (no internal step, no release the chain passed
// through), each loss once, and the classic-driver warning from convert as
// from migrate.
func TestWarningsForTheTarget(t *testing.T) {
	const pos = "<stdin>: document 1 (line 1): warning: ResourceClaim demo/gpu-claim: "
	immediate := func(release string) string {
		return pos + `spec.allocationMode: ` + release + ` has no allocation mode "Immediate": the claim is allocated only when the first pod that uses it is scheduled` + "\n"
	}
	classicGA := pos + `spec: the claim's devices come from a classic DRA driver (1.26–1.30 control-plane controller); Kubernetes 1.32+ has no classic DRA and allocates every claim in the scheduler from ResourceSlices, which a classic driver does not publish: install the driver's structured-parameters version` + "\n"
	classic131 := pos + `spec.controller: the claim's devices come from a classic DRA driver (1.26–1.30 control-plane controller); a 1.31 claim without controller is allocated by the scheduler from ResourceSlices, which a classic driver does not publish: set spec.controller to the class's driver name (1.31 keeps it with the DRAControlPlaneController feature gate), or use the driver's structured-parameters version` + "\n"
	for _, tc := range []struct {
		name, cmd, to, want string
	}{
		{"convert-to-v1", "convert", "v1", immediate("1.34+") + classicGA},
		{"convert-to-v1beta1", "convert", "v1beta1", immediate("1.32") + classicGA},
		{"convert-to-v1alpha3", "convert", "v1alpha3", immediate("1.31") + classic131},
		{"migrate-to-v1", "migrate", "v1", "<stdin>: document 1 (line 1): ResourceClaim demo/gpu-claim: lost spec.allocationMode: fields that v1 cannot hold (convert keeps them in annotation claimbridge.dev/restore-v1alpha2)\n" +
			immediate("1.34+") + classicGA},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, quiet := range []bool{false, true} {
				args := []string{tc.cmd, "--to", tc.to, "-f", "-"}
				if quiet && tc.cmd == "convert" {
					args = append(args, "-q") // silences notes, never warnings
				}
				code, _, stderr := run(t, claim126, args...)
				if code != ExitOK {
					t.Fatalf("exit %d: %s", code, stderr)
				}
				if d := cmp.Diff(tc.want, stderr); d != "" {
					t.Errorf("%v: stderr (-want +got):\n%s", args, d)
				}
				if strings.Contains(stderr, "→") || strings.Contains(stderr, "Warning:") {
					t.Errorf("stderr names a conversion step or uses another prefix:\n%s", stderr)
				}
			}
		})
	}
}

// TestMigrateClassicV1alpha2WithoutParameters: a 1.27–1.29 claim (classic
// DRA only) without parameters and without its class in the input gets
// the classic-driver warning, hedged for a 1.30 structured class.
func TestMigrateClassicV1alpha2WithoutParameters(t *testing.T) {
	in := strings.Replace(claim126, "v1alpha1", "v1alpha2", 1)
	code, _, stderr := run(t, in, "migrate", "--to", "v1", "-f", "-")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	want := `<stdin>: document 1 (line 1): warning: ResourceClaim demo/gpu-claim: spec: the claim's devices come from a classic DRA driver (1.26–1.30 control-plane controller) unless its ResourceClass "gpu.example.com" has structuredParameters: true`
	if !strings.Contains(stderr, want) {
		t.Errorf("stderr:\n%s\nwant it to contain:\n%s", stderr, want)
	}
}

// TestConvertWarnsWhatTheTargetRejects: output the target release's
// apiserver rejects is named by an error in the target's terms (convert
// writes it all the same, exit 1) or refused (migrate).
func TestConvertWarnsWhatTheTargetRejects(t *testing.T) {
	// A 1.34 consumable-capacity template: its only constraint is a
	// distinctAttribute, so in 1.31 it has requests but no matchAttribute.
	consumable := `apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {name: shared-gpu, namespace: demo}
spec:
  spec:
    devices:
      requests:
      - name: gpu
        exactly:
          deviceClassName: gpu.example.com
          capacity: {requests: {memory: 10Gi}}
      - name: nic
        exactly: {deviceClassName: nic.example.com}
      constraints:
      - requests: [gpu, nic]
        distinctAttribute: example.com/pcie-root
`
	// A 1.34 prioritized list: no device class of its own.
	firstAvailable := `apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: any-gpu, namespace: demo}
spec:
  devices:
    requests:
    - name: gpu
      firstAvailable:
      - {name: big, deviceClassName: big-gpu.example.com}
      - {name: small, deviceClassName: small-gpu.example.com}
`
	for _, tc := range []struct {
		name, in, to, want string
	}{
		{"constraint-without-matchAttribute-to-v1alpha3", consumable, "v1alpha3",
			"Error: <stdin>: document 1 (line 1): ResourceClaimTemplate demo/shared-gpu: spec.spec.devices.constraints[0].matchAttribute: Required value: a Kubernetes 1.31 apiserver rejects this object\n"},
		{"first-available-to-v1alpha3", firstAvailable, "v1alpha3",
			"Error: <stdin>: document 1 (line 1): ResourceClaim demo/any-gpu: spec.devices.requests[0].deviceClassName: Required value: a Kubernetes 1.31 apiserver rejects this object\n" +
				"<stdin>: document 1 (line 1): warning: ResourceClaim demo/any-gpu: spec.devices.requests[0].firstAvailable: 1.31 has no prioritized list: the converted request names no deviceClassName, which a 1.31 apiserver requires, and the request's 2 subrequest(s) are kept only in the restore annotation\n"},
		{"first-available-to-v1alpha2", firstAvailable, "v1alpha2",
			"Error: <stdin>: document 1 (line 1): ResourceClaim demo/any-gpu: spec.resourceClassName: Required value: a Kubernetes 1.27–1.30 claim must name a resource class, and this one names none: " +
				"a 1.31+ claim's class is its first request's deviceClassName, which the input lacks (it has no request, or its first request has only firstAvailable); give that request a deviceClassName, or set spec.resourceClassName in the output: a Kubernetes 1.27–1.30 apiserver rejects this object\n" +
				"<stdin>: document 1 (line 1): warning: ResourceClaim demo/any-gpu: spec.devices.requests[0].firstAvailable: 1.27–1.30 has no prioritized list: the converted claim names no resourceClassName, which a 1.27–1.30 apiserver requires, and the request's 2 subrequest(s) are kept only in the restore annotation\n"},
		{"first-available-to-v1alpha1", firstAvailable, "v1alpha1",
			"Error: <stdin>: document 1 (line 1): ResourceClaim demo/any-gpu: spec.resourceClassName: Required value: a Kubernetes 1.26 claim must name a resource class, and this one names none: " +
				"a 1.31+ claim's class is its first request's deviceClassName, which the input lacks (it has no request, or its first request has only firstAvailable); give that request a deviceClassName, or set spec.resourceClassName in the output: a Kubernetes 1.26 apiserver rejects this object\n" +
				"<stdin>: document 1 (line 1): warning: ResourceClaim demo/any-gpu: spec.devices.requests[0].firstAvailable: 1.26 has no prioritized list: the converted claim names no resourceClassName, which a 1.26 apiserver requires, and the request's 2 subrequest(s) are kept only in the restore annotation\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := run(t, tc.in, "convert", "--to", tc.to, "-f", "-", "-q")
			if code != ExitInvalid { // written, exit 1: the target rejects it
				t.Fatalf("convert: exit %d: %s", code, stderr)
			}
			if !strings.Contains(stderr, tc.want) {
				t.Errorf("convert: stderr:\n%s\nwant it to contain:\n%s", stderr, tc.want)
			}
			code, stdout, stderr := run(t, tc.in, "migrate", "--to", tc.to, "-f", "-")
			if code != ExitInvalid || stdout != "" || !strings.Contains(stderr, "apiserver would reject the migrated object") {
				t.Errorf("migrate: exit %d, want %d, nothing written and a refusal:\n%s%s", code, ExitInvalid, stdout, stderr)
			}
		})
	}
}

// TestConvertPodsAsMigrate: convert gives Pods and the pod templates of
// workloads the claim references of the target release, as migrate does,
// and says so in a note (which -q silences).
func TestConvertPodsAsMigrate(t *testing.T) {
	in := `apiVersion: v1
kind: Pod
metadata: {name: gpu-pod, namespace: demo}
spec:
  resourceClaims:
  - name: gpu
    source: {resourceClaimTemplateName: gpu-template}
  containers:
  - name: app
    image: registry.example.com/cuda:12
    resources: {claims: [{name: gpu}]}
---
apiVersion: batch/v1
kind: CronJob
metadata: {name: nightly, namespace: demo}
spec:
  schedule: "0 2 * * *"
  jobTemplate:
    spec:
      template:
        spec:
          restartPolicy: Never
          resourceClaims:
          - name: gpu
            source: {resourceClaimName: shared-gpu}
          containers:
          - name: train
            image: registry.example.com/train:1
            resources: {claims: [{name: gpu}]}
`
	for _, to := range []string{"v1alpha3", "v1beta1", "v1beta2", "v1"} {
		t.Run(to, func(t *testing.T) {
			code, stdout, stderr := run(t, in, "convert", "--to", to, "-f", "-")
			if code != ExitOK {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			if strings.Contains(stdout, "source:") {
				t.Errorf("a claim reference kept its 1.26–1.30 source:\n%s", stdout)
			}
			for _, want := range []string{"resourceClaimTemplateName: gpu-template", "resourceClaimName: shared-gpu"} {
				if !strings.Contains(stdout, want) {
					t.Errorf("output lacks %q:\n%s", want, stdout)
				}
			}
			for _, want := range []string{
				"<stdin>: document 1 (line 1): Pod demo/gpu-pod: changed spec.resourceClaims[0].source.resourceClaimTemplateName -> spec.resourceClaims[0].resourceClaimTemplateName",
				"<stdin>: document 2 (line 13): CronJob demo/nightly: changed spec.jobTemplate.spec.template.spec.resourceClaims[0].source.resourceClaimName -> spec.jobTemplate.spec.template.spec.resourceClaims[0].resourceClaimName",
			} {
				if !strings.Contains(stderr, want) {
					t.Errorf("stderr:\n%s\nwant it to contain:\n%s", stderr, want)
				}
			}
			_, migrated, _ := run(t, in, "migrate", "--to", to, "-f", "-")
			if migrated != stdout {
				t.Errorf("convert writes:\n%s\nmigrate:\n%s", stdout, migrated)
			}
			if _, _, quiet := run(t, in, "convert", "--to", to, "-f", "-", "-q"); quiet != "" {
				t.Errorf("-q: stderr %q, want none", quiet)
			}
		})
	}
	// And back: a 1.31+ container request has no place in 1.26–1.30.
	back := `apiVersion: v1
kind: Pod
metadata: {name: gpu-pod, namespace: demo}
spec:
  resourceClaims:
  - {name: gpu, resourceClaimName: shared-gpu}
  containers:
  - name: app
    image: registry.example.com/cuda:12
    resources: {claims: [{name: gpu, request: big}]}
`
	code, stdout, stderr := run(t, back, "convert", "--to", "v1alpha2", "-f", "-", "-q")
	if code != ExitOK || !strings.Contains(stdout, "source:\n      resourceClaimName: shared-gpu") {
		t.Errorf("exit %d:\n%s%s", code, stdout, stderr)
	}
	if want := "<stdin>: document 1 (line 1): warning: Pod demo/gpu-pod: spec.containers[0].resources.claims[0].request: Kubernetes 1.27–1.30 gives a container the whole claim"; !strings.Contains(stderr, want) {
		t.Errorf("stderr:\n%s\nwant it to contain:\n%s", stderr, want)
	}
}

// TestNoObjects: an input without objects is unusable input for every
// command (exit 2), also standard input of whitespace only.
func TestNoObjects(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty.yaml")
	if err := os.WriteFile(empty, []byte("# exported from a cluster without claims\n---\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"convert", "--to", "v1", "-f", empty},
		{"migrate", "--to", "v1", "-f", empty},
		{"validate", "-f", empty},
		{"convert", "--to", "v1", "-f", "-"},
		{"validate", "-f", "-"},
	} {
		code, stdout, stderr := run(t, " \n  \n", args...)
		name := empty
		if args[len(args)-1] == "-" {
			name = "<stdin>"
		}
		if want := "Error: no objects in " + name + "\n"; code != ExitBadInput || stdout != "" || stderr != want {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want a failure and %q", args, code, stdout, stderr, want)
		}
	}
}

// TestGroupTypo: a group one edit from resource.k8s.io or
// resource.claimbridge.dev gets a "did you mean" from convert and migrate.
func TestGroupTypo(t *testing.T) {
	for _, tc := range []struct{ group, want string }{
		{"resource.k8s.oi", "resource.k8s.io"},                   // transposition
		{"resource.k8.io", "resource.k8s.io"},                    // deletion
		{"resources.k8s.io", "resource.k8s.io"},                  // insertion
		{"resource.claimbridge.dex", "resource.claimbridge.dev"}, // substitution
	} {
		in := strings.Replace(claim126, "resource.k8s.io/v1alpha1", tc.group+"/v1alpha2", 1)
		typo := fmt.Sprintf(`apiVersion "%s/v1alpha2": group %q is not one claimbridge knows: did you mean %s/v1alpha2?`, tc.group, tc.group, tc.want)
		// convert passes it through and warns; migrate refuses it;
		// validate reports it: no cluster serves that group.
		for _, c := range []struct {
			args           []string
			code           int
			stdout, stderr string
		}{
			{[]string{"convert", "--to", "v1", "-f", "-"}, ExitOK, "name: gpu-claim",
				"<stdin>: document 1 (line 1): warning: ResourceClaim demo/gpu-claim: " + typo + " (passed through unchanged; no cluster serves that group)\n"},
			{[]string{"migrate", "--to", "v1", "-f", "-"}, ExitInvalid, "",
				"Error: <stdin>: document 1 (line 1): ResourceClaim demo/gpu-claim: a Kubernetes 1.34+ apiserver would reject it: " + typo + "\n"},
			{[]string{"validate", "-f", "-"}, ExitInvalid, "<stdin>: document 1 (line 1): ResourceClaim demo/gpu-claim: not checked: " + typo + "\n", ""},
		} {
			code, stdout, stderr := run(t, in, c.args...)
			if code != c.code || !strings.Contains(stdout, c.stdout) || stderr != c.stderr {
				t.Errorf("%v of %s: exit %d\nstdout:\n%s\nstderr:\n%s\nwant exit %d, stdout with %q, stderr:\n%s", c.args, tc.group, code, stdout, stderr, c.code, c.stdout, c.stderr)
			}
		}
	}
	for _, group := range []string{"apps", "example.com", "resource.k8s.io.example", "gpu.resource.example.com"} {
		if api.GroupTypo(map[string]interface{}{"apiVersion": group + "/v1", "kind": "X"}) != "" {
			t.Errorf("%s is taken for a typo", group)
		}
	}
}

// TestValidateSaysStatusIsIgnored: a claim whose status 1.31 would refuse
// (33 consumers) is valid as a create, whose status the apiserver ignores:
// validate says so, and how to check the status.
func TestValidateSaysStatusIsIgnored(t *testing.T) {
	var b strings.Builder
	b.WriteString("apiVersion: resource.k8s.io/v1alpha3\nkind: ResourceClaim\nmetadata: {name: shared, namespace: demo}\n" +
		"spec:\n  devices:\n    requests: [{name: gpu, deviceClassName: gpu.example.com}]\nstatus:\n  reservedFor:\n")
	for i := range 33 {
		fmt.Fprintf(&b, "  - {resource: pods, name: worker-%d, uid: 00000000-0000-0000-0000-%012d}\n", i, i)
	}
	code, stdout, stderr := run(t, b.String(), "validate", "-f", "-")
	want := "<stdin>: document 1 (line 1): ResourceClaim demo/shared: note: status not validated: an apiserver ignores the status of a create; " +
		"to check a status write, send it as an update of the stored claim: claimbridge validate -f - --old STORED.yaml --subresource status\n"
	if code != ExitOK || stdout != "" || stderr != want {
		t.Errorf("exit %d, stdout %q, stderr:\n%s\nwant:\n%s", code, stdout, stderr, want)
	}

	// validate checks GA objects as creates only, so for them the note
	// points to the cluster's check of a status write.
	ga := strings.Replace(b.String(), "resource.k8s.io/v1alpha3", "resource.k8s.io/v1", 1)
	ga = strings.Replace(ga, "{name: gpu, deviceClassName: gpu.example.com}", "{name: gpu, exactly: {deviceClassName: gpu.example.com}}", 1)
	code, stdout, stderr = run(t, ga, "validate", "-f", "-")
	want = "<stdin>: document 1 (line 1): ResourceClaim demo/shared: note: status not validated: an apiserver ignores the status of a create; " +
		"to check a status write, send it as an update of the stored claim: kubectl replace --dry-run=server --subresource=status -f -\n"
	if code != ExitOK || stdout != "" || stderr != want {
		t.Errorf("v1: exit %d, stdout %q, stderr:\n%s\nwant:\n%s", code, stdout, stderr, want)
	}
}

// TestShapeHintPerField: on a 1.30 claim labelled v1alpha3, the hint for
// spec.resourceClassName speaks of resourceClassName, not of the
// parametersRef beside it.
func TestShapeHintPerField(t *testing.T) {
	in := `apiVersion: resource.k8s.io/v1alpha3
kind: ResourceClaim
metadata: {name: gpu, namespace: demo}
spec:
  parametersRef: {apiGroup: gpu.example.com, kind: GpuClaimParameters, name: two-gpus}
  resourceClassName: gpu.example.com
`
	_, _, stderr := run(t, in, "convert", "--to", "v1", "-f", "-")
	for _, line := range strings.Split(stderr, "\n") {
		if strings.Contains(line, ": spec.resourceClassName: unknown field") {
			if strings.Contains(line, "parametersRef") || !strings.HasSuffix(line, "; resourceClassName is a field of v1alpha1 and v1alpha2 (Kubernetes 1.26–1.30): is the apiVersion right?") {
				t.Errorf("hint for spec.resourceClassName: %s", line)
			}
			return
		}
	}
	t.Errorf("no warning about spec.resourceClassName:\n%s", stderr)
}

// TestPodFieldsNewerThanTheTarget: a workload whose pod template has a
// field the target release does not have (a Deployment kept with a 1.36
// schedulingGroup for 1.31) is refused by migrate, naming the
// field, and written by convert with an error per field (exit 1); for a target
// that has the fields both write it.
func TestPodFieldsNewerThanTheTarget(t *testing.T) {
	in := `apiVersion: apps/v1
kind: Deployment
metadata:
  name: inference
  namespace: demo
  uid: 7d1e6a0b-3c2f-4e8a-9b5d-0f4c1a2e3b6d
  resourceVersion: "9312"
spec:
  replicas: 2
  selector: {matchLabels: {app: inference}}
  template:
    metadata: {labels: {app: inference}}
    spec:
      schedulingGroup: {podGroupName: inference}
      resourceClaims:
      - {name: gpu, resourceClaimTemplateName: gpu-template}
      containers:
      - name: server
        image: registry.example.com/inference:3.2
        resources: {claims: [{name: gpu}]}
        volumeMounts: [{name: weights, mountPath: /weights}]
      volumes:
      - name: weights
        image: {reference: registry.example.com/weights/llama:3}
`
	const who = "<stdin>: document 1 (line 1): "
	code, stdout, stderr := run(t, in, "migrate", "--to", "v1alpha3", "-f", "-")
	if want := "Error: " + who + "Deployment demo/inference: a Kubernetes 1.31 apiserver would reject the migrated object: " +
		"spec.template.spec.schedulingGroup: Kubernetes 1.31 has no such field (it came in 1.36)\n"; code != ExitInvalid || stdout != "" || stderr != want {
		t.Errorf("migrate --to v1alpha3: exit %d, stdout %q, stderr:\n%s\nwant exit %d, nothing written and:\n%s", code, stdout, stderr, ExitInvalid, want)
	}
	code, stdout, stderr = run(t, in, "convert", "--to", "v1alpha2", "-f", "-", "-q")
	const consequence = ": its apiserver rejects it with strict field validation (kubectl's default) and drops it otherwise\n"
	if want := "Error: " + who + "Deployment demo/inference: spec.template.spec.schedulingGroup: Kubernetes 1.27–1.30 has no such field (it came in 1.36)" + consequence +
		"Error: " + who + "Deployment demo/inference: spec.template.spec.volumes[0].image: Kubernetes 1.27–1.30 has no such field (it came in 1.31)" + consequence; code != ExitInvalid || stderr != want {
		t.Errorf("convert --to v1alpha2: exit %d, stderr:\n%s\nwant:\n%s", code, stderr, want)
	}
	if !strings.Contains(stdout, "schedulingGroup:") || !strings.Contains(stdout, "source:") {
		t.Errorf("convert --to v1alpha2 wrote:\n%s", stdout)
	}
	if code, stdout, stderr = run(t, in, "migrate", "--to", "v1", "-f", "-"); code != ExitOK || !strings.Contains(stdout, "schedulingGroup:") {
		t.Errorf("migrate --to v1: exit %d:\n%s%s", code, stdout, stderr)
	}
}

// TestWhatTheTargetDoesNotServe: convert passes a resource.k8s.io object of
// another version, or of a kind the version lacks, through with a warning
// that -q keeps (the target release rejects it); migrate rewrites classes
// and parameters. A name the apiserver refuses (none, or a template's) and
// an invalid DeviceClass: convert writes it with an error (exit 1), migrate
// refuses it, for the alpha targets as for the GA ones.
func TestWhatTheTargetDoesNotServe(t *testing.T) {
	class := "apiVersion: resource.k8s.io/v1alpha2\nkind: ResourceClass\nmetadata: {name: gpu.example.com}\ndriverName: gpu.example.com\n"
	unnamedClass := "apiVersion: resource.k8s.io/v1alpha2\nkind: ResourceClass\nname: gpu.example.com\ndriverName: gpu.example.com\n"
	unnamedClaim := "apiVersion: resource.k8s.io/v1alpha2\nkind: ResourceClaim\nmetadata: {namespace: demo}\nspec: {resourceClassName: gpu.example.com}\n"
	// A scheduler_perf template, as published: its name is a Go template.
	templatePod := "apiVersion: v1\nkind: Pod\nmetadata: {name: \"test-dra-{{.Index}}\"}\nspec: {containers: [{name: c, image: i}]}\n"
	subdomain := "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character " +
		"(e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
	for _, tc := range []struct {
		name, in string
		args     []string
		code     int
		stderr   string
	}{{
		name: "another version", in: class, args: []string{"convert", "-q", "--to", "v1alpha3", "-f", "-"}, code: ExitInvalid,
		stderr: "Error: <stdin>: document 1 (line 1): ResourceClass gpu.example.com: apiVersion: Kubernetes 1.31 serves resource.k8s.io/v1alpha3, " +
			"not v1alpha2: its apiserver rejects this object, passed through unchanged (claimbridge migrate rewrites classes and parameters for it)\n",
	}, {
		name: "the same version", in: class, args: []string{"convert", "-q", "--to", "v1alpha2", "-f", "-"}, code: ExitOK,
	}, {
		name: "unnamed class", in: unnamedClass, args: []string{"convert", "--to", "v1alpha2", "-f", "-"}, code: ExitInvalid,
		stderr: "Error: <stdin>: document 1 (line 1): ResourceClass (unnamed): a Kubernetes 1.27–1.30 apiserver would reject it: name: a field that resource.k8s.io/v1alpha2 does not have\n",
	}, {
		name: "unnamed class, migrate", in: unnamedClass, args: []string{"migrate", "--to", "v1alpha2", "-f", "-"}, code: ExitInvalid,
		stderr: "Error: <stdin>: document 1 (line 1): ResourceClass (unnamed): a Kubernetes 1.27–1.30 apiserver would reject it: metadata.name: Required value: name or generateName is required\n",
	}, {
		name: "unnamed claim, convert", in: unnamedClaim, args: []string{"convert", "-q", "--to", "v1alpha2", "-f", "-"}, code: ExitInvalid,
		stderr: "Error: <stdin>: document 1 (line 1): ResourceClaim (unnamed): metadata.name: Required value: name or generateName is required: " +
			"a Kubernetes 1.27–1.30 apiserver rejects this object\n",
	}, {
		name: "unnamed claim, migrate", in: unnamedClaim, args: []string{"migrate", "--to", "v1alpha3", "-f", "-"}, code: ExitInvalid,
		stderr: "Error: <stdin>: document 1 (line 1): ResourceClaim (unnamed): a Kubernetes 1.31 apiserver would reject the migrated object: " +
			"metadata.name: Required value: name or generateName is required\n",
	}, {
		name: "a kind the version lacks in that release", args: []string{"convert", "-q", "--to", "v1alpha3", "-f", "-"}, code: ExitInvalid,
		in: "apiVersion: resource.k8s.io/v1alpha3\nkind: DeviceTaintRule\nmetadata: {name: taint-all}\nspec: {taint: {key: k, effect: NoExecute}}\n",
		stderr: "Error: <stdin>: document 1 (line 1): DeviceTaintRule taint-all: kind: Kubernetes 1.31 has no DeviceTaintRule in resource.k8s.io/v1alpha3: " +
			"its apiserver rejects this object, passed through unchanged\n",
	}, {
		name: "a template's pod name, convert", in: templatePod, args: []string{"convert", "-q", "--to", "v1", "-f", "-"}, code: ExitInvalid,
		stderr: "Error: <stdin>: document 1 (line 1): Pod test-dra-{{.Index}}: metadata.name: Invalid value: \"test-dra-{{.Index}}\": " + subdomain + ": the apiserver rejects this object\n",
	}, {
		name: "a template's pod name, migrate", in: templatePod, args: []string{"migrate", "--to", "v1", "-f", "-"}, code: ExitInvalid,
		stderr: "Error: <stdin>: document 1 (line 1): Pod test-dra-{{.Index}}: a Kubernetes 1.34+ apiserver would reject the migrated object: " +
			"metadata.name: Invalid value: \"test-dra-{{.Index}}\": " + subdomain + "\n",
	}, {
		// Judged as validate judges it (judge.CheckKind): refused.
		name: "an invalid DeviceClass", args: []string{"convert", "-q", "--to", "v1", "-f", "-"}, code: ExitInvalid,
		in: "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: gpu}\nspec: {extendedResourceName: \"example.com/gpu-{{.Index}}\"}\n",
		stderr: "Error: <stdin>: document 1 (line 1): DeviceClass gpu: a Kubernetes 1.34+ apiserver would reject it: " +
			"spec.extendedResourceName: Invalid value: \"example.com/gpu-{{.Index}}\": must be a valid extended resource name\n",
	}} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := run(t, tc.in, tc.args...)
			if tc.args[0] == "migrate" {
				// Only the refusal: the classic-driver warning is another test's.
				if i := strings.Index(stderr, "Error: "); i >= 0 {
					stderr = stderr[i:]
				}
			}
			if code != tc.code || stderr != tc.stderr {
				t.Errorf("%v: exit %d, stderr:\n%s\nwant exit %d, stderr:\n%s", tc.args, code, stderr, tc.code, tc.stderr)
			}
		})
	}
}
