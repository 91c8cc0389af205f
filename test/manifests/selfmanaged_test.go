//go:build envtest

package manifests

import (
	"bytes"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"
)

// modeView is what distinguishes the two certificate modes in rendered
// manifests.
type modeView struct {
	CertManagerKinds []string // kinds of the cert-manager.io group, sorted
	TokenMounted     bool     // pod and ServiceAccount
	CertModeArg      string   // --cert-mode value ("" if absent)
	MetricsSecureArg string   // --metrics-secure value
	CertVolume       string   // "secret" or "emptyDir"
	RBACKinds        []string // sorted kinds of rbac.authorization.k8s.io objects
}

func viewOf(t *testing.T, r rendered) (modeView, []rbacv1.PolicyRule, []string) {
	t.Helper()
	var v modeView
	for kind, objs := range r.byKind {
		for _, o := range objs {
			api, _ := o["apiVersion"].(string)
			if strings.HasPrefix(api, certManagerGroup+"/") {
				v.CertManagerKinds = append(v.CertManagerKinds, kind)
			}
			if strings.HasPrefix(api, "rbac.authorization.k8s.io/") {
				v.RBACKinds = append(v.RBACKinds, kind)
			}
		}
	}
	slices.Sort(v.CertManagerKinds)
	slices.Sort(v.RBACKinds)
	var deploy appsv1.Deployment
	r.one(t, "Deployment", &deploy)
	var sa corev1.ServiceAccount
	r.one(t, "ServiceAccount", &sa)
	pod := deploy.Spec.Template.Spec
	v.TokenMounted = pod.AutomountServiceAccountToken != nil && *pod.AutomountServiceAccountToken &&
		sa.AutomountServiceAccountToken != nil && *sa.AutomountServiceAccountToken
	args := pod.Containers[0].Args
	seen := map[string]bool{}
	for _, a := range args {
		if name, _, _ := strings.Cut(a, "="); strings.HasPrefix(name, "--") {
			if seen[name] {
				t.Errorf("flag %s is given twice: %q", name, args)
			}
			seen[name] = true
		}
		if val, ok := strings.CutPrefix(a, "--cert-mode="); ok {
			v.CertModeArg = val
		}
		if val, ok := strings.CutPrefix(a, "--metrics-secure="); ok {
			v.MetricsSecureArg = val
		}
	}
	for _, vol := range pod.Volumes {
		if vol.Name == "cert" {
			switch {
			case vol.Secret != nil:
				v.CertVolume = "secret"
			case vol.EmptyDir != nil:
				v.CertVolume = "emptyDir"
			}
		}
	}
	var rules []rbacv1.PolicyRule
	for _, kind := range []string{"Role", "ClusterRole"} {
		for _, o := range r.byKind[kind] {
			var role rbacv1.ClusterRole
			decode(t, map[string]interface{}{"apiVersion": o["apiVersion"], "kind": "ClusterRole", "metadata": o["metadata"], "rules": o["rules"]}, &role)
			rules = append(rules, role.Rules...)
		}
	}
	return v, rules, args
}

var selfManagedView = modeView{
	TokenMounted: true, CertModeArg: "self-managed", MetricsSecureArg: "true", CertVolume: "emptyDir",
	RBACKinds: []string{"ClusterRole", "ClusterRole", "ClusterRole", "ClusterRoleBinding", "ClusterRoleBinding", "Role", "RoleBinding"},
}

var certManagerView = modeView{
	CertManagerKinds: []string{"Certificate", "Certificate", "Issuer", "Issuer"},
	MetricsSecureArg: "false", CertVolume: "secret",
}

// updatable lists "resource/name" pairs the rules allow to update; no rule
// may allow create, delete, patch or update without names, nor any verb on
// Secrets without names (the server lists and watches its Secret with a
// metadata.name field selector, so that the token reads no other).
func updatable(t *testing.T, rules []rbacv1.PolicyRule) []string {
	t.Helper()
	var out []string
	for _, r := range rules {
		if slices.Contains(r.Resources, "secrets") && len(r.ResourceNames) == 0 {
			t.Errorf("rule %+v allows Secrets without resourceNames", r)
		}
		for _, verb := range r.Verbs {
			switch verb {
			case "create":
				if !slices.Equal(r.Resources, []string{"tokenreviews"}) && !slices.Equal(r.Resources, []string{"subjectaccessreviews"}) {
					t.Errorf("rule %+v allows create", r)
				}
			case "update":
				if len(r.ResourceNames) == 0 {
					t.Errorf("rule %+v allows update without resourceNames", r)
				}
				for _, res := range r.Resources {
					for _, n := range r.ResourceNames {
						out = append(out, res+"/"+n)
					}
				}
			case "get", "list", "watch":
			default:
				t.Errorf("rule %+v allows %s", r, verb)
			}
		}
	}
	slices.Sort(out)
	return out
}

var wantUpdatable = []string{
	"customresourcedefinitions/resourceclaims.resource.claimbridge.dev",
	"customresourcedefinitions/resourceclaimtemplates.resource.claimbridge.dev",
	"mutatingwebhookconfigurations/claimbridge-mutating-webhook-configuration",
	"secrets/claimbridge-webhook-server-cert",
	"validatingwebhookconfigurations/claimbridge-validating-webhook-configuration",
}

func TestSelfManagedOverlay(t *testing.T) {
	r := build(t, "config/self-managed")
	v, rules, _ := viewOf(t, r)
	if diff := cmp.Diff(selfManagedView, v); diff != "" {
		t.Errorf("self-managed overlay (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(wantUpdatable, updatable(t, rules)); diff != "" {
		t.Errorf("updatable objects (-want +got):\n%s", diff)
	}
	// The names the server's flags default to are the rendered ones.
	var secret corev1.Secret
	r.one(t, "Secret", &secret)
	if secret.Name != "claimbridge-webhook-server-cert" || len(secret.Data) != 0 {
		t.Errorf("Secret %s with %d keys, want claimbridge-webhook-server-cert without data (re-applying must not wipe it)", secret.Name, len(secret.Data))
	}
	for _, crd := range r.byKind["CustomResourceDefinition"] {
		if _, ok := (&unstructuredObj{crd}).annotations()[injectCAFrom]; ok {
			t.Errorf("CRD %s has %s in self-managed mode", nameOf(crd), injectCAFrom)
		}
	}
}

func TestDefaultOverlayMode(t *testing.T) {
	v, _, _ := viewOf(t, build(t, "config/default"))
	if diff := cmp.Diff(certManagerView, v); diff != "" {
		t.Errorf("config/default (-want +got):\n%s", diff)
	}
}

type unstructuredObj struct{ o map[string]interface{} }

func (u *unstructuredObj) annotations() map[string]interface{} {
	md, _ := u.o["metadata"].(map[string]interface{})
	a, _ := md["annotations"].(map[string]interface{})
	return a
}

// helmTemplate runs `$HELM template claimbridge charts/claimbridge` with
// the given --set values (and flags, given with their "--").
func helmTemplate(t *testing.T, sets ...string) rendered {
	t.Helper()
	root := repoRoot(t)
	readTree(t, filepath.Join(root, "charts", "claimbridge"))
	bin := os.Getenv("HELM")
	if bin == "" {
		t.Fatal("HELM is not set: run `make envtest-assets` and set the variables of `hack/envtest-assets.sh --env` (`make test-envtest` does both)")
	}
	if !filepath.IsAbs(bin) && strings.ContainsRune(bin, filepath.Separator) {
		bin = filepath.Join(root, bin)
	}
	args := []string{"template", "claimbridge", "charts/claimbridge", "--namespace", wantNamespace}
	for _, s := range sets {
		if strings.HasPrefix(s, "--") {
			args = append(args, s) // a flag, e.g. --api-versions=…
			continue
		}
		args = append(args, "--set", s)
	}
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(bin, args...)
	cmd.Dir = root
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %s: %v\n%s", bin, strings.Join(args, " "), err, stderr.String())
	}
	return parse(t, &stdout)
}

func TestChart(t *testing.T) {
	t.Run("self-managed-default", func(t *testing.T) {
		r := helmTemplate(t)
		v, rules, _ := viewOf(t, r)
		if diff := cmp.Diff(selfManagedView, v); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
		if diff := cmp.Diff(wantUpdatable, updatable(t, rules)); diff != "" {
			t.Errorf("updatable objects (-want +got):\n%s", diff)
		}
	})
	t.Run("cert-manager", func(t *testing.T) {
		r := helmTemplate(t, "certificates.mode=cert-manager", "metrics.secure=false")
		v, _, _ := viewOf(t, r)
		want := certManagerView
		if diff := cmp.Diff(want, v); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
		var svc corev1.Service
		r.one(t, "Service", &svc)
		checkCertManager(t, r, &svc)
		for _, kind := range []string{"CustomResourceDefinition", "ValidatingWebhookConfiguration", "MutatingWebhookConfiguration"} {
			for _, o := range r.byKind[kind] {
				if got := (&unstructuredObj{o}).annotations()[injectCAFrom]; got != wantNamespace+"/claimbridge-ca" {
					t.Errorf("%s %s: %s = %v", kind, nameOf(o), injectCAFrom, got)
				}
			}
		}
	})
	// A digest pins the image by content and takes the tag's place.
	t.Run("image", func(t *testing.T) {
		digest := "sha256:" + strings.Repeat("0123456789abcdef", 4)
		for _, c := range []struct {
			sets []string
			want string
		}{
			{nil, "ghcr.io/claimbridge/claimbridge:" + chartAppVersion(t)},
			{[]string{"image.tag=0.4.0"}, "ghcr.io/claimbridge/claimbridge:0.4.0"},
			{[]string{"image.digest=" + digest}, "ghcr.io/claimbridge/claimbridge@" + digest},
			{[]string{"image.tag=0.4.0", "image.digest=" + digest, "image.repository=registry.example/cb"}, "registry.example/cb@" + digest},
		} {
			var deploy appsv1.Deployment
			helmTemplate(t, c.sets...).one(t, "Deployment", &deploy)
			if got := deploy.Spec.Template.Spec.Containers[0].Image; got != c.want {
				t.Errorf("--set %v: image %q, want %q", c.sets, got, c.want)
			}
		}
	})
	t.Run("webhook-values", func(t *testing.T) {
		r := helmTemplate(t, "webhook.failurePolicy=Ignore", "webhook.timeoutSeconds=3", "replicaCount=3")
		var deploy appsv1.Deployment
		r.one(t, "Deployment", &deploy)
		for _, kind := range []string{"ValidatingWebhookConfiguration", "MutatingWebhookConfiguration"} {
			hook := r.byKind[kind][0]["webhooks"].([]interface{})[0].(map[string]interface{})
			got := []interface{}{hook["failurePolicy"], hook["timeoutSeconds"], *deploy.Spec.Replicas}
			if diff := cmp.Diff([]interface{}{"Ignore", float64(3), int32(3)}, got); diff != "" {
				t.Errorf("%s (-want +got):\n%s", kind, diff)
			}
		}
	})
	// A --reuse-values upgrade from chart 0.4.0 has no such value: the
	// grace period stays above the drain and the in-flight timeout.
	t.Run("grace-period-without-the-value", func(t *testing.T) {
		for set, want := range map[string]int64{"terminationGracePeriodSeconds=null": 45, "terminationGracePeriodSeconds=90": 90} {
			var deploy appsv1.Deployment
			helmTemplate(t, set).one(t, "Deployment", &deploy)
			if got := deploy.Spec.Template.Spec.TerminationGracePeriodSeconds; got == nil || *got != want {
				t.Errorf("--set %s: terminationGracePeriodSeconds %v, want %d", set, got, want)
			}
		}
	})
	t.Run("autoscaling-and-extra-args", func(t *testing.T) {
		r := helmTemplate(t, "autoscaling.enabled=true", "autoscaling.maxReplicas=8", "extraArgs[0]=--max-in-flight=16", "extraArgs[1]=--max-queue-wait=500ms")
		var deploy appsv1.Deployment
		r.one(t, "Deployment", &deploy)
		if deploy.Spec.Replicas != nil {
			t.Errorf("Deployment replicas = %d; want none: the HorizontalPodAutoscaler sets them", *deploy.Spec.Replicas)
		}
		args := deploy.Spec.Template.Spec.Containers[0].Args
		if diff := cmp.Diff([]string{"--max-in-flight=16", "--max-queue-wait=500ms"}, args[len(args)-2:]); diff != "" {
			t.Errorf("last args (-want +got):\n%s", diff)
		}
		var hpa autoscalingv2.HorizontalPodAutoscaler
		r.one(t, "HorizontalPodAutoscaler", &hpa)
		m := hpa.Spec.Metrics
		got := []interface{}{hpa.Spec.ScaleTargetRef.Kind, hpa.Spec.ScaleTargetRef.Name, *hpa.Spec.MinReplicas, hpa.Spec.MaxReplicas, len(m)}
		if diff := cmp.Diff([]interface{}{"Deployment", deploy.Name, int32(2), int32(8), 1}, got); diff != "" {
			t.Fatalf("HorizontalPodAutoscaler (-want +got):\n%s", diff)
		}
		if m[0].Resource == nil || m[0].Resource.Name != "cpu" || m[0].Resource.Target.AverageValue == nil || m[0].Resource.Target.AverageValue.String() != "600m" {
			t.Errorf("HorizontalPodAutoscaler metric = %+v; want cpu at an average of 600m", m[0])
		}
	})
	t.Run("default-no-autoscaling", func(t *testing.T) {
		r := helmTemplate(t)
		if n := len(r.byKind["HorizontalPodAutoscaler"]); n != 0 {
			t.Errorf("%d HorizontalPodAutoscalers by default, want 0", n)
		}
	})
	t.Run("monitoring-on", func(t *testing.T) {
		r := helmTemplate(t, "serviceMonitor.enabled=true", "prometheusRule.enabled=true", "grafanaDashboard.enabled=true")
		for _, kind := range []string{"ServiceMonitor", "PrometheusRule", "ConfigMap"} {
			if len(r.byKind[kind]) != 1 {
				t.Errorf("%d %s, want 1", len(r.byKind[kind]), kind)
			}
		}
	})
	// ClaimbridgeNoReadyReplica's absent(up{…}) clause holds forever where
	// nothing scrapes the pods: the chart keeps it only with its
	// ServiceMonitor and metrics on.
	t.Run("no-ready-replica-alert-needs-a-scrape", func(t *testing.T) {
		for _, c := range []struct {
			sets       []string
			wantAbsent bool
		}{
			{[]string{"prometheusRule.enabled=true"}, false},
			{[]string{"prometheusRule.enabled=true", "serviceMonitor.enabled=true", "metrics.enabled=false"}, false},
			{[]string{"prometheusRule.enabled=true", "serviceMonitor.enabled=true"}, true},
		} {
			rules := helmTemplate(t, c.sets...).unstructured("PrometheusRule")
			if len(rules) != 1 {
				t.Fatalf("--set %v: %d PrometheusRules", c.sets, len(rules))
			}
			expr := ""
			groups, _, _ := unstructured.NestedSlice(rules[0].Object, "spec", "groups")
			for _, g := range groups {
				rs, _, _ := unstructured.NestedSlice(g.(map[string]interface{}), "rules")
				for _, r := range rs {
					if r.(map[string]interface{})["alert"] == "ClaimbridgeNoReadyReplica" {
						expr, _ = r.(map[string]interface{})["expr"].(string)
					}
				}
			}
			if !strings.Contains(expr, "kube_deployment_status_replicas_available") || strings.Contains(expr, "absent(up") != c.wantAbsent {
				t.Errorf("--set %v: ClaimbridgeNoReadyReplica expr %q; want the kube-state-metrics clause, absent(up) %v", c.sets, expr, c.wantAbsent)
			}
		}
	})
	// What the chart makes of files/alerts.yaml (a clause removed, the
	// thresholds rewritten) is still rules Prometheus loads.
	t.Run("rendered-rules-pass-promtool", func(t *testing.T) {
		bin := os.Getenv("PROMTOOL")
		if bin == "" {
			t.Fatal("PROMTOOL is not set: run `make envtest-assets` and set the variables of `hack/envtest-assets.sh --env` (`make test-envtest` does both)")
		}
		if !filepath.IsAbs(bin) && strings.ContainsRune(bin, filepath.Separator) {
			bin = filepath.Join(repoRoot(t), bin)
		}
		for i, sets := range [][]string{
			{"prometheusRule.enabled=true"},
			{"prometheusRule.enabled=true", "serviceMonitor.enabled=true"},
			{"prometheusRule.enabled=true", "serviceMonitor.enabled=true", "webhook.timeoutSeconds=3"},
			{"prometheusRule.enabled=true", "webhook.timeoutSeconds=30"},
			{"prometheusRule.enabled=true", "serviceMonitor.enabled=true", "fullnameOverride=cb-hooks"},
		} {
			rules := helmTemplate(t, sets...).unstructured("PrometheusRule")
			if len(rules) != 1 {
				t.Fatalf("--set %v: %d PrometheusRules", sets, len(rules))
			}
			spec, err := yaml.Marshal(rules[0].Object["spec"])
			if err != nil {
				t.Fatal(err)
			}
			file := filepath.Join(t.TempDir(), fmt.Sprintf("rules-%d.yaml", i))
			if err := os.WriteFile(file, spec, 0o600); err != nil {
				t.Fatal(err)
			}
			if out, err := exec.Command(bin, "check", "rules", file).CombinedOutput(); err != nil {
				t.Errorf("--set %v: promtool check rules: %v\n%s", sets, err, out)
			}
		}
	})
	// The admission latency alert fires at half of webhook.timeoutSeconds
	// and names that timeout.
	t.Run("latency-alert-follows-the-timeout", func(t *testing.T) {
		for _, c := range []struct{ timeout, threshold string }{{"5", "> 2.5\n"}, {"3", "> 1.5\n"}, {"30", "> 15\n"}} {
			rules := helmTemplate(t, "prometheusRule.enabled=true", "webhook.timeoutSeconds="+c.timeout).unstructured("PrometheusRule")
			if len(rules) != 1 {
				t.Fatalf("%d PrometheusRules", len(rules))
			}
			var expr, description string
			groups, _, _ := unstructured.NestedSlice(rules[0].Object, "spec", "groups")
			for _, g := range groups {
				rs, _, _ := unstructured.NestedSlice(g.(map[string]interface{}), "rules")
				for _, r := range rs {
					if rule := r.(map[string]interface{}); rule["alert"] == "ClaimbridgeValidationLatencyHigh" {
						expr, _ = rule["expr"].(string)
						description, _, _ = unstructured.NestedString(rule, "annotations", "description")
					}
				}
			}
			if !strings.HasSuffix(expr, c.threshold) || !strings.Contains(description, "at "+c.timeout+"s the apiserver gives up") {
				t.Errorf("webhook.timeoutSeconds=%s: ClaimbridgeValidationLatencyHigh expr %q, description %q; want %q and the timeout", c.timeout, expr, description, c.threshold)
			}
		}
	})
	// Secure metrics: Prometheus' own token file by default, or a token from
	// a Secret (authorization) where file access is denied.
	t.Run("service-monitor-token", func(t *testing.T) {
		for _, c := range []struct {
			sets      []string
			tokenFile string
			secret    map[string]interface{}
		}{
			{nil, "/var/run/secrets/kubernetes.io/serviceaccount/token", nil},
			{[]string{"serviceMonitor.bearerTokenSecret.name=prom-token"}, "",
				map[string]interface{}{"type": "Bearer", "credentials": map[string]interface{}{"name": "prom-token", "key": "token"}}},
			{[]string{"serviceMonitor.bearerTokenSecret.name=prom-token", "serviceMonitor.bearerTokenSecret.key=jwt"}, "",
				map[string]interface{}{"type": "Bearer", "credentials": map[string]interface{}{"name": "prom-token", "key": "jwt"}}},
		} {
			sm := helmTemplate(t, append([]string{"serviceMonitor.enabled=true"}, c.sets...)...).unstructured("ServiceMonitor")
			if len(sm) != 1 {
				t.Fatalf("--set %v: %d ServiceMonitors", c.sets, len(sm))
			}
			eps, _, _ := unstructured.NestedSlice(sm[0].Object, "spec", "endpoints")
			ep := eps[0].(map[string]interface{})
			file, _, _ := unstructured.NestedString(ep, "bearerTokenFile")
			auth, _, _ := unstructured.NestedMap(ep, "authorization")
			if file != c.tokenFile {
				t.Errorf("--set %v: bearerTokenFile %q, want %q", c.sets, file, c.tokenFile)
			}
			if diff := cmp.Diff(c.secret, auth); diff != "" {
				t.Errorf("--set %v: authorization (-want +got):\n%s", c.sets, diff)
			}
		}
	})
	// The Prometheus operator labels every sample of a ServiceMonitor
	// endpoint endpoint=<port name>; Prometheus renames a sample's own
	// endpoint label ("/convert") to exported_endpoint unless honorLabels,
	// then applies metricRelabelings. The alerts and the dashboard select
	// and group by the server's endpoint.
	t.Run("service-monitor-keeps-endpoint-label", func(t *testing.T) {
		sm := helmTemplate(t, "serviceMonitor.enabled=true").unstructured("ServiceMonitor")
		if len(sm) != 1 {
			t.Fatalf("%d ServiceMonitors", len(sm))
		}
		eps, _, _ := unstructured.NestedSlice(sm[0].Object, "spec", "endpoints")
		ep := eps[0].(map[string]interface{})
		port, _ := ep["port"].(string)
		honor, _ := ep["honorLabels"].(bool)
		sample := map[string]string{"__name__": "claimbridge_webhook_requests_total", "endpoint": "/convert", "result": "failure"}
		for k, v := range map[string]string{"endpoint": port, "namespace": "claimbridge-system", "job": "claimbridge-webhook", "pod": "claimbridge-0"} {
			if old, ok := sample[k]; ok && !honor {
				sample["exported_"+k] = old
			} else if ok {
				continue
			}
			sample[k] = v
		}
		relabelings, _, _ := unstructured.NestedSlice(ep, "metricRelabelings")
		got := metricRelabel(t, sample, relabelings)
		want := map[string]string{"__name__": "claimbridge_webhook_requests_total", "endpoint": "/convert", "result": "failure",
			"namespace": "claimbridge-system", "job": "claimbridge-webhook", "pod": "claimbridge-0"}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("labels of a sample scraped through the ServiceMonitor (-want +got):\n%s", diff)
		}
	})
	t.Run("pod-disruption-budget", func(t *testing.T) {
		for _, c := range []struct {
			sets []string
			want int // PodDisruptionBudgets rendered
		}{
			{[]string{"replicaCount=1", "podDisruptionBudget.enabled=false"}, 0},
			{[]string{"replicaCount=3", "podDisruptionBudget.minAvailable=2"}, 1},
			{[]string{"podDisruptionBudget.minAvailable=50%"}, 1},
			{[]string{"autoscaling.enabled=true", "autoscaling.minReplicas=3", "podDisruptionBudget.minAvailable=2"}, 1},
		} {
			if n := len(helmTemplate(t, c.sets...).byKind["PodDisruptionBudget"]); n != c.want {
				t.Errorf("--set %s: %d PodDisruptionBudgets, want %d", strings.Join(c.sets, " --set "), n, c.want)
			}
		}
	})
	// The CRDs hold every claim: helm uninstall must not delete them unless
	// asked to (crds.keep=false).
	t.Run("crds-keep", func(t *testing.T) {
		for _, c := range []struct {
			sets []string
			keep bool
		}{
			{nil, true},
			{[]string{"certificates.mode=cert-manager"}, true},
			{[]string{"crds.keep=false"}, false},
		} {
			crds := helmTemplate(t, c.sets...).byKind["CustomResourceDefinition"]
			if len(crds) != 2 {
				t.Fatalf("--set %v: %d CRDs, want 2", c.sets, len(crds))
			}
			for _, o := range crds {
				a := (&unstructuredObj{o}).annotations()
				if got := a["helm.sh/resource-policy"] == "keep"; got != c.keep {
					t.Errorf("--set %v: CRD %s annotations %v: resource-policy keep %v, want %v", c.sets, nameOf(o), a, got, c.keep)
				}
				if a["controller-gen.kubebuilder.io/version"] == nil {
					t.Errorf("--set %v: CRD %s lost the generated annotations: %v", c.sets, nameOf(o), a)
				}
			}
		}
	})
	// cert-manager creates its Secret and keeps it when the Certificate is
	// deleted: a self-managed Secret of the same name could not be created by
	// the upgrade that switches modes, so the modes use different names.
	t.Run("secret-per-mode", func(t *testing.T) {
		selfManaged := helmTemplate(t, "serviceMonitor.enabled=true")
		certManager := helmTemplate(t, "certificates.mode=cert-manager", "serviceMonitor.enabled=true")
		var secret corev1.Secret
		selfManaged.one(t, "Secret", &secret)
		serving := servingCertificate(t, certManager)
		certSecret, _, _ := unstructured.NestedString(serving.Object, "spec", "secretName")
		if certSecret == secret.Name {
			t.Errorf("cert-manager's Secret and the self-managed Secret are both %q", certSecret)
		}
		for _, c := range []struct {
			r    rendered
			want string
		}{{selfManaged, secret.Name}, {certManager, certSecret}} {
			sm := c.r.unstructured("ServiceMonitor")
			if len(sm) != 1 {
				t.Fatalf("%d ServiceMonitors", len(sm))
			}
			eps, _, _ := unstructured.NestedSlice(sm[0].Object, "spec", "endpoints")
			name, _, _ := unstructured.NestedString(eps[0].(map[string]interface{}), "tlsConfig", "ca", "secret", "name")
			if name != c.want {
				t.Errorf("ServiceMonitor reads the CA from Secret %q, want %q", name, c.want)
			}
		}
	})
	t.Run("bad-values", func(t *testing.T) {
		for _, c := range []struct{ set, want string }{
			// values.schema.json: types, enums, ranges and unknown keys.
			{"certificates.mode=vault", "at '/certificates/mode': value must be one of 'self-managed', 'cert-manager'"},
			{"webhook.failurePolicy=Maybe", "at '/webhook/failurePolicy': value must be one of 'Fail', 'Ignore'"},
			{"webhook.timeoutSeconds=31", "at '/webhook/timeoutSeconds': maximum: got 31, want 30"},
			{"webhook.timeoutSecond=3", "at '/webhook': additional properties 'timeoutSecond' not allowed"},
			{"replicacount=3", "at '': additional properties 'replicacount' not allowed"},
			{"replicaCount=two", "at '/replicaCount': got string, want integer"},
			{"certificates.selfManaged.duration=1y", "at '/certificates/selfManaged/duration': '1y' does not match pattern"},
			{"certificates.selfManaged.restrictToken=yes", "at '/certificates/selfManaged/restrictToken': value must be one of"},
			{"extraArgs[0]=--cert-dir=/tmp", `extraArgs "--cert-dir=/tmp": the chart sets --cert-dir itself`},
			{"extraArgs[0]=max-in-flight=8", `extraArgs "max-in-flight=8": each entry is one flag`},
			{"autoscaling.enabled=true,autoscaling.maxReplicas=1", "autoscaling.maxReplicas"},
			{"autoscaling.enabled=true,autoscaling.minReplicas=0", "at '/autoscaling/minReplicas': minimum: got 0, want 1"},
			// A PodDisruptionBudget no eviction can satisfy hangs every node drain.
			{"replicaCount=1", "podDisruptionBudget.minAvailable 1 with replicaCount 1"},
			{"replicaCount=3,podDisruptionBudget.minAvailable=3", "podDisruptionBudget.minAvailable 3 with replicaCount 3"},
			{"podDisruptionBudget.minAvailable=100%", "podDisruptionBudget.minAvailable 100% with replicaCount 2"},
			{"autoscaling.enabled=true,autoscaling.minReplicas=1", "podDisruptionBudget.minAvailable 1 with autoscaling.minReplicas 1"},
			// Flags whose values the Deployment's ports, probes and certificates depend on.
			{"extraArgs[0]=--port=8443", `extraArgs "--port=8443": the chart sets --port itself`},
			{"extraArgs[0]=--health-probe-bind-address=0", "the chart sets --health-probe-bind-address itself"},
			{"extraArgs[0]=--tls-cert-file=/x", "the chart sets --tls-cert-file itself"},
			{"extraArgs[0]=--cert-inject-crd=x", "the chart sets --cert-inject-crd itself"},
			// Passed by the chart with the token policy it renders (the default).
			{"extraArgs[0]=--token-policy-check-interval=1m", "the chart sets --token-policy-check-interval itself when it renders the token policy"},
			// Two listeners on one port would crash-loop the pod.
			{"metrics.port=8081", "health.port and metrics.port are both 8081: the webhook, the health probes and the metrics each need a port of their own"},
			{"metrics.port=9443", "metrics.port and webhook.port are both 9443: the webhook, the health probes and the metrics each need a port of their own"},
			{"health.port=9443", "health.port and webhook.port are both 9443: the webhook, the health probes and the metrics each need a port of their own"},
			{"webhook.port=10250,health.port=10250", "health.port and webhook.port are both 10250"},
			// A host-network pod shares the node's ports with the kubelet and kube-proxy.
			{"hostNetwork=true,webhook.port=10250", "webhook.port 10250 with hostNetwork: the pod shares the node's ports, and 10250 is the kubelet's API; pick another"},
			{"hostNetwork=true,health.port=10248", "health.port 10248 with hostNetwork: the pod shares the node's ports, and 10248 is the kubelet's healthz; pick another"},
			{"hostNetwork=true,metrics.port=10249", "metrics.port 10249 with hostNetwork: the pod shares the node's ports, and 10249 is kube-proxy's metrics; pick another"},
			{"hostNetwork=true,webhook.port=10256", "webhook.port 10256 with hostNetwork: the pod shares the node's ports, and 10256 is kube-proxy's healthz"},
			{"hostNetwork=true,webhook.port=10255", "webhook.port 10255 with hostNetwork: the pod shares the node's ports, and 10255 is the kubelet's read-only port"},
			{"webhook.port=0", "at '/webhook/port': minimum: got 0, want 1"},
			{"health.port=65536", "at '/health/port': maximum: got 65,536, want 65,535"},
			{"health.probe=8081", "at '/health': additional properties 'probe' not allowed"},
			{"hostNetwork=yes", "at '/hostNetwork': got string, want boolean"},
			// podLabels cannot move the pods out of their own selector.
			{"podLabels.app\\.kubernetes\\.io/name=x", `podLabels "app.kubernetes.io/name": the chart sets this label itself`},
			{"podLabels.app\\.kubernetes\\.io/component=x", `podLabels "app.kubernetes.io/component": the chart sets this label itself`},
			{"podLabels.team=1", "at '/podLabels/team': got number, want string"},
			{"podAnnotations.sidecar\\.istio\\.io/inject=false", "at '/podAnnotations/sidecar.istio.io~1inject': got boolean, want string"},
			{"serviceAccount.name=x", "at '/serviceAccount': additional properties 'name' not allowed"},
			// Names become DNS labels and name prefixes.
			{"fullnameOverride=CB_hooks", "at '/fullnameOverride': 'CB_hooks' does not match pattern"},
			{"fullnameOverride=" + strings.Repeat("a", 51), "at '/fullnameOverride': maxLength: got 51, want 50"},
			{"nameOverride=-x", "at '/nameOverride': '-x' does not match pattern"},
			{"terminationGracePeriodSeconds=0", "at '/terminationGracePeriodSeconds': minimum: got 0, want 1"},
			{"image.digest=sha256:abc", "at '/image/digest': 'sha256:abc' does not match pattern"},
			{"image.digest=" + strings.Repeat("a", 64), "at '/image/digest'"},
		} {
			root := repoRoot(t)
			cmd := exec.Command(os.Getenv("HELM"), "template", "claimbridge", "charts/claimbridge", "--namespace", wantNamespace, "--set", c.set)
			cmd.Dir = root
			out, err := cmd.CombinedOutput()
			if err == nil || !strings.Contains(string(out), c.want) {
				t.Errorf("--set %s: err %v, output %s; want an error naming the value (%s)", c.set, err, out, c.want)
			}
		}
		// Self-managed, the pod lists every Secret of its namespace: not
		// in a shared one. With cert-manager it mounts no token.
		for _, c := range []struct {
			namespace, mode string
			refused         bool
		}{
			{"default", "self-managed", true},
			{"kube-system", "self-managed", true},
			{"default", "cert-manager", false},
			{"dra-bridge", "self-managed", false},
		} {
			cmd := exec.Command(os.Getenv("HELM"), "template", "claimbridge", "charts/claimbridge", "--namespace", c.namespace, "--set", "certificates.mode="+c.mode)
			cmd.Dir = repoRoot(t)
			out, err := cmd.CombinedOutput()
			want := fmt.Sprintf("namespace %q: with certificates.mode=self-managed the server's ServiceAccount may update the cluster's claimbridge CRDs and webhook configurations", c.namespace)
			if refused := err != nil && strings.Contains(string(out), want); refused != c.refused || (err != nil) != c.refused {
				t.Errorf("--namespace %s, %s: err %v, output %.300s; want refused %v", c.namespace, c.mode, err, out, c.refused)
			}
		}
	})
}

// TestChartCRDsMatchGenerated: the chart ships copies of config/crd/bases.
func TestChartCRDsMatchGenerated(t *testing.T) {
	root := repoRoot(t)
	gen, err := filepath.Glob(filepath.Join(root, "config", "crd", "bases", "*.yaml"))
	if err != nil || len(gen) == 0 {
		t.Fatalf("no generated CRDs: %v", err)
	}
	chart, _ := filepath.Glob(filepath.Join(root, "charts", "claimbridge", "files", "crds", "*.yaml"))
	base := func(ps []string) []string {
		var out []string
		for _, p := range ps {
			out = append(out, filepath.Base(p))
		}
		return out
	}
	if diff := cmp.Diff(base(gen), base(chart)); diff != "" {
		t.Fatalf("chart CRD files (-want +got):\n%s", diff)
	}
	for _, p := range gen {
		a, _ := os.ReadFile(p)
		b, _ := os.ReadFile(filepath.Join(root, "charts", "claimbridge", "files", "crds", filepath.Base(p)))
		if !bytes.Equal(a, b) {
			t.Errorf("charts/claimbridge/files/crds/%s differs from config/crd/bases: run `make generate`", filepath.Base(p))
		}
	}
}

// metricRelabel applies a ServiceMonitor's metricRelabelings to a sample's
// labels as Prometheus does (actions replace and labeldrop; regexes
// anchored).
func metricRelabel(t *testing.T, labels map[string]string, configs []interface{}) map[string]string {
	t.Helper()
	out := maps.Clone(labels)
	for _, c := range configs {
		c := c.(map[string]interface{})
		str := func(key, def string) string {
			if v, ok := c[key].(string); ok {
				return v
			}
			return def
		}
		re := regexp.MustCompile("^(?:" + str("regex", "(.*)") + ")$")
		switch action := str("action", "replace"); action {
		case "replace":
			var vals []string
			src, _ := c["sourceLabels"].([]interface{})
			for _, l := range src {
				vals = append(vals, out[l.(string)])
			}
			val := strings.Join(vals, str("separator", ";"))
			m := re.FindStringSubmatchIndex(val)
			if m == nil {
				continue
			}
			target := str("targetLabel", "")
			if v := string(re.ExpandString(nil, str("replacement", "$1"), val, m)); v != "" {
				out[target] = v
			} else {
				delete(out, target)
			}
		case "labeldrop":
			for l := range out {
				if re.MatchString(l) {
					delete(out, l)
				}
			}
		default:
			t.Fatalf("metricRelabelings: action %q not simulated", action)
		}
	}
	return out
}
