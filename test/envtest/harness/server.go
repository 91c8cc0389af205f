package harness

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/claimbridge/claimbridge/server"
	"github.com/claimbridge/claimbridge/webhook"
)

// ServerFunc starts a claimbridge server that serves /convert and /validate
// over TLS on 127.0.0.1:port with tls.crt and tls.key from certDir, and
// returns once it accepts connections. stop shuts it down and waits for it;
// the harness calls it once. ctx is cancelled only after stop has returned.
type ServerFunc func(ctx context.Context, certDir string, port int) (stop func(), err error)

// InProcessServer is the default ServerFunc: the webhook package's Server in
// this process, configured as `claimbridge serve --bind-address=127.0.0.1
// --port=<port> --cert-dir=<certDir> --health-probe-bind-address=0
// --metrics-bind-address=0 --shutdown-drain=0 --shutdown-timeout=5s` would
// be, every other setting at its default.
func InProcessServer(ctx context.Context, certDir string, port int) (func(), error) {
	opts := server.NewOptions()
	opts.BindAddress = "127.0.0.1"
	opts.Port = port
	opts.CertDir = certDir
	opts.HealthProbeBindAddress = "0"
	opts.MetricsBindAddress = "0"
	opts.ShutdownDrain = 0
	opts.ShutdownTimeout = 5 * time.Second
	cfg, err := opts.Config()
	if err != nil {
		return nil, err
	}
	srv, err := webhook.New(cfg)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- srv.Run(ctx) }()
	select {
	case <-srv.Started():
	case err := <-done:
		cancel()
		if err == nil {
			err = errors.New("server stopped before it started serving")
		}
		return nil, fmt.Errorf("starting the claimbridge server: %w", err)
	case <-time.After(30 * time.Second):
		cancel()
		<-done
		return nil, errors.New("the claimbridge server did not start serving within 30s")
	}
	return func() {
		cancel()
		<-done
	}, nil
}
