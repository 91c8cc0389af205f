//go:build envtest

package manifests

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
)

const vapServed = "--api-versions=admissionregistration.k8s.io/v1/ValidatingAdmissionPolicy"

// tokenPolicy returns the rendered ValidatingAdmissionPolicy and its
// binding, checking that the binding names the policy, denies, and that the
// policy's match condition names the ServiceAccount the Deployment runs as.
func tokenPolicy(t *testing.T, r rendered) admissionregistrationv1.ValidatingAdmissionPolicy {
	t.Helper()
	var policy admissionregistrationv1.ValidatingAdmissionPolicy
	r.one(t, "ValidatingAdmissionPolicy", &policy)
	var binding admissionregistrationv1.ValidatingAdmissionPolicyBinding
	r.one(t, "ValidatingAdmissionPolicyBinding", &binding)
	if binding.Spec.PolicyName != policy.Name || !cmp.Equal(binding.Spec.ValidationActions, []admissionregistrationv1.ValidationAction{admissionregistrationv1.Deny}) {
		t.Errorf("binding %s: policyName %q, actions %v; want the policy %q with Deny", binding.Name, binding.Spec.PolicyName, binding.Spec.ValidationActions, policy.Name)
	}
	var deploy appsv1.Deployment
	r.one(t, "Deployment", &deploy)
	want := fmt.Sprintf("request.userInfo.username == 'system:serviceaccount:' + '%s' + ':' + '%s'", deploy.Namespace, deploy.Spec.Template.Spec.ServiceAccountName)
	if len(policy.Spec.MatchConditions) != 1 || policy.Spec.MatchConditions[0].Expression != want {
		t.Errorf("policy %s: match conditions %+v, want only %q (the Deployment's ServiceAccount)", policy.Name, policy.Spec.MatchConditions, want)
	}
	return policy
}

// TestTokenPolicy: both self-managed installs restrict the server's
// ServiceAccount to injecting the CA with the same policy (its behaviour is
// tested against a real kube-apiserver in test/envtest/selfmanaged, with the
// chart's), naming their own ServiceAccount, also in an overlay that moves
// the kustomize install to another namespace and prefix; the chart renders it
// by default, with auto when the cluster serves ValidatingAdmissionPolicy.
func TestTokenPolicy(t *testing.T) {
	chart := tokenPolicy(t, helmTemplate(t))
	kustomized := tokenPolicy(t, build(t, "config/self-managed"))
	chart.Spec.MatchConditions, kustomized.Spec.MatchConditions = nil, nil // each names its own ServiceAccount, checked above
	if diff := cmp.Diff(chart.Spec, kustomized.Spec); diff != "" {
		t.Errorf("config/self-managed/token-policy.yaml and the chart's templates/tokenpolicy.yaml differ (-chart +kustomize):\n%s", diff)
	}

	if p := tokenPolicy(t, build(t, movedOverlay(t, "config/self-managed", "config/wiring/self-managed"))); p.Name != "team-claimbridge-ca-injection-only" {
		t.Errorf("policy %q in the overlay, want team-claimbridge-ca-injection-only", p.Name)
	}

	// The server checks the policy it is installed with.
	if got := checkInterval(t, build(t, "config/self-managed")); got != "5m" {
		t.Errorf("config/self-managed: --token-policy-check-interval %q, want 5m", got)
	}

	for _, c := range []struct {
		name     string
		sets     []string
		want     int    // policies (and bindings) rendered
		interval string // --token-policy-check-interval passed ("" none)
	}{
		{"default", nil, 1, "5m"},
		{"auto-served", []string{"certificates.selfManaged.restrictToken=auto", vapServed}, 1, "5m"},
		{"auto-not-served", []string{"certificates.selfManaged.restrictToken=auto"}, 0, ""}, // helm template without a cluster
		{"false", []string{"certificates.selfManaged.restrictToken=false", vapServed}, 0, ""},
		{"cert-manager", []string{"certificates.mode=cert-manager", "metrics.secure=false", vapServed}, 0, ""}, // no token
		{"interval", []string{"certificates.selfManaged.tokenPolicyCheckInterval=1h"}, 1, "1h"},
		{"check-off", []string{"certificates.selfManaged.tokenPolicyCheckInterval=0s"}, 1, "0s"},
		// Without the chart's policy (an administrator's own), extraArgs may pass it.
		{"false-extra-args", []string{"certificates.selfManaged.restrictToken=false", "extraArgs[0]=--token-policy-check-interval=1m"}, 0, "1m"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := helmTemplate(t, c.sets...)
			if got := len(r.byKind["ValidatingAdmissionPolicy"]) + len(r.byKind["ValidatingAdmissionPolicyBinding"]); got != 2*c.want {
				t.Errorf("%d policies and bindings, want %d", got, 2*c.want)
			}
			// The chart checks the policy exactly when it renders it.
			if got := checkInterval(t, r); got != c.interval {
				t.Errorf("--token-policy-check-interval %q, want %q", got, c.interval)
			}
		})
	}
}

// checkInterval is the value of --token-policy-check-interval the
// Deployment's container passes ("" when it passes none), failing the test
// if it is given twice.
func checkInterval(t *testing.T, r rendered) string {
	t.Helper()
	var deploy appsv1.Deployment
	r.one(t, "Deployment", &deploy)
	var got []string
	for _, a := range deploy.Spec.Template.Spec.Containers[0].Args {
		if v, ok := strings.CutPrefix(a, "--token-policy-check-interval="); ok {
			got = append(got, v)
		}
	}
	if len(got) > 1 {
		t.Errorf("--token-policy-check-interval given %d times: %q", len(got), got)
	}
	return strings.Join(got, ",")
}
