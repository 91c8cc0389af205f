package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"sync"
	"syscall"

	"github.com/spf13/cobra"
	cliflag "k8s.io/component-base/cli/flag"
	logsapi "k8s.io/component-base/logs/api/v1"
	_ "k8s.io/component-base/logs/json/register" // --log-format=json
	"k8s.io/klog/v2"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/claimbridge/claimbridge/internal/version"
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
		Short: "Serve the conversion (/convert), validating (/validate) and defaulting (/default) webhooks over TLS",
		Long: `serve runs the CRD conversion webhook (/convert) and the validating (/validate)
and defaulting (/default) admission webhooks for resource.claimbridge.dev over
TLS, with /healthz and /readyz on the health probe address. With no flags it
serves locally on :9443 and :8081 and generates a CA (ca.crt, for the
caBundle) and a serving certificate into --cert-dir. Metrics are off unless
--metrics-bind-address is set. SIGTERM, SIGINT or SIGHUP shuts it down
gracefully: /readyz fails, in-flight requests finish, then it exits 0; a
second signal exits at once with code 1.`,
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
			sigs := make(chan os.Signal, 2)
			signal.Notify(sigs, shutdownSignals...)
			defer signal.Stop(sigs)
			ctx, stop := shutdownOnSignal(parent, sigs, os.Exit)
			defer stop()
			err := run(ctx, opts)
			if ee := (*exitError)(nil); errors.As(err, &ee) {
				return err // keeps ExitBadInput of a configuration the server cannot use
			}
			return withCode(ExitInvalid, err)
		},
	}
	cliflag.SetUsageAndHelpFunc(cmd, opts.AddFlags(cmd.Flags()), 0)
	return cmd
}

// shutdownSignals start the graceful shutdown. SIGHUP is one, so that closing
// a terminal does not kill the server mid-request; it has nothing to reload.
var shutdownSignals = []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGHUP}

// shutdownOnSignal returns a context that the first signal on sigs cancels;
// a second signal exits at once with code 1, as kube-apiserver and
// controller-runtime do, so that an operator can insist.
func shutdownOnSignal(parent context.Context, sigs <-chan os.Signal, exit func(int)) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(parent)
	done, exited := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(exited)
		select {
		case sig := <-sigs:
			klog.InfoS("Shutting down gracefully; send the signal again to exit at once", "signal", sig.String())
			cancel()
		case <-done:
			return
		}
		select {
		case sig := <-sigs:
			klog.InfoS("Exiting at once on a second signal, without waiting for in-flight requests", "signal", sig.String())
			klog.Flush()
			exit(ExitInvalid)
		case <-done:
		}
	}()
	var once sync.Once
	// stop waits for the goroutine: no signal exits after the command returned.
	return ctx, func() { once.Do(func() { close(done); cancel(); <-exited }) }
}

// runServe applies the logging options, once per process, and runs the
// server with the modes of serve_ops.go.
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
	ctrl.SetLogger(klog.Background()) // controller-runtime and cert-controller log through klog
	log := klog.Background().WithName("claimbridge")
	v := version.Get()
	log.Info("Starting", "version", v.Version, "revision", v.Revision, "modified", v.Modified, "goVersion", v.GoVersion, "platform", v.Platform)
	return runWithOps(klog.NewContext(ctx, log), cfg, opts, nil)
}
