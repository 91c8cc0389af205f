//go:build envtest

package manifests

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// The chart values that fit it to the clusters operators run
// (docs/operations.md, "Ports, host network, names"): the container ports,
// hostNetwork, the pods' metadata and the names.

// portView is every place a port of the chart's pods appears, resolved to
// its number.
type portView struct {
	PortArg, HealthArg      string  // --port and --health-probe-bind-address
	Webhook, Health, Metric int32   // container ports by name (0: none)
	ServiceHTTPS            int32   // the Service's port 443, resolved to a container port
	ServiceMetrics          int32   // the Service's metrics port, resolved
	Probes                  []int32 // startup, liveness, readiness
	NetworkPolicy           []int32 // every ingress port, in order
}

func portsOf(t *testing.T, r rendered) portView {
	t.Helper()
	var d appsv1.Deployment
	r.one(t, "Deployment", &d)
	c := d.Spec.Template.Spec.Containers[0]
	v := portView{PortArg: flagValue(c.Args, "--port"), HealthArg: flagValue(c.Args, "--health-probe-bind-address")}
	for _, p := range c.Ports {
		switch p.Name {
		case "webhook":
			v.Webhook = p.ContainerPort
		case "health":
			v.Health = p.ContainerPort
		case "metrics":
			v.Metric = p.ContainerPort
		}
	}
	var svc corev1.Service
	r.one(t, "Service", &svc)
	for _, p := range svc.Spec.Ports {
		switch {
		case p.Port == 443:
			v.ServiceHTTPS = resolvePort(t, &d, p.TargetPort)
		case p.Name == "metrics":
			v.ServiceMetrics = resolvePort(t, &d, p.TargetPort)
		}
	}
	for _, p := range []*corev1.Probe{c.StartupProbe, c.LivenessProbe, c.ReadinessProbe} {
		if p != nil {
			v.Probes = append(v.Probes, resolvePort(t, &d, p.HTTPGet.Port))
		}
	}
	var np networkingv1.NetworkPolicy
	r.one(t, "NetworkPolicy", &np)
	for _, rule := range np.Spec.Ingress {
		for _, p := range rule.Ports {
			v.NetworkPolicy = append(v.NetworkPolicy, resolvePort(t, &d, *p.Port))
		}
	}
	return v
}

// TestChartPorts: webhook.port and health.port move the listeners, and the
// container ports, the Service's target, the probes and the NetworkPolicy
// follow; the Service keeps 443, the port the webhook configurations and
// CRDs call.
func TestChartPorts(t *testing.T) {
	for _, c := range []struct {
		name string
		sets []string
		want portView
	}{
		{"defaults", nil, portView{"9443", ":8081", 9443, 8081, 8080, 9443, 8080, []int32{8081, 8081, 8081}, []int32{9443, 8080}}},
		// GKE private clusters: the control plane reaches nodes on 10250.
		{"gke", []string{"webhook.port=10250", "health.port=9440", "metrics.port=9090"},
			portView{"10250", ":9440", 10250, 9440, 9090, 10250, 9090, []int32{9440, 9440, 9440}, []int32{10250, 9090}}},
		{"host-network", []string{"hostNetwork=true", "webhook.port=9543", "health.port=9541", "metrics.port=9542"},
			portView{"9543", ":9541", 9543, 9541, 9542, 9543, 9542, []int32{9541, 9541, 9541}, []int32{9543, 9542}}},
		{"cert-manager-no-metrics", []string{"certificates.mode=cert-manager", "metrics.enabled=false", "webhook.port=8443"},
			portView{"8443", ":8081", 8443, 8081, 0, 8443, 0, []int32{8081, 8081}, []int32{8443}}},
		// `helm upgrade --reuse-values` from a release of a chart without
		// the values: the old ports, never --port=0 (a random port).
		{"values-of-an-older-release", []string{"webhook.port=null", "health=null"},
			portView{"9443", ":8081", 9443, 8081, 8080, 9443, 8080, []int32{8081, 8081, 8081}, []int32{9443, 8080}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if diff := cmp.Diff(c.want, portsOf(t, helmTemplate(t, c.sets...))); diff != "" {
				t.Errorf("--set %v (-want +got):\n%s", c.sets, diff)
			}
		})
	}
}

// TestChartHostNetwork: hostNetwork runs the pods in the node's network
// with the cluster's DNS still first.
func TestChartHostNetwork(t *testing.T) {
	for _, c := range []struct {
		sets        []string
		hostNetwork bool
		dnsPolicy   corev1.DNSPolicy
	}{
		{nil, false, ""},
		{[]string{"hostNetwork=false"}, false, ""},
		{[]string{"hostNetwork=true"}, true, corev1.DNSClusterFirstWithHostNet},
	} {
		var d appsv1.Deployment
		helmTemplate(t, c.sets...).one(t, "Deployment", &d)
		pod := d.Spec.Template.Spec
		if pod.HostNetwork != c.hostNetwork || pod.DNSPolicy != c.dnsPolicy {
			t.Errorf("--set %v: hostNetwork %v, dnsPolicy %q; want %v, %q", c.sets, pod.HostNetwork, pod.DNSPolicy, c.hostNetwork, c.dnsPolicy)
		}
	}
}

// TestChartPodMetadata: podAnnotations and podLabels go on the pods only,
// beside the selector labels; serviceAccount.annotations on the
// ServiceAccount.
func TestChartPodMetadata(t *testing.T) {
	selector := map[string]string{
		"app.kubernetes.io/name":      "claimbridge",
		"app.kubernetes.io/instance":  "claimbridge",
		"app.kubernetes.io/component": "webhook",
	}
	withTeam := map[string]string{"team": "dra", "app.kubernetes.io/name": "claimbridge", "app.kubernetes.io/instance": "claimbridge", "app.kubernetes.io/component": "webhook"}
	for _, c := range []struct {
		name               string
		sets               []string
		podAnnotations     map[string]string
		podLabels          map[string]string
		accountAnnotations map[string]string
	}{
		{"defaults", nil, nil, selector, nil},
		{"istio", []string{"--set-string=podAnnotations.sidecar\\.istio\\.io/inject=false", "podLabels.team=dra",
			"serviceAccount.annotations.iam\\.gke\\.io/gcp-service-account=cb@p.iam.gserviceaccount.com"},
			map[string]string{"sidecar.istio.io/inject": "false"}, withTeam,
			map[string]string{"iam.gke.io/gcp-service-account": "cb@p.iam.gserviceaccount.com"}},
		// serviceAccount absent: a --reuse-values upgrade from an older chart.
		{"values-of-an-older-release", []string{"serviceAccount=null", "podLabels=null", "podAnnotations=null"}, nil, selector, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := helmTemplate(t, c.sets...)
			var d appsv1.Deployment
			r.one(t, "Deployment", &d)
			var sa corev1.ServiceAccount
			r.one(t, "ServiceAccount", &sa)
			got := []map[string]string{d.Spec.Template.Annotations, d.Spec.Template.Labels, sa.Annotations, d.Spec.Selector.MatchLabels}
			want := []map[string]string{c.podAnnotations, c.podLabels, c.accountAnnotations, selector}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("pod annotations, pod labels, ServiceAccount annotations, selector (-want +got):\n%s", diff)
			}
			if _, ok := d.Labels["team"]; ok {
				t.Errorf("Deployment labels %v: podLabels belong on the pods only", d.Labels)
			}
		})
	}
}

// TestChartNames: nameOverride and fullnameOverride rename every object
// (but the CRDs, whose names are their group's), and every name one object
// or the server's flags give for another follows: the RBAC's resourceNames
// and subjects, --cert-secret, --cert-inject-*, the Service of the webhook
// configurations and CRDs, the inject-ca-from annotations, the token
// policy's ServiceAccount and the alerts' Deployment and scrape job.
func TestChartNames(t *testing.T) {
	for _, c := range []struct {
		sets               []string
		fullname, appLabel string
	}{
		{nil, "claimbridge", "claimbridge"},
		{[]string{"nameOverride=dra-bridge"}, "claimbridge-dra-bridge", "dra-bridge"},
		{[]string{"fullnameOverride=cb-hooks"}, "cb-hooks", "claimbridge"},
		{[]string{"fullnameOverride=cb-hooks", "nameOverride=dra-bridge"}, "cb-hooks", "dra-bridge"},
		{[]string{"fullnameOverride=cb-hooks", "certificates.mode=cert-manager"}, "cb-hooks", "claimbridge"},
	} {
		t.Run(strings.Join(c.sets, ","), func(t *testing.T) {
			r := helmTemplate(t, append([]string{"prometheusRule.enabled=true", "serviceMonitor.enabled=true", "grafanaDashboard.enabled=true", "autoscaling.enabled=true"}, c.sets...)...)
			for kind, objs := range r.byKind {
				if kind == "CustomResourceDefinition" {
					continue
				}
				for _, o := range objs {
					if name := nameOf(o); name != c.fullname && !strings.HasPrefix(name, c.fullname+"-") {
						t.Errorf("%s %s: want the name %s or %s-…", kind, name, c.fullname, c.fullname)
					}
				}
			}
			checkReferences(t, r, wantNamespace, c.fullname+"-")
			checkSelectors(t, r, c.appLabel)
			checkBindings(t, r)
			var d appsv1.Deployment
			r.one(t, "Deployment", &d)
			if d.Spec.Template.Spec.ServiceAccountName != c.fullname {
				t.Errorf("serviceAccountName %q, want %q", d.Spec.Template.Spec.ServiceAccountName, c.fullname)
			}
			if flagValue(d.Spec.Template.Spec.Containers[0].Args, "--cert-mode") == "self-managed" {
				tokenPolicy(t, r) // its match condition names the Deployment's ServiceAccount
			}
			expr := alertExpr(t, r, "ClaimbridgeNoReadyReplica")
			for _, want := range []string{
				fmt.Sprintf(`kube_deployment_status_replicas_available{deployment=~".*%s.*"}`, c.fullname),
				fmt.Sprintf(`absent(up{job=~".*%s.*"} == 1)`, c.fullname), // the job is the Service's name
			} {
				if !strings.Contains(expr, want) {
					t.Errorf("ClaimbridgeNoReadyReplica %q: want %s", expr, want)
				}
			}
		})
	}
}

// checkSelectors: the Deployment, Service, PodDisruptionBudget,
// NetworkPolicy, ServiceMonitor and default spread constraint select the
// pods, whose app.kubernetes.io/name label is appLabel.
func checkSelectors(t *testing.T, r rendered, appLabel string) {
	t.Helper()
	var d appsv1.Deployment
	r.one(t, "Deployment", &d)
	if got := d.Spec.Template.Labels["app.kubernetes.io/name"]; got != appLabel {
		t.Errorf("pods' app.kubernetes.io/name %q, want %q", got, appLabel)
	}
	selects(t, "Deployment", d.Spec.Selector, &d)
	selects(t, "topology spread constraint", d.Spec.Template.Spec.TopologySpreadConstraints[0].LabelSelector, &d)
	var svc corev1.Service
	r.one(t, "Service", &svc)
	if diff := cmp.Diff(d.Spec.Selector.MatchLabels, svc.Spec.Selector); diff != "" {
		t.Errorf("Service selector (-Deployment's +Service's):\n%s", diff)
	}
	var pdb policyv1.PodDisruptionBudget
	if len(r.byKind["PodDisruptionBudget"]) > 0 {
		r.one(t, "PodDisruptionBudget", &pdb)
		selects(t, "PodDisruptionBudget", pdb.Spec.Selector, &d)
	}
	var np networkingv1.NetworkPolicy
	r.one(t, "NetworkPolicy", &np)
	selects(t, "NetworkPolicy", &np.Spec.PodSelector, &d)
	for _, sm := range r.unstructured("ServiceMonitor") {
		labels, _, _ := unstructured.NestedStringMap(sm.Object, "spec", "selector", "matchLabels")
		for k, v := range labels {
			if svc.Labels[k] != v {
				t.Errorf("ServiceMonitor selects %s=%s, the Service has %q", k, v, svc.Labels[k])
			}
		}
	}
	for _, o := range r.byKind["HorizontalPodAutoscaler"] {
		var hpa autoscalingv2.HorizontalPodAutoscaler
		decode(t, o, &hpa)
		if hpa.Spec.ScaleTargetRef.Name != d.Name {
			t.Errorf("HorizontalPodAutoscaler scales %q, want the Deployment %q", hpa.Spec.ScaleTargetRef.Name, d.Name)
		}
	}
}

// checkBindings: every (Cluster)RoleBinding binds the Deployment's
// ServiceAccount to a rendered role.
func checkBindings(t *testing.T, r rendered) {
	t.Helper()
	var d appsv1.Deployment
	r.one(t, "Deployment", &d)
	roles := map[string]bool{}
	for _, kind := range []string{"Role", "ClusterRole"} {
		for _, o := range r.byKind[kind] {
			roles[kind+"/"+nameOf(o)] = true
		}
	}
	for _, kind := range []string{"RoleBinding", "ClusterRoleBinding"} {
		for _, o := range r.byKind[kind] {
			var b rbacv1.ClusterRoleBinding // a RoleBinding decodes alike
			decode(t, o, &b)
			want := []rbacv1.Subject{{Kind: "ServiceAccount", Name: d.Spec.Template.Spec.ServiceAccountName, Namespace: d.Namespace}}
			if diff := cmp.Diff(want, b.Subjects); diff != "" || !roles[b.RoleRef.Kind+"/"+b.RoleRef.Name] {
				t.Errorf("%s %s: role %s/%s (rendered: %v), subjects (-want +got):\n%s", kind, b.Name, b.RoleRef.Kind, b.RoleRef.Name, roles[b.RoleRef.Kind+"/"+b.RoleRef.Name], diff)
			}
		}
	}
}

// alertExpr is the expression of the rendered PrometheusRule's alert.
func alertExpr(t *testing.T, r rendered, alert string) string {
	t.Helper()
	rules := r.unstructured("PrometheusRule")
	if len(rules) != 1 {
		t.Fatalf("%d PrometheusRules, want 1", len(rules))
	}
	groups, _, _ := unstructured.NestedSlice(rules[0].Object, "spec", "groups")
	for _, g := range groups {
		rs, _, _ := unstructured.NestedSlice(g.(map[string]interface{}), "rules")
		for _, rule := range rs {
			if rule.(map[string]interface{})["alert"] == alert {
				expr, _ := rule.(map[string]interface{})["expr"].(string)
				return expr
			}
		}
	}
	t.Fatalf("no alert %s", alert)
	return ""
}
