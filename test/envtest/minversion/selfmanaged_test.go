//go:build envtest

package minversion

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/test/envtest/harness"
)

var crdNames = []string{"resourceclaims." + api.Group, "resourceclaimtemplates." + api.Group}

// TestChartKubeVersion: the chart's kubeVersion admits the release this
// suite runs and refuses the one before it.
func TestChartKubeVersion(t *testing.T) {
	if _, err := harness.RenderChart("cb", "cb-system", "--kube-version", releaseVersion); err != nil {
		t.Errorf("helm template --kube-version %s: %v", releaseVersion, err)
	}
	_, err := harness.RenderChart("cb", "cb-system", "--kube-version", "1.29.15")
	const want = "chart requires kubeVersion: >=1.30.0-0 which is incompatible with Kubernetes v1.29.15"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("helm template --kube-version 1.29.15: %v, want an error saying %q", err, want)
	}
}

// install names one self-managed install: where its objects are and what
// its ValidatingAdmissionPolicy lets its ServiceAccount do.
type install struct {
	objs                 []*unstructured.Unstructured
	namespace, sa        string
	validating, mutating string // the webhook configurations' names
}

// TestChartSelfManaged installs what the chart renders for this release
// (helm template --kube-version 1.30.14), strictly and with nothing dropped,
// runs `claimbridge serve` with the Deployment's arguments as the chart's
// ServiceAccount, and checks that it injects its CA under the chart's
// token policy, which refuses that ServiceAccount a widened webhook, and
// that claims convert through it.
func TestChartSelfManaged(t *testing.T) {
	ns := newNamespace(t, "cb-system") // the chart renders none
	objs, err := harness.RenderChart("cb", ns, "--kube-version", releaseVersion)
	if err != nil {
		t.Fatal(err)
	}
	in := install{objs: objs, namespace: ns, sa: "cb-claimbridge",
		validating: "cb-claimbridge-validating-webhook-configuration", mutating: "cb-claimbridge-mutating-webhook-configuration"}
	port, err := harness.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	// Served on localhost, which the generated certificate names; no
	// caBundle: the server injects its CA.
	if err := harness.PointWebhooks(objs, fmt.Sprintf("https://localhost:%d", port), nil); err != nil {
		t.Fatal(err)
	}
	in.apply(t)
	in.waitForPolicy(t)

	cert := t.TempDir()
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	if err := harness.WriteKubeconfig(harness.ServiceAccountConfig(env.Config, ns, in.sa), kubeconfig); err != nil {
		t.Fatal(err)
	}
	health, err := harness.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	args, err := harness.ServeArgs(objs, ns)
	if err != nil {
		t.Fatal(err)
	}
	args = append(args, "--cert-dir="+cert, "--kubeconfig="+kubeconfig, "--dns-name=localhost",
		"--bind-address=127.0.0.1", fmt.Sprintf("--port=%d", port),
		fmt.Sprintf("--health-probe-bind-address=127.0.0.1:%d", health),
		"--metrics-bind-address=0", "--shutdown-drain=0s")
	serve(t, args, fmt.Sprintf("http://127.0.0.1:%d/readyz", health))

	injection := harness.Injection{
		Secret: types.NamespacedName{Namespace: ns, Name: "cb-claimbridge-webhook-server-cert"},
		CRDs:   crdNames, Validating: in.validating, Mutating: in.mutating,
	}
	if err := harness.CheckCAInjected(ctxFor(t), env.Client, injection); err != nil {
		t.Fatalf("ready, but: %v", err)
	}
	in.checkTokenPolicy(t)
	checkConverts(t, "chart")
}

// TestKustomizeSelfManaged installs what config/self-managed renders,
// token-policy.yaml included, strictly and with nothing dropped, its webhooks
// pointed at the suite's server, and checks that its token policy refuses
// its ServiceAccount a widened webhook and that claims convert through it.
// (One self-managed server is enough: the chart's test runs it.)
func TestKustomizeSelfManaged(t *testing.T) {
	objs, err := harness.Render("config/self-managed")
	if err != nil {
		t.Fatal(err)
	}
	if n := len(harness.OfKind(objs, "ValidatingAdmissionPolicy")); n != 1 {
		t.Fatalf("config/self-managed renders %d ValidatingAdmissionPolicies, want 1", n)
	}
	in := install{objs: objs, namespace: "claimbridge-system", sa: "claimbridge-server",
		validating: "claimbridge-validating-webhook-configuration", mutating: "claimbridge-mutating-webhook-configuration"}
	if err := harness.PointWebhooks(objs, env.BaseURL(), env.CABundle); err != nil {
		t.Fatal(err)
	}
	in.apply(t)
	in.waitForPolicy(t)
	in.checkTokenPolicy(t)
	checkConverts(t, "kustomize")
}

// apply creates the install's objects with strict field validation (after
// its Namespace, if it renders one) and checks that the apiserver stored
// every field it was given: a field this release does not serve, or drops
// behind a disabled feature gate, fails the test. Its webhook configurations
// are deleted and the harness's CRDs restored when the test ends.
func (in install) apply(t *testing.T) {
	t.Helper()
	ctx := ctxFor(t)
	objs := slices.Clone(in.objs)
	slices.SortStableFunc(objs, func(a, b *unstructured.Unstructured) int {
		return boolToInt(b.GetKind() == "Namespace") - boolToInt(a.GetKind() == "Namespace")
	})
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		for _, o := range []client.Object{
			&admissionregistrationv1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: in.validating}},
			&admissionregistrationv1.MutatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: in.mutating}},
		} {
			if err := env.Client.Delete(ctx, o); err != nil && !apierrors.IsNotFound(err) {
				t.Errorf("deleting %s: %v", o.GetName(), err)
			}
		}
		if err := env.InstallCRDs(ctx); err != nil {
			t.Errorf("restoring the harness's CRDs: %v", err)
		}
	})
	for _, o := range objs {
		if err := env.ApplyStrict(ctx, o); err != nil {
			t.Fatal(err)
		}
	}
	if err := env.WaitForCRDs(ctx, crdNames...); err != nil {
		t.Fatal(err)
	}
	for _, o := range objs {
		stored, err := get(ctx, o)
		if err != nil {
			t.Fatalf("getting %s %s: %v", o.GetKind(), o.GetName(), err)
		}
		for _, d := range missing(asSent(t, o), normalize(t, stored.Object), "") {
			t.Errorf("%s %s: stored without what it was given: %s", o.GetKind(), o.GetName(), d)
		}
	}
}

// get reads o's stored version through the dynamic client.
func get(ctx context.Context, o *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	gvk := o.GroupVersionKind()
	mapping, err := env.Client.RESTMapper().RESTMapping(gvk.GroupKind(), gvk.Version)
	if err != nil {
		return nil, err
	}
	var ri dynamic.ResourceInterface = env.Dynamic.Resource(mapping.Resource)
	if mapping.Scope.Name() == meta.RESTScopeNameNamespace {
		ri = env.Dynamic.Resource(mapping.Resource).Namespace(o.GetNamespace())
	}
	return ri.Get(ctx, o.GetName(), metav1.GetOptions{})
}

// asSent is o as this client sends it when its kind is in the client's
// scheme: through its Go type, which leaves out what it omits when empty
// (a volume mount's readOnly: false), without status or creationTimestamp.
// Then what the apiserver stores must hold all of it.
func asSent(t *testing.T, o *unstructured.Unstructured) interface{} {
	t.Helper()
	typed, err := env.Client.Scheme().New(o.GroupVersionKind())
	if err != nil {
		return normalize(t, o.Object)
	}
	data, err := o.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, typed); err != nil {
		t.Fatalf("%s %s: %v", o.GetKind(), o.GetName(), err)
	}
	sent, ok := normalize(t, typed).(map[string]interface{})
	if !ok {
		t.Fatalf("%s %s is not an object", o.GetKind(), o.GetName())
	}
	delete(sent, "status")
	unstructured.RemoveNestedField(sent, "metadata", "creationTimestamp")
	return sent
}

// normalize is v through JSON, with integers as int64.
func normalize(t *testing.T, v interface{}) interface{} {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out interface{}
	if err := utiljson.Unmarshal(data, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// missing lists where got lacks or differs from what want has: every key of
// a want map must be in got's with a value that has all of want's (got may
// have more: defaults), and lists must have the same length, item by item.
func missing(want, got interface{}, path string) []string {
	switch w := want.(type) {
	case map[string]interface{}:
		g, ok := got.(map[string]interface{})
		if !ok {
			return []string{fmt.Sprintf("%s: %v, want an object", path, got)}
		}
		var out []string
		for k, wv := range w {
			gv, ok := g[k]
			if !ok && wv == nil {
				continue // null: nothing
			}
			if !ok {
				out = append(out, path+"."+k+": dropped")
				continue
			}
			out = append(out, missing(wv, gv, path+"."+k)...)
		}
		return out
	case []interface{}:
		g, ok := got.([]interface{})
		if !ok || len(g) != len(w) {
			return []string{fmt.Sprintf("%s: %v, want %v", path, got, want)}
		}
		var out []string
		for i := range w {
			out = append(out, missing(w[i], g[i], fmt.Sprintf("%s[%d]", path, i))...)
		}
		return out
	default:
		if !reflect.DeepEqual(want, got) {
			return []string{fmt.Sprintf("%s: %v, want %v", path, got, want)}
		}
		return nil
	}
}

func boolToInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// asServiceAccount is a client with the install's ServiceAccount's identity.
func (in install) asServiceAccount(t *testing.T) client.Client {
	t.Helper()
	c, err := client.New(harness.ServiceAccountConfig(env.Config, in.namespace, in.sa), client.Options{Scheme: env.Client.Scheme()})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// updateAs gets obj's current state, changes it and updates it as c.
func updateAs[T client.Object](ctx context.Context, c client.Client, obj T, change func(T)) error {
	if err := env.Client.Get(ctx, client.ObjectKeyFromObject(obj), obj); err != nil {
		return err
	}
	change(obj)
	return c.Update(ctx, obj)
}

// waitForPolicy returns once the install's policy is enforced
// (harness.WaitForTokenPolicy).
func (in install) waitForPolicy(t *testing.T) {
	t.Helper()
	if err := harness.WaitForTokenPolicy(ctxFor(t), env.Client, in.asServiceAccount(t), in.validating); err != nil {
		t.Fatal(err)
	}
}

// checkTokenPolicy: the install's ServiceAccount, which RBAC lets update
// both CRDs and both webhook configurations, is refused anything but a
// caBundle change.
func (in install) checkTokenPolicy(t *testing.T) {
	sa := in.asServiceAccount(t)
	vwc := func() *admissionregistrationv1.ValidatingWebhookConfiguration {
		return &admissionregistrationv1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: in.validating}}
	}
	mwc := func() *admissionregistrationv1.MutatingWebhookConfiguration {
		return &admissionregistrationv1.MutatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: in.mutating}}
	}
	crd := func() *apiextensionsv1.CustomResourceDefinition {
		return &apiextensionsv1.CustomResourceDefinition{ObjectMeta: metav1.ObjectMeta{Name: crdNames[0]}}
	}
	secrets := admissionregistrationv1.RuleWithOperations{
		Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
		Rule:       admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"secrets"}},
	}
	elsewhere := "https://attacker.example.com/hook"
	for _, tc := range []struct {
		name   string
		update func(context.Context) error
		kind   string // of the refusal; "" for an update that passes
	}{
		{"validating-rules-widened-to-secrets", func(ctx context.Context) error {
			return updateAs(ctx, sa, vwc(), func(v *admissionregistrationv1.ValidatingWebhookConfiguration) {
				v.Webhooks[0].Rules = append(v.Webhooks[0].Rules, secrets)
			})
		}, "ValidatingWebhookConfiguration"},
		{"validating-match-conditions", func(ctx context.Context) error {
			return updateAs(ctx, sa, vwc(), func(v *admissionregistrationv1.ValidatingWebhookConfiguration) {
				v.Webhooks[0].MatchConditions = []admissionregistrationv1.MatchCondition{{Name: "never", Expression: "false"}}
			})
		}, "ValidatingWebhookConfiguration"},
		{"mutating-rules-widened-to-secrets", func(ctx context.Context) error {
			return updateAs(ctx, sa, mwc(), func(v *admissionregistrationv1.MutatingWebhookConfiguration) {
				v.Webhooks[0].Rules = append(v.Webhooks[0].Rules, secrets)
			})
		}, "MutatingWebhookConfiguration"},
		{"mutating-url-elsewhere", func(ctx context.Context) error {
			return updateAs(ctx, sa, mwc(), func(v *admissionregistrationv1.MutatingWebhookConfiguration) {
				v.Webhooks[0].ClientConfig = admissionregistrationv1.WebhookClientConfig{URL: &elsewhere, CABundle: v.Webhooks[0].ClientConfig.CABundle}
			})
		}, "MutatingWebhookConfiguration"},
		{"crd-version-not-served", func(ctx context.Context) error {
			return updateAs(ctx, sa, crd(), func(c *apiextensionsv1.CustomResourceDefinition) { c.Spec.Versions[0].Served = false })
		}, "CustomResourceDefinition"},
		{"crd-conversion-url-elsewhere", func(ctx context.Context) error {
			return updateAs(ctx, sa, crd(), func(c *apiextensionsv1.CustomResourceDefinition) {
				c.Spec.Conversion.Webhook.ClientConfig.URL, c.Spec.Conversion.Webhook.ClientConfig.Service = &elsewhere, nil
			})
		}, "CustomResourceDefinition"},
		// The CA twice is still the same trust.
		{"validating-ca-bundle", func(ctx context.Context) error {
			return updateAs(ctx, sa, vwc(), func(v *admissionregistrationv1.ValidatingWebhookConfiguration) {
				v.Webhooks[0].ClientConfig.CABundle = slices.Concat(v.Webhooks[0].ClientConfig.CABundle, v.Webhooks[0].ClientConfig.CABundle)
			})
		}, ""},
		{"crd-ca-bundle", func(ctx context.Context) error {
			return updateAs(ctx, sa, crd(), func(c *apiextensionsv1.CustomResourceDefinition) {
				cc := c.Spec.Conversion.Webhook.ClientConfig
				cc.CABundle = slices.Concat(cc.CABundle, cc.CABundle)
			})
		}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.update(ctxFor(t))
			if tc.kind == "" {
				if err != nil {
					t.Errorf("caBundle change: %v", err)
				}
				return
			}
			if err := harness.CheckRefusedByTokenPolicy(err, tc.kind); err != nil {
				t.Error(err)
			}
		})
	}
}

// checkConverts creates a claim through v1alpha1 and reads it through
// v1alpha3, through the install's CRDs and webhook configurations.
func checkConverts(t *testing.T, name string) {
	t.Helper()
	ctx := ctxFor(t)
	ns := newNamespace(t, "converts-"+name)
	obj := fromYAML(t, "v1alpha1", ns, "kind: ResourceClaim\nmetadata: {name: c}\nspec: {resourceClassName: gpu.example.com}\n")
	var last error
	// The CRDs' new conversion webhook takes effect asynchronously.
	err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 20*time.Second, true, func(ctx context.Context) (bool, error) {
		_, last = env.Resource("v1alpha1", claims).Namespace(ns).Create(ctx, obj, metav1.CreateOptions{})
		return last == nil, nil
	})
	if err != nil {
		t.Fatalf("create through v1alpha1: %v", last)
	}
	got, err := env.Resource("v1alpha3", claims).Namespace(ns).Get(ctx, "c", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("get through v1alpha3: %v", err)
	}
	if diff := missing(fieldOf(t, olderSpec, "v1alpha3"), got.Object["spec"], "spec"); len(diff) > 0 {
		t.Errorf("v1alpha3 view: %v", diff)
	}
}

// serveEnv, set in the environment of a child process of this test
// binary, makes TestMain run `claimbridge serve` with the process's
// arguments instead of the tests (harness.ServeChild): component-base applies its
// logging configuration once per process, so each server gets a process of
// its own, and every repetition (-count) of a test that serves runs.
const serveEnv = "CLAIMBRIDGE_MINVERSION_SERVE"

// serve runs `claimbridge serve args...` in a child process of this test
// binary until the test ends (SIGTERM; it must exit 0) and waits until
// readyz answers 200.
func serve(t *testing.T, args []string, readyz string) {
	t.Helper()
	log := &harness.LogBuffer{}
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), serveEnv+"=1")
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting claimbridge serve: %v", err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("claimbridge serve: %v", err)
			}
		case <-time.After(30 * time.Second):
			_ = cmd.Process.Kill()
			<-done
			t.Errorf("claimbridge serve did not stop within 30s of SIGTERM")
		}
		if t.Failed() {
			t.Logf("server log (tail):\n%s", log.Tail(6000))
		}
	})
	hc := &http.Client{Timeout: 2 * time.Second}
	err := wait.PollUntilContextTimeout(ctxFor(t), 100*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		select {
		case err := <-done:
			done <- err
			return false, fmt.Errorf("the server stopped before it was ready: %v", err)
		default:
		}
		resp, err := hc.Get(readyz)
		if err != nil {
			return false, nil
		}
		defer resp.Body.Close()
		_, _ = io.Copy(io.Discard, resp.Body)
		return resp.StatusCode == http.StatusOK, nil
	})
	if err != nil {
		t.Fatalf("claimbridge serve not ready: %v", err)
	}
}
