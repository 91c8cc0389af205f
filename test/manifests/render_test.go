//go:build envtest

// Package manifests checks what `kustomize build config/default` renders: the
// objects an operator applies with cert-manager (docs/operations.md).
//
// The test needs KUSTOMIZE, the path of a kustomize binary; `make test` sets it
// to bin/kustomize, built by `make envtest-assets`. Without it the test fails:
// a manifest check that silently skips is a manifest check that never runs.
package manifests

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"
)

const (
	group            = "resource.claimbridge.dev"
	wantNamespace    = "claimbridge-system"
	injectCAFrom     = "cert-manager.io/inject-ca-from"
	webhookPort      = 9443
	certManagerGroup = "cert-manager.io"
)

var servedVersions = []string{"v1alpha1", "v1alpha2", "v1alpha3"}

// rendered is the output of kustomize build, indexed by kind.
type rendered struct {
	byKind map[string][]map[string]interface{}
}

// one decodes the only object of kind into out, strictly (unknown fields fail).
func (r rendered) one(t *testing.T, kind string, out interface{}) {
	t.Helper()
	objs := r.byKind[kind]
	if len(objs) != 1 {
		t.Fatalf("want exactly one %s, got %d", kind, len(objs))
	}
	decode(t, objs[0], out)
}

func (r rendered) unstructured(kind string) []unstructured.Unstructured {
	var out []unstructured.Unstructured
	for _, o := range r.byKind[kind] {
		out = append(out, unstructured.Unstructured{Object: o})
	}
	return out
}

func decode(t *testing.T, obj map[string]interface{}, out interface{}) {
	t.Helper()
	data, err := yaml.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.UnmarshalStrict(data, out); err != nil {
		t.Fatalf("decoding %v %v: %v", obj["kind"], nameOf(obj), err)
	}
}

func nameOf(obj map[string]interface{}) string {
	u := unstructured.Unstructured{Object: obj}
	return u.GetName()
}

// readTree reads every file below dir, which kustomize or helm is about to
// render in a child process, so that go test's cache, which records the
// files a test opens but not its child processes', reruns the test when one
// of them changes.
func readTree(t *testing.T, dir string) {
	t.Helper()
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		_, err = os.ReadFile(path)
		return err
	})
	if err != nil {
		t.Fatalf("reading %s: %v", dir, err)
	}
}

// build runs `$KUSTOMIZE build dir` from the repository root.
func build(t *testing.T, dir string) rendered {
	t.Helper()
	root := repoRoot(t)
	readTree(t, filepath.Join(root, "config"))
	bin := os.Getenv("KUSTOMIZE")
	if bin == "" {
		t.Fatal("KUSTOMIZE is not set: run `make envtest-assets` and set the variables of `hack/envtest-assets.sh --env` (`make test-envtest` does both)")
	}
	if !filepath.IsAbs(bin) && strings.ContainsRune(bin, filepath.Separator) {
		bin = filepath.Join(root, bin)
	}
	if _, err := exec.LookPath(bin); err != nil {
		t.Fatalf("KUSTOMIZE=%s is not an executable (%v): run `make envtest-assets`", bin, err)
	}
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(bin, "build", dir)
	cmd.Dir = root
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s build %s: %v\n%s", bin, dir, err, stderr.String())
	}
	return parse(t, &stdout)
}

// parse reads a YAML stream of objects.
func parse(t *testing.T, in io.Reader) rendered {
	t.Helper()
	r := rendered{byKind: map[string][]map[string]interface{}{}}
	reader := utilyaml.NewYAMLReader(bufio.NewReader(in))
	for {
		doc, err := reader.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("reading rendered manifests: %v", err)
		}
		var obj map[string]interface{}
		if err := yaml.Unmarshal(doc, &obj); err != nil {
			t.Fatalf("rendered manifests: %v", err)
		}
		if obj == nil {
			continue
		}
		kind, _ := obj["kind"].(string)
		r.byKind[kind] = append(r.byKind[kind], obj)
	}
	return r
}

func repoRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test's directory")
		}
		dir = parent
	}
}

func TestDefault(t *testing.T) {
	r := build(t, "config/default")

	var svc corev1.Service
	r.one(t, "Service", &svc)
	var deploy appsv1.Deployment
	r.one(t, "Deployment", &deploy)
	ca := caCertificate(t, r)
	wantInject := ca.GetNamespace() + "/" + ca.GetName()

	t.Run("namespace", func(t *testing.T) {
		var ns corev1.Namespace
		r.one(t, "Namespace", &ns)
		if ns.Name != wantNamespace {
			t.Errorf("Namespace %q, want %q", ns.Name, wantNamespace)
		}
		for kind, objs := range r.byKind {
			for _, o := range objs {
				u := unstructured.Unstructured{Object: o}
				clusterScoped := kind == "Namespace" || kind == "CustomResourceDefinition" || kind == "ValidatingWebhookConfiguration" || kind == "MutatingWebhookConfiguration"
				if !clusterScoped && u.GetNamespace() != wantNamespace {
					t.Errorf("%s %s is in namespace %q, want %q", kind, u.GetName(), u.GetNamespace(), wantNamespace)
				}
			}
		}
	})

	t.Run("crds", func(t *testing.T) {
		crds := r.byKind["CustomResourceDefinition"]
		var names []string
		for _, o := range crds {
			var crd apiextensionsv1.CustomResourceDefinition
			decode(t, o, &crd)
			names = append(names, crd.Name)
			checkCRD(t, &crd, &svc, wantInject)
		}
		slices.Sort(names)
		want := []string{"resourceclaims." + group, "resourceclaimtemplates." + group}
		if diff := cmp.Diff(want, names); diff != "" {
			t.Errorf("CRDs (-want +got):\n%s", diff)
		}
	})

	t.Run("validating-webhook-configuration", func(t *testing.T) {
		var vwc admissionregistrationv1.ValidatingWebhookConfiguration
		r.one(t, "ValidatingWebhookConfiguration", &vwc)
		checkWebhookConfiguration(t, &vwc, &svc, wantInject)
	})

	t.Run("mutating-webhook-configuration", func(t *testing.T) {
		var mwc admissionregistrationv1.MutatingWebhookConfiguration
		r.one(t, "MutatingWebhookConfiguration", &mwc)
		checkMutatingWebhookConfiguration(t, &mwc, &svc, wantInject)
	})

	t.Run("service", func(t *testing.T) {
		if len(svc.Spec.Ports) != 1 {
			t.Fatalf("Service ports %+v, want one", svc.Spec.Ports)
		}
		p := svc.Spec.Ports[0]
		if p.Port != 443 || p.Name == "" {
			t.Errorf("Service port %+v, want a named port 443", p)
		}
		if got := resolvePort(t, &deploy, p.TargetPort); got != webhookPort {
			t.Errorf("Service targetPort %s resolves to container port %d, want %d", p.TargetPort.String(), got, webhookPort)
		}
		if !labels.SelectorFromSet(svc.Spec.Selector).Matches(labels.Set(deploy.Spec.Template.Labels)) {
			t.Errorf("Service selector %v does not select the Deployment's pods %v", svc.Spec.Selector, deploy.Spec.Template.Labels)
		}
	})

	t.Run("deployment", func(t *testing.T) { checkDeployment(t, &deploy, servingCertificate(t, r)) })

	t.Run("pod-disruption-budget", func(t *testing.T) {
		var pdb policyv1.PodDisruptionBudget
		r.one(t, "PodDisruptionBudget", &pdb)
		if pdb.Spec.MinAvailable == nil || *pdb.Spec.MinAvailable != intstr.FromInt32(1) {
			t.Errorf("PodDisruptionBudget minAvailable %v, want 1", pdb.Spec.MinAvailable)
		}
		selects(t, "PodDisruptionBudget", pdb.Spec.Selector, &deploy)
	})

	t.Run("issuers-and-certificates", func(t *testing.T) { checkCertManager(t, r, &svc) })

	t.Run("network-policy", func(t *testing.T) { checkNetworkPolicies(t, r, &deploy) })

	t.Run("rbac", func(t *testing.T) {
		var sa corev1.ServiceAccount
		r.one(t, "ServiceAccount", &sa)
		if sa.AutomountServiceAccountToken == nil || *sa.AutomountServiceAccountToken {
			t.Error("ServiceAccount must set automountServiceAccountToken: false")
		}
		if deploy.Spec.Template.Spec.ServiceAccountName != sa.Name {
			t.Errorf("Deployment uses ServiceAccount %q, want %q", deploy.Spec.Template.Spec.ServiceAccountName, sa.Name)
		}
		for _, kind := range []string{"Role", "ClusterRole", "RoleBinding", "ClusterRoleBinding"} {
			if n := len(r.byKind[kind]); n != 0 {
				t.Errorf("%d %s objects: claimbridge needs no Kubernetes API access", n, kind)
			}
		}
	})
}

func checkCRD(t *testing.T, crd *apiextensionsv1.CustomResourceDefinition, svc *corev1.Service, wantInject string) {
	t.Helper()
	if got := crd.Annotations[injectCAFrom]; got != wantInject {
		t.Errorf("%s: annotation %s=%q, want %q", crd.Name, injectCAFrom, got, wantInject)
	}
	conv := crd.Spec.Conversion
	if conv == nil || conv.Strategy != apiextensionsv1.WebhookConverter || conv.Webhook == nil || conv.Webhook.ClientConfig == nil {
		t.Fatalf("%s: spec.conversion %+v, want strategy Webhook with a clientConfig", crd.Name, conv)
	}
	want := &apiextensionsv1.ServiceReference{Name: svc.Name, Namespace: svc.Namespace, Path: ptr("/convert"), Port: ptr[int32](443)}
	if diff := cmp.Diff(want, conv.Webhook.ClientConfig.Service); diff != "" {
		t.Errorf("%s: conversion clientConfig.service (-want +got):\n%s", crd.Name, diff)
	}
	if conv.Webhook.ClientConfig.URL != nil {
		t.Errorf("%s: conversion clientConfig.url must not be set next to service", crd.Name)
	}
	if diff := cmp.Diff([]string{"v1", "v1beta1"}, conv.Webhook.ConversionReviewVersions); diff != "" {
		t.Errorf("%s: conversionReviewVersions (-want +got):\n%s", crd.Name, diff)
	}
	var served []string
	var storage []string
	for _, v := range crd.Spec.Versions {
		if v.Served {
			served = append(served, v.Name)
		}
		if v.Storage {
			storage = append(storage, v.Name)
		}
	}
	if diff := cmp.Diff(servedVersions, served); diff != "" {
		t.Errorf("%s: served versions (-want +got):\n%s", crd.Name, diff)
	}
	if diff := cmp.Diff([]string{"v1alpha3"}, storage); diff != "" {
		t.Errorf("%s: storage version (-want +got):\n%s", crd.Name, diff)
	}
}

func checkWebhookConfiguration(t *testing.T, vwc *admissionregistrationv1.ValidatingWebhookConfiguration, svc *corev1.Service, wantInject string) {
	t.Helper()
	if len(vwc.Webhooks) != 1 {
		t.Fatalf("%d webhooks, want 1", len(vwc.Webhooks))
	}
	wh := vwc.Webhooks[0]
	checkWebhook(t, webhookFields{vwc.Annotations, wh.ClientConfig.Service, wh.Rules, wh.MatchPolicy, wh.SideEffects, wh.FailurePolicy,
		wh.TimeoutSeconds, wh.AdmissionReviewVersions, wh.NamespaceSelector}, svc, wantInject,
		"/validate", []string{"resourceclaims", "resourceclaims/status", "resourceclaimtemplates"})
}

// checkMutatingWebhookConfiguration checks the defaulting webhook as
// checkWebhookConfiguration checks validation: not for the status (a status
// write keeps the spec), and reinvoked when another webhook changed the
// object after it.
func checkMutatingWebhookConfiguration(t *testing.T, mwc *admissionregistrationv1.MutatingWebhookConfiguration, svc *corev1.Service, wantInject string) {
	t.Helper()
	if len(mwc.Webhooks) != 1 {
		t.Fatalf("%d webhooks, want 1", len(mwc.Webhooks))
	}
	wh := mwc.Webhooks[0]
	checkWebhook(t, webhookFields{mwc.Annotations, wh.ClientConfig.Service, wh.Rules, wh.MatchPolicy, wh.SideEffects, wh.FailurePolicy,
		wh.TimeoutSeconds, wh.AdmissionReviewVersions, wh.NamespaceSelector}, svc, wantInject,
		"/default", []string{"resourceclaims", "resourceclaimtemplates"})
	if wh.ReinvocationPolicy == nil || *wh.ReinvocationPolicy != admissionregistrationv1.IfNeededReinvocationPolicy {
		t.Errorf("reinvocationPolicy %v, want IfNeeded", wh.ReinvocationPolicy)
	}
}

// webhookFields are the fields validating and mutating webhooks share.
type webhookFields struct {
	annotations       map[string]string
	service           *admissionregistrationv1.ServiceReference
	rules             []admissionregistrationv1.RuleWithOperations
	matchPolicy       *admissionregistrationv1.MatchPolicyType
	sideEffects       *admissionregistrationv1.SideEffectClass
	failurePolicy     *admissionregistrationv1.FailurePolicyType
	timeoutSeconds    *int32
	reviewVersions    []string
	namespaceSelector *metav1.LabelSelector
}

func checkWebhook(t *testing.T, wh webhookFields, svc *corev1.Service, wantInject, path string, resources []string) {
	t.Helper()
	if got := wh.annotations[injectCAFrom]; got != wantInject {
		t.Errorf("annotation %s=%q, want %q", injectCAFrom, got, wantInject)
	}
	wantClient := &admissionregistrationv1.ServiceReference{Name: svc.Name, Namespace: svc.Namespace, Path: ptr(path), Port: ptr[int32](443)}
	if diff := cmp.Diff(wantClient, wh.service); diff != "" {
		t.Errorf("clientConfig.service (-want +got):\n%s", diff)
	}
	wantRules := []admissionregistrationv1.RuleWithOperations{{
		Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update},
		Rule: admissionregistrationv1.Rule{
			APIGroups:   []string{group},
			APIVersions: servedVersions,
			Resources:   resources,
			Scope:       ptr(admissionregistrationv1.NamespacedScope),
		},
	}}
	if diff := cmp.Diff(wantRules, wh.rules); diff != "" {
		t.Errorf("rules (-want +got):\n%s", diff)
	}
	if wh.matchPolicy == nil || *wh.matchPolicy != admissionregistrationv1.Equivalent {
		t.Errorf("matchPolicy %v, want Equivalent", wh.matchPolicy)
	}
	if wh.sideEffects == nil || *wh.sideEffects != admissionregistrationv1.SideEffectClassNone {
		t.Errorf("sideEffects %v, want None", wh.sideEffects)
	}
	if wh.failurePolicy == nil || *wh.failurePolicy != admissionregistrationv1.Fail {
		t.Errorf("failurePolicy %v, want Fail", wh.failurePolicy)
	}
	if wh.timeoutSeconds == nil || *wh.timeoutSeconds > 10 {
		t.Errorf("timeoutSeconds %v, want at most 10", wh.timeoutSeconds)
	}
	if diff := cmp.Diff([]string{"v1", "v1beta1"}, wh.reviewVersions); diff != "" {
		t.Errorf("admissionReviewVersions (-want +got):\n%s", diff)
	}
	// No namespaceSelector: a claim stored
	// unvalidated in any namespace, the webhook's own included, could break
	// every list of claims in another version (one too large for a view),
	// and the server needs no claim to start.
	if wh.namespaceSelector != nil {
		t.Errorf("namespaceSelector %v; want none: every namespace is validated and defaulted", wh.namespaceSelector)
	}
}

func checkDeployment(t *testing.T, d *appsv1.Deployment, servingCert *unstructured.Unstructured) {
	t.Helper()
	if d.Spec.Replicas == nil || *d.Spec.Replicas < 2 {
		t.Errorf("replicas %v, want at least 2", d.Spec.Replicas)
	}
	pod := d.Spec.Template.Spec
	if pod.AutomountServiceAccountToken == nil || *pod.AutomountServiceAccountToken {
		t.Error("pod must set automountServiceAccountToken: false")
	}
	if pod.SecurityContext == nil || pod.SecurityContext.RunAsNonRoot == nil || !*pod.SecurityContext.RunAsNonRoot {
		t.Error("pod securityContext must set runAsNonRoot: true")
	}
	if len(pod.Containers) != 1 {
		t.Fatalf("%d containers, want 1", len(pod.Containers))
	}
	c := pod.Containers[0]
	wantSC := &corev1.SecurityContext{
		RunAsNonRoot:             ptr(true),
		RunAsUser:                ptr[int64](65532),
		ReadOnlyRootFilesystem:   ptr(true),
		AllowPrivilegeEscalation: ptr(false),
		Capabilities:             &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
		SeccompProfile:           &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
	}
	if diff := cmp.Diff(wantSC, c.SecurityContext); diff != "" {
		t.Errorf("container securityContext (-want +got):\n%s", diff)
	}
	for _, p := range []struct {
		name  string
		probe *corev1.Probe
		path  string
	}{{"liveness", c.LivenessProbe, "/healthz"}, {"readiness", c.ReadinessProbe, "/readyz"}} {
		if p.probe == nil || p.probe.HTTPGet == nil {
			t.Errorf("%s probe: want an httpGet probe", p.name)
			continue
		}
		if p.probe.HTTPGet.Path != p.path || resolvePort(t, d, p.probe.HTTPGet.Port) != 8081 {
			t.Errorf("%s probe %s on %s, want %s on 8081", p.name, p.probe.HTTPGet.Path, p.probe.HTTPGet.Port.String(), p.path)
		}
	}
	if c.Resources.Requests.Cpu().IsZero() || c.Resources.Requests.Memory().IsZero() || c.Resources.Limits.Memory().IsZero() {
		t.Errorf("resources %+v: want cpu and memory requests and a memory limit", c.Resources)
	}
	if len(c.Args) == 0 || c.Args[0] != "serve" {
		t.Errorf("args %q, want the serve command", c.Args)
	}
	certDir := flagValue(c.Args, "--cert-dir")
	if certDir == "" || flagValue(c.Args, "--dns-name") == "" {
		t.Fatalf("args %q: want --cert-dir and --dns-name", c.Args)
	}
	// The serving certificate's Secret is mounted, read-only, at --cert-dir.
	secretName, _, _ := unstructured.NestedString(servingCert.Object, "spec", "secretName")
	var volume string
	for _, v := range pod.Volumes {
		if v.Secret != nil && v.Secret.SecretName == secretName {
			volume = v.Name
		}
	}
	if volume == "" {
		t.Fatalf("no volume for the serving certificate's Secret %q", secretName)
	}
	mounted := false
	for _, m := range c.VolumeMounts {
		if m.Name == volume && m.MountPath == certDir && m.ReadOnly && m.SubPath == "" {
			mounted = true
		}
	}
	if !mounted {
		t.Errorf("volume %q must be mounted read-only (without subPath) at --cert-dir %s; mounts %+v", volume, certDir, c.VolumeMounts)
	}
	// The server's default --shutdown-drain (5s) plus --shutdown-timeout (30s).
	if pod.TerminationGracePeriodSeconds == nil || *pod.TerminationGracePeriodSeconds < 35 {
		t.Errorf("terminationGracePeriodSeconds %v, want at least 35", pod.TerminationGracePeriodSeconds)
	}
	if len(pod.TopologySpreadConstraints) == 0 || pod.TopologySpreadConstraints[0].TopologyKey != corev1.LabelHostname ||
		pod.TopologySpreadConstraints[0].WhenUnsatisfiable != corev1.ScheduleAnyway {
		t.Errorf("topologySpreadConstraints %+v, want a hostname spread with ScheduleAnyway", pod.TopologySpreadConstraints)
	}
	if pod.Affinity == nil || pod.Affinity.PodAntiAffinity == nil || len(pod.Affinity.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution) == 0 {
		t.Error("want a preferred podAntiAffinity")
	}
}

// servingCertificate is the Certificate whose Secret the server mounts: the one
// that is not a CA.
func servingCertificate(t *testing.T, r rendered) *unstructured.Unstructured {
	t.Helper()
	var found []unstructured.Unstructured
	for _, c := range r.unstructured("Certificate") {
		if isCA, _, _ := unstructured.NestedBool(c.Object, "spec", "isCA"); !isCA {
			found = append(found, c)
		}
	}
	if len(found) != 1 {
		t.Fatalf("want exactly one serving (non-CA) Certificate, got %d", len(found))
	}
	return &found[0]
}

// caCertificate is the CA Certificate, whose Secret's ca.crt the cainjector
// puts into the caBundles.
func caCertificate(t *testing.T, r rendered) *unstructured.Unstructured {
	t.Helper()
	var found []unstructured.Unstructured
	for _, c := range r.unstructured("Certificate") {
		if isCA, _, _ := unstructured.NestedBool(c.Object, "spec", "isCA"); isCA {
			found = append(found, c)
		}
	}
	if len(found) != 1 {
		t.Fatalf("want exactly one CA Certificate, got %d", len(found))
	}
	return &found[0]
}

// wantCARenewal is how the CA Certificate renews: a year before its ten-year
// expiry, keeping its key, so that every serving certificate it signed
// verifies against the renewed CA certificate (cert-manager neither re-issues
// them when the CA renews nor ends them at its expiry; a new key would fail
// every webhook call from the old CA certificate's expiry until the serving
// certificate's renewal). test/envtest/certmanager checks the mechanism.
var wantCARenewal = map[string]interface{}{
	"duration": "87600h", "renewBefore": "8760h",
	"privateKey": map[string]interface{}{"algorithm": "ECDSA", "size": float64(256), "rotationPolicy": "Never"},
}

func checkCertManager(t *testing.T, r rendered, svc *corev1.Service) {
	t.Helper()
	ca := caCertificate(t, r)
	got := map[string]interface{}{}
	for k := range wantCARenewal {
		got[k] = ca.Object["spec"].(map[string]interface{})[k]
	}
	if diff := cmp.Diff(wantCARenewal, got); diff != "" {
		t.Errorf("CA Certificate %s renewal (-want +got):\n%s", ca.GetName(), diff)
	}
	issuers := map[string]unstructured.Unstructured{}
	for _, iss := range r.unstructured("Issuer") {
		if gv := iss.GroupVersionKind().Group; gv != certManagerGroup {
			t.Errorf("Issuer %s has group %q", iss.GetName(), gv)
		}
		issuers[iss.GetName()] = iss
	}
	certs := r.unstructured("Certificate")
	if len(certs) != 2 {
		t.Fatalf("%d Certificates, want a CA and a serving certificate", len(certs))
	}
	// Every Certificate is issued by an Issuer of this build; the CA by a
	// selfSigned one, the serving certificate by the CA issuer built on the
	// CA's Secret.
	caSecret := ""
	for _, c := range certs {
		issuerName, _, _ := unstructured.NestedString(c.Object, "spec", "issuerRef", "name")
		iss, ok := issuers[issuerName]
		if !ok {
			t.Errorf("Certificate %s: issuerRef.name %q is not an Issuer of this build", c.GetName(), issuerName)
			continue
		}
		isCA, _, _ := unstructured.NestedBool(c.Object, "spec", "isCA")
		_, selfSigned, _ := unstructured.NestedMap(iss.Object, "spec", "selfSigned")
		if isCA != selfSigned {
			t.Errorf("Certificate %s (isCA %v) is issued by %s (selfSigned %v): want the CA self-signed and the serving certificate from the CA", c.GetName(), isCA, issuerName, selfSigned)
		}
		if isCA {
			caSecret, _, _ = unstructured.NestedString(c.Object, "spec", "secretName")
		} else if s, _, _ := unstructured.NestedString(iss.Object, "spec", "ca", "secretName"); s == "" {
			t.Errorf("serving Certificate %s is issued by %s, which is not a CA issuer", c.GetName(), issuerName)
		} else if caSecret != "" && s != caSecret {
			t.Errorf("CA issuer %s uses Secret %q, want the CA Certificate's %q", issuerName, s, caSecret)
		}
	}
	serving := servingCertificate(t, r)
	dnsNames, _, _ := unstructured.NestedStringSlice(serving.Object, "spec", "dnsNames")
	host := fmt.Sprintf("%s.%s.svc", svc.Name, svc.Namespace)
	if diff := cmp.Diff([]string{host, host + ".cluster.local"}, dnsNames); diff != "" {
		t.Errorf("serving Certificate dnsNames (-want +got):\n%s", diff)
	}
	if s, _, _ := unstructured.NestedString(serving.Object, "spec", "secretName"); s == "" {
		t.Error("serving Certificate has no secretName")
	}
}

func checkNetworkPolicies(t *testing.T, r rendered, d *appsv1.Deployment) {
	t.Helper()
	opensWebhook, opensMetrics := false, false
	for _, o := range r.byKind["NetworkPolicy"] {
		var np networkingv1.NetworkPolicy
		decode(t, o, &np)
		sel, err := metav1.LabelSelectorAsSelector(&np.Spec.PodSelector)
		if err != nil || !sel.Matches(labels.Set(d.Spec.Template.Labels)) {
			continue
		}
		for _, rule := range np.Spec.Ingress {
			for _, p := range rule.Ports {
				if p.Port == nil {
					continue
				}
				switch resolvePort(t, d, *p.Port) {
				case webhookPort:
					// The apiserver's source addresses are unknown: no from.
					opensWebhook = opensWebhook || len(rule.From) == 0
				case 8080:
					for _, peer := range rule.From {
						if peer.NamespaceSelector != nil && peer.NamespaceSelector.MatchLabels["metrics"] == "enabled" {
							opensMetrics = true
						}
					}
				}
			}
		}
	}
	if !opensWebhook {
		t.Errorf("no NetworkPolicy selecting the pods opens container port %d to every source", webhookPort)
	}
	if !opensMetrics {
		t.Error("no NetworkPolicy selecting the pods opens 8080 to namespaces labelled metrics: enabled")
	}
}

func selects(t *testing.T, what string, s *metav1.LabelSelector, d *appsv1.Deployment) {
	t.Helper()
	sel, err := metav1.LabelSelectorAsSelector(s)
	if err != nil || sel.Empty() || !sel.Matches(labels.Set(d.Spec.Template.Labels)) {
		t.Errorf("%s selector %v does not select the Deployment's pods %v", what, s, d.Spec.Template.Labels)
	}
}

// resolvePort is the container port number a (possibly named) port refers to.
func resolvePort(t *testing.T, d *appsv1.Deployment, p intstr.IntOrString) int32 {
	t.Helper()
	if p.Type == intstr.Int {
		return p.IntVal
	}
	for _, c := range d.Spec.Template.Spec.Containers {
		for _, cp := range c.Ports {
			if cp.Name == p.StrVal {
				return cp.ContainerPort
			}
		}
	}
	t.Errorf("port name %q is not a container port of the Deployment", p.StrVal)
	return 0
}

func flagValue(args []string, name string) string {
	for _, a := range args {
		if v, ok := strings.CutPrefix(a, name+"="); ok {
			return v
		}
	}
	return ""
}

func ptr[T any](v T) *T { return &v }
