//go:build envtest

package certmanager

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"net"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	cmapi "github.com/cert-manager/cert-manager/pkg/apis/certmanager/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/test/envtest/harness"
)

const (
	className  = "gpu.example.com"
	badClass   = "Not_A_DNS_Name"
	webhookRef = `admission webhook "validate.resource.claimbridge.dev" denied the request`
)

// TestCertManager runs the steps in order; each needs the previous ones.
func TestCertManager(t *testing.T) {
	for _, step := range []struct {
		name string
		fn   func(*testing.T)
	}{
		{"cainjector fills the caBundles", testInjection},
		{"conversion through the apiserver", testConversion},
		{"validation through the apiserver", testValidation},
		{"CA renewal keeps the key", testCARenewal},
		{"CA replaced, serving certificate rotated to it", testRotation},
	} {
		if !t.Run(step.name, step.fn) {
			t.Fatalf("%q failed; the later steps depend on it", step.name)
		}
	}
}

func testInjection(t *testing.T) {
	ctx := t.Context()
	// Installed without one: nothing but the cainjector sets a caBundle.
	waitForBundles(t, ctx, s.ca.pem, 60*time.Second)
	for _, name := range crdNames {
		crd, err := s.apiext.ApiextensionsV1().CustomResourceDefinitions().Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.ContainsFunc(crd.ManagedFields, func(f metav1.ManagedFieldsEntry) bool {
			return f.Manager == "cert-manager-cainjector" && strings.Contains(string(f.FieldsV1.GetRawBytes()), "caBundle")
		}) {
			t.Errorf("CRD %s: caBundle is not managed by cert-manager-cainjector; managers: %v", name, managers(crd.ManagedFields))
		}
		if got := crd.Spec.Conversion.Webhook.ClientConfig; got.URL == nil || *got.URL != s.convertURL() || got.Service != nil {
			t.Errorf("CRD %s: clientConfig %+v, want url %s", name, got, s.convertURL())
		}
	}
	// The apiserver serves a CRD from storage it rebuilds when it sees the
	// new caBundle, and picks webhook configurations up from an informer:
	// wait until a dry-run create (validated by the webhook and converted
	// to the storage version, but not stored) goes through.
	begin := time.Now()
	var first, last error
	err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		_, last = s.resource("v1alpha2", claims).Namespace(testNamespace).Create(ctx, claimV1alpha2("dry-run", className), metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		if first == nil {
			first = last
		}
		return last == nil, nil
	})
	if err != nil {
		t.Fatalf("the apiserver did not use the injected caBundle within 30s: %v (%v)", last, err)
	}
	t.Logf("caBundles injected; a request through the apiserver succeeded %v later", time.Since(begin).Round(time.Millisecond))
	if first != nil {
		t.Logf("earlier attempts failed: %v", first)
	}
}

func testConversion(t *testing.T) {
	ctx := t.Context()
	created, err := s.resource("v1alpha2", claims).Namespace(testNamespace).Create(ctx, claimV1alpha2("converted", className), metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("creating a v1alpha2 claim: %v", err)
	}
	t.Cleanup(func() {
		_ = s.resource("v1alpha3", claims).Namespace(testNamespace).Delete(context.Background(), "converted", metav1.DeleteOptions{})
	})
	if created.GetAPIVersion() != api.Group+"/v1alpha2" {
		t.Errorf("created claim: apiVersion %s, want v1alpha2", created.GetAPIVersion())
	}
	v3, err := s.resource("v1alpha3", claims).Namespace(testNamespace).Get(ctx, "converted", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("reading the claim in v1alpha3: %v", err)
	}
	requests, _, _ := unstructured.NestedSlice(v3.Object, "spec", "devices", "requests")
	if len(requests) != 1 {
		t.Fatalf("v1alpha3 claim: spec.devices.requests = %v, want one request", requests)
	}
	if got, _, _ := unstructured.NestedString(requests[0].(map[string]interface{}), "deviceClassName"); got != className {
		t.Errorf("v1alpha3 claim: deviceClassName %q, want %q", got, className)
	}
	v1, err := s.resource("v1alpha1", claims).Namespace(testNamespace).Get(ctx, "converted", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("reading the claim in v1alpha1: %v", err)
	}
	if got, _, _ := unstructured.NestedString(v1.Object, "spec", "resourceClassName"); got != className {
		t.Errorf("v1alpha1 claim: resourceClassName %q, want %q", got, className)
	}
	if v1.GetUID() != created.GetUID() || v3.GetUID() != created.GetUID() {
		t.Errorf("uids differ across versions: %s %s %s", created.GetUID(), v1.GetUID(), v3.GetUID())
	}
	list, err := s.resource("v1alpha1", claims).Namespace(testNamespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatalf("listing claims in v1alpha1: %v", err)
	}
	if len(list.Items) != 1 || list.Items[0].GetAPIVersion() != api.Group+"/v1alpha1" {
		t.Errorf("v1alpha1 list: %d items, want the one claim in v1alpha1", len(list.Items))
	}

	// The template CRD's caBundle was injected too.
	tmpl := &unstructured.Unstructured{Object: map[string]interface{}{
		"apiVersion": api.Group + "/v1alpha2", "kind": "ResourceClaimTemplate",
		"metadata": map[string]interface{}{"name": "converted", "namespace": testNamespace},
		"spec": map[string]interface{}{"spec": map[string]interface{}{
			"resourceClassName": className, "allocationMode": "WaitForFirstConsumer",
		}},
	}}
	if _, err := s.resource("v1alpha2", templates).Namespace(testNamespace).Create(ctx, tmpl, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating a v1alpha2 template: %v", err)
	}
	t.Cleanup(func() {
		_ = s.resource("v1alpha3", templates).Namespace(testNamespace).Delete(context.Background(), "converted", metav1.DeleteOptions{})
	})
	t3, err := s.resource("v1alpha3", templates).Namespace(testNamespace).Get(ctx, "converted", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("reading the template in v1alpha3: %v", err)
	}
	treqs, _, _ := unstructured.NestedSlice(t3.Object, "spec", "spec", "devices", "requests")
	if len(treqs) != 1 || treqs[0].(map[string]interface{})["deviceClassName"] != className {
		t.Errorf("v1alpha3 template: spec.spec.devices.requests = %v, want one request for %s", treqs, className)
	}
}

func testValidation(t *testing.T) {
	ctx := t.Context()
	for _, version := range []string{"v1alpha1", "v1alpha2"} {
		obj := claimV1alpha2("invalid-"+version, badClass)
		obj.SetAPIVersion(api.Group + "/" + version)
		_, err := s.resource(version, claims).Namespace(testNamespace).Create(ctx, obj, metav1.CreateOptions{})
		if err := checkDenied(err); err != nil {
			t.Errorf("%s: %v", version, err)
		}
	}
}

// checkDenied reports whether err is claimbridge's 422 denial of a claim with
// an invalid resourceClassName, relayed by the apiserver.
func checkDenied(err error) error {
	if err == nil {
		return errors.New("an invalid claim was created")
	}
	var status apierrors.APIStatus
	if !errors.As(err, &status) {
		return fmt.Errorf("not an API status: %w", err)
	}
	st := status.Status()
	if st.Code != http.StatusUnprocessableEntity || !apierrors.IsInvalid(err) || !strings.Contains(st.Message, webhookRef) {
		return fmt.Errorf("want a 422 Invalid denial by the webhook, got %d %s: %s", st.Code, st.Reason, st.Message)
	}
	if st.Details == nil || !slices.ContainsFunc(st.Details.Causes, func(c metav1.StatusCause) bool { return c.Field == "spec.resourceClassName" }) {
		return fmt.Errorf("denial has no cause for spec.resourceClassName: %+v", st.Details)
	}
	return nil
}

// testCARenewal renews the CA Certificate as config/certmanager asks
// (rotationPolicy Never: the same key, a new certificate) while requests keep
// going through the apiserver, lets the CA certificate that signed the
// serving certificate expire, and requires every request to succeed, also
// over connections verified against the renewed CA certificate alone.
//
// cert-manager's CA issuer neither re-issues the serving certificates a CA
// signed when the CA renews nor ends them at the CA certificate's expiry, so
// a serving certificate outlives the CA certificate that signed it by up to
// its own duration. With a new key at each renewal (rotationPolicy Always,
// before) it verified against nothing from that expiry until its own
// renewal: every webhook call failed for those days. (With a new key here,
// step 3 fails.)
//
//  1. a CA certificate about to expire, and a serving certificate it signed
//     that is valid for a day (standing for a CA issued a year ago and a
//     serving certificate of the week before its renewal);
//  2. cert-manager renews the CA with its key; the cainjector merges the
//     renewed certificate into the caBundles;
//  3. the first CA certificate expires, and the caBundles are trimmed to the
//     renewed one, so that the apiserver's new connections verify the serving
//     certificate against it alone.
func testCARenewal(t *testing.T) {
	ctx := t.Context()
	tr := startTraffic(t)
	tr.WaitFor(t, 5, time.Minute)

	// 1.
	expiry := time.Now().Add(45 * time.Second)
	expiring, err := newAuthority("claimbridge-ca", expiry)
	if err != nil {
		t.Fatal(err)
	}
	reissue(t, ctx, caSecret(expiring), expiring.cert, 2)
	waitForBundles(t, ctx, bundle(s.ca.pem, expiring.pem), 30*time.Second)
	sec := reissue(t, ctx, servingSecret(expiring.serving, expiring.pem), expiring.serving.cert, 2)
	if err := s.volume.project(sec.Data); err != nil {
		t.Fatal(err)
	}
	waitForServing(t, ctx, expiring.serving, expiring.pem)
	tr.WaitFor(t, 3, time.Minute)

	// 2.
	renewed, err := expiring.renewed(time.Now().Add(10 * 365 * 24 * time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	reissue(t, ctx, caSecret(renewed), renewed.cert, 3)
	waitForBundles(t, ctx, bundle(s.ca.pem, expiring.pem, renewed.pem), 30*time.Second)
	t.Log("the CA is renewed with its key; the caBundles hold both CA certificates")
	if time.Now().After(expiry) {
		t.Fatalf("steps 1 and 2 took past the first CA certificate's expiry (%v); the step checks nothing", expiry)
	}

	// 3.
	time.Sleep(time.Until(expiry) + time.Second)
	if _, err := dialLeaf(expiring.pem); err == nil {
		t.Fatal("the expired CA certificate still verifies the served certificate")
	}
	trimBundles(t, ctx, renewed.pem)
	t.Log("the first CA certificate has expired; the caBundles hold only the renewed one")
	finishTraffic(t, tr, "the CA renewal")
	checkServing(t, expiring.serving, renewed.pem)
	renewed.serving = expiring.serving
	s.ca, s.serving = renewed, expiring.serving
}

// testRotation replaces the CA with one of a new key (as after its Secret
// was deleted) and rotates the serving certificate to one it signed, while
// requests in the non-storage versions keep going through the apiserver,
// and requires every one of them to succeed:
//
//  1. cert-manager issues the new CA into the CA Certificate's Secret; the
//     cainjector of cert-manager 1.21 merges it into the caBundles
//     (CAInjectorMerging is GA) and keeps the old, unexpired CA;
//  2. cert-manager re-issues the serving certificate from the new CA;
//     later, as the kubelet syncs the Secret volume, claimbridge reloads and
//     serves it (checked by a TLS dial);
//  3. the old CA is retired: trimming the caBundles to the new CA sticks.
//     From then on the apiserver can only talk to claimbridge over the new
//     certificate, on new connections.
func testRotation(t *testing.T) {
	ctx := t.Context()
	tr := startTraffic(t)
	tr.WaitFor(t, 5, time.Minute)

	ca2, err := newAuthority("claimbridge-ca-2", time.Now().Add(10*365*24*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	overlap := bundle(s.ca.pem, ca2.pem)

	// 1.
	reissue(t, ctx, caSecret(ca2), ca2.cert, 4)
	waitForBundles(t, ctx, overlap, 60*time.Second)
	t.Log("caBundles hold the old and the new CA")
	// The apiserver picks the new caBundles up from its informers.
	time.Sleep(2 * time.Second)
	tr.WaitFor(t, 5, time.Minute)

	// 2. The kubelet syncs a Secret volume after a minute or so, long after
	// the Secret changed.
	sec := reissue(t, ctx, servingSecret(ca2.serving, ca2.pem), ca2.serving.cert, 3)
	tr.WaitFor(t, 3, time.Minute)
	if err := s.volume.project(sec.Data); err != nil {
		t.Fatal(err)
	}
	waitForServing(t, ctx, ca2.serving, overlap)
	t.Log("claimbridge serves the new certificate")
	tr.WaitFor(t, 5, time.Minute)

	// 3.
	if got := currentBundles(t, ctx); !allEqual(got, overlap) {
		t.Errorf("caBundles = %s; want both CAs kept (the cainjector merges)", describe(got))
	}
	trimBundles(t, ctx, ca2.pem)
	t.Log("caBundles trimmed to the new CA")
	finishTraffic(t, tr, "the rotation")

	// claimbridge presents the new certificate, which only the new CA verifies.
	checkServing(t, ca2.serving, ca2.pem)
	if _, err := dialLeaf(s.ca.pem); err == nil {
		t.Error("the old CA still verifies the served certificate")
	}
	// The new CA is the suite's from now on: a repetition (-count=2) starts
	// from it.
	s.ca, s.serving = ca2, ca2.serving
}

// finishTraffic lets the apiserver pick the last caBundles up, requires ten
// more request sequences, stops the traffic and requires that none of its
// requests failed during what.
func finishTraffic(t *testing.T, tr *harness.Traffic, what string) {
	t.Helper()
	time.Sleep(2 * time.Second)
	tr.WaitFor(t, 10, time.Minute)
	ok, failures := tr.Stop()
	t.Logf("%d request sequences succeeded during %s", ok, what)
	if len(failures) > 0 {
		t.Errorf("%d requests failed during %s:\n%s", len(failures), what, strings.Join(failures, "\n"))
	}
}

// startTraffic runs sequence against the apiserver until stopped: get, list,
// create, update and delete requests in v1alpha1 and v1alpha2 (converted to
// and from the storage version v1alpha3 by the webhook) plus denied creates.
func startTraffic(t *testing.T) *harness.Traffic {
	cfg := rest.CopyConfig(s.config)
	cfg.Timeout = 30 * time.Second
	cfg.QPS, cfg.Burst = 200, 400
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return harness.StartTraffic(t, 50*time.Millisecond, func(ctx context.Context, i int) error { return sequence(ctx, dyn, i) })
}

func sequence(ctx context.Context, dyn dynamic.Interface, i int) error {
	res := func(version string) dynamic.ResourceInterface {
		return dyn.Resource(schema.GroupVersionResource{Group: api.Group, Version: version, Resource: claims}).Namespace(testNamespace)
	}
	name := fmt.Sprintf("traffic-%d", i)
	obj := claimV1alpha2(name, className)
	obj.SetAPIVersion(api.Group + "/v1alpha1")
	obj.SetLabels(map[string]string{"traffic": "true"})
	if _, err := res("v1alpha1").Create(ctx, obj, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("create in v1alpha1: %w", err)
	}
	got, err := res("v1alpha2").Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return fmt.Errorf("get in v1alpha2: %w", err)
	}
	if c, _, _ := unstructured.NestedString(got.Object, "spec", "resourceClassName"); c != className {
		return fmt.Errorf("get in v1alpha2: resourceClassName %q", c)
	}
	got.SetAnnotations(map[string]string{"traffic/seen": "true"})
	if _, err := res("v1alpha2").Update(ctx, got, metav1.UpdateOptions{}); err != nil {
		return fmt.Errorf("update in v1alpha2: %w", err)
	}
	list, err := res("v1alpha1").List(ctx, metav1.ListOptions{LabelSelector: "traffic=true"})
	if err != nil {
		return fmt.Errorf("list in v1alpha1: %w", err)
	}
	if !slices.ContainsFunc(list.Items, func(u unstructured.Unstructured) bool { return u.GetName() == name }) {
		return fmt.Errorf("list in v1alpha1: %s missing", name)
	}
	if i%3 == 0 {
		bad := claimV1alpha2(name+"-invalid", badClass)
		_, err := res("v1alpha2").Create(ctx, bad, metav1.CreateOptions{})
		if err := checkDenied(err); err != nil {
			return fmt.Errorf("invalid create in v1alpha2: %w", err)
		}
	}
	if err := res("v1alpha2").Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
		return fmt.Errorf("delete in v1alpha2: %w", err)
	}
	return nil
}

func (s *suite) resource(version, resource string) dynamic.NamespaceableResourceInterface {
	return s.dynamic.Resource(schema.GroupVersionResource{Group: api.Group, Version: version, Resource: resource})
}

func claimV1alpha2(name, class string) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]interface{}{
		"apiVersion": api.Group + "/v1alpha2", "kind": "ResourceClaim",
		"metadata": map[string]interface{}{"name": name, "namespace": testNamespace},
		"spec": map[string]interface{}{
			"resourceClassName": class,
			"allocationMode":    "WaitForFirstConsumer",
			"parametersRef":     map[string]interface{}{"apiGroup": "gpu.example.com", "kind": "GpuClaimParameters", "name": "two-gpus"},
		},
	}}
}

// currentBundles returns the caBundle of each CRD's conversion webhook and of
// each webhook of the Validating- and MutatingWebhookConfiguration.
func currentBundles(t *testing.T, ctx context.Context) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	for _, name := range crdNames {
		crd, err := s.apiext.ApiextensionsV1().CustomResourceDefinitions().Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		var b []byte
		if c := crd.Spec.Conversion; c != nil && c.Webhook != nil && c.Webhook.ClientConfig != nil {
			b = c.Webhook.ClientConfig.CABundle
		}
		out["CRD "+name] = b
	}
	var vwc admissionregistrationv1.ValidatingWebhookConfiguration
	if err := s.client.Get(ctx, client.ObjectKey{Name: webhookConfigurationName}, &vwc); err != nil {
		t.Fatal(err)
	}
	if len(vwc.Webhooks) == 0 {
		t.Fatal("the ValidatingWebhookConfiguration has no webhooks")
	}
	for _, wh := range vwc.Webhooks {
		out["webhook "+wh.Name] = wh.ClientConfig.CABundle
	}
	var mwc admissionregistrationv1.MutatingWebhookConfiguration
	if err := s.client.Get(ctx, client.ObjectKey{Name: webhookConfigurationName}, &mwc); err != nil {
		t.Fatal(err)
	}
	if len(mwc.Webhooks) == 0 {
		t.Fatal("the MutatingWebhookConfiguration has no webhooks")
	}
	for _, wh := range mwc.Webhooks {
		out["webhook "+wh.Name] = wh.ClientConfig.CABundle
	}
	return out
}

// sameCerts reports whether two PEM bundles hold the same certificates.
func sameCerts(a, b []byte) bool {
	ca, cb := ders(a), ders(b)
	slices.Sort(ca)
	slices.Sort(cb)
	return len(ca) > 0 && slices.Equal(ca, cb)
}

func ders(p []byte) []string {
	var out []string
	for {
		var block *pem.Block
		block, p = pem.Decode(p)
		if block == nil {
			return out
		}
		out = append(out, string(block.Bytes))
	}
}

func allEqual(bundles map[string][]byte, want []byte) bool {
	for _, b := range bundles {
		if !sameCerts(b, want) {
			return false
		}
	}
	return true
}

func describe(bundles map[string][]byte) string {
	var parts []string
	for k, b := range bundles {
		var names []string
		for _, d := range ders(b) {
			if c, err := x509.ParseCertificate([]byte(d)); err == nil {
				names = append(names, c.Subject.CommonName)
			}
		}
		parts = append(parts, fmt.Sprintf("%s: %v", k, names))
	}
	slices.Sort(parts)
	return strings.Join(parts, "; ")
}

func waitForBundles(t *testing.T, ctx context.Context, want []byte, timeout time.Duration) {
	t.Helper()
	var got map[string][]byte
	err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, timeout, true, func(ctx context.Context) (bool, error) {
		got = currentBundles(t, ctx)
		return allEqual(got, want), nil
	})
	if err != nil {
		t.Fatalf("caBundles not injected within %v: %s", timeout, describe(got))
	}
}

// trimBundles sets every caBundle to want, as an operator removes a retired
// CA, and waits until it sticks (a cainjector reconcile that read the object
// before the patch may re-apply the merged bundle once).
func trimBundles(t *testing.T, ctx context.Context, want []byte) {
	t.Helper()
	b64 := base64.StdEncoding.EncodeToString(want)
	patch := func() {
		for _, name := range crdNames {
			p := []map[string]interface{}{{"op": "replace", "path": "/spec/conversion/webhook/clientConfig/caBundle", "value": b64}}
			if _, err := s.apiext.ApiextensionsV1().CustomResourceDefinitions().Patch(ctx, name, types.JSONPatchType, mustJSON(p), metav1.PatchOptions{FieldManager: fieldManager}); err != nil {
				t.Fatal(err)
			}
		}
		var vwc admissionregistrationv1.ValidatingWebhookConfiguration
		var mwc admissionregistrationv1.MutatingWebhookConfiguration
		for _, c := range []struct {
			obj      client.Object
			webhooks func() int
		}{{&vwc, func() int { return len(vwc.Webhooks) }}, {&mwc, func() int { return len(mwc.Webhooks) }}} {
			if err := s.client.Get(ctx, client.ObjectKey{Name: webhookConfigurationName}, c.obj); err != nil {
				t.Fatal(err)
			}
			var p []map[string]interface{}
			for i := 0; i < c.webhooks(); i++ {
				p = append(p, map[string]interface{}{"op": "replace", "path": fmt.Sprintf("/webhooks/%d/clientConfig/caBundle", i), "value": b64})
			}
			if err := s.client.Patch(ctx, c.obj, client.RawPatch(types.JSONPatchType, mustJSON(p)), client.FieldOwner(fieldManager)); err != nil {
				t.Fatal(err)
			}
		}
	}
	deadline := time.Now().Add(30 * time.Second)
	for stable := 0; stable < 10; {
		if time.Now().After(deadline) {
			t.Fatalf("trimmed caBundles did not stick: %s", describe(currentBundles(t, ctx)))
		}
		if allEqual(currentBundles(t, ctx), want) {
			stable++
		} else {
			stable = 0
			patch()
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func mustJSON(v interface{}) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// reissue writes a Secret as cert-manager's controller does when it issues
// revision rev of the Certificate the Secret names (as cert): the new data
// in one update, then the Certificate's status. It returns the updated
// Secret.
func reissue(t *testing.T, ctx context.Context, want *corev1.Secret, cert *x509.Certificate, rev int) *corev1.Secret {
	t.Helper()
	var sec corev1.Secret
	if err := s.client.Get(ctx, client.ObjectKey{Namespace: certNamespace, Name: want.Name}, &sec); err != nil {
		t.Fatal(err)
	}
	sec.Annotations, sec.Labels, sec.Data = want.Annotations, want.Labels, want.Data
	if err := s.client.Update(ctx, &sec); err != nil {
		t.Fatalf("updating Secret %s: %v", want.Name, err)
	}
	var c cmapi.Certificate
	if err := s.client.Get(ctx, client.ObjectKey{Namespace: certNamespace, Name: want.Annotations[cmapi.CertificateNameKey]}, &c); err != nil {
		t.Fatal(err)
	}
	c.Status = readyStatus(cert, rev)
	if err := s.client.Status().Update(ctx, &c); err != nil {
		t.Fatalf("updating the status of Certificate %s: %v", c.Name, err)
	}
	return &sec
}

var netDialer = net.Dialer{Timeout: 5 * time.Second}

// dialLeaf connects to claimbridge verifying against roots and returns the
// certificate it presents.
func dialLeaf(roots []byte) (*x509.Certificate, error) {
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(roots) {
		return nil, errors.New("no certificate in roots")
	}
	conn, err := tls.DialWithDialer(&netDialer, "tcp", s.serverAddr, &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12})
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	return conn.ConnectionState().PeerCertificates[0], nil
}

func waitForServing(t *testing.T, ctx context.Context, want *issued, roots []byte) {
	t.Helper()
	var leaf *x509.Certificate
	var last error
	err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 30*time.Second, true, func(context.Context) (bool, error) {
		leaf, last = dialLeaf(roots)
		return last == nil && leaf.Equal(want.cert), nil
	})
	if err != nil {
		t.Fatalf("claimbridge did not serve the new certificate within 30s (last: %v, serial %v)", last, serialOf(leaf))
	}
}

func checkServing(t *testing.T, want *issued, roots []byte) {
	t.Helper()
	leaf, err := dialLeaf(roots)
	if err != nil {
		t.Fatalf("TLS dial verifying against the new CA: %v", err)
	}
	if !leaf.Equal(want.cert) {
		t.Errorf("claimbridge presents serial %v, want %v", leaf.SerialNumber, want.cert.SerialNumber)
	}
}

func serialOf(c *x509.Certificate) interface{} {
	if c == nil {
		return nil
	}
	return c.SerialNumber
}

func managers(fields []metav1.ManagedFieldsEntry) []string {
	var out []string
	for _, f := range fields {
		out = append(out, f.Manager+"/"+string(f.Operation))
	}
	return out
}
