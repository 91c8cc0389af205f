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

	"github.com/go-logr/logr"
	"k8s.io/apiserver/pkg/server/dynamiccertificates"
	"k8s.io/klog/v2"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"
)

// Server serves /convert, /validate and /default over TLS, plus health probes over
// plain HTTP and metrics over plain HTTP or, with Config.MetricsFilter, over
// HTTPS. Create it with New and start it with Run.
type Server struct {
	cfg       Config
	metrics   *metrics
	admission *slotGate
	cache     *conversionCache // nil when Config.ConversionCacheBytes is 0
	// cacheObjects: the cache also keeps converted objects (objcache.go),
	// which only the default converter allows.
	cacheObjects bool
	// serving is the serving certificate content once Run loaded it; the
	// certificate metrics read it (certmetrics.go).
	serving atomic.Pointer[dynamiccertificates.DynamicCertKeyPairContent]

	// conns bounds the webhook listener's connections (connlimit.go); nil
	// without Config.MaxConnections.
	conns *connLimiter

	ready                         atomic.Bool
	started                       chan struct{}
	addr, healthAddr, metricsAddr net.Addr
}

// New returns a server for cfg that has not started.
func New(cfg Config) (*Server, error) {
	cacheObjects := cfg.Converter == nil // objcache.go: the default converter only
	cfg, err := cfg.complete()
	if err != nil {
		return nil, err
	}
	m := newMetrics()
	s := &Server{cfg: cfg, cacheObjects: cacheObjects, metrics: m, admission: newSlotGate(cfg.MaxInFlight, cfg.MaxQueueWait, cfg.MaxReviewMemory, m), started: make(chan struct{})}
	if cfg.ConversionCacheBytes > 0 {
		s.cache = newConversionCache(cfg.ConversionCacheBytes, m)
	}
	s.registerOpsMetrics() // #11: certificate expiry/age, series the alerts need (certmetrics.go)
	if cfg.TokenPolicyGauge {
		m.registerTokenPolicy()
	}
	return s, nil
}

// SetTokenPolicyEnforced sets claimbridge_token_policy_enforced to the
// token policy check's verdict: 1 enforced, 0 not enforced, -1 unknown. It
// does nothing unless Config.TokenPolicyGauge. Readiness does not depend on it.
func (s *Server) SetTokenPolicyEnforced(v float64) {
	if s.metrics.tokenPolicy != nil {
		s.metrics.tokenPolicy.Set(v)
	}
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

// Handler returns the mux of the TLS listener (/convert, /validate,
// /default).
func (s *Server) Handler() http.Handler {
	c := &s.cfg
	mux := http.NewServeMux()
	// Reviews run in one of Config.MaxInFlight slots or are shed (shed.go).
	a := s.admission
	requireClientCert := c.ClientCAFile != ""
	mux.Handle("/convert", s.metrics.instrument("/convert", recoverPanics("/convert", s.metrics, a.wrap("/convert", c.MaxConvertBodyBytes, refusedByHeaders(c.MaxConvertBodyBytes, false), a.shedConvert, &convertHandler{
		convert: c.Converter, maxBytes: c.MaxConvertBodyBytes, maxDepth: c.MaxJSONDepth,
		timeout: c.RequestTimeout, metrics: s.metrics, cache: s.cache, cacheObjects: s.cacheObjects,
	}))))
	admissionEndpoint := func(endpoint string, decide admission.Handler) {
		mux.Handle(endpoint, s.metrics.instrument(endpoint, recoverPanics(endpoint, s.metrics, a.wrap(endpoint, c.MaxValidateBodyBytes, refusedByHeaders(c.MaxValidateBodyBytes, requireClientCert), a.shedAdmission(endpoint, c.MaxValidateBodyBytes, c.MaxJSONDepth), &admissionHandler{
			endpoint: endpoint, decide: decide, maxBytes: c.MaxValidateBodyBytes, maxDepth: c.MaxJSONDepth,
			timeout: c.RequestTimeout, requireClientCert: requireClientCert, metrics: s.metrics,
		}))))
	}
	admissionEndpoint("/validate", &validator{validate: c.Validator, metrics: s.metrics, maxViewDepth: convertedDepth(c.MaxJSONDepth)})
	admissionEndpoint("/default", &defaulter{metrics: s.metrics})
	return mux
}

// Run serves until ctx is done, then turns /readyz false, keeps serving
// for ShutdownDrain, closes the listener and waits up to ShutdownTimeout
// for in-flight requests. A clean shutdown returns nil.
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
	metricsHandler := s.metrics.handler()
	if c.MetricsFilter != nil {
		if metricsHandler, err = c.MetricsFilter(metricsHandler); err != nil {
			return fmt.Errorf("protecting metrics: %w", err)
		}
	}
	metricsMux := http.NewServeMux() // /metrics only: other paths are 404, as on the health listener
	metricsMux.Handle("GET /metrics", metricsHandler)
	metricsHandler = metricsMux
	listeners, err := s.listen(certs.config, log)
	if err != nil {
		return err
	}
	if listeners[2] != nil && c.MetricsFilter != nil {
		// Secure metrics: the same certificate content and TLS settings
		// as the webhook listener, reloaded with it.
		listeners[2] = tls.NewListener(listeners[2], certs.config)
	}
	runCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	defer cancel()
	go certs.Run(runCtx)

	// Requests get a context that the stop signal does not cancel: they
	// must finish during shutdown.
	baseCtx := klog.NewContext(context.WithoutCancel(ctx), log)
	handler := closeWhenNotReady(&s.ready, s.Handler())
	var connState func(net.Conn, http.ConnState)
	if s.conns != nil {
		handler, connState = s.conns.closeOneAfterAnswer(handler), s.conns.connState
	}
	servers := []*http.Server{{
		Handler:           handler,
		ConnState:         connState,
		TLSNextProto:      map[string]func(*http.Server, *tls.Conn, http.Handler){}, // no HTTP/2
		ReadHeaderTimeout: c.ReadHeaderTimeout,
		ReadTimeout:       c.ReadTimeout,
		WriteTimeout:      c.WriteTimeout,
		IdleTimeout:       c.IdleTimeout,
		MaxHeaderBytes:    c.MaxHeaderBytes,
		BaseContext:       func(net.Listener) context.Context { return baseCtx },
		ConnContext:       withConn,
		ErrorLog:          newErrorLog(s.metrics), // counts failed TLS handshakes
	}}
	if listeners[1] != nil {
		servers = append(servers, plainServer(healthMux(&s.ready, c.Profiling), c))
	}
	if listeners[2] != nil {
		servers = append(servers, plainServer(metricsHandler, c))
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
	if c.ReleaseStartupPages {
		log.V(1).Info("Released the executable's start-up pages", "bytes", releaseStartupPages())
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

// closeWhenNotReady answers with Connection: close while the server is not
// ready, i.e. during --shutdown-drain. Taking the pod out of the Service's
// endpoints moves no open connection: without this a keep-alive client (each
// kube-apiserver keeps up to 25 per webhook host) sends on its connections
// to the end of the drain, and a POST it writes just as Shutdown closes its
// connection fails with EOF, which neither Go's transport nor client-go
// retries. Closed after their answer, its connections are dialled again,
// through the Service, to a ready pod.
func closeWhenNotReady(ready *atomic.Bool, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !ready.Load() {
			w.Header().Set("Connection", "close")
		}
		next.ServeHTTP(w, r)
	})
}

// listen binds the TLS, health and metrics listeners (nil when disabled)
// up front so that a busy port fails Run before anything serves.
func (s *Server) listen(tlsConfig *tls.Config, log logr.Logger) ([3]net.Listener, error) {
	var ls [3]net.Listener
	c := &s.cfg
	addr := net.JoinHostPort(c.BindAddress, strconv.Itoa(c.Port))
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return ls, listenError(SettingListener, "webhook listener", addr, err)
	}
	s.addr = ln.Addr()
	if b := c.ListenBacklog; b > 0 {
		if err := setListenBacklog(ln, b); err != nil {
			ln.Close()
			return ls, fmt.Errorf("setting the listen backlog to %d: %w", b, err)
		}
	}
	if c.MaxConnections > 0 {
		s.conns = newConnLimiter(ln, c.MaxConnections, s.metrics)
		if long, err := listenBacklog(ln); err == nil {
			s.conns.backlog = newOverloadBacklog(ln, long, c.OverloadListenBacklog, s.conns.spare, s.conns.done, s.metrics, log.WithName("accept-queue"))
			if b := s.conns.backlog; b != nil {
				b.refuseAfter = c.OverloadRefuseAfter
				b.reviews, b.overflows = s.admission.counts, listenOverflows
			}
		}
		ln = s.conns
	}
	ls[0] = tls.NewListener(ln, tlsConfig)
	for i, a := range []struct {
		addr    string
		out     *net.Addr
		setting Setting
		what    string
	}{{c.HealthProbeAddress, &s.healthAddr, SettingHealthProbeAddress, "health probe listener"}, {c.MetricsAddress, &s.metricsAddr, SettingMetricsAddress, "metrics listener"}} {
		if a.addr == "" {
			continue
		}
		l, err := net.Listen("tcp", a.addr)
		if err != nil {
			for _, c := range ls {
				if c != nil {
					c.Close()
				}
			}
			return ls, listenError(a.setting, a.what, a.addr, err)
		}
		*a.out = l.Addr()
		ls[i+1] = l
	}
	return ls, nil
}

func plainServer(h http.Handler, c *Config) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: c.ReadHeaderTimeout,
		ReadTimeout:       c.ReadTimeout,
		WriteTimeout:      c.WriteTimeout,
		IdleTimeout:       c.IdleTimeout,
		MaxHeaderBytes:    c.MaxHeaderBytes,
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
