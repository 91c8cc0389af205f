package cli

import (
	"context"
	"fmt"
	"io"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/cluster"
)

// readLive is a live cluster as it runs (cluster.Settings); it says once
// on notes when its gates cannot be read.
func readLive(cl *cluster.Cluster, quiet bool, notes io.Writer) (api.Cluster, error) {
	c, read, err := cl.Settings(context.Background())
	if err == nil && !read && !quiet {
		fmt.Fprintf(notes, "note: the cluster's feature gates cannot be read (GET /metrics is forbidden): the defaults of Kubernetes 1.%d are assumed; "+
			"to read them, give claimbridge the RBAC rule %s, or name them with --feature-gates\n", c.Minor, cluster.MetricsRule)
	}
	return c, err
}
