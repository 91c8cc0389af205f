//go:build envtest

package manifests

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
)

// probeTiming is the part of a probe that decides whether overload can
// restart a pod or take it out of the Service.
type probeTiming struct {
	InitialDelay, Period, Timeout, Failures int32
}

// TestProbesSurviveOverload checks every install path (both kustomize
// overlays, the chart in both certificate modes) for the probe settings of
// an overloaded server (docs/server.md, "Overload"): liveness fails only after a minute of
// 5s-timeouts, readiness allows a 3s answer.
func TestProbesSurviveOverload(t *testing.T) {
	want := map[string]probeTiming{
		"liveness":  {InitialDelay: 5, Period: 10, Timeout: 5, Failures: 6},
		"readiness": {Period: 5, Timeout: 3, Failures: 2},
	}
	for name, render := range map[string]func(t *testing.T) rendered{
		"config/default":      func(t *testing.T) rendered { return build(t, "config/default") },
		"config/self-managed": func(t *testing.T) rendered { return build(t, "config/self-managed") },
		"chart/self-managed":  func(t *testing.T) rendered { return helmTemplate(t) },
		"chart/cert-manager":  func(t *testing.T) rendered { return helmTemplate(t, "certificates.mode=cert-manager") },
	} {
		t.Run(name, func(t *testing.T) {
			var d appsv1.Deployment
			render(t).one(t, "Deployment", &d)
			c := d.Spec.Template.Spec.Containers[0]
			got := map[string]probeTiming{}
			if p := c.LivenessProbe; p != nil {
				got["liveness"] = probeTiming{p.InitialDelaySeconds, p.PeriodSeconds, p.TimeoutSeconds, p.FailureThreshold}
			}
			if p := c.ReadinessProbe; p != nil {
				got["readiness"] = probeTiming{p.InitialDelaySeconds, p.PeriodSeconds, p.TimeoutSeconds, p.FailureThreshold}
			}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("probes (-want +got):\n%s", d)
			}
		})
	}
}
