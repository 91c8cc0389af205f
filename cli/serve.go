package cli

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"
	logsapi "k8s.io/component-base/logs/api/v1"
	_ "k8s.io/component-base/logs/json/register" // --log-format=json
	"k8s.io/klog/v2"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/claimbridge/claimbridge/webhook"
)

// serveFunc runs the server; tests inject a fake.
type serveFunc func(ctx context.Context, opts *webhook.Options) error

func newServeCommand(s streams) *cobra.Command {
	// #11: --cert-mode, --metrics-secure and friends live in serve_ops.go.
	ops := newOpsOptions()
	cmd := newServeCommandWithRun(s, func(ctx context.Context, opts *webhook.Options) error {
		return runServe(ctx, opts, ops)
	})
	ops.AddFlags(cmd.Flags())
	return cmd
}

func newServeCommandWithRun(_ streams, run serveFunc) *cobra.Command {
	opts := webhook.NewOptions()
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve the conversion (/convert) and validating admission (/validate) webhooks over TLS",
		Long: `serve runs the CRD conversion webhook (/convert) and the validating admission
webhook (/validate) for resource.claimbridge.dev over TLS, with /healthz and
/readyz on the health probe address and Prometheus metrics on the metrics
address. Without a certificate in --cert-dir it generates a CA (ca.crt, for the
caBundle) and a serving certificate there. SIGTERM or SIGINT shuts it down
gracefully: /readyz fails, in-flight requests finish, then it exits.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := opts.Validate(); err != nil {
				return withCode(ExitBadInput, err)
			}
			parent := cmd.Context()
			if parent == nil {
				parent = context.Background()
			}
			ctx, stop := signal.NotifyContext(parent, os.Interrupt, syscall.SIGTERM)
			defer stop()
			return withCode(ExitInvalid, run(ctx, opts))
		},
	}
	opts.AddFlags(cmd.Flags())
	return cmd
}

// runServe applies the logging options, once per process, and runs the server.
func runServe(ctx context.Context, opts *webhook.Options, ops *opsOptions) error {
	c := logsapi.NewLoggingConfiguration()
	c.Format = opts.LogFormat
	c.Verbosity = logsapi.VerbosityLevel(opts.Verbosity)
	if err := logsapi.ValidateAndApply(c, nil); err != nil {
		return withCode(ExitBadInput, err)
	}
	defer klog.Flush()
	ctrl.SetLogger(klog.Background())                                                                  // controller-runtime and cert-controller log through klog
	return runWithOps(klog.NewContext(ctx, klog.Background().WithName("claimbridge")), opts, ops, nil) // #11
}
