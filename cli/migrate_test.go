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
			pos := in + ": document 1 (line 1), items["
			wantErr := []string{
				pos + "0]: ResourceClaim inference/accel-claim: dropped metadata.uid, metadata.resourceVersion, metadata.creationTimestamp, metadata.managedFields, metadata.finalizers[dra.k8s.io/delete-protection] (the allocation's: the scheduler adds its own when it allocates the claim again), status (reset on create: the old cluster's allocation and reservation for pod inference-server-7d9f8 is dropped; the claim will be allocated again, possibly to other devices)",
				pos + "0]: ResourceClaim inference/accel-claim: changed spec.devices: 1 request(s) translated from ResourceClaimParameters two-accelerators",
				pos + "1]: ResourceClaimTemplate inference/per-pod-accelerator: dropped metadata.uid, metadata.resourceVersion, metadata.creationTimestamp",
				pos + "1]: ResourceClaimTemplate inference/per-pod-accelerator: changed spec.spec.devices: 1 request(s) translated from ResourceClaimParameters one-big-accelerator",
				pos + "1]: warning: ResourceClaimTemplate inference/per-pod-accelerator: spec.spec.parametersRef (ResourceClaimParameters inference/one-big-accelerator) driverRequests[0].requests[0]: quantity attributes are read as the device's capacity in 1.31",
				pos + "2]: ResourceClaimParameters inference/two-accelerators: left out: Kubernetes " + tt.release + " does not serve it",
				pos + "3]: ResourceClaimParameters inference/one-big-accelerator: left out: Kubernetes " + tt.release + " does not serve it",
				pos + "4]: ResourceClass accel.example.com: dropped metadata.uid, metadata.resourceVersion",
				pos + "4]: ResourceClass accel.example.com: changed resource.k8s.io/v1alpha2 ResourceClass -> resource.k8s.io/" + tt.to + ` DeviceClass selecting the devices of driver "accel.example.com" that pass the class's 1.30 filter (Kubernetes ` + tt.release + " has no ResourceClass; the migrated claims name this class)",
				pos + "4]: ResourceClass accel.example.com: lost parametersRef: ResourceClassParameters accel-system/accel-defaults: a DeviceClass has none (the filter of its 1.30 ResourceClassParameters for driver accel.example.com is a selector of this class)",
				pos + "5]: ResourceClassParameters accel-system/accel-defaults: left out: Kubernetes " + tt.release + " does not serve it",
				pos + "6]: ResourceClaim inference/any-accelerator: dropped metadata.uid, metadata.resourceVersion, metadata.creationTimestamp",
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
        allocationMode: ExactCount
        count: 1
        deviceClassName: gpu.example.com
      name: request
`
	// The comments at the top of the example stay above the claim.
	head := "# A Kubernetes 1.26 ResourceClaim (resource.k8s.io/v1alpha1) after a classic\n# DRA driver allocated it and the scheduler reserved it for a pod.\n"
	if d := cmp.Diff(head+want, stdout); d != "" {
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
	warn := in + ": document 1 (line 1): warning: ResourceClaim ml-training/gpu-claim: "
	wantErr := who + "dropped metadata.uid, metadata.resourceVersion, metadata.creationTimestamp, " +
		"metadata.finalizers[gpu.resource.example.com/deletion-protection] (classic DRA driver's: Kubernetes 1.34+ runs no classic driver that would remove it), " +
		"status (reset on create: the old cluster's allocation and reservation for pod trainer-0 is dropped; the claim will be allocated again, possibly to other devices)\n" +
		warn + `spec.parametersRef: GpuClaimParameters ml-training/two-gpus (apiGroup "gpu.resource.example.com") is a 1.26 driver's own claim parameters, which no 1.31+ component reads and migrate cannot translate; the reference is dropped and the migrated claim asks for one device of class gpu.example.com with no selector and no configuration` + "\n" +
		warn + `spec: the claim's devices come from the classic DRA driver "gpu.resource.example.com" (1.26–1.30 control-plane controller); Kubernetes 1.32+ has no classic DRA and allocates every claim in the scheduler from ResourceSlices, which a classic driver does not publish: install the driver's structured-parameters version` + "\n"
	if d := cmp.Diff(wantErr, stderr); d != "" {
		t.Errorf("stderr (-want +got):\n%s", d)
	}
	// README and docs/conversion.md say what migrate prints for it: the
	// parametersRef warning, and no "lost" line (the warning reports the
	// dropped parametersRef; WaitForFirstConsumer is what 1.31+ does).
	if strings.Contains(stderr, ": lost ") {
		t.Errorf("stderr has a lost line: %s", stderr)
	}
	for _, claim := range []string{"are lost (v1 cannot hold", "`spec.allocationMode` and `spec.parametersRef` are lost"} {
		if strings.Contains(string(readme), claim) {
			t.Errorf("README.md says %q, but migrate prints no lost line for examples/claim-v1alpha1.yaml", claim)
		}
	}
	if !strings.Contains(string(readme), "There is no `lost` line for this claim") {
		t.Errorf("README.md does not say that migrate prints no lost line for examples/claim-v1alpha1.yaml")
	}
	docs, err := os.ReadFile(filepath.Join("..", "docs", "conversion.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(docs), "```text\n"+strings.ReplaceAll(wantErr, in+":", "examples/claim-v1alpha1.yaml:")+"```\n") {
		t.Errorf("docs/conversion.md does not show migrate's stderr for examples/claim-v1alpha1.yaml:\n%s", wantErr)
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
  name: a
  namespace: ns
spec:
  allocationMode: WaitForFirstConsumer
  resourceClassName: gpu.example.com
---
apiVersion: v1
kind: ConfigMap
metadata: {name: cm, uid: u1}
`
	if d := cmp.Diff(want, stdout); d != "" {
		t.Errorf("stdout (-want +got):\n%s", d)
	}
	wantErr := "<stdin>: document 1 (line 1), items[0]: ResourceClaim ns/a: dropped metadata.uid, " +
		"metadata.finalizers[resource.kubernetes.io/delete-protection] (the allocation's: the scheduler adds its own when it allocates the claim again)\n"
	// Not "lost spec.devices.requests[0].name": a single request's name is
	// read by no 1.30 consumer.
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
		{"no-target", []string{"migrate", "-f", "-"}, "", ExitBadInput, "Error: --to is required (a release such as 1.33, or one of v1alpha1, v1alpha2, v1alpha3, v1beta1, v1beta2, v1)\n"},
		{"bad-target", []string{"migrate", "--to", "v9", "-f", "-"}, "", ExitBadInput, "Error: --to \"v9\": unsupported version or release (supported: 1.26 … 1.38, 1.39, v1alpha1, v1alpha2, v1alpha3, v1beta1, v1beta2, v1)\n"},
		{"claimbridge-group-to-v1", []string{"migrate", "--to", "v1", "-f", "-"}, "apiVersion: resource.claimbridge.dev/v1alpha2\nkind: ResourceClaim\nmetadata: {name: c}\nspec: {resourceClassName: x}\n", ExitInvalid,
			"Error: <stdin>: document 1 (line 1): target version v1 is a version of resource.k8s.io (Kubernetes 1.34+), not of resource.claimbridge.dev; give the manifest apiVersion resource.k8s.io/v1alpha2 to migrate it to the upstream API\n"},
		{"rejected-by-1.36", []string{"migrate", "--to", "v1beta2", "-f", "-"}, "apiVersion: resource.k8s.io/v1alpha3\nkind: ResourceClaim\nmetadata: {name: c}\nspec: {devices: {requests: [{name: r, deviceClassName: x}], config: [{opaque: {driver: d, parameters: 5}}]}}\n", ExitInvalid,
			"<stdin>: document 1 (line 1): warning: ResourceClaim c: spec.devices.config[0].opaque.parameters: Kubernetes 1.32+ accepts only a JSON object as opaque parameters\n" +
				"Error: <stdin>: document 1 (line 1): ResourceClaim c: a Kubernetes 1.33 apiserver would reject the migrated object: spec.devices.config[0].opaque.parameters: Invalid value: \"<value omitted>\": parameters must be a valid JSON object\n"},
		{"unreadable", []string{"migrate", "--to", "v1alpha3", "-f", "-"}, "a: [", ExitBadInput, ""},
		{"malformed-as-convert", []string{"migrate", "--to", "v1alpha2", "-f", "-"}, "apiVersion: resource.k8s.io/v1alpha3\nkind: ResourceClaim\nmetadata: {name: c, namespace: ns}\nspec: {devices: []}\n", ExitBadInput,
			"Error: <stdin>: document 1 (line 1): ResourceClaim ns/c is malformed: spec.devices must be an object, not an array\n"},
		// The 1.30 parameter kinds are read to translate claims: a wrong
		// type would silently become an empty driver or selector.
		{"claim-parameters-malformed", []string{"migrate", "--to", "v1", "-f", "-"}, "apiVersion: resource.k8s.io/v1alpha2\nkind: ResourceClaimParameters\nmetadata: {name: p, namespace: ns}\ndriverRequests: [{driverName: 5, requests: [{namedResources: {selector: \"true\"}}]}]\n", ExitBadInput,
			"Error: <stdin>: document 1 (line 1): ResourceClaimParameters ns/p is malformed: driverRequests[0].driverName must be a string, not a number\n"},
		{"class-parameters-malformed", []string{"migrate", "--to", "v1alpha3", "-f", "-"}, "apiVersion: resource.k8s.io/v1alpha2\nkind: ResourceClassParameters\nmetadata: {name: p, namespace: ns}\nfilters: [{driverName: d, namedResources: {selector: [x]}}]\n", ExitBadInput,
			"Error: <stdin>: document 1 (line 1): ResourceClassParameters ns/p is malformed: filters[0].namedResources.selector must be a string, not an array\n"},
		{"class-1.26-malformed", []string{"migrate", "--to", "v1alpha2", "-f", "-"}, "apiVersion: resource.k8s.io/v1alpha1\nkind: ResourceClass\nmetadata: {name: gpu}\ndriverName: {a: b}\n", ExitBadInput,
			"Error: <stdin>: document 1 (line 1): ResourceClass gpu is malformed: driverName must be a string, not an object\n"},
		// A typed list whose items are not an array of objects is malformed,
		// as for convert: not an empty list (exit 0, nothing written).
		{"typed-list-items-an-object", []string{"migrate", "--to", "v1alpha3", "-f", "-"}, "apiVersion: resource.k8s.io/v1alpha2\nkind: ResourceClaimList\nitems: {a: 1}\n", ExitBadInput,
			"Error: <stdin>: document 1 (line 1): ResourceClaimList (unnamed) is malformed: items must be an array, not an object\n"},
		{"typed-list-item-a-number", []string{"migrate", "--to", "v1alpha3", "-f", "-"}, "apiVersion: resource.k8s.io/v1alpha2\nkind: ResourceClaimList\nitems: [5]\n", ExitBadInput,
			"Error: <stdin>: document 1 (line 1): ResourceClaim (unnamed) is malformed: items[0] must be an object, not a number\n"},
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

// TestMigrateDowngradeWarnsAsConvert migrates to older versions: stderr is
// exact, it has every warning `convert --to` prints for the same input (as
// the same line) and a "lost"
// line per restore annotation migrate drops; an object the target release
// would reject is refused, exit 1, nothing written.
func TestMigrateDowngradeWarnsAsConvert(t *testing.T) {
	const who = "<stdin>: document 1 (line 1): ResourceClaim ns/c: "
	const warn = "<stdin>: document 1 (line 1): warning: ResourceClaim ns/c: "
	countAndSelector := `apiVersion: resource.k8s.io/v1alpha3
kind: ResourceClaim
metadata: {name: c, namespace: ns, uid: u1}
spec:
  devices:
    requests:
    - name: r
      deviceClassName: gpu.example.com
      allocationMode: ExactCount
      count: 2
      selectors:
      - cel: {expression: 'device.attributes["gpu.example.com"].model == "a100"'}
`
	firstAvailable := `apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: c, namespace: ns}
spec:
  devices:
    requests:
    - name: r
      firstAvailable:
      - {name: big, deviceClassName: gpu.example.com}
      - {name: small, deviceClassName: gpu-small.example.com}
`
	lost := func(fields, version, to string) string {
		return who + "lost " + fields + ": fields that " + to + " cannot hold (convert keeps them in annotation claimbridge.dev/restore-" + version + ")\n"
	}
	countLost := "spec.devices.requests[0].count, spec.devices.requests[0].selectors"
	countWarnings := func(release string) string {
		return warn + "spec.devices.requests[0].selectors: " + release + " has no device selectors in the claim: any device of the class may be allocated\n" +
			warn + "spec.devices.requests[0].count: " + release + " allocates one device of the class, not 2\n"
	}
	tests := []struct {
		name, in, to string
		code         int
		stdout       string
		stderr       string
	}{{
		name: "v1alpha3-count-and-selector-to-v1alpha2", in: countAndSelector, to: "v1alpha2",
		stdout: "apiVersion: resource.k8s.io/v1alpha2\nkind: ResourceClaim\nmetadata:\n  name: c\n  namespace: ns\nspec:\n  allocationMode: WaitForFirstConsumer\n  resourceClassName: gpu.example.com\n",
		stderr: who + "dropped metadata.uid\n" + lost(countLost, "v1alpha3", "v1alpha2") + countWarnings("1.27–1.30"),
	}, {
		name: "v1alpha3-count-and-selector-to-v1alpha1", in: countAndSelector, to: "v1alpha1",
		stdout: "apiVersion: resource.k8s.io/v1alpha1\nkind: ResourceClaim\nmetadata:\n  name: c\n  namespace: ns\nspec:\n  allocationMode: WaitForFirstConsumer\n  resourceClassName: gpu.example.com\n",
		stderr: who + "dropped metadata.uid\n" + lost(countLost, "v1alpha3", "v1alpha1") + countWarnings("1.26"),
	}, {
		name: "v1-first-available-to-v1alpha3-refused", in: firstAvailable, to: "v1alpha3", code: ExitInvalid,
		stderr: lost("spec.devices.requests[0].firstAvailable", "v1beta1", "v1alpha3") +
			warn + "spec.devices.requests[0].firstAvailable: 1.31 has no prioritized list: the converted request names no deviceClassName, which a 1.31 apiserver requires, and the request's 2 subrequest(s) are kept only in the restore annotation\n" +
			"Error: " + who + "a Kubernetes 1.31 apiserver would reject the migrated object: spec.devices.requests[0].deviceClassName: Required value\n",
	}, {
		name: "v1-first-available-to-v1alpha2-refused", in: firstAvailable, to: "v1alpha2", code: ExitInvalid,
		stderr: lost("spec.devices", "v1alpha3", "v1alpha2") + lost("spec.devices.requests[0].firstAvailable", "v1beta1", "v1alpha2") +
			warn + "spec.devices.requests[0].firstAvailable: 1.27–1.30 has no prioritized list: the converted claim names no resourceClassName, which a 1.27–1.30 apiserver requires, and the request's 2 subrequest(s) are kept only in the restore annotation\n" +
			"Error: <stdin>: document 1 (line 1): ResourceClaim ns/c: a Kubernetes 1.27–1.30 apiserver would reject the migrated object: spec.resourceClassName: Required value: " +
			"a Kubernetes 1.27–1.30 claim must name a resource class, and this one names none: a 1.31+ claim's class is its first request's deviceClassName, " +
			"which the input lacks (it has no request, or its first request has only firstAvailable); give that request a deviceClassName, or set spec.resourceClassName in the output\n",
	}, {
		name: "v1beta2-to-v1alpha3-lossless", to: "v1alpha3",
		in:     "apiVersion: resource.k8s.io/v1beta2\nkind: ResourceClaim\nmetadata: {name: c, namespace: ns}\nspec: {devices: {requests: [{name: r, exactly: {deviceClassName: gpu.example.com}}]}}\n",
		stdout: "apiVersion: resource.k8s.io/v1alpha3\nkind: ResourceClaim\nmetadata:\n  name: c\n  namespace: ns\nspec:\n  devices:\n    requests:\n    - deviceClassName: gpu.example.com\n      name: r\n",
	}, {
		name: "v1beta1-constraints-to-v1alpha1", to: "v1alpha1",
		in: `apiVersion: resource.k8s.io/v1beta1
kind: ResourceClaim
metadata: {name: c, namespace: ns}
spec:
  devices:
    requests: [{name: gpu, deviceClassName: gpu.example.com}]
    constraints: [{requests: [gpu], matchAttribute: gpu.example.com/numa}]
`,
		stdout: "apiVersion: resource.k8s.io/v1alpha1\nkind: ResourceClaim\nmetadata:\n  name: c\n  namespace: ns\nspec:\n  allocationMode: WaitForFirstConsumer\n  resourceClassName: gpu.example.com\n",
		stderr: lost("spec.devices.constraints", "v1alpha3", "v1alpha1") +
			warn + "spec.devices.constraints: 1.26 has no constraints between devices\n",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := run(t, tt.in, "migrate", "--to", tt.to, "-f", "-")
			if code != tt.code {
				t.Errorf("exit %d, want %d", code, tt.code)
			}
			if d := cmp.Diff(tt.stdout, stdout); d != "" {
				t.Errorf("stdout (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tt.stderr, stderr); d != "" {
				t.Errorf("stderr (-want +got):\n%s", d)
			}
			_, _, convertErr := run(t, tt.in, "convert", "--to", tt.to, "-f", "-")
			for _, line := range strings.Split(strings.TrimSuffix(convertErr, "\n"), "\n") {
				if !strings.Contains(line, ": warning: ") || strings.HasSuffix(line, "apiserver rejects this object") {
					continue // a rule the target breaks: migrate refuses the object
				}
				if want := line + "\n"; !strings.Contains(stderr, want) {
					t.Errorf("convert warns %q, migrate does not", line)
				}
			}
		})
	}
}

// A 1.26 ResourceClass (intel-resource-drivers' deployments/resource-class.yaml
// at c3a5e0fa) is served by no release from 1.31 on, as the 1.30 one: migrate
// writes for v1alpha3 and later the DeviceClass of the same name that the
// migrated claims name, selecting the class's driver, so that their pods can
// be scheduled.
func TestMigrateV1alpha1ClassBecomesDeviceClass(t *testing.T) {
	in := `apiVersion: resource.k8s.io/v1alpha1
kind: ResourceClass
metadata:
  name: intel-gpu
driverName: gpu.dra.intel.com
---
apiVersion: resource.k8s.io/v1alpha1
kind: ResourceClaim
metadata: {name: c, namespace: ns}
spec: {resourceClassName: intel-gpu}
`
	for to, release := range map[string]string{"v1alpha3": "1.31", "v1beta1": "1.32", "v1": "1.34+"} {
		code, stdout, stderr := run(t, in, "migrate", "--to", to, "-f", "-")
		if code != ExitOK {
			t.Fatalf("--to %s: exit %d: %s", to, code, stderr)
		}
		if strings.Contains(stdout, "ResourceClass\n") || strings.Count(stdout, "kind: ResourceClaim\n") != 1 ||
			!strings.Contains(stdout, "kind: DeviceClass\nmetadata:\n  name: intel-gpu\n") || !strings.Contains(stdout, `expression: device.driver == "gpu.dra.intel.com"`) {
			t.Errorf("--to %s: stdout:\n%s", to, stdout)
		}
		if want := "<stdin>: document 1 (line 1): ResourceClass intel-gpu: changed resource.k8s.io/v1alpha1 ResourceClass -> resource.k8s.io/" + to +
			` DeviceClass selecting the devices of driver "gpu.dra.intel.com" (Kubernetes ` + release + " has no ResourceClass; the migrated claims name this class)\n"; !strings.Contains(stderr, want) {
			t.Errorf("--to %s: stderr %q, want %q", to, stderr, want)
		}
	}
	// 1.26 serves it: passed through.
	code, stdout, _ := run(t, in, "migrate", "--to", "v1alpha1", "-f", "-")
	if code != ExitOK || !strings.Contains(stdout, "kind: ResourceClass\n") {
		t.Errorf("--to v1alpha1: exit %d, stdout:\n%s", code, stdout)
	}
}

// The Pods of a 1.26–1.30 manifest (dra-example-driver's demo/gpu-test1.yaml
// at cba2ec6) name their templates under resourceClaims[].source, which 1.31
// removed: migrate to v1alpha3 and later names them directly, as a 1.31+
// apiserver requires, in Pods and in the pod templates of workloads; and
// back to 1.26–1.30 under source, where a 1.31 container's request is lost.
func TestMigratePodClaims(t *testing.T) {
	old := `apiVersion: v1
kind: Pod
metadata: {name: pod1, namespace: gpu-test1}
spec:
  containers:
  - name: ctr
    image: ubuntu:22.04
    resources:
      claims:
      - name: gpu
  resourceClaims:
  - name: gpu
    source:
      resourceClaimTemplateName: gpu-template
---
apiVersion: batch/v1
kind: CronJob
metadata: {name: cj, namespace: ns}
spec:
  schedule: "* * * * *"
  jobTemplate:
    spec:
      template:
        spec:
          restartPolicy: Never
          containers: [{name: c, image: busybox}]
          resourceClaims:
          - {name: shared, source: {resourceClaimName: shared-gpu}}
`
	code, stdout, stderr := run(t, old, "migrate", "--to", "v1", "-f", "-")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{
		"  resourceClaims:\n  - name: gpu\n    resourceClaimTemplateName: gpu-template\n",
		"          resourceClaims:\n          - name: shared\n            resourceClaimName: shared-gpu\n",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks\n%s\n%s", want, stdout)
		}
	}
	if strings.Contains(stdout, "source:") {
		t.Errorf("stdout keeps source:\n%s", stdout)
	}
	wantErr := "<stdin>: document 1 (line 1): Pod gpu-test1/pod1: changed spec.resourceClaims[0].source.resourceClaimTemplateName -> spec.resourceClaims[0].resourceClaimTemplateName (Kubernetes 1.34+ pods have no source)\n" +
		"<stdin>: document 2 (line 16): CronJob ns/cj: changed spec.jobTemplate.spec.template.spec.resourceClaims[0].source.resourceClaimName -> spec.jobTemplate.spec.template.spec.resourceClaims[0].resourceClaimName (Kubernetes 1.34+ pods have no source)\n"
	if stderr != wantErr {
		t.Errorf("stderr:\n%s\nwant:\n%s", stderr, wantErr)
	}

	// A 1.31 Deployment's pods back on 1.30.
	recent := `apiVersion: apps/v1
kind: Deployment
metadata: {name: d, namespace: ns}
spec:
  selector: {matchLabels: {app: a}}
  template:
    metadata: {labels: {app: a}}
    spec:
      containers:
      - name: c
        image: busybox
        resources:
          claims:
          - {name: gpus, request: ts-gpu}
      resourceClaims:
      - {name: gpus, resourceClaimTemplateName: multiple-gpus}
`
	code, stdout, stderr = run(t, recent, "migrate", "--to", "v1alpha2", "-f", "-")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if want := "      resourceClaims:\n      - name: gpus\n        source:\n          resourceClaimTemplateName: multiple-gpus\n"; !strings.Contains(stdout, want) || strings.Contains(stdout, "request:") {
		t.Errorf("stdout:\n%s\nwant it to contain\n%s\nand no request", stdout, want)
	}
	wantErr = "<stdin>: document 1 (line 1): Deployment ns/d: changed spec.template.spec.resourceClaims[0].resourceClaimTemplateName -> spec.template.spec.resourceClaims[0].source.resourceClaimTemplateName (Kubernetes 1.27–1.30 pods name it under source)\n" +
		"<stdin>: document 1 (line 1): Deployment ns/d: lost spec.template.spec.containers[0].resources.claims[0].request: Kubernetes 1.27–1.30 gives a container the whole claim\n"
	if stderr != wantErr {
		t.Errorf("stderr:\n%s\nwant:\n%s", stderr, wantErr)
	}
	// Already in the target's shape: unchanged, nothing reported.
	code, stdout2, stderr := run(t, stdout, "migrate", "--to", "v1alpha1", "-f", "-")
	if code != ExitOK || stdout2 != stdout || stderr != "" {
		t.Errorf("exit %d, stderr %q, stdout changed: %v", code, stderr, stdout2 != stdout)
	}

	// An entry that names its claim in both places, differently: the
	// target's place is kept, the other reported lost (both directions).
	both := "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: ns}\nspec:\n  containers: [{name: c, image: busybox}]\n" +
		"  resourceClaims: [{name: gpu, resourceClaimName: c, source: {resourceClaimName: conflicting}}]\n"
	for to, want := range map[string][2]string{
		"v1alpha2": {"  - name: gpu\n    source:\n      resourceClaimName: conflicting\n",
			"<stdin>: document 1 (line 1): Pod ns/p: lost spec.resourceClaims[0].resourceClaimName: c, because the entry also has spec.resourceClaims[0].source.resourceClaimName: conflicting, which the target's pods read\n"},
		"v1": {"  - name: gpu\n    resourceClaimName: c\n",
			"<stdin>: document 1 (line 1): Pod ns/p: lost spec.resourceClaims[0].source.resourceClaimName: conflicting, because the entry also has spec.resourceClaims[0].resourceClaimName: c, which the target's pods read\n"},
	} {
		code, stdout, stderr := run(t, both, "migrate", "--to", to, "-f", "-")
		if code != ExitOK || !strings.Contains(stdout, want[0]) || stderr != want[1] {
			t.Errorf("--to %s: exit %d\nstdout %q, want it to contain %q\nstderr %q, want %q", to, code, stdout, want[0], stderr, want[1])
		}
	}
}

// TestMigrateResourceClass: 1.27–1.30 serve no v1alpha1 and 1.26 no
// v1alpha2, so a class is rewritten between them (not passed through), and
// left out for 1.31+, which serve no ResourceClass.
func TestMigrateResourceClass(t *testing.T) {
	in := filepath.Join("..", "test", "manifests", "drivers", "v1alpha1-resourceclass.yaml")
	code, stdout, stderr := run(t, "", "migrate", "--to", "v1alpha2", "-f", in)
	want := "apiVersion: resource.k8s.io/v1alpha2\ndriverName: vpu.dra.example.com\nkind: ResourceClass\nmetadata:\n  name: example-vpu\n"
	wantErr := in + ": document 1 (line 1): ResourceClass example-vpu: changed apiVersion: resource.k8s.io/v1alpha1 -> resource.k8s.io/v1alpha2 (Kubernetes 1.27–1.30 serves only v1alpha2)\n"
	if code != ExitOK || stdout != want || stderr != wantErr {
		t.Errorf("--to v1alpha2: exit %d\nstdout %q, want %q\nstderr %q, want %q", code, stdout, want, stderr, wantErr)
	}
	in = filepath.Join("..", "examples", "migrate", "exported-1.30.yaml")
	code, stdout, stderr = run(t, "", "migrate", "--to", "v1alpha1", "-f", in)
	if code != ExitOK || !strings.Contains(stdout, "apiVersion: resource.k8s.io/v1alpha1\ndriverName: accel.example.com\nkind: ResourceClass\n") ||
		strings.Contains(stdout, "structuredParameters") || strings.Contains(stdout, "resourceVersion") || strings.Contains(stdout, "\nkind: ResourceClaimParameters") {
		t.Errorf("--to v1alpha1: exit %d, stdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	for _, line := range []string{
		"items[4]: ResourceClass accel.example.com: lost structuredParameters: a field of Kubernetes 1.30 that Kubernetes 1.26 does not have\n",
		"items[2]: ResourceClaimParameters inference/two-accelerators: left out: Kubernetes 1.26 does not serve it\n",
		"items[0]: warning: ResourceClaim inference/accel-claim: spec.parametersRef: ResourceClaimParameters inference/two-accelerators: 1.26 has no ResourceClaimParameters (1.30 structured parameters), so no 1.26 component reads it\n",
	} {
		if !strings.Contains(stderr, line) {
			t.Errorf("--to v1alpha1: stderr lacks %q:\n%s", line, stderr)
		}
	}
}

// TestMigratePodsAreRecreatable: an exported Pod or workload loses what the
// old cluster set on it, as claims do, so that kubectl create takes it: the
// server-set metadata, owner references, last-applied-configuration, status
// and a Pod's nodeName (the new cluster's scheduler must place it, and
// allocate its claims on the way).
func TestMigratePodsAreRecreatable(t *testing.T) {
	in := `apiVersion: v1
kind: Pod
metadata:
  name: pod1
  namespace: ns
  uid: 0f1e2d3c-0000-4000-8000-000000000001
  resourceVersion: "4711"
  creationTimestamp: "2026-01-01T00:00:00Z"
  ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: rs, uid: 0f1e2d3c-0000-4000-8000-000000000002}]
  annotations: {kubectl.kubernetes.io/last-applied-configuration: "{}", team: ml}
spec:
  nodeName: worker-1
  containers: [{name: c, image: busybox}]
  resourceClaims:
  - {name: gpu, resourceClaimTemplateName: gpu-template}
status: {phase: Running}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: d, namespace: ns, generation: 3}
spec:
  selector: {matchLabels: {app: a}}
  template:
    metadata: {labels: {app: a}}
    spec:
      containers: [{name: c, image: busybox}]
status: {replicas: 1}
`
	code, stdout, stderr := run(t, in, "migrate", "--to", "v1", "-f", "-")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	want := `apiVersion: v1
kind: Pod
metadata:
  annotations:
    team: ml
  name: pod1
  namespace: ns
spec:
  containers:
  - image: busybox
    name: c
  resourceClaims:
  - name: gpu
    resourceClaimTemplateName: gpu-template
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: d
  namespace: ns
spec:
  selector:
    matchLabels:
      app: a
  template:
    metadata:
      labels:
        app: a
    spec:
      containers:
      - image: busybox
        name: c
`
	if stdout != want {
		t.Errorf("stdout:\n%s\nwant:\n%s", stdout, want)
	}
	wantErr := "<stdin>: document 1 (line 1): Pod ns/pod1: dropped metadata.uid, metadata.resourceVersion, metadata.creationTimestamp, " +
		"metadata.ownerReferences (owners of the old cluster; --keep-owner-references keeps them), " +
		"metadata.annotations[kubectl.kubernetes.io/last-applied-configuration], status, " +
		"spec.nodeName (the old cluster's scheduler chose it; the new one schedules the pod and allocates its claims)\n" +
		"<stdin>: document 2 (line 18): Deployment ns/d: dropped metadata.generation, status\n"
	if stderr != wantErr {
		t.Errorf("stderr:\n%s\nwant:\n%s", stderr, wantErr)
	}
}

// TestMigrateLeavesOutControlledPods: a Pod that a controller created (a
// ReplicaSet's, a Job's) is created again by the new cluster's controller
// from its migrated workload: migrate leaves the copy out, with a note, and
// keeps it with --keep-owner-references.
func TestMigrateLeavesOutControlledPods(t *testing.T) {
	in := `apiVersion: v1
kind: Pod
metadata:
  name: web-7d9f8-abcde
  namespace: ns
  ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: web-7d9f8, uid: 0f1e2d3c-0000-4000-8000-000000000002, controller: true}]
spec:
  containers: [{name: c, image: busybox}]
`
	code, stdout, stderr := run(t, in, "migrate", "--to", "v1", "-f", "-")
	if code != ExitOK || stdout != "" {
		t.Fatalf("exit %d, stdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	want := "<stdin>: document 1 (line 1): Pod ns/web-7d9f8-abcde: left out: created by ReplicaSet ns/web-7d9f8, whose migrated workload the new cluster's controller creates it again from (this copy would be one pod too many; --keep-owner-references keeps it)\n"
	if stderr != want {
		t.Errorf("stderr:\n%s\nwant:\n%s", stderr, want)
	}
	code, stdout, stderr = run(t, in, "migrate", "--to", "v1", "--keep-owner-references", "-f", "-")
	if code != ExitOK || !strings.Contains(stdout, "name: web-7d9f8-abcde") || !strings.Contains(stdout, "ownerReferences:") {
		t.Errorf("--keep-owner-references: exit %d, stdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
}

// TestMigrateLeavesOutClusterState: a ResourceSlice and a
// PodSchedulingContext are what the old cluster's drivers and scheduler
// created for themselves; the new cluster's create their own, and 1.31+
// does not serve the 1.30 versions (kubectl create would fail part-way on
// them). Left out for every target, with a note.
func TestMigrateLeavesOutClusterState(t *testing.T) {
	in := `apiVersion: resource.k8s.io/v1alpha2
kind: ResourceSlice
metadata: {name: node-1-gpu.example.com-x}
nodeName: node-1
driverName: gpu.example.com
namedResources: {instances: [{name: gpu-0}]}
---
apiVersion: resource.k8s.io/v1alpha3
kind: PodSchedulingContext
metadata: {name: trainer-0, namespace: ml}
spec: {selectedNode: node-1}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: kept, namespace: ml}
`
	for _, to := range []string{"v1alpha1", "v1alpha2", "v1alpha3", "v1"} {
		code, stdout, stderr := run(t, in, "migrate", "--to", to, "-f", "-")
		if code != ExitOK {
			t.Fatalf("--to %s: exit %d, stderr:\n%s", to, code, stderr)
		}
		if want := "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: kept, namespace: ml}\n"; stdout != want {
			t.Errorf("--to %s: stdout:\n%s\nwant:\n%s", to, stdout, want)
		}
		want := "<stdin>: document 1 (line 1): ResourceSlice node-1-gpu.example.com-x: left out: each node's DRA driver publishes its own ResourceSlices on the new cluster (these describe the old cluster's nodes and devices)\n" +
			"<stdin>: document 2 (line 8): PodSchedulingContext ml/trainer-0: left out: the new cluster's scheduler creates a pod's PodSchedulingContext when it schedules the pod (this one holds the old cluster's node choices)\n"
		if !strings.HasPrefix(stderr, want) {
			t.Errorf("--to %s: stderr:\n%s\nwant it to start with:\n%s", to, stderr, want)
		}
	}
}

// TestMigrateRefusesDeviceClassOverGALimits: a 1.31 DeviceClass with a CEL
// selector or opaque parameters over 10 KiB (1.31 had no limit) is refused
// for a GA target, whose apiserver would reject it, as such claims are, and
// migrated as it is for v1alpha3.
func TestMigrateRefusesDeviceClassOverGALimits(t *testing.T) {
	// An expression that compiles (1.31 compiles them too), over 1.32's limit.
	in := `{"apiVersion":"resource.k8s.io/v1alpha3","kind":"DeviceClass","metadata":{"name":"gpu"},"spec":{"selectors":[{"cel":{"expression":"device.driver == \"` +
		strings.Repeat("x", 10241) + `\""}}],"config":[{"opaque":{"driver":"d","parameters":{"a":1}}}]}}`
	code, stdout, stderr := run(t, in, "migrate", "--to", "v1", "-f", "-")
	want := "Error: <stdin>: document 1 (line 1): DeviceClass gpu: a Kubernetes 1.34+ apiserver would reject the migrated object: spec.selectors[0].cel.expression: Too long: may not be more than 10240 bytes\n"
	if code != ExitInvalid || stdout != "" || !strings.HasSuffix(stderr, want) {
		t.Errorf("--to v1: exit %d, stdout %q\nstderr %q, want it to end with %q", code, stdout, stderr, want)
	}
	if code, stdout, stderr := run(t, in, "migrate", "--to", "v1alpha3", "-f", "-"); code != ExitOK || !strings.Contains(stdout, "kind: DeviceClass") {
		t.Errorf("--to v1alpha3: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}
