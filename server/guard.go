package server

import (
	"context"
	"fmt"

	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/cluster"
	"github.com/claimbridge/claimbridge/migrate"
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
	live, read, err := cl.Settings(ctx)
	if err != nil {
		return nil, fmt.Errorf("--guard: %w", err)
	}
	to := o.GuardTo
	if to == "" {
		to = fmt.Sprintf("1.%d", live.Minor+1)
	}
	target, err := migrate.TargetOf(to)
	if err != nil {
		return nil, fmt.Errorf("--guard-to %w", err)
	}
	beyond, _ := api.ParseMinor(target.Releases) // 38 when 1.37's rules judge 1.38
	if beyond == target.Minor {
		beyond = 0
	}
	c := live.On(target.Minor)
	if err := c.Set(o.GuardFeatureGates, o.GuardRuntimeConfig); err != nil {
		return nil, fmt.Errorf("--guard-feature-gates, --guard-runtime-config: %w", err)
	}
	name := target.Releases
	log := ctrl.LoggerFrom(ctx)
	if !read {
		log.Info("The cluster's feature gates cannot be read (GET /metrics is forbidden): the guard assumes the release's defaults", "rule", cluster.MetricsRule)
	}
	log.Info("Upgrade guard", "cluster", fmt.Sprintf("1.%d", live.Minor), "guards", name, "settings", c.SettingsString(), "enforce", o.GuardEnforce)
	return &webhook.Guard{Release: name, Enforce: o.GuardEnforce, Judge: func(obj map[string]interface{}) ([]string, []string) {
		return o.Judge(obj, c, beyond)
	}}, nil
}
