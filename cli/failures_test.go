package cli

import (
	"strings"
	"testing"
)

// TestEveryFailureIsNamed: convert and migrate go on past an object they
// cannot process, name every such object in input order (the other objects'
// notes between them), write nothing, count the failures on a last line, and
// exit 2 when one of them is malformed, else 1.
func TestEveryFailureIsNamed(t *testing.T) {
	const (
		good      = "apiVersion: resource.k8s.io/v1alpha2\nkind: ResourceClaim\nmetadata: {name: good, namespace: ns}\nspec: {resourceClassName: gpu}\n"
		wrongTo   = "apiVersion: resource.claimbridge.dev/v1alpha2\nkind: ResourceClaim\nmetadata: {name: cb, namespace: ns}\nspec: {resourceClassName: gpu}\n"
		malformed = "apiVersion: resource.k8s.io/v1alpha2\nkind: ResourceClaim\nmetadata: {name: bad, namespace: ns}\nstatus: {reservedFor: {name: pod}}\n"
		convErr   = "target version v1 is not served by group resource.claimbridge.dev (only v1alpha1, v1alpha2, v1alpha3); it is a version of resource.k8s.io, reached from manifests of that group: to move this object to the built-in API, give it apiVersion resource.k8s.io/v1alpha2"
		groupErr  = "target version v1 is a version of resource.k8s.io (Kubernetes 1.34+), not of resource.claimbridge.dev; give the manifest apiVersion resource.k8s.io/v1alpha2 to migrate it to the upstream API"
		badErr    = "ResourceClaim ns/bad is malformed: status.reservedFor must be an array, not an object"
	)
	list := "apiVersion: resource.claimbridge.dev/v1alpha2\nkind: ResourceClaimList\nitems:\n" +
		"- {metadata: {name: a, namespace: ns}, spec: {resourceClassName: gpu}}\n" +
		"- {metadata: {name: b, namespace: ns}, spec: {resourceClassName: gpu}}\n"
	tests := []struct {
		name   string
		args   []string
		stdin  string
		code   int
		stderr string
	}{
		{
			name: "convert-one-failure-stands-alone", args: []string{"convert", "--to", "v1", "-f", "-"},
			stdin: good + "---\n" + wrongTo, code: ExitInvalid,
			stderr: "Error: <stdin>: document 2 (line 6): " + convErr + "\n",
		},
		{
			name: "convert-two-failures-then-the-count", args: []string{"convert", "--to", "v1", "-f", "-"},
			stdin: wrongTo + "---\n" + good + "---\n" + malformed, code: ExitBadInput,
			stderr: "Error: <stdin>: document 1 (line 1): " + convErr + "\n" +
				"Error: <stdin>: document 3 (line 11): " + badErr + "\n" +
				"Error: 2 objects could not be converted; nothing was written\n",
		},
		{
			name: "convert-not-malformed-exits-1", args: []string{"convert", "--to", "v1", "-f", "-"},
			stdin: wrongTo + "---\n" + wrongTo, code: ExitInvalid,
			stderr: "Error: <stdin>: document 1 (line 1): " + convErr + "\n" +
				"Error: <stdin>: document 2 (line 6): " + convErr + "\n" +
				"Error: 2 objects could not be converted; nothing was written\n",
		},
		{
			name: "migrate-every-item-of-a-typed-list-and-on", args: []string{"migrate", "--to", "v1", "-f", "-"},
			stdin: list + "---\n" + malformed, code: ExitBadInput,
			stderr: "Error: <stdin>: document 1 (line 1), items[0]: " + groupErr + "\n" +
				"Error: <stdin>: document 1 (line 1), items[1]: " + groupErr + "\n" +
				"Error: <stdin>: document 2 (line 7): " + badErr + "\n" +
				"Error: 3 objects could not be migrated; nothing was written\n",
		},
		{
			name: "migrate-malformed-parameters-all-named-before-any-claim", args: []string{"migrate", "--to", "v1alpha3", "-f", "-"},
			stdin: "apiVersion: resource.k8s.io/v1alpha2\nkind: ResourceClaimParameters\nmetadata: {name: p, namespace: ns}\ndriverRequests: [{driverName: 5}]\n---\n" +
				good + "---\n" +
				"apiVersion: resource.k8s.io/v1alpha2\nkind: ResourceClassParameters\nmetadata: {name: q, namespace: ns}\nfilters: [{driverName: d, namedResources: {selector: [x]}}]\n",
			code: ExitBadInput,
			stderr: "Error: <stdin>: document 1 (line 1): ResourceClaimParameters ns/p is malformed: driverRequests[0].driverName must be a string, not a number\n" +
				"Error: <stdin>: document 3 (line 11): ResourceClassParameters ns/q is malformed: filters[0].namedResources.selector must be a string, not an array\n" +
				"Error: 2 objects could not be read; nothing was written\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := run(t, tt.stdin, tt.args...)
			if code != tt.code || stdout != "" {
				t.Errorf("exit %d, stdout %q; want exit %d and no output", code, stdout, tt.code)
			}
			if stderr != tt.stderr {
				t.Errorf("stderr:\n%s\nwant:\n%s", stderr, tt.stderr)
			}
		})
	}
}

// TestMigrateWarnsAboutDuplicates: an object migrated twice under one group,
// kind, namespace and name (a claim given in two versions, two exports of one
// cluster) is written both times with a warning, which kubectl create would
// otherwise report as AlreadyExists halfway through.
func TestMigrateWarnsAboutDuplicates(t *testing.T) {
	stdin := "apiVersion: resource.k8s.io/v1alpha2\nkind: ResourceClaim\nmetadata: {name: a, namespace: ns}\nspec: {resourceClassName: gpu}\n---\n" +
		"apiVersion: resource.k8s.io/v1alpha1\nkind: ResourceClaim\nmetadata: {name: a, namespace: ns}\nspec: {resourceClassName: gpu}\n---\n" +
		"apiVersion: resource.k8s.io/v1alpha2\nkind: ResourceClaim\nmetadata: {name: a, namespace: other}\nspec: {resourceClassName: gpu}\n---\n" +
		"apiVersion: resource.k8s.io/v1alpha2\nkind: ResourceClaimTemplate\nmetadata: {name: a, namespace: ns}\nspec: {spec: {resourceClassName: gpu}}\n---\n" +
		"apiVersion: resource.k8s.io/v1alpha2\nkind: ResourceClaim\nmetadata: {generateName: a-, namespace: ns}\nspec: {resourceClassName: gpu}\n---\n" +
		"apiVersion: resource.k8s.io/v1alpha2\nkind: ResourceClaim\nmetadata: {generateName: a-, namespace: ns}\nspec: {resourceClassName: gpu}\n"
	code, stdout, stderr := run(t, stdin, "migrate", "--to", "v1alpha3", "-f", "-")
	if code != ExitOK || len(readObjects(t, stdout)) != 6 {
		t.Fatalf("exit %d, want 0 and six objects; stdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	want := "<stdin>: document 2 (line 6): warning: ResourceClaim ns/a: the same object (group, kind, namespace and name) as <stdin>: document 1 (line 1): kubectl create refuses the second; keep one\n"
	var dups []string
	for _, line := range strings.SplitAfter(stderr, "\n") {
		if strings.Contains(line, "the same object") {
			dups = append(dups, line)
		}
	}
	if len(dups) != 1 || dups[0] != want {
		t.Errorf("duplicate warnings %q, want only %q", dups, want)
	}
}

// TestMigrateRefusesFieldsTheVersionLacks: a field the input's version does
// not have (a 1.31 body under a v1alpha2 apiVersion, as on the 1.31 DRA
// docs page, or a 1.30 one under v1alpha3 or v1) would be dropped, leaving a
// claim that asks for nothing; migrate refuses it, naming the field and the
// shape it belongs to, for every target.
func TestMigrateRefusesFieldsTheVersionLacks(t *testing.T) {
	for name, tc := range map[string]struct{ stdin, want string }{
		"1.31-body-labelled-v1alpha2": {
			"apiVersion: resource.k8s.io/v1alpha2\nkind: ResourceClaimTemplate\nmetadata: {name: t, namespace: ns}\nspec: {spec: {devices: {requests: [{name: gpu, deviceClassName: gpu.nvidia.com}]}}}\n",
			"Error: <stdin>: document 1 (line 1): ResourceClaimTemplate ns/t: unknown field in resource.k8s.io/v1alpha2, which migrating would drop: spec.spec.devices; spec.devices is the shape of v1alpha3 (Kubernetes 1.31) and later: is the apiVersion right?\n",
		},
		"1.30-body-labelled-v1alpha3": {
			"apiVersion: resource.k8s.io/v1alpha3\nkind: ResourceClaim\nmetadata: {name: c, namespace: ns}\nspec: {resourceClassName: gpu.example.com}\n",
			"Error: <stdin>: document 1 (line 1): ResourceClaim ns/c: unknown field in resource.k8s.io/v1alpha3, which migrating would drop: spec.resourceClassName; resourceClassName is a field of v1alpha1 and v1alpha2 (Kubernetes 1.26–1.30): is the apiVersion right?\n",
		},
		"1.30-body-labelled-v1": {
			"apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: c, namespace: ns}\nspec: {resourceClassName: gpu.example.com}\n",
			"Error: <stdin>: document 1 (line 1): ResourceClaim ns/c: unknown field in resource.k8s.io/v1, which migrating would drop: spec.resourceClassName; resourceClassName is a field of v1alpha1 and v1alpha2 (Kubernetes 1.26–1.30): is the apiVersion right?\n",
		},
		"a-typo": {
			"apiVersion: resource.k8s.io/v1alpha2\nkind: ResourceClaim\nmetadata: {name: c, namespace: ns}\nspec: {resourceClassName: gpu.example.com, alocationMode: Immediate}\n",
			"Error: <stdin>: document 1 (line 1): ResourceClaim ns/c: unknown field in resource.k8s.io/v1alpha2, which migrating would drop: spec.alocationMode\n",
		},
	} {
		for _, to := range []string{"v1alpha1", "v1alpha2", "v1alpha3", "v1"} {
			t.Run(name+"/"+to, func(t *testing.T) {
				code, stdout, stderr := run(t, tc.stdin, "migrate", "--to", to, "-f", "-")
				if code != ExitInvalid || stdout != "" {
					t.Errorf("exit %d, stdout %q; want exit 1 and no output", code, stdout)
				}
				if !strings.HasSuffix(stderr, tc.want) {
					t.Errorf("stderr:\n%s\nwant it to end with:\n%s", stderr, tc.want)
				}
			})
		}
	}
}

// TestMigrateDeviceClass: a 1.31 DeviceClass (a driver's deviceclass.yaml)
// gets the target's apiVersion from 1.31 on, losing what the target lacks,
// and is left out, with a note, for 1.26-1.30, which have none.
func TestMigrateDeviceClass(t *testing.T) {
	in := "apiVersion: resource.k8s.io/v1alpha3\nkind: DeviceClass\nmetadata: {name: gpu.example.com, uid: u}\n" +
		"spec: {selectors: [{cel: {expression: 'device.driver == \"gpu.example.com\"'}}], suitableNodes: {nodeSelectorTerms: [{matchExpressions: [{key: gpu, operator: Exists}]}]}}\n"
	code, stdout, stderr := run(t, in, "migrate", "--to", "v1beta1", "-f", "-")
	wantOut := "apiVersion: resource.k8s.io/v1beta1\nkind: DeviceClass\nmetadata:\n  name: gpu.example.com\nspec:\n  selectors:\n  - cel:\n      expression: device.driver == \"gpu.example.com\"\n"
	wantErr := "<stdin>: document 1 (line 1): DeviceClass gpu.example.com: dropped metadata.uid\n" +
		"<stdin>: document 1 (line 1): DeviceClass gpu.example.com: changed apiVersion: resource.k8s.io/v1alpha3 -> resource.k8s.io/v1beta1 (Kubernetes 1.32)\n" +
		"<stdin>: document 1 (line 1): DeviceClass gpu.example.com: lost spec.suitableNodes: a field that v1beta1 does not have\n" +
		"<stdin>: document 1 (line 1): warning: DeviceClass gpu.example.com: spec.suitableNodes: the nodes a classic DRA driver's devices are on; Kubernetes 1.32+ has no classic DRA, its scheduler allocates from ResourceSlices\n"
	if code != ExitOK || stdout != wantOut || stderr != wantErr {
		t.Errorf("--to v1beta1: exit %d\nstdout:\n%s\nwant:\n%s\nstderr:\n%s\nwant:\n%s", code, stdout, wantOut, stderr, wantErr)
	}
	code, stdout, stderr = run(t, in, "migrate", "--to", "v1alpha2", "-f", "-")
	if want := "<stdin>: document 1 (line 1): DeviceClass gpu.example.com: left out: Kubernetes 1.27–1.30 has no DeviceClass (its claims name a ResourceClass)\n"; code != ExitOK || stdout != "" || stderr != want {
		t.Errorf("--to v1alpha2: exit %d, stdout %q, stderr %q; want exit 0, nothing written, %q", code, stdout, stderr, want)
	}
}
