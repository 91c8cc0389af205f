package cli

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"

	"github.com/spf13/cobra"
	cliflag "k8s.io/component-base/cli/flag"
	"k8s.io/klog/v2"

	"github.com/claimbridge/claimbridge/server"
)

// serveFunc runs the server with validated options; tests inject a fake.
type serveFunc func(ctx context.Context, opts *server.Options) error

func newServeCommand(s streams) *cobra.Command {
	return newServeCommandWithRun(s, runServe)
}

func newServeCommandWithRun(_ streams, run serveFunc) *cobra.Command {
	opts := server.NewOptions()
	opts.Judge = guardJudge
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
			if n, ok := server.DeprecatedTLSVersions[opts.TLSMinVersion]; ok {
				fmt.Fprintf(cmd.ErrOrStderr(), "Warning: --tls-min-version=%s is deprecated, use --tls-min-version=%s\n", opts.TLSMinVersion, n)
			}
			parent := cmp.Or(cmd.Context(), context.Background())
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

// runServe runs the server of opts.
func runServe(ctx context.Context, opts *server.Options) error {
	err := server.Run(ctx, opts)
	if ce := (*server.ConfigError)(nil); errors.As(err, &ce) {
		return withCode(ExitBadInput, err)
	}
	return err
}

// Serve runs `claimbridge serve args...` in this process until ctx is done,
// exactly as the binary does; the envtest suites use it.
func Serve(ctx context.Context, args []string, out, errOut io.Writer) error {
	cmd := newServeCommand(streams{out: out, err: errOut})
	cmd.SetArgs(args)
	cmd.SetOut(out)
	cmd.SetErr(errOut)
	cmd.SilenceUsage, cmd.SilenceErrors = true, true
	return cmd.ExecuteContext(ctx)
}
