package webhook

import (
	"testing"
)

// tokenPolicyGauge returns claimbridge_token_policy_enforced as gathered
// from s's registry, and whether it is exported.
func tokenPolicyGauge(t *testing.T, s *Server) (float64, bool) {
	t.Helper()
	families, err := s.metrics.registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() == "claimbridge_token_policy_enforced" {
			if len(f.GetMetric()) != 1 {
				t.Fatalf("%d series of claimbridge_token_policy_enforced, want 1", len(f.GetMetric()))
			}
			return f.GetMetric()[0].GetGauge().GetValue(), true
		}
	}
	return 0, false
}

// TestTokenPolicyGauge: with Config.TokenPolicyGauge the gauge is exported
// at -1 (unknown) before any verdict and then shows each verdict; without
// it the gauge is not exported and a verdict changes nothing.
func TestTokenPolicyGauge(t *testing.T) {
	cfg := testConfig(t.TempDir())
	cfg.TokenPolicyGauge = true
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if v, ok := tokenPolicyGauge(t, s); !ok || v != -1 {
		t.Errorf("before a verdict: %v (exported %v), want -1", v, ok)
	}
	for _, want := range []float64{1, 0, -1, 1} {
		s.SetTokenPolicyEnforced(want)
		if v, ok := tokenPolicyGauge(t, s); !ok || v != want {
			t.Errorf("after verdict %v: %v (exported %v)", want, v, ok)
		}
	}

	off, err := New(testConfig(t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	off.SetTokenPolicyEnforced(1)
	if v, ok := tokenPolicyGauge(t, off); ok {
		t.Errorf("without the check: exported at %v, want absent", v)
	}
}
