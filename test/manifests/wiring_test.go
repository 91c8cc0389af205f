//go:build envtest

package manifests

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// TestNamespaceAndPrefixOverlay builds each install as it renders and in an
// overlay that moves it to another namespace with another name prefix, as
// docs/operations.md says to write one (`transformers:` naming the install's
// config/wiring directory again), and checks that every place kustomize does
// not know about names the rendered objects: the serving certificate's
// dnsNames, the inject-ca-from annotations,
// the server's flags and the resourceNames of its RBAC. A name left behind
// there breaks the install at run time (an x509 error, a CA never injected,
// a 403), not at apply time.
func TestNamespaceAndPrefixOverlay(t *testing.T) {
	for _, install := range []struct{ base, wiring string }{
		{"config/default", "config/wiring/cert-manager"},
		{"config/self-managed", "config/wiring/self-managed"},
	} {
		t.Run(install.base, func(t *testing.T) {
			checkWiring(t, build(t, install.base), wantNamespace, "claimbridge-")
		})
		t.Run(install.base+" in an overlay with namespace and namePrefix", func(t *testing.T) {
			checkWiring(t, build(t, movedOverlay(t, install.base, install.wiring)), "dra-bridge", "team-claimbridge-")
		})
	}
}

// movedOverlay writes an overlay that moves base into namespace dra-bridge
// with name prefix team-, listing wiring under transformers as
// docs/operations.md says, and returns its directory.
func movedOverlay(t *testing.T, base, wiring string) string {
	t.Helper()
	root := repoRoot(t)
	overlay := t.TempDir()
	rel, err := filepath.Rel(overlay, root)
	if err != nil {
		t.Fatal(err)
	}
	k := "namespace: dra-bridge\nnamePrefix: team-\nresources:\n- " + filepath.ToSlash(filepath.Join(rel, base)) +
		"\ntransformers:\n- " + filepath.ToSlash(filepath.Join(rel, wiring)) + "\n"
	if err := os.WriteFile(filepath.Join(overlay, "kustomization.yaml"), []byte(k), 0o644); err != nil {
		t.Fatal(err)
	}
	return overlay
}

// checkWiring checks that the objects of r are in namespace with names that
// start with prefix, and that every name one object gives for another is that
// object's rendered name.
func checkWiring(t *testing.T, r rendered, namespace, prefix string) {
	t.Helper()
	var ns corev1.Namespace
	r.one(t, "Namespace", &ns)
	if ns.Name != namespace {
		t.Errorf("Namespace %q, want %q", ns.Name, namespace)
	}
	checkReferences(t, r, namespace, prefix)
}

// checkReferences is checkWiring without the Namespace object, which the
// chart does not render (helm install --create-namespace does).
func checkReferences(t *testing.T, r rendered, namespace, prefix string) {
	t.Helper()
	var svc corev1.Service
	r.one(t, "Service", &svc)
	if svc.Namespace != namespace || !strings.HasPrefix(svc.Name, prefix) {
		t.Errorf("Service %s/%s, want namespace %s and prefix %s", svc.Namespace, svc.Name, namespace, prefix)
	}
	var vwc admissionregistrationv1.ValidatingWebhookConfiguration
	r.one(t, "ValidatingWebhookConfiguration", &vwc)
	var mwc admissionregistrationv1.MutatingWebhookConfiguration
	r.one(t, "MutatingWebhookConfiguration", &mwc)
	var deploy appsv1.Deployment
	r.one(t, "Deployment", &deploy)
	args := expandArgs(t, &deploy)

	wantInject := ""
	if certs := r.unstructured("Certificate"); len(certs) > 0 {
		ca := caCertificate(t, r)
		wantInject = ca.GetNamespace() + "/" + ca.GetName()
		checkCertManager(t, r, &svc)
	}
	for _, o := range r.byKind["CustomResourceDefinition"] {
		if got, _ := (&unstructuredObj{o}).annotations()[injectCAFrom].(string); got != wantInject {
			t.Errorf("CRD %s: %s %q, want %q", nameOf(o), injectCAFrom, got, wantInject)
		}
	}
	// checkWebhookConfiguration checks the clientConfig and the
	// absent namespaceSelector, and the annotation.
	checkWebhookConfiguration(t, &vwc, &svc, wantInject)
	checkMutatingWebhookConfiguration(t, &mwc, &svc, wantInject)
	if got := flagValue(args, "--dns-name"); got != svc.Name+"."+svc.Namespace+".svc" {
		t.Errorf("--dns-name %q, want the Service's %s.%s.svc", got, svc.Name, svc.Namespace)
	}

	if flagValue(args, "--cert-mode") != "self-managed" {
		return
	}
	var secret corev1.Secret
	r.one(t, "Secret", &secret)
	if got, want := flagValue(args, "--cert-secret"), secret.Namespace+"/"+secret.Name; got != want {
		t.Errorf("--cert-secret %q, want the rendered Secret %q", got, want)
	}
	if got := flagValue(args, "--cert-inject-validating-webhook-configuration"); got != vwc.Name {
		t.Errorf("--cert-inject-validating-webhook-configuration %q, want the rendered %q", got, vwc.Name)
	}
	if got := flagValue(args, "--cert-inject-mutating-webhook-configuration"); got != mwc.Name {
		t.Errorf("--cert-inject-mutating-webhook-configuration %q, want the rendered %q", got, mwc.Name)
	}
	var rules []rbacv1.PolicyRule
	for _, kind := range []string{"Role", "ClusterRole"} {
		for _, o := range r.byKind[kind] {
			var role rbacv1.ClusterRole // a Role's rules decode alike
			u := unstructured.Unstructured{Object: o}
			if u.GetNamespace() != "" && u.GetNamespace() != namespace {
				t.Errorf("%s %s in namespace %q, want %q", kind, u.GetName(), u.GetNamespace(), namespace)
			}
			decode(t, map[string]interface{}{"metadata": o["metadata"], "rules": o["rules"]}, &role)
			rules = append(rules, role.Rules...)
		}
	}
	got := updatable(t, rules)
	for _, want := range []string{"secrets/" + secret.Name, "validatingwebhookconfigurations/" + vwc.Name} {
		if !slices.Contains(got, want) {
			t.Errorf("the RBAC lets the server update %q, want %s among them", got, want)
		}
	}
}

var envRef = regexp.MustCompile(`\$\(([A-Za-z_][A-Za-z0-9_]*)\)`)

// expandArgs returns the container's args with $(VAR) expanded as the
// kubelet expands them: from the container's env values, POD_NAMESPACE from
// the downward API as the Deployment's namespace. A reference to anything
// else fails t.
func expandArgs(t *testing.T, d *appsv1.Deployment) []string {
	t.Helper()
	c := d.Spec.Template.Spec.Containers[0]
	env := map[string]string{}
	for _, e := range c.Env {
		switch {
		case e.ValueFrom == nil:
			env[e.Name] = e.Value
		case e.ValueFrom.FieldRef != nil && e.ValueFrom.FieldRef.FieldPath == "metadata.namespace":
			env[e.Name] = d.Namespace
		}
	}
	out := make([]string, len(c.Args))
	for i, a := range c.Args {
		out[i] = envRef.ReplaceAllStringFunc(a, func(ref string) string {
			name := envRef.FindStringSubmatch(ref)[1]
			v, ok := env[name]
			if !ok {
				t.Errorf("argument %q refers to $(%s), which the container does not define", a, name)
			}
			return v
		})
	}
	return out
}
