package webhook

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"path/filepath"
	"strconv"
	"sync/atomic"
	"time"

	"golang.org/x/net/netutil"
	"k8s.io/klog/v2"
)

// Server serves /convert and /validate over TLS, plus health probes and
// metrics over plain HTTP. Create it with New and start it with Run.
type Server struct {
	opts      Options
	metrics   *metrics
	admission *admission

	ready                         atomic.Bool
	started                       chan struct{}
	addr, healthAddr, metricsAddr net.Addr
}

// New validates opts and returns a server that has not started.
func New(opts *Options) (*Server, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	m := newMetrics()
	return &Server{opts: *opts, metrics: m, admission: newAdmission(opts.MaxInFlight, opts.MaxQueueWait, m), started: make(chan struct{})}, nil
}

// Run starts a server with opts and blocks until ctx is done and the
// server has shut down.
func Run(ctx context.Context, opts *Options) error {
	s, err := New(opts)
	if err != nil {
		return err
	}
	return s.Run(ctx)
}

// Started is closed once the TLS listener serves; Addr, HealthAddr and
// MetricsAddr are set from then on.
func (s *Server) Started() <-chan struct{} { return s.started }

// Addr is the bound TLS address, nil before Started.
func (s *Server) Addr() net.Addr { return s.addr }

// HealthAddr is the bound health probe address, nil if disabled.
func (s *Server) HealthAddr() net.Addr { return s.healthAddr }

// MetricsAddr is the bound metrics address, nil if disabled.
func (s *Server) MetricsAddr() net.Addr { return s.metricsAddr }

// Handler returns the mux of the TLS listener (/convert, /validate).
func (s *Server) Handler() http.Handler {
	o := &s.opts
	mux := http.NewServeMux()
	// Reviews run in one of --max-in-flight slots or are shed (shed.go).
	a := s.admission
	mux.Handle("/convert", s.metrics.instrument("/convert", recoverPanics("/convert", s.metrics, a.wrap("/convert", o.MaxConvertBodyBytes, a.shedConvert, &convertHandler{
		convert: o.Converter, maxBytes: o.MaxConvertBodyBytes, maxDepth: o.MaxJSONDepth,
		timeout: o.RequestTimeout, metrics: s.metrics,
	}))))
	mux.Handle("/validate", s.metrics.instrument("/validate", recoverPanics("/validate", s.metrics, a.wrap("/validate", o.MaxValidateBodyBytes, a.shedValidate(o.MaxValidateBodyBytes, o.MaxJSONDepth), &validateHandler{
		validate: o.Validator, maxBytes: o.MaxValidateBodyBytes, maxDepth: o.MaxJSONDepth,
		timeout: o.RequestTimeout, requireClientCert: o.ClientCAFile != "", metrics: s.metrics,
	}))))
	return mux
}

// Run serves until ctx is done, then turns /readyz false, keeps serving
// for ShutdownDrain, closes the listener and waits up to ShutdownTimeout
// for in-flight requests. A clean shutdown returns nil.
func (s *Server) Run(ctx context.Context) error {
	log := klog.FromContext(ctx).WithName("webhook")
	o := &s.opts

	generated, err := ensureCertificates(o.CertDir, o.DNSNames)
	if err != nil {
		return err
	}
	if generated {
		log.Info("Generated a CA and serving certificate", "caFile", filepath.Join(o.CertDir, CAFileName), "dnsNames", o.DNSNames)
	}
	certs, err := newCertReloader(o.CertDir, o.CertReloadInterval, s.metrics, log)
	if err != nil {
		return fmt.Errorf("loading serving certificate: %w", err)
	}
	clientCAs, err := loadClientCAs(o.ClientCAFile)
	if err != nil {
		return err
	}
	tlsConfig, err := newTLSConfig(o, certs.GetCertificate, clientCAs)
	if err != nil {
		return err
	}

	listeners, err := s.listen(tlsConfig)
	if err != nil {
		return err
	}
	runCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	defer cancel()
	go certs.Run(runCtx)

	// Requests get a context that the stop signal does not cancel: they
	// must finish during shutdown.
	baseCtx := klog.NewContext(context.WithoutCancel(ctx), log)
	servers := []*http.Server{{
		Handler:           s.Handler(),
		TLSNextProto:      map[string]func(*http.Server, *tls.Conn, http.Handler){}, // no HTTP/2
		ReadHeaderTimeout: o.ReadHeaderTimeout,
		ReadTimeout:       o.ReadTimeout,
		WriteTimeout:      o.WriteTimeout,
		IdleTimeout:       o.IdleTimeout,
		MaxHeaderBytes:    o.MaxHeaderBytes,
		BaseContext:       func(net.Listener) context.Context { return baseCtx },
		ErrorLog:          klog.NewStandardLogger("INFO"),
	}}
	if listeners[1] != nil {
		servers = append(servers, plainServer(healthMux(&s.ready), o))
	}
	if listeners[2] != nil {
		servers = append(servers, plainServer(s.metrics.handler(), o))
	}
	errs := make(chan error, 3)
	ls := compact(listeners)
	for i, srv := range servers {
		go func() {
			if err := srv.Serve(ls[i]); !errors.Is(err, http.ErrServerClosed) {
				errs <- err
			}
		}()
	}
	s.ready.Store(true)
	close(s.started)
	log.Info("Serving", "address", s.addr, "healthProbeAddress", s.healthAddr, "metricsAddress", s.metricsAddr)

	var serveErr error
	select {
	case <-ctx.Done():
	case serveErr = <-errs:
		log.Error(serveErr, "Serving failed")
	}
	s.ready.Store(false)
	if serveErr == nil && o.ShutdownDrain > 0 {
		log.Info("Draining before closing the listener", "drain", o.ShutdownDrain)
		time.Sleep(o.ShutdownDrain)
	}
	log.Info("Shutting down", "timeout", o.ShutdownTimeout)
	shutdownCtx, cancelShutdown := context.WithTimeout(context.Background(), o.ShutdownTimeout)
	defer cancelShutdown()
	if err := servers[0].Shutdown(shutdownCtx); err != nil {
		serveErr = errors.Join(serveErr, fmt.Errorf("waiting for in-flight requests: %w", err))
		_ = servers[0].Close()
	}
	for _, srv := range servers[1:] {
		_ = srv.Close()
	}
	if serveErr == nil {
		log.Info("Shut down cleanly")
	}
	return serveErr
}

// listen binds the TLS, health and metrics listeners (nil when disabled)
// up front so that a busy port fails Run before anything serves.
func (s *Server) listen(tlsConfig *tls.Config) ([3]net.Listener, error) {
	var ls [3]net.Listener
	o := &s.opts
	ln, err := net.Listen("tcp", net.JoinHostPort(o.BindAddress, strconv.Itoa(o.Port)))
	if err != nil {
		return ls, err
	}
	s.addr = ln.Addr()
	if o.MaxConnections > 0 {
		ln = netutil.LimitListener(ln, o.MaxConnections)
	}
	ls[0] = tls.NewListener(ln, tlsConfig)
	for i, a := range []struct {
		addr string
		out  *net.Addr
	}{{o.HealthProbeBindAddress, &s.healthAddr}, {o.MetricsBindAddress, &s.metricsAddr}} {
		if disabled(a.addr) {
			continue
		}
		l, err := net.Listen("tcp", a.addr)
		if err != nil {
			for _, c := range ls {
				if c != nil {
					c.Close()
				}
			}
			return ls, err
		}
		*a.out = l.Addr()
		ls[i+1] = l
	}
	return ls, nil
}

func plainServer(h http.Handler, o *Options) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: o.ReadHeaderTimeout,
		ReadTimeout:       o.ReadTimeout,
		WriteTimeout:      o.WriteTimeout,
		IdleTimeout:       o.IdleTimeout,
		MaxHeaderBytes:    o.MaxHeaderBytes,
	}
}

func compact(ls [3]net.Listener) []net.Listener {
	var out []net.Listener
	for _, l := range ls {
		if l != nil {
			out = append(out, l)
		}
	}
	return out
}
