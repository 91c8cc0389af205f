//go:build envtest

package manifests

import (
	"testing"

	networkingv1 "k8s.io/api/networking/v1"
)

// TestChartWebhookFrom: networkPolicy.webhookFrom restricts the webhook
// port to the peers it names (docs/operations.md, "Who can reach the webhook
// port"); without it the port is open to every source (checkNetworkPolicies).
func TestChartWebhookFrom(t *testing.T) {
	r := helmTemplate(t, "networkPolicy.webhookFrom[0].ipBlock.cidr=10.0.0.0/24")
	found := false
	for _, o := range r.byKind["NetworkPolicy"] {
		var np networkingv1.NetworkPolicy
		decode(t, o, &np)
		for _, rule := range np.Spec.Ingress {
			for _, p := range rule.Ports {
				if p.Port == nil || p.Port.IntValue() != webhookPort {
					continue
				}
				found = true
				if len(rule.From) != 1 || rule.From[0].IPBlock == nil || rule.From[0].IPBlock.CIDR != "10.0.0.0/24" {
					t.Errorf("the webhook port's rule has from %+v, want the one ipBlock 10.0.0.0/24", rule.From)
				}
			}
		}
	}
	if !found {
		t.Error("no NetworkPolicy rule for the webhook port")
	}
}
