// Package securemetrics serves a metrics handler over HTTPS, letting through
// only requests whose bearer token the API server authenticates
// (TokenReview) and whose user may `get` the non-resource URL /metrics
// (SubjectAccessReview): controller-runtime's
// metrics/filters.WithAuthenticationAndAuthorization, as kubebuilder
// projects do by default. The serving certificate is tls.crt/tls.key of a
// directory, reloaded when they change.
package securemetrics

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"path/filepath"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/certwatcher"
	"sigs.k8s.io/controller-runtime/pkg/metrics/filters"
)

// Server is an HTTPS metrics listener; create it with Listen.
type Server struct {
	ln      net.Listener
	srv     *http.Server
	watcher *certwatcher.CertWatcher
}

// Listen binds addr and prepares to serve h behind the authn/authz filter,
// with the key pair in certDir. restConfig reaches the API server.
func Listen(addr, certDir string, h http.Handler, restConfig *rest.Config, log logr.Logger) (*Server, error) {
	httpClient, err := rest.HTTPClientFor(restConfig)
	if err != nil {
		return nil, fmt.Errorf("metrics authentication client: %w", err)
	}
	filter, err := filters.WithAuthenticationAndAuthorization(restConfig, httpClient)
	if err != nil {
		return nil, fmt.Errorf("metrics authentication filter: %w", err)
	}
	protected, err := filter(log, h)
	if err != nil {
		return nil, fmt.Errorf("metrics authentication filter: %w", err)
	}
	w, err := certwatcher.New(filepath.Join(certDir, "tls.crt"), filepath.Join(certDir, "tls.key"))
	if err != nil {
		return nil, fmt.Errorf("metrics serving certificate: %w", err)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", protected)
	return &Server{
		ln:      tls.NewListener(ln, &tls.Config{MinVersion: tls.VersionTLS12, NextProtos: []string{"http/1.1"}, GetCertificate: w.GetCertificate}),
		watcher: w,
		srv: &http.Server{
			Handler:           mux,
			ReadHeaderTimeout: 10 * time.Second,
			ReadTimeout:       30 * time.Second,
			WriteTimeout:      60 * time.Second,
			IdleTimeout:       120 * time.Second,
		},
	}, nil
}

// Addr is the bound address.
func (s *Server) Addr() net.Addr { return s.ln.Addr() }

// Serve serves until ctx is done.
func (s *Server) Serve(ctx context.Context) error {
	go func() { _ = s.watcher.Start(ctx) }()
	errs := make(chan error, 1)
	go func() { errs <- s.srv.Serve(s.ln) }()
	select {
	case err := <-errs:
		return err
	case <-ctx.Done():
	}
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := s.srv.Shutdown(shutdownCtx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
