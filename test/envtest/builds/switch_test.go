//go:build envtest

package builds

import (
	"io"
	"os"
	"path/filepath"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/yaml"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/test/envtest/harness"
)

// serve routes every webhook call to build (thisBuild, or an older build
// by commit), as after a roll to it.
func serve(t *testing.T, build string) {
	t.Helper()
	serveSplit(t, build, build)
}

// serveSplit routes the conversion calls to one build and the admission
// calls to another, as while both serve behind the Service. A build before
// the defaults comes with its own CRDs and without the
// MutatingWebhookConfiguration, which it cannot answer (docs/operations.md,
// "Rolling back across defaulting"); serving any other builds installs
// this build's CRDs and webhook configurations again.
//
// The admission route is set anew each time, so that admission.counts()
// counts the connections of the calls after it. The conversion route, and
// the connections kube-apiserver keeps open on it, stay as they are when
// they already go to conversionBuild and nothing was installed: then no
// conversion call can find a closed connection, and warmUp, which every
// new conversion route needs, is not called (the mixed rollout, which
// switches between two builds hundreds of times, spends half its switches
// on routes already set).
func serveSplit(t *testing.T, conversionBuild, admissionBuild string) {
	t.Helper()
	ctx := ctxFor(t)
	warm := probed != env
	before := conversionBuild == beforeDefaults || admissionBuild == beforeDefaults
	if before && installed != beforeDefaults {
		warm = true
		crds := olderCRDs(t, beforeDefaults)
		if err := harness.PointWebhooks(crds, conversion.url(), env.CABundle); err != nil {
			t.Fatal(err)
		}
		if err := env.Apply(ctx, crds...); err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, c := range crds {
			names = append(names, c.GetName())
		}
		if err := env.WaitForCRDs(ctx, names...); err != nil {
			t.Fatal(err)
		}
		err := env.Dynamic.Resource(mutatingConfigurations).Delete(ctx, harness.WebhookConfigurationName, metav1.DeleteOptions{})
		if err != nil && !apierrors.IsNotFound(err) {
			t.Fatal(err)
		}
		installed = beforeDefaults
	}
	if !conversion.routesTo(replicas[conversionBuild]) {
		conversion.route(replicas[conversionBuild])
		warm = true
	}
	admission.route(replicas[admissionBuild])
	if !before && installed != thisBuild {
		warm = true
		installed = ""
		if err := env.InstallCRDs(ctx); err != nil {
			t.Fatal(err)
		}
		if err := installWebhookConfigurations(t); err != nil {
			t.Fatal(err)
		}
		installed = thisBuild
	}
	if warm {
		warmUp(t)
	}
}

// probed is the environment whose probe claim exists.
var probed *harness.Env

// probeClaim is a claim of its own that warmUp reads.
const probeClaim = `{"apiVersion":"resource.claimbridge.dev/v1alpha3","kind":"ResourceClaim","metadata":{"name":"route-probe","namespace":"default"},
"spec":{"devices":{"requests":[{"name":"gpu","deviceClassName":"gpu.example.com","allocationMode":"ExactCount","count":1}]}}}`

// warmUp makes a conversion call on the route just set, retried until it
// is answered: the connections route closed can still be in
// kube-apiserver's pool for a moment, and a call that finds one fails. A
// write's own calls are retried by its client (retried), but not the
// conversions kube-apiserver makes to update managedFields, whose failure
// it does not report: it stores the object without managedFields
// (TestConversionOutageDuringStorageVersionWrite), which made the tests
// that write through v1alpha3 after a route flaky.
func warmUp(t *testing.T) {
	t.Helper()
	ri := env.Resource("v1alpha1", claimsResource).Namespace("default")
	if probed != env {
		u := &unstructured.Unstructured{}
		if err := u.UnmarshalJSON([]byte(probeClaim)); err != nil {
			t.Fatal(err)
		}
		err := retried(func() error {
			_, err := env.Resource(api.StorageVersion, claimsResource).Namespace("default").Create(ctxFor(t), u, metav1.CreateOptions{})
			return err
		})
		if err != nil && !apierrors.IsAlreadyExists(err) {
			t.Fatalf("creating the probe claim: %s", describe(err))
		}
		probed = env
	}
	get(t, ri, "route-probe")
}

// installed names the build whose CRDs and webhook configurations (pointed
// at the proxies) are installed; empty at first, when the harness's point
// the admission webhooks at the conversion proxy.
var installed string

// installWebhookConfigurations applies the webhook configurations of
// config/webhook as the harness does, pointed at the admission proxy.
func installWebhookConfigurations(t *testing.T) error {
	objs, err := harness.Render("config/webhook")
	if err != nil {
		return err
	}
	var configs []*unstructured.Unstructured
	for _, kind := range []string{"ValidatingWebhookConfiguration", "MutatingWebhookConfiguration"} {
		for _, c := range harness.OfKind(objs, kind) {
			c.SetName(harness.WebhookConfigurationName)
			configs = append(configs, c)
		}
	}
	if len(configs) != 2 {
		t.Fatalf("config/webhook rendered %d webhook configurations, want 2", len(configs))
	}
	if err := harness.PointWebhooks(configs, admission.url(), env.CABundle); err != nil {
		return err
	}
	return env.Apply(ctxFor(t), configs...)
}

var mutatingConfigurations = schema.GroupVersionResource{Group: "admissionregistration.k8s.io", Version: "v1", Resource: "mutatingwebhookconfigurations"}

// olderCRDs are the CRDs of an older build (hack/older-builds.sh).
func olderCRDs(t *testing.T, commit string) []*unstructured.Unstructured {
	t.Helper()
	f, err := os.Open(filepath.Join(olderBuilds, commit, "crds.yaml"))
	if err != nil {
		t.Fatalf("the CRDs of build %s: %v (run `make older-builds`)", commit, err)
	}
	defer f.Close()
	var out []*unstructured.Unstructured
	d := yaml.NewYAMLOrJSONDecoder(f, 4096)
	for {
		var m map[string]interface{}
		if err := d.Decode(&m); err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("the CRDs of build %s: %v", commit, err)
		}
		if m != nil {
			out = append(out, &unstructured.Unstructured{Object: m})
		}
	}
	if len(out) != 2 {
		t.Fatalf("the CRDs of build %s: %d objects, want 2", commit, len(out))
	}
	return out
}
