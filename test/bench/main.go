// Command bench is claimbridge's end-to-end benchmark (`make bench`): a real
// kube-apiserver and etcd (envtest), the claimbridge server built and run as a
// subprocess, a null conversion webhook as a second subprocess, and N
// v1alpha3 claims with allocations. Blocks of the same operations run
// interleaved, round after round, in three modes:
//
//   - storage: the CRD has no webhook (strategy None) and every operation uses
//     v1alpha3, the storage version;
//   - null: the CRD's webhook is the null webhook (rewrites only apiVersion)
//     and the operations use v1alpha1 and v1alpha2;
//   - claimbridge: the same with claimbridge.
//
// It prints a markdown table of medians over the rounds with the ratios
// claimbridge/null and claimbridge/storage. A second table times status
// writes through v1alpha3 with the conversion off and the admission webhooks
// of each mode: none, the null webhook's, claimbridge's. See
// docs/performance.md. A third table times claim creates in
// resource.k8s.io/v1 at 100 a second without an admission webhook and
// with the upgrade guard (`claimbridge serve --guard`, a second process).
//
// Environment: N (claims, default 2000), ROUNDS (default 3), GETS (per version
// and block, default 200), CREATES (per version and block, default 100),
// STATUS (claims whose status is cycled per status block, default 50),
// SOAK (e.g. 10m: afterwards loop the claimbridge operations this long and
// report RSS, the executable's pages, the Go heap, the cache and goroutines
// at the start, halfway and the end), CLAIMBRIDGE_GOGC and
// CLAIMBRIDGE_GOMEMLIMIT (GOGC and GOMEMLIMIT for the claimbridge process
// only, to measure GC settings), CLAIMBRIDGE_ARGS (more flags for
// claimbridge serve), KUBEBUILDER_ASSETS and KUSTOMIZE as for the envtest
// suites.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"
)

func main() {
	if len(os.Args) == 4 && os.Args[1] == "-null-webhook" {
		if err := runNullWebhook(os.Args[2], os.Args[3]); err != nil {
			fmt.Fprintln(os.Stderr, "null webhook:", err)
			os.Exit(1)
		}
		return
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	cfg, err := configFromEnv()
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(2)
	}
	start := time.Now()
	if err := run(ctx, cfg); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
	logf("done in %s", time.Since(start).Round(time.Second))
}

func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "%s "+format+"\n", append([]any{time.Now().Format("15:04:05")}, args...)...)
}
