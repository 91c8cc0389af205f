//go:build envtest

package minversion

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"

	"github.com/claimbridge/claimbridge/api"
)

const (
	claims    = "resourceclaims"
	templates = "resourceclaimtemplates"
	// byWebhook starts the message of a refusal by the validating webhook.
	byWebhook = `admission webhook "validate.resource.claimbridge.dev" denied the request: `
)

// What every version shows of a claim of class gpu.example.com created
// through v1alpha1 or v1alpha2 (the schema's and the webhook's
// allocationMode) and through v1alpha3 (the defaulting webhook's
// allocationMode and count; the older versions show what 1.31 did).
const (
	olderSpec = `
v1alpha1: {resourceClassName: gpu.example.com, allocationMode: WaitForFirstConsumer}
v1alpha2: {resourceClassName: gpu.example.com, allocationMode: WaitForFirstConsumer}
v1alpha3: {devices: {requests: [{name: request, deviceClassName: gpu.example.com, allocationMode: ExactCount, count: 1}]}}
`
	v1alpha3Spec = `
v1alpha1: {resourceClassName: gpu.example.com, allocationMode: WaitForFirstConsumer}
v1alpha2: {resourceClassName: gpu.example.com, allocationMode: WaitForFirstConsumer}
v1alpha3: {devices: {requests: [{name: gpu, deviceClassName: gpu.example.com, allocationMode: ExactCount, count: 1}]}}
`
)

// TestClaimsThroughEveryVersion: a claim created through each version reads
// back through every version, and so does the allocation written through
// the status subresource in the version it was created in.
func TestClaimsThroughEveryVersion(t *testing.T) {
	ns := newNamespace(t, "claims")
	for _, tc := range []struct {
		version string
		spec    string // what the client sends
		specs   string // what each version shows of it
		status  string // written through version
		// statuses is what each version shows of status.
		statuses string
	}{{
		version: "v1alpha1", spec: `{resourceClassName: gpu.example.com}`, specs: olderSpec,
		status: `{driverName: gpu.example.com, allocation: {resourceHandle: handle-1, shareable: true}}`,
		statuses: `
v1alpha1: {driverName: gpu.example.com, allocation: {resourceHandle: handle-1, shareable: true}}
v1alpha2: {driverName: gpu.example.com, allocation: {resourceHandles: [{driverName: gpu.example.com, data: handle-1}], shareable: true}}
v1alpha3:
  allocation:
    controller: gpu.example.com
    devices:
      config:
      - opaque: {driver: gpu.example.com, parameters: {apiVersion: resource.claimbridge.dev/v1alpha2, kind: ResourceHandle, data: handle-1}}
        requests: [request]
        source: FromClaim
      results: [{request: request, driver: gpu.example.com, pool: gpu.example.com, device: handle-0}]
`,
	}, {
		version: "v1alpha2", spec: `{resourceClassName: gpu.example.com}`, specs: olderSpec,
		status: `{driverName: gpu.example.com, allocation: {resourceHandles: [{driverName: gpu.example.com, data: handle-2}], shareable: true}}`,
		statuses: `
v1alpha1: {driverName: gpu.example.com, allocation: {resourceHandle: handle-2, shareable: true}}
v1alpha2: {driverName: gpu.example.com, allocation: {resourceHandles: [{driverName: gpu.example.com, data: handle-2}], shareable: true}}
v1alpha3:
  allocation:
    controller: gpu.example.com
    devices:
      config:
      - opaque: {driver: gpu.example.com, parameters: {apiVersion: resource.claimbridge.dev/v1alpha2, kind: ResourceHandle, data: handle-2}}
        requests: [request]
        source: FromClaim
      results: [{request: request, driver: gpu.example.com, pool: gpu.example.com, device: handle-0}]
`,
	}, {
		version: "v1alpha3", spec: `{devices: {requests: [{name: gpu, deviceClassName: gpu.example.com}]}}`, specs: v1alpha3Spec,
		status: `{allocation: {devices: {results: [{request: gpu, driver: gpu.example.com, pool: worker-1, device: gpu-0}]}}}`,
		statuses: `
v1alpha1: {driverName: gpu.example.com, allocation: {shareable: true}}
v1alpha2:
  driverName: gpu.example.com
  allocation:
    resourceHandles: [{driverName: gpu.example.com, structuredData: {nodeName: worker-1, results: [{namedResources: {name: gpu-0}}]}}]
    shareable: true
v1alpha3: {allocation: {devices: {results: [{request: gpu, driver: gpu.example.com, pool: worker-1, device: gpu-0}]}}}
`,
	}} {
		t.Run(tc.version, func(t *testing.T) {
			ctx := ctxFor(t)
			name := "from-" + tc.version
			obj := fromYAML(t, tc.version, ns, fmt.Sprintf("kind: ResourceClaim\nmetadata: {name: %s}\nspec: %s\n", name, tc.spec))
			created, err := env.Resource(tc.version, claims).Namespace(ns).Create(ctx, obj, metav1.CreateOptions{FieldValidation: metav1.FieldValidationStrict})
			if err != nil {
				t.Fatalf("create through %s: %v", tc.version, err)
			}
			checkViews(t, ns, name, tc.specs, "spec")

			if err := unstructured.SetNestedField(created.Object, fieldOf(t, "status: "+tc.status, "status"), "status"); err != nil {
				t.Fatal(err)
			}
			if _, err := env.Resource(tc.version, claims).Namespace(ns).UpdateStatus(ctx, created, metav1.UpdateOptions{FieldValidation: metav1.FieldValidationStrict}); err != nil {
				t.Fatalf("status update through %s: %v", tc.version, err)
			}
			checkViews(t, ns, name, tc.statuses, "status")
			checkViews(t, ns, name, tc.specs, "spec") // unchanged by the status write
		})
	}
}

// checkViews gets claim ns/name through every version and compares its field
// (spec or status) with what views, a YAML map of version to value, says.
func checkViews(t *testing.T, ns, name, views, field string) {
	t.Helper()
	for _, v := range api.ServedVersions {
		got, err := env.Resource(v, claims).Namespace(ns).Get(ctxFor(t), name, metav1.GetOptions{})
		if err != nil {
			t.Errorf("get through %s: %v", v, err)
			continue
		}
		if got.GetAPIVersion() != api.Group+"/"+v {
			t.Errorf("get through %s answered %s", v, got.GetAPIVersion())
		}
		if diff := cmp.Diff(fieldOf(t, views, v), got.Object[field]); diff != "" {
			t.Errorf("%s through %s (-want +got):\n%s", field, v, diff)
		}
	}
}

// TestTemplateDefaulted: the defaulting webhook writes a v1alpha3 template's
// allocationMode and count, which its schema cannot default, and the older
// versions show the template as 1.30 would.
func TestTemplateDefaulted(t *testing.T) {
	ctx := ctxFor(t)
	ns := newNamespace(t, "templates")
	obj := fromYAML(t, "v1alpha3", ns, `
kind: ResourceClaimTemplate
metadata: {name: gpu}
spec: {spec: {devices: {requests: [{name: gpu, deviceClassName: gpu.example.com}]}}}
`)
	if _, err := env.Resource("v1alpha3", templates).Namespace(ns).Create(ctx, obj, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	for v, want := range map[string]string{
		"v1alpha3": `{spec: {devices: {requests: [{name: gpu, deviceClassName: gpu.example.com, allocationMode: ExactCount, count: 1}]}}}`,
		"v1alpha2": `{spec: {resourceClassName: gpu.example.com, allocationMode: WaitForFirstConsumer}}`,
		"v1alpha1": `{spec: {resourceClassName: gpu.example.com, allocationMode: WaitForFirstConsumer}}`,
	} {
		got, err := env.Resource(v, templates).Namespace(ns).Get(ctx, "gpu", metav1.GetOptions{})
		if err != nil {
			t.Fatalf("get through %s: %v", v, err)
		}
		if diff := cmp.Diff(fieldOf(t, "spec: "+want, "spec"), got.Object["spec"]); diff != "" {
			t.Errorf("template through %s (-want +got):\n%s", v, diff)
		}
	}
}

// TestInvalidWritesRefused: invalid creates and status writes are refused
// with 422 and the field paths of the version written. The webhook answers
// what the schema lets through; what the schema refuses (33 reservations)
// never reaches it, and kube-apiserver 1.30 names such a status field
// without its "status." prefix (kubernetes/kubernetes#123822, a regression of
// 1.28 fixed in 1.31; 1.26 and 1.31+ say status.reservedFor).
func TestInvalidWritesRefused(t *testing.T) {
	ns := newNamespace(t, "invalid")
	badClass := `{resourceClassName: Not_A_DNS_Name}`
	for _, tc := range []struct {
		name, version, spec string
		status              string // if set: create with spec, then write this status
		prefix              string
		want                []cause
	}{
		{name: "v1alpha1-class", version: "v1alpha1", spec: badClass, prefix: byWebhook,
			want: []cause{{"spec.resourceClassName", metav1.CauseTypeFieldValueInvalid}}},
		{name: "v1alpha2-class", version: "v1alpha2", spec: badClass, prefix: byWebhook,
			want: []cause{{"spec.resourceClassName", metav1.CauseTypeFieldValueInvalid}}},
		{name: "v1alpha3-class", version: "v1alpha3", spec: `{devices: {requests: [{name: gpu, deviceClassName: Not_A_DNS_Name}]}}`, prefix: byWebhook,
			want: []cause{{"spec.devices.requests[0].deviceClassName", metav1.CauseTypeFieldValueInvalid}}},
		{name: "v1alpha2-driver", version: "v1alpha2", spec: `{resourceClassName: gpu.example.com}`,
			status: `{driverName: Not_A_DNS_Name, allocation: {resourceHandles: [{driverName: Not_A_DNS_Name, data: h}]}}`, prefix: byWebhook,
			want: []cause{
				{"status.driverName", metav1.CauseTypeFieldValueInvalid},
				{"status.allocation.resourceHandles[0].driverName", metav1.CauseTypeFieldValueInvalid},
			}},
		// The schema's list-map keyed by uid refuses a duplicate itself.
		{name: "v1alpha1-duplicate-reservation", version: "v1alpha1", spec: `{resourceClassName: gpu.example.com}`,
			status: `{reservedFor: [{resource: pods, name: a, uid: u1}, {resource: pods, name: b, uid: u1}]}`,
			prefix: `ResourceClaim.resource.claimbridge.dev "v1alpha1-duplicate-reservation" is invalid: `,
			want:   []cause{{"status.reservedFor[1]", metav1.CauseTypeFieldValueDuplicate}}},
		{name: "v1alpha3-33-reservations", version: "v1alpha3", spec: `{devices: {requests: [{name: gpu, deviceClassName: gpu.example.com}]}}`,
			status: "{reservedFor: [" + reservations(33) + "]}", prefix: `ResourceClaim.resource.claimbridge.dev "v1alpha3-33-reservations" is invalid: `,
			want: []cause{{"reservedFor", metav1.CauseTypeTooMany}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := ctxFor(t)
			ri := env.Resource(tc.version, claims).Namespace(ns)
			obj := fromYAML(t, tc.version, ns, fmt.Sprintf("kind: ResourceClaim\nmetadata: {name: %s}\nspec: %s\n", tc.name, tc.spec))
			created, err := ri.Create(ctx, obj, metav1.CreateOptions{})
			if tc.status == "" {
				if err := checkInvalid(err, tc.prefix, tc.want...); err != nil {
					t.Errorf("create through %s: %v", tc.version, err)
				}
				return
			}
			if err != nil {
				t.Fatalf("create through %s: %v", tc.version, err)
			}
			if err := unstructured.SetNestedField(created.Object, fieldOf(t, "status: "+tc.status, "status"), "status"); err != nil {
				t.Fatal(err)
			}
			_, err = ri.UpdateStatus(ctx, created, metav1.UpdateOptions{})
			if err := checkInvalid(err, tc.prefix, tc.want...); err != nil {
				t.Errorf("status update through %s: %v", tc.version, err)
			}
		})
	}
}

// reservations is n distinct reservedFor entries in YAML flow style.
func reservations(n int) string {
	var rs []string
	for i := range n {
		rs = append(rs, fmt.Sprintf("{resource: pods, name: pod-%d, uid: uid-%d}", i, i))
	}
	return strings.Join(rs, ", ")
}

// TestClaimWithoutRequestsWritableThroughOlderVersions: a v1alpha3 claim
// without requests (valid in 1.31) has v1alpha1/v1alpha2 views without the
// resourceClassName their schemas require. Clients of those versions can
// still label it and remove their finalizer, so that its deletion completes,
// only because kube-apiserver 1.30 ratchets CRD validation
// (CRDValidationRatcheting, on by default from 1.30): 1.26, and 1.28/1.29
// with the gate off, refuse each such write with spec.resourceClassName:
// Required value. This is why 1.30 is the minimum for every install.
func TestClaimWithoutRequestsWritableThroughOlderVersions(t *testing.T) {
	ns := newNamespace(t, "no-requests")
	for _, version := range []string{"v1alpha1", "v1alpha2"} {
		t.Run(version, func(t *testing.T) {
			ctx := ctxFor(t)
			name := "no-requests-" + version
			obj := fromYAML(t, "v1alpha3", ns, fmt.Sprintf("kind: ResourceClaim\nmetadata: {name: %s, finalizers: [example.com/protect]}\nspec: {devices: {requests: []}}\n", name))
			if _, err := env.Resource("v1alpha3", claims).Namespace(ns).Create(ctx, obj, metav1.CreateOptions{}); err != nil {
				t.Fatalf("create through v1alpha3: %v", err)
			}
			ri := env.Resource(version, claims).Namespace(ns)
			if _, err := ri.Patch(ctx, name, types.MergePatchType, []byte(`{"metadata":{"labels":{"team":"a"}}}`), metav1.PatchOptions{}); err != nil {
				t.Fatalf("label through %s: %v", version, err)
			}
			if err := ri.Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
				t.Fatalf("delete through %s: %v", version, err)
			}
			if _, err := ri.Patch(ctx, name, types.MergePatchType, []byte(`{"metadata":{"finalizers":null}}`), metav1.PatchOptions{}); err != nil {
				t.Fatalf("finalizer removal through %s: %v", version, err)
			}
			if _, err := ri.Get(ctx, name, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
				t.Errorf("get after the last finalizer was removed: %v, want NotFound", err)
			}
		})
	}
}
