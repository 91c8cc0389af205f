package server

import (
	"context"
	"fmt"

	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/cluster"
	"github.com/claimbridge/claimbridge/webhook"
)

// guard is the upgrade guard: the release it guards for (--guard-to, else
// the one after the cluster's) with the feature gates and served versions
// the cluster runs with, as an upgrade keeps the apiserver's flags, then
// --guard-feature-gates and --guard-runtime-config; judged as validate
// --to judges.
func (o *Options) guard(ctx context.Context, restConfig *rest.Config) (*webhook.Guard, error) {
	cl, err := cluster.ForConfig(restConfig)
	if err != nil {
		return nil, err
	}
	release, err := cl.Release()
	if err != nil {
		return nil, fmt.Errorf("--guard: %w", err)
	}
	minor, _ := api.ParseMinor(release)
	live := api.Defaults(minor)
	read, err := cl.Settings(ctx, &live)
	if err != nil {
		return nil, fmt.Errorf("--guard: %w", err)
	}
	to := o.GuardTo
	if to == "" {
		to = fmt.Sprintf("1.%d", minor+1)
	}
	target, beyond := 0, 0
	if r, ok := api.ParseRelease(to); ok {
		target = r.Minor
	} else if newest, next, ok := api.ParseNext(to); ok {
		target, beyond = newest.Minor, next
	} else {
		return nil, fmt.Errorf("--guard-to %q: not a release claimbridge can judge by (%s, and %s)", to, api.ReleaseRange(), api.Next())
	}
	c := live.On(target)
	if err := c.SetFeatureGates(o.GuardFeatureGates); err != nil {
		return nil, fmt.Errorf("--guard-feature-gates: %w", err)
	}
	if err := c.SetRuntimeConfig(o.GuardRuntimeConfig); err != nil {
		return nil, fmt.Errorf("--guard-runtime-config: %w", err)
	}
	if err := c.Validate(); err != nil {
		return nil, fmt.Errorf("--guard-feature-gates: %w", err)
	}
	name := fmt.Sprintf("1.%d", max(target, beyond))
	log := ctrl.LoggerFrom(ctx)
	if !read {
		log.Info("The cluster's feature gates cannot be read (GET /metrics is forbidden): the guard assumes the release's defaults", "rule", cluster.MetricsRule)
	}
	log.Info("Upgrade guard", "cluster", release, "guards", name, "settings", c.SettingsString(), "enforce", o.GuardEnforce)
	return &webhook.Guard{Release: name, Enforce: o.GuardEnforce, Judge: func(obj map[string]interface{}) ([]string, []string) {
		return o.Judge(obj, c, beyond)
	}}, nil
}
