package webhook

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/pprof"
	"path/filepath"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"
	"k8s.io/apiserver/pkg/server/dynamiccertificates"
	"k8s.io/klog/v2"

	"github.com/claimbridge/claimbridge/validation"
)

// Server serves the webhooks over TLS, health probes over HTTP and metrics
// over HTTP or HTTPS. Create it with New and start it with Run.
type Server struct {
	cfg     Config
	metrics *metrics
	slots   slots
	cache   *conversionCache     // nil without Config.ConversionCacheBytes
	cel     *validation.CELCache // Request.CEL of every review
	// serving is the serving pair once Run loaded it (the expiry metrics).
	serving atomic.Pointer[dynamiccertificates.DynamicCertKeyPairContent]

	ready                         atomic.Bool
	started                       chan struct{}
	addr, healthAddr, metricsAddr net.Addr
}

// New returns a server for cfg that has not started.
func New(cfg Config) (*Server, error) {
	cfg, err := cfg.complete()
	if err != nil {
		return nil, err
	}
	s := &Server{cfg: cfg, slots: make(slots, cfg.MaxInFlight), cel: validation.NewCELCache(), started: make(chan struct{})}
	s.metrics = newMetrics(s, cfg.TokenPolicyGauge)
	if cfg.ConversionCacheBytes > 0 {
		s.cache = newConversionCache(cfg.ConversionCacheBytes, s.metrics)
	}
	return s, nil
}

// SetTokenPolicyEnforced sets claimbridge_token_policy_enforced (1 enforced,
// 0 not enforced, -1 unknown) when Config.TokenPolicyGauge is set.
func (s *Server) SetTokenPolicyEnforced(v float64) {
	if s.metrics.tokenPolicy != nil {
		s.metrics.tokenPolicy.Set(v)
	}
}

// Started is closed once the TLS listener serves; the addresses are set
// from then on.
func (s *Server) Started() <-chan struct{} { return s.started }

// Addr is the bound TLS address, nil before Started.
func (s *Server) Addr() net.Addr { return s.addr }

// MetricsAddr is the bound metrics address, nil if disabled.
func (s *Server) MetricsAddr() net.Addr { return s.metricsAddr }

// Handler is the mux of the TLS listener.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/convert", s.serveReview(endpoint{path: "/convert", maxBytes: s.cfg.MaxConvertBodyBytes, maxDepth: s.cfg.MaxJSONDepth,
		kind: "ConversionReview", group: "apiextensions.k8s.io"}, s.serveConvert))
	mux.Handle("/validate", s.admissionHandler("/validate", "validator", s.handleValidate))
	mux.Handle("/default", s.admissionHandler("/default", "defaulting", handleDefault))
	if s.cfg.Guard != nil {
		mux.Handle("/guard", s.admissionHandler("/guard", "guard", s.handleGuard))
	}
	return mux
}

// Run serves until ctx is done. It then fails /readyz, keeps serving for
// ShutdownDrain, stops accepting and waits up to ShutdownTimeout for
// in-flight requests. A clean shutdown returns nil.
func (s *Server) Run(ctx context.Context) error {
	log := klog.FromContext(ctx).WithName("webhook")
	c := &s.cfg
	certFile, keyFile := c.CertFile, c.KeyFile
	if certFile == "" {
		generated, err := ensureCertificates(c.CertDir, c.DNSNames)
		if err != nil {
			return err
		}
		if generated {
			log.Info("Generated a CA and serving certificate", "caFile", filepath.Join(c.CertDir, CAFileName), "dnsNames", c.DNSNames)
		}
		certFile, keyFile = filepath.Join(c.CertDir, CertFileName), filepath.Join(c.CertDir, KeyFileName)
	}
	certs, err := newServingTLS(c, certFile, keyFile, s.metrics, log)
	if err != nil {
		return err
	}
	s.serving.Store(certs.serving)
	metricsHandler := promhttp.HandlerFor(s.metrics.registry, promhttp.HandlerOpts{Registry: s.metrics.registry})
	if c.MetricsFilter != nil {
		if metricsHandler, err = c.MetricsFilter(metricsHandler); err != nil {
			return fmt.Errorf("protecting metrics: %w", err)
		}
	}
	metricsMux := http.NewServeMux()
	metricsMux.Handle("GET /metrics", metricsHandler)

	webhookLn, err := listen(SettingListener, "webhook listener", net.JoinHostPort(c.BindAddress, strconv.Itoa(c.Port)))
	if err != nil {
		return err
	}
	s.addr = webhookLn.Addr()
	servers := []*http.Server{s.httpServer(closeWhenNotReady(&s.ready, s.Handler()))}
	servers[0].TLSNextProto = map[string]func(*http.Server, *tls.Conn, http.Handler){} // HTTP/1.1 only
	servers[0].ErrorLog = newErrorLog(s.metrics)
	listeners := []net.Listener{tls.NewListener(webhookLn, certs.config)}
	for _, l := range []struct {
		addr    string
		out     *net.Addr
		setting Setting
		what    string
		handler http.Handler
	}{
		{c.HealthProbeAddress, &s.healthAddr, SettingHealthProbeAddress, "health probe listener", healthMux(&s.ready, c.Profiling)},
		{c.MetricsAddress, &s.metricsAddr, SettingMetricsAddress, "metrics listener", metricsMux},
	} {
		if l.addr == "" {
			continue
		}
		ln, err := listen(l.setting, l.what, l.addr)
		if err != nil {
			for _, open := range listeners {
				open.Close()
			}
			return err
		}
		*l.out = ln.Addr()
		if l.setting == SettingMetricsAddress && c.MetricsFilter != nil {
			ln = tls.NewListener(ln, certs.config) // secure metrics: the webhook's certificate
		}
		listeners = append(listeners, ln)
		servers = append(servers, s.httpServer(l.handler))
	}

	runCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	defer cancel()
	certs.run(runCtx)
	// Requests get a context that the stop signal does not cancel: they
	// finish during shutdown.
	baseCtx := klog.NewContext(context.WithoutCancel(ctx), log)
	errs := make(chan error, len(servers))
	for i, srv := range servers {
		srv.BaseContext = func(net.Listener) context.Context { return baseCtx }
		go func() {
			if err := srv.Serve(listeners[i]); !errors.Is(err, http.ErrServerClosed) {
				errs <- err
			}
		}()
	}
	s.ready.Store(true)
	close(s.started)
	log.Info("Serving", "address", s.addr, "healthProbeAddress", s.healthAddr, "metricsAddress", s.metricsAddr, "metricsSecure", c.MetricsFilter != nil)

	var serveErr error
	select {
	case <-ctx.Done():
	case serveErr = <-errs:
		log.Error(serveErr, "Serving failed")
	}
	s.ready.Store(false)
	if serveErr == nil && c.ShutdownDrain > 0 {
		log.Info("Draining before closing the listener", "drain", c.ShutdownDrain)
		time.Sleep(c.ShutdownDrain)
	}
	log.Info("Shutting down", "timeout", c.ShutdownTimeout)
	shutdownCtx, cancelShutdown := context.WithTimeout(context.Background(), c.ShutdownTimeout)
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

func (s *Server) httpServer(h http.Handler) *http.Server {
	c := &s.cfg
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: c.ReadHeaderTimeout,
		ReadTimeout:       c.ReadTimeout,
		WriteTimeout:      c.WriteTimeout,
		IdleTimeout:       c.IdleTimeout,
		MaxHeaderBytes:    c.MaxHeaderBytes,
	}
}

// closeWhenNotReady answers with Connection: close during the drain.
// Otherwise kube-apiserver (up to 25 keep-alive connections per host) sends
// on them until the listener closes, and a request written then fails with
// EOF, which nobody retries. Redialled, they reach a ready pod.
func closeWhenNotReady(ready *atomic.Bool, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !ready.Load() {
			w.Header().Set("Connection", "close")
		}
		next.ServeHTTP(w, r)
	})
}

// healthMux serves /healthz (the process is up), /readyz (serving, no
// shutdown begun) and, with profiling, pprof.
func healthMux(ready *atomic.Bool, profiling bool) *http.ServeMux {
	mux := http.NewServeMux()
	if profiling {
		mux.HandleFunc("/debug/pprof/", pprof.Index)
		mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
		mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
		mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
		mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	}
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("ok")) })
	mux.HandleFunc("/readyz", func(w http.ResponseWriter, _ *http.Request) {
		if !ready.Load() {
			http.Error(w, "not ready", http.StatusServiceUnavailable)
			return
		}
		_, _ = w.Write([]byte("ok"))
	})
	return mux
}
