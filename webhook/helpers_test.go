package webhook

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"
	dto "github.com/prometheus/client_model/go"
	admissionv1 "k8s.io/api/admission/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"

	"github.com/claimbridge/claimbridge/api"
)

// fixture returns webhook/testdata/claim-<version>.json.
func fixture(tb testing.TB, version string) []byte {
	tb.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "claim-"+version+".json"))
	if err != nil {
		tb.Fatal(err)
	}
	return data
}

// conversionReview is a ConversionReview as kube-apiserver sends it.
func conversionReview(uid, desired string, objects ...[]byte) []byte {
	r := apiextensionsv1.ConversionReview{
		TypeMeta: metav1.TypeMeta{Kind: "ConversionReview", APIVersion: "apiextensions.k8s.io/v1"},
		Request:  &apiextensionsv1.ConversionRequest{UID: types.UID(uid), DesiredAPIVersion: desired},
	}
	for _, o := range objects {
		r.Request.Objects = append(r.Request.Objects, runtime.RawExtension{Raw: o})
	}
	return mustJSON(r)
}

// admissionReview is an admission.k8s.io/v1 AdmissionReview of req.
func admissionReview(req admissionv1.AdmissionRequest) []byte {
	return mustJSON(admissionv1.AdmissionReview{
		TypeMeta: metav1.TypeMeta{Kind: "AdmissionReview", APIVersion: "admission.k8s.io/v1"},
		Request:  &req,
	})
}

// claimRequest is a request of op on the testdata claim of version.
func claimRequest(t testing.TB, op admissionv1.Operation, version string) admissionv1.AdmissionRequest {
	obj := fixture(t, version)
	req := admissionv1.AdmissionRequest{
		UID:       "req-uid",
		Kind:      metav1.GroupVersionKind{Group: api.Group, Version: version, Kind: api.KindClaim},
		Resource:  metav1.GroupVersionResource{Group: api.Group, Version: version, Resource: "resourceclaims"},
		Name:      "claim",
		Namespace: "ns",
		Operation: op,
		Object:    runtime.RawExtension{Raw: obj},
	}
	if op == admissionv1.Update {
		req.OldObject = runtime.RawExtension{Raw: obj}
	}
	return req
}

func mustJSON(v any) []byte {
	data, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return data
}

// fakeConvert only sets apiVersion: enough for the handler's mechanics.
func fakeConvert(obj map[string]interface{}, to string) (map[string]interface{}, error) {
	out := maps.Clone(obj)
	out["apiVersion"] = api.Group + "/" + to
	return out, nil
}

// testConfig has the limits of `claimbridge serve`, loopback listeners on
// free ports and a fresh cert dir.
func testConfig(t testing.TB) Config {
	return Config{
		BindAddress: "127.0.0.1", HealthProbeAddress: "127.0.0.1:0", MetricsAddress: "127.0.0.1:0",
		CertDir:             filepath.Join(t.TempDir(), "certs"),
		MaxConvertBodyBytes: 64 << 20, MaxValidateBodyBytes: 7 << 20, MaxJSONDepth: 100, MaxHeaderBytes: 64 << 10,
		RequestTimeout: 30 * time.Second, ShutdownTimeout: 30 * time.Second,
		ConversionCacheBytes: 16 << 20,
	}
}

// newServer is a Server of testConfig changed by mutate, not running.
func newServer(t testing.TB, mutate func(*Config)) *Server {
	t.Helper()
	c := testConfig(t)
	if mutate != nil {
		mutate(&c)
	}
	s, err := New(c)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// request is an in-process JSON request whose log lines are discarded.
func request(method, path string, body io.Reader) *http.Request {
	req := httptest.NewRequestWithContext(klog.NewContext(context.Background(), logr.Discard()), method, path, body)
	req.Header.Set("Content-Type", "application/json")
	return req
}

// serve posts body to path of h in-process.
func serve(h http.Handler, path string, body []byte) *httptest.ResponseRecorder {
	req := request(http.MethodPost, path, bytes.NewReader(body))
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

func decodeConversion(tb testing.TB, code int, body []byte) *apiextensionsv1.ConversionResponse {
	tb.Helper()
	var out apiextensionsv1.ConversionReview
	if code != http.StatusOK || json.Unmarshal(body, &out) != nil || out.Response == nil {
		tb.Fatalf("got %d %s, want a ConversionReview response", code, body)
	}
	return out.Response
}

func decodeAdmission(tb testing.TB, code int, body []byte) *admissionv1.AdmissionResponse {
	tb.Helper()
	var out admissionv1.AdmissionReview
	if code != http.StatusOK || json.Unmarshal(body, &out) != nil || out.Response == nil {
		tb.Fatalf("got %d %s, want an AdmissionReview response", code, body)
	}
	return out.Response
}

// running is a Server running on loopback ports.
type running struct {
	*Server
	cancel context.CancelFunc
	done   chan error
}

// start runs a server; it is stopped, and must stop cleanly, at cleanup.
func start(t *testing.T, mutate func(*Config)) *running {
	t.Helper()
	return startCtx(t, klog.NewContext(context.Background(), logr.Discard()), mutate)
}

func startCtx(t *testing.T, ctx context.Context, mutate func(*Config)) *running {
	t.Helper()
	s := newServer(t, mutate)
	ctx, cancel := context.WithCancel(ctx)
	r := &running{Server: s, cancel: cancel, done: make(chan error, 1)}
	go func() { r.done <- s.Run(ctx) }()
	select {
	case <-s.Started():
	case err := <-r.done:
		t.Fatalf("Run: %v", err)
	}
	t.Cleanup(func() {
		cancel()
		if err := <-r.done; err != nil {
			t.Errorf("Run: %v", err)
		}
	})
	return r
}

func (r *running) url(path string) string { return "https://" + r.Addr().String() + path }

// client trusts the cert dir's CA; cfg adds to its TLS configuration.
func (r *running) client(t *testing.T, cfg *tls.Config) *http.Client {
	t.Helper()
	if cfg == nil {
		cfg = &tls.Config{}
	}
	data, err := os.ReadFile(filepath.Join(r.cfg.CertDir, CAFileName))
	if err != nil {
		t.Fatal(err)
	}
	cfg.RootCAs = x509.NewCertPool()
	cfg.RootCAs.AppendCertsFromPEM(data)
	tr := &http.Transport{TLSClientConfig: cfg, ForceAttemptHTTP2: true}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr}
}

// post sends body as JSON and reads the answer.
func post(t testing.TB, c *http.Client, url string, body []byte) (*http.Response, []byte) {
	t.Helper()
	resp, err := c.Post(url, "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, data
}

// metricValue is the value of the series name with labels (a counter, a
// gauge, or a histogram's count); ok is false when there is none.
func metricValue(t testing.TB, s *Server, name string, labels ...string) (v float64, ok bool) {
	t.Helper()
	families, err := s.metrics.registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
	metric:
		for _, m := range f.GetMetric() {
			for i := 0; i+1 < len(labels); i += 2 {
				if !hasLabel(m, labels[i], labels[i+1]) {
					continue metric
				}
			}
			switch {
			case m.Counter != nil:
				return m.Counter.GetValue(), true
			case m.Gauge != nil:
				return m.Gauge.GetValue(), true
			case m.Histogram != nil:
				return float64(m.Histogram.GetSampleCount()), true
			}
			return 0, true
		}
	}
	return 0, false
}

func hasLabel(m *dto.Metric, name, value string) bool {
	for _, l := range m.GetLabel() {
		if l.GetName() == name {
			return l.GetValue() == value
		}
	}
	return false
}

// logBuffer collects log lines of a logger from any goroutine.
type logBuffer struct {
	mu    sync.Mutex
	lines []string
}

func (b *logBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return strings.Join(b.lines, "\n")
}

// logger writes every line up to verbosity v into b, with its values.
func (b *logBuffer) logger(v int) logr.Logger {
	return funcr.New(func(prefix, args string) {
		b.mu.Lock()
		defer b.mu.Unlock()
		b.lines = append(b.lines, prefix+" "+args)
	}, funcr.Options{Verbosity: v})
}
