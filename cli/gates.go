package cli

import (
	"context"
	"fmt"
	"io"

	"github.com/claimbridge/claimbridge/cluster"
)

// readLive is a live cluster as it runs (cluster.Settings); notes say what
// of it is not read, and the older releases it emulates or stores for.
func readLive(cl *cluster.Cluster, quiet bool, notes io.Writer) (cluster.Live, error) {
	live, err := cl.Settings(context.Background())
	if err != nil || quiet {
		return live, err
	}
	if !live.GatesRead {
		fmt.Fprintf(notes, "note: the cluster's feature gates cannot be read (GET /metrics is forbidden): the defaults of Kubernetes 1.%d are assumed; "+
			"to read them, give claimbridge the RBAC rule %s, or name them with --feature-gates\n", live.Minor, cluster.MetricsRule)
	}
	if live.Binary != live.Minor {
		fmt.Fprintf(notes, "note: the cluster's kube-apiserver 1.%d emulates Kubernetes 1.%d (--emulated-version): it is judged as 1.%d\n", live.Binary, live.Minor, live.Minor)
	}
	if live.Compatible < live.Minor-1 {
		fmt.Fprintf(notes, "note: the cluster keeps what it stores readable by Kubernetes 1.%d (--min-compatibility-version): its objects are judged as stored for it\n", live.Compatible)
	}
	return live, nil
}
