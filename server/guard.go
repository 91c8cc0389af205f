package server

import (
	"cmp"
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/cluster"
	"github.com/claimbridge/claimbridge/migrate"
	"github.com/claimbridge/claimbridge/webhook"
)

// guardRefresh is how often the guard reads the cluster's settings again:
// after its apiserver restarts with other flags, it guards with those.
var guardRefresh = time.Minute

// guard is the upgrade guard: the release it guards for (--guard-to, else
// the one after the cluster's) with the feature gates and served versions
// the cluster runs with, as an upgrade keeps the apiserver's flags, then
// --guard-feature-gates and --guard-runtime-config; judged as validate
// --to judges. It reads the cluster's settings again every guardRefresh.
func (o *Options) guard(ctx context.Context, restConfig *rest.Config) (*webhook.Guard, error) {
	cl, err := cluster.ForConfig(restConfig)
	if err != nil {
		return nil, err
	}
	live, err := cl.Settings(ctx)
	if err != nil {
		return nil, fmt.Errorf("--guard: %w", err)
	}
	to := cmp.Or(o.GuardTo, fmt.Sprintf("1.%d", max(live.Minor+1, live.Binary)))
	target, err := migrate.TargetOf(to)
	if err != nil {
		return nil, fmt.Errorf("--guard-to %w", err)
	}
	beyond, _ := api.ParseMinor(target.Releases) // 39 when the newest's rules judge 1.39
	if beyond == target.Minor {
		beyond = 0
	}
	settings := func(live cluster.Live) (api.Cluster, error) {
		c, _ := live.Upgrade(target.Minor)
		return c, c.Set(o.GuardFeatureGates, o.GuardRuntimeConfig)
	}
	c, err := settings(live)
	if err != nil {
		return nil, fmt.Errorf("--guard-feature-gates, --guard-runtime-config: %w", err)
	}
	var current atomic.Pointer[api.Cluster]
	current.Store(&c)
	log := ctrl.LoggerFrom(ctx)
	if !live.GatesRead {
		log.Info("The cluster's feature gates cannot be read (GET /metrics is forbidden): the guard assumes the release's defaults", "rule", cluster.MetricsRule)
	}
	log.Info("Upgrade guard", "cluster", fmt.Sprintf("1.%d", live.Minor), "guards", target.Releases, "settings", c.SettingsString(), "enforce", o.GuardEnforce)
	go func() {
		tick := time.NewTicker(guardRefresh)
		defer tick.Stop()
		for ctx.Err() == nil {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			live, err := cl.Settings(ctx)
			var c api.Cluster
			if err == nil {
				c, err = settings(live)
			}
			if err != nil {
				log.Error(err, "Reading the cluster's settings again; the guard keeps those it has")
				continue
			}
			if old := current.Swap(&c); old.SettingsString() != c.SettingsString() {
				log.Info("Upgrade guard: the cluster's settings changed", "guards", target.Releases, "settings", c.SettingsString())
			}
		}
	}()
	return &webhook.Guard{Release: target.Releases, Enforce: o.GuardEnforce, Judge: func(obj map[string]interface{}) ([]string, []string) {
		return o.Judge(obj, *current.Load(), beyond)
	}}, nil
}
