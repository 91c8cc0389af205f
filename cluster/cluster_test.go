package cluster

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apimachinery/pkg/version"
	fakediscovery "k8s.io/client-go/discovery/fake"
	clienttesting "k8s.io/client-go/testing"
)

// served is a discovery document of group versions, the preferred one of
// each group first, with their resources (every verb).
func served(minor string, resources map[string][]string, order ...string) *Cluster {
	d := &fakediscovery.FakeDiscovery{Fake: &clienttesting.Fake{}, FakedServerVersion: &version.Info{Major: "1", Minor: minor}}
	for _, gv := range order {
		list := &metav1.APIResourceList{GroupVersion: gv}
		for _, r := range resources[gv] {
			list.APIResources = append(list.APIResources, metav1.APIResource{Name: r, Kind: kinds[r], Verbs: metav1.Verbs{"get", "list", "create"}})
		}
		d.Resources = append(d.Resources, list)
	}
	return &Cluster{discovery: d}
}

var kinds = map[string]string{
	"resourceclaims": "ResourceClaim", "resourceclaims/status": "ResourceClaim",
	"resourceclaimtemplates": "ResourceClaimTemplate", "resourceclasses": "ResourceClass",
	"deviceclasses": "DeviceClass", "resourceslices": "ResourceSlice", "podschedulings": "PodScheduling",
	"podschedulingcontexts": "PodSchedulingContext", "resourceclaimparameters": "ResourceClaimParameters",
	"resourceclassparameters": "ResourceClassParameters", "devicetaintrules": "DeviceTaintRule",
}

var releases = map[string]*Cluster{
	"1.26": served("26", map[string][]string{
		"resource.k8s.io/v1alpha1": {"podschedulings", "resourceclaims", "resourceclaims/status", "resourceclaimtemplates", "resourceclasses"},
	}, "resource.k8s.io/v1alpha1"),
	"1.30": served("30+", map[string][]string{
		"resource.k8s.io/v1alpha2": {"podschedulingcontexts", "resourceclaimparameters", "resourceclaims", "resourceclaimtemplates",
			"resourceclasses", "resourceclassparameters", "resourceslices"},
		"resource.claimbridge.dev/v1alpha3": {"resourceclaims", "resourceclaimtemplates"},
		"resource.claimbridge.dev/v1alpha2": {"resourceclaims", "resourceclaimtemplates"},
	}, "resource.claimbridge.dev/v1alpha3", "resource.k8s.io/v1alpha2", "resource.claimbridge.dev/v1alpha2"),
	"1.32": served("32", map[string][]string{
		"resource.k8s.io/v1beta1":  {"deviceclasses", "resourceclaims", "resourceclaimtemplates", "resourceslices"},
		"resource.k8s.io/v1alpha3": {"deviceclasses", "podschedulingcontexts", "resourceclaims", "resourceclaimtemplates", "resourceslices"},
	}, "resource.k8s.io/v1beta1", "resource.k8s.io/v1alpha3"),
	"1.37": served("37", map[string][]string{
		"resource.k8s.io/v1":      {"deviceclasses", "devicetaintrules", "resourceclaims", "resourceclaimtemplates", "resourceslices"},
		"resource.k8s.io/v1beta2": {"deviceclasses", "resourceclaims", "resourceclaimtemplates", "resourceslices"},
		"resource.k8s.io/v2":      {"resourceclaims"},
	}, "resource.k8s.io/v1", "resource.k8s.io/v1beta2", "resource.k8s.io/v2"),
	"none": served("30", map[string][]string{"v1": {"pods"}}, "v1"),
}

func TestTarget(t *testing.T) {
	for name, want := range map[string]Target{
		"1.26": {Release: "1.26", Version: "v1alpha1"},
		"1.30": {Release: "1.30", Version: "v1alpha2"},
		"1.32": {Release: "1.32", Version: "v1beta1"},
		"1.37": {Release: "1.37", Version: "v1"},
	} {
		got, err := releases[name].Target()
		if err != nil || got != want {
			t.Errorf("%s: got %+v, %v; want %+v", name, got, err, want)
		}
	}
	_, err := releases["none"].Target()
	want := "the cluster (Kubernetes 1.30) serves no version of resource.k8s.io that claimbridge converts to: is DynamicResourceAllocation enabled?"
	if err == nil || err.Error() != want {
		t.Errorf("no DRA: got %v, want %s", err, want)
	}
}

func TestDRAResources(t *testing.T) {
	for name, want := range map[string][]string{
		"1.26": {"resource.k8s.io/v1alpha1, Resource=resourceclaims", "resource.k8s.io/v1alpha1, Resource=resourceclaimtemplates",
			"resource.k8s.io/v1alpha1, Resource=resourceclasses"},
		"1.30": {"resource.k8s.io/v1alpha2, Resource=resourceclaimparameters", "resource.k8s.io/v1alpha2, Resource=resourceclaims",
			"resource.k8s.io/v1alpha2, Resource=resourceclaimtemplates", "resource.k8s.io/v1alpha2, Resource=resourceclasses",
			"resource.k8s.io/v1alpha2, Resource=resourceclassparameters",
			"resource.claimbridge.dev/v1alpha3, Resource=resourceclaims", "resource.claimbridge.dev/v1alpha3, Resource=resourceclaimtemplates"},
		"1.32": {"resource.k8s.io/v1beta1, Resource=deviceclasses", "resource.k8s.io/v1beta1, Resource=resourceclaims",
			"resource.k8s.io/v1beta1, Resource=resourceclaimtemplates"},
		"1.37": {"resource.k8s.io/v1, Resource=deviceclasses", "resource.k8s.io/v1, Resource=devicetaintrules", "resource.k8s.io/v1, Resource=resourceclaims",
			"resource.k8s.io/v1, Resource=resourceclaimtemplates"},
		"none": nil,
	} {
		resources, err := releases[name].draResources(draKinds)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var got []string
		for _, r := range resources {
			got = append(got, r.String())
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("%s (-want +got):\n%s", name, d)
		}
	}
}

func TestRank(t *testing.T) {
	for _, tt := range []struct {
		apiVersion, kind string
		want             int
	}{
		{"v1", "Namespace", 0},
		{"resource.k8s.io/v1", "DeviceClass", 0},
		{"resource.k8s.io/v1alpha2", "ResourceClass", 0},
		{"resource.k8s.io/v1alpha2", "ResourceClassParameters", 0},
		{"resource.k8s.io/v1alpha2", "ResourceClaimParameters", 0},
		{"resource.k8s.io/v1", "ResourceClaim", 1},
		{"resource.k8s.io/v1", "ResourceClaimTemplate", 1},
		{"resource.claimbridge.dev/v1alpha3", "ResourceClaim", 1},
		{"apps/v1", "Deployment", 2},
		{"v1", "Pod", 2},
		{"example.com/v1", "Namespace", 2},
		{"example.com/v1", "WidgetClass", 2},
	} {
		if got := Rank(map[string]interface{}{"apiVersion": tt.apiVersion, "kind": tt.kind}); got != tt.want {
			t.Errorf("%s %s: rank %d, want %d", tt.apiVersion, tt.kind, got, tt.want)
		}
	}
}

func TestFindings(t *testing.T) {
	claims := schema.GroupKind{Group: "resource.k8s.io", Kind: "ResourceClaim"}
	webhook := apierrors.NewForbidden(schema.GroupResource{Group: "resource.k8s.io", Resource: "resourceclaims"}, "a", errors.New("denied"))
	webhook.ErrStatus.Details.Causes = []metav1.StatusCause{{Message: "admission webhook \"x\" denied the request"}}
	for name, tt := range map[string]struct {
		err  error
		want []string
	}{
		"invalid": {apierrors.NewInvalid(claims, "a", field.ErrorList{
			field.Required(field.NewPath("spec", "devices", "requests").Index(0).Child("exactly", "deviceClassName"), ""),
			field.Invalid(field.NewPath("metadata", "name"), "A", "must be lower case"),
		}), []string{
			"spec.devices.requests[0].exactly.deviceClassName: Required value: the target cluster rejects this object (422 Invalid)",
			`metadata.name: Invalid value: "A": must be lower case: the target cluster rejects this object (422 Invalid)`,
		}},
		"exists": {apierrors.NewAlreadyExists(schema.GroupResource{Group: "resource.k8s.io", Resource: "resourceclaims"}, "a"), []string{
			`resourceclaims.resource.k8s.io "a" already exists: the target cluster rejects this object (409 AlreadyExists)`,
		}},
		"cause-without-field": {webhook, []string{
			`admission webhook "x" denied the request: the target cluster rejects this object (403 Forbidden)`,
		}},
		"not-a-status": {errors.New(`no matches for kind "ResourceClass" in version "resource.k8s.io/v1alpha2"`), []string{
			`no matches for kind "ResourceClass" in version "resource.k8s.io/v1alpha2"`,
		}},
	} {
		if d := cmp.Diff(tt.want, Findings(tt.err)); d != "" {
			t.Errorf("%s (-want +got):\n%s", name, d)
		}
	}
}

// TestConnectWithoutKubeconfig: with no kubeconfig and outside a pod, the
// error says where one was looked for and how to name one, not client-go's
// advice to set KUBERNETES_MASTER.
func TestConnectWithoutKubeconfig(t *testing.T) {
	empty := filepath.Join(t.TempDir(), "config")
	if err := os.WriteFile(empty, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("KUBECONFIG", empty)
	t.Setenv("KUBERNETES_SERVICE_HOST", "")
	_, err := Connect("", "", io.Discard)
	if want := "no kubeconfig: none in $KUBECONFIG or ~/.kube/config, and not in a pod; name one with a kubeconfig flag"; err == nil || err.Error() != want {
		t.Errorf("err %v, want %s", err, want)
	}
}
