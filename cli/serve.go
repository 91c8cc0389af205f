package cli

import (
	"context"
	"errors"
	"fmt"
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

// serveFunc runs the server with validated options; tests inject a fake.
type serveFunc func(ctx context.Context, opts *ServeOptions) error

func newServeCommand(s streams) *cobra.Command {
	return newServeCommandWithRun(s, runServe)
}

func newServeCommandWithRun(_ streams, run serveFunc) *cobra.Command {
	opts := NewServeOptions()
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve the conversion (/convert) and validating admission (/validate) webhooks over TLS",
		Long: `serve runs the CRD conversion webhook (/convert) and the validating admission
webhook (/validate) for resource.claimbridge.dev over TLS, with /healthz and
/readyz on the health probe address and Prometheus metrics on the metrics
address. Without --tls-cert-file and without a certificate in --cert-dir it
generates a CA (ca.crt, for the caBundle) and a serving certificate there.
SIGTERM or SIGINT shuts it down gracefully: /readyz fails, in-flight requests
finish, then it exits.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := opts.Validate(); err != nil {
				return withCode(ExitBadInput, err)
			}
			if n, ok := deprecatedTLSVersions[opts.TLSMinVersion]; ok {
				fmt.Fprintf(cmd.ErrOrStderr(), "Warning: --tls-min-version=%s is deprecated, use --tls-min-version=%s\n", opts.TLSMinVersion, n)
			}
			parent := cmd.Context()
			if parent == nil {
				parent = context.Background()
			}
			ctx, stop := signal.NotifyContext(parent, os.Interrupt, syscall.SIGTERM)
			defer stop()
			err := run(ctx, opts)
			if ee := (*exitError)(nil); errors.As(err, &ee) {
				return err // keeps ExitBadInput of a configuration the server cannot use
			}
			return withCode(ExitInvalid, err)
		},
	}
	opts.AddFlags(cmd.Flags())
	return cmd
}

// runServe applies the logging options, once per process, and runs the
// server: ServeOptions → webhook.Config → webhook.Server, with the
// certificate and metrics modes of serve_ops.go around it.
func runServe(ctx context.Context, opts *ServeOptions) error {
	cfg, err := opts.Config()
	if err != nil {
		return withCode(ExitBadInput, err)
	}
	c := logsapi.NewLoggingConfiguration()
	c.Format = opts.LogFormat
	c.Verbosity = logsapi.VerbosityLevel(opts.Verbosity)
	if err := logsapi.ValidateAndApply(c, nil); err != nil {
		return withCode(ExitBadInput, err)
	}
	defer klog.Flush()
	webhook.ApplyGCDefault()
	webhook.ApplyMemoryLimitDefault(cfg.ConversionCacheBytes, cfg.MaxConnections)
	ctrl.SetLogger(klog.Background())                                                                  // controller-runtime and cert-controller log through klog
	return runWithOps(klog.NewContext(ctx, klog.Background().WithName("claimbridge")), cfg, opts, nil) // #11: certificate and metrics modes
}
