package migrate

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/yaml"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/conversion"
	"github.com/claimbridge/claimbridge/report"
)

func obj(t *testing.T, s string) map[string]interface{} {
	t.Helper()
	var m map[string]interface{}
	if err := yaml.Unmarshal([]byte(s), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

const exported130 = `
apiVersion: resource.k8s.io/v1alpha2
kind: ResourceClaim
metadata:
  name: c
  namespace: ns
  uid: 0f9e8d7c
  resourceVersion: "52177"
  generation: 1
  creationTimestamp: "2024-05-20T14:02:11Z"
  selfLink: /apis/resource.k8s.io/v1alpha2/namespaces/ns/resourceclaims/c
  managedFields: [{manager: kube-scheduler}]
  ownerReferences: [{apiVersion: v1, kind: Pod, name: p, uid: u}]
  labels: {app: a}
  annotations: {note: kept, "kubectl.kubernetes.io/last-applied-configuration": "{}"}
  finalizers: [dra.k8s.io/delete-protection, example.com/other]
spec:
  resourceClassName: gpu.example.com
status:
  driverName: gpu.example.com
  allocation: {resourceHandles: [{driverName: gpu.example.com, data: h}]}
`

func TestObject(t *testing.T) {
	tests := []struct {
		name   string
		in     string
		to     string
		opts   Options
		want   string
		report changes
	}{{
		name: "1.30-claim-to-1.31",
		in:   exported130,
		to:   api.V1alpha3,
		want: `
apiVersion: resource.k8s.io/v1alpha3
kind: ResourceClaim
metadata:
  name: c
  namespace: ns
  labels: {app: a}
  annotations: {note: kept}
  finalizers: [example.com/other]
spec:
  devices:
    requests: [{name: request, deviceClassName: gpu.example.com, allocationMode: ExactCount, count: 1}]
`,
		report: changes{
			Dropped: []string{"metadata.uid", "metadata.resourceVersion", "metadata.generation", "metadata.creationTimestamp",
				"metadata.managedFields", "metadata.selfLink",
				"metadata.ownerReferences (owners of the old cluster; --keep-owner-references keeps them)",
				"metadata.annotations[kubectl.kubernetes.io/last-applied-configuration]",
				"metadata.finalizers[dra.k8s.io/delete-protection] (the allocation's: the scheduler adds its own when it allocates the claim again)",
				"status (reset on create: the old cluster's allocation is dropped; the claim will be allocated again, possibly to other devices)"},
			Warnings: []string{classicV3GPU},
		},
	}, {
		name: "1.30-claim-to-1.26-keeping-owners",
		in:   exported130,
		to:   api.V1alpha1,
		opts: Options{KeepOwnerReferences: true},
		want: `
apiVersion: resource.k8s.io/v1alpha1
kind: ResourceClaim
metadata:
  name: c
  namespace: ns
  labels: {app: a}
  annotations: {note: kept}
  ownerReferences: [{apiVersion: v1, kind: Pod, name: p, uid: u}]
  finalizers: [example.com/other]
spec:
  resourceClassName: gpu.example.com
`,
		report: changes{
			Dropped: []string{"metadata.uid", "metadata.resourceVersion", "metadata.generation", "metadata.creationTimestamp",
				"metadata.managedFields", "metadata.selfLink",
				"metadata.annotations[kubectl.kubernetes.io/last-applied-configuration]",
				"metadata.finalizers[dra.k8s.io/delete-protection] (the allocation's: the scheduler adds its own when it allocates the claim again)",
				"status (reset on create: the old cluster's allocation is dropped; the claim will be allocated again, possibly to other devices)"},
		},
	}, {
		name: "1.31-claim-with-restore-annotation-to-1.30",
		in: `
apiVersion: resource.claimbridge.dev/v1alpha3
kind: ResourceClaim
metadata:
  name: c
  namespace: ns
  annotations: {claimbridge.dev/restore-v1alpha2: '{"created":"annotations"}', claimbridge.dev/restore-v1alpha1: '{"created":"annotations"}'}
  finalizers: [resource.kubernetes.io/delete-protection, dra.k8s.io/delete-protection]
spec:
  devices:
    requests: [{name: gpu, deviceClassName: gpu.example.com}]
`,
		to: api.V1alpha2,
		want: `
apiVersion: resource.claimbridge.dev/v1alpha2
kind: ResourceClaim
metadata:
  name: c
  namespace: ns
spec:
  resourceClassName: gpu.example.com
  allocationMode: WaitForFirstConsumer
`,
		report: changes{
			// restore-v1alpha2 is used by the conversion to v1alpha2 itself.
			Dropped: []string{"metadata.annotations[claimbridge.dev/restore-v1alpha1]",
				"metadata.finalizers[resource.kubernetes.io/delete-protection] (the allocation's: the scheduler adds its own when it allocates the claim again)",
				"metadata.finalizers[dra.k8s.io/delete-protection] (the allocation's: the scheduler adds its own when it allocates the claim again)"},
			// The request's name, which 1.30 claims do not have.
			// The single request's name: no 1.30 consumer reads it (not lost).
		},
	}, {
		name: "template-without-metadata-changes",
		in: `
apiVersion: resource.k8s.io/v1alpha2
kind: ResourceClaimTemplate
metadata: {name: t, namespace: ns}
spec: {spec: {resourceClassName: gpu.example.com}}
`,
		to: api.V1alpha3,
		want: `
apiVersion: resource.k8s.io/v1alpha3
kind: ResourceClaimTemplate
metadata: {name: t, namespace: ns}
spec: {spec: {devices: {requests: [{name: request, deviceClassName: gpu.example.com, allocationMode: ExactCount, count: 1}]}}}
`,
		report: changes{Warnings: []string{classicV3Maybe("spec.spec", "gpu.example.com")}},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkObject(t, tt.in, tt.to, tt.opts, tt.want, tt.report)
		})
	}
}

// normalize round-trips through YAML so that numbers compare as in the wants.
func normalize(t *testing.T, m map[string]interface{}) map[string]interface{} {
	t.Helper()
	data, err := yaml.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return obj(t, string(data))
}

// TestListRefused: migrate takes a list's items one by one, not the list.
func TestListRefused(t *testing.T) {
	v := Migrate(obj(t, "apiVersion: resource.k8s.io/v1alpha2\nkind: ResourceClaimList\nitems: []\n"), versionTarget(api.V1alpha3), Options{})
	if v.Outcome != report.Refused || len(v.Findings) != 1 || !strings.Contains(v.Findings[0].Message, "migrate the items of a list one by one") {
		t.Fatalf("%s: %v", v.Outcome, v.Findings)
	}
}

// versionTarget is the target of version to, which the caller knows is one.
func versionTarget(to string) Target {
	t, _ := TargetOf(to)
	return t
}

// migrateOne is migrateObject of in, a claim or template, identified as
// Migrate identifies it.
func migrateOne(t *testing.T, in map[string]interface{}, target Target, opts Options) (map[string]interface{}, changes, error) {
	t.Helper()
	group, from, kind, err := conversion.Identify(in)
	if err != nil {
		t.Fatal(err)
	}
	return migrateObject(in, group, from, kind, target, opts)
}

// checkObject migrates in (YAML) to version to with opts and requires the
// object want (YAML), the report and the input unmodified.
func checkObject(t *testing.T, in, to string, opts Options, want string, wantReport changes) {
	t.Helper()
	input := obj(t, in)
	got, report, err := migrateOne(t, input, versionTarget(to), opts)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(obj(t, want), normalize(t, got)); d != "" {
		t.Errorf("object (-want +got):\n%s", d)
	}
	if d := cmp.Diff(wantReport, report); d != "" {
		t.Errorf("report (-want +got):\n%s", d)
	}
	if d := cmp.Diff(obj(t, in), input); d != "" {
		t.Errorf("input modified:\n%s", d)
	}
}

// TestObjectLastAppliedDoesNotCountAgainstTheAnnotationLimit: the restore
// data a conversion keeps must fit beside the object's annotations; a
// last-applied-configuration that migrate drops anyway does not count, so a
// claim applied with kubectl migrates although its annotations and the
// restore data would not fit together.
func TestObjectLastAppliedDoesNotCountAgainstTheAnnotationLimit(t *testing.T) {
	big := make([]byte, 90*1024)
	for i := range big {
		big[i] = 'x'
	}
	claim := obj(t, `
apiVersion: resource.k8s.io/v1alpha3
kind: ResourceClaim
metadata: {name: c, namespace: ns}
spec:
  devices:
    requests: [{name: gpu, deviceClassName: gpu.example.com}]
    config: [{opaque: {driver: gpu.example.com, parameters: {blob: ""}}}]
`)
	claim["spec"].(map[string]interface{})["devices"].(map[string]interface{})["config"].([]interface{})[0].(map[string]interface{})["opaque"].(map[string]interface{})["parameters"].(map[string]interface{})["blob"] = string(big)
	claim["metadata"].(map[string]interface{})["annotations"] = map[string]interface{}{
		"note": string(big[:85*1024]),
		"kubectl.kubernetes.io/last-applied-configuration": `{"blob":"` + string(big) + `"}`,
	}
	out, report, err := migrateOne(t, claim, versionTarget(api.V1alpha2), Options{})
	if err != nil {
		t.Fatalf("refused: %v", err)
	}
	if got := out["metadata"].(map[string]interface{})["annotations"]; !cmp.Equal(got, map[string]interface{}{"note": string(big[:85*1024])}) {
		t.Errorf("annotations: want only the note, got %d", len(got.(map[string]interface{})))
	}
	if want := "metadata.annotations[kubectl.kubernetes.io/last-applied-configuration]"; !cmp.Equal(report.Dropped[len(report.Dropped)-1], want) {
		t.Errorf("dropped %q, want %q last", report.Dropped, want)
	}
}
