package webhook

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"
	admissionv1 "k8s.io/api/admission/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"
)

// fixture returns a testdata claim as JSON.
func fixture(tb testing.TB, version string) []byte {
	tb.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "claim-"+version+".json"))
	if err != nil {
		tb.Fatal(err)
	}
	return data
}

// withName returns the fixture renamed, so that a review holds distinct objects.
func withName(tb testing.TB, data []byte, name string) []byte {
	tb.Helper()
	var obj map[string]interface{}
	if err := json.Unmarshal(data, &obj); err != nil {
		tb.Fatal(err)
	}
	obj["metadata"].(map[string]interface{})["name"] = name
	out, err := json.Marshal(obj)
	if err != nil {
		tb.Fatal(err)
	}
	return out
}

// conversionReview is a ConversionReview as kube-apiserver sends it (the
// typed review encoded, with the empty response it always adds).
func conversionReview(apiVersion, uid, desired string, objects ...[]byte) []byte {
	r := apiextensionsv1.ConversionReview{Request: &apiextensionsv1.ConversionRequest{
		UID: types.UID(uid), DesiredAPIVersion: desired,
	}, Response: &apiextensionsv1.ConversionResponse{}}
	r.APIVersion, r.Kind = apiVersion, "ConversionReview"
	for _, o := range objects {
		r.Request.Objects = append(r.Request.Objects, runtime.RawExtension{Raw: o})
	}
	data, err := json.Marshal(r)
	if err != nil {
		panic(err)
	}
	return data
}

func admissionReview(apiVersion string, req admissionv1.AdmissionRequest) []byte {
	r := admissionv1.AdmissionReview{Request: &req}
	r.APIVersion, r.Kind = apiVersion, "AdmissionReview"
	data, err := json.Marshal(r)
	if err != nil {
		panic(err)
	}
	return data
}

// fakeConvert only rewrites apiVersion and adds an annotation, which is
// all the handler's mechanics need; the real conversion is tested by its
// owners and through contract tests here.
func fakeConvert(obj map[string]interface{}, to string) (map[string]interface{}, error) {
	out := maps.Clone(obj)
	group, _, _ := strings.Cut(obj["apiVersion"].(string), "/")
	out["apiVersion"] = group + "/" + to
	if md, ok := obj["metadata"].(map[string]interface{}); ok {
		md = maps.Clone(md)
		ann, _ := md["annotations"].(map[string]interface{})
		ann = maps.Clone(ann)
		if ann == nil {
			ann = map[string]interface{}{}
		}
		ann["test.claimbridge.dev/converted"] = to
		md["annotations"] = ann
		out["metadata"] = md
	}
	return out, nil
}

// testConfig is the Config of the tests: the limits and timeouts of
// `claimbridge serve` (TestHostileInput relies on the 64 MiB cap), loopback
// listeners on free ports, no drain, the fake converter and an
// allow-everything validator.
func testConfig(certDir string) Config {
	return Config{
		BindAddress: "127.0.0.1", HealthProbeAddress: "127.0.0.1:0", MetricsAddress: "127.0.0.1:0",
		CertDir: certDir, CertReloadInterval: 10 * time.Second,
		MaxConvertBodyBytes: 64 << 20, MaxValidateBodyBytes: 7 << 20, MaxJSONDepth: 1000, MaxHeaderBytes: 64 << 10,
		ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second, WriteTimeout: 60 * time.Second,
		IdleTimeout: 120 * time.Second, RequestTimeout: 30 * time.Second, ShutdownTimeout: 30 * time.Second,
		Converter: fakeConvert, Validator: allowAll,
	}
}

func newTestConvertHandler(convert ConvertFunc) *convertHandler {
	c := testConfig("")
	return &convertHandler{convert: convert, maxBytes: c.MaxConvertBodyBytes, maxDepth: c.MaxJSONDepth, timeout: c.RequestTimeout, metrics: newMetrics()}
}

func newTestValidateHandler(validate ValidateFunc) *admissionHandler {
	c, m := testConfig(""), newMetrics()
	return &admissionHandler{endpoint: "/validate", decide: &validator{validate: validate, metrics: m, maxViewDepth: convertedDepth(c.MaxJSONDepth)}, maxBytes: c.MaxValidateBodyBytes, maxDepth: c.MaxJSONDepth, timeout: c.RequestTimeout, metrics: m}
}

// post sends body to h in-process and returns the recorder.
func post(h http.Handler, body []byte) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodPost, "/", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

func decodeConversionResponse(tb testing.TB, rec *httptest.ResponseRecorder) *apiextensionsv1.ConversionReview {
	tb.Helper()
	if rec.Code != http.StatusOK {
		tb.Fatalf("status %d: %s", rec.Code, rec.Body)
	}
	var out apiextensionsv1.ConversionReview
	if err := json.Unmarshal(rec.Body.Bytes(), &out); err != nil {
		tb.Fatalf("decoding response: %v", err)
	}
	if out.Response == nil {
		tb.Fatalf("response missing: %s", rec.Body)
	}
	return &out
}

func decodeAdmissionResponse(tb testing.TB, rec *httptest.ResponseRecorder) *admissionv1.AdmissionReview {
	tb.Helper()
	if rec.Code != http.StatusOK {
		tb.Fatalf("status %d: %s", rec.Code, rec.Body)
	}
	var out admissionv1.AdmissionReview
	if err := json.Unmarshal(rec.Body.Bytes(), &out); err != nil {
		tb.Fatalf("decoding response: %v", err)
	}
	if out.Response == nil {
		tb.Fatalf("response missing: %s", rec.Body)
	}
	return &out
}

// testServer is a Server running in-process on loopback ports.
type testServer struct {
	*Server
	cfg    Config
	cancel context.CancelFunc
	done   chan error
}

// startServer runs a server on free loopback ports with a fresh cert dir
// and the fake converter and validator; mutate adjusts the configuration.
func startServer(t *testing.T, mutate func(*Config)) *testServer {
	t.Helper()
	c := testConfig(filepath.Join(t.TempDir(), "certs"))
	if mutate != nil {
		mutate(&c)
	}
	s, err := New(c)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(klog.NewContext(context.Background(), logr.Discard()))
	ts := &testServer{Server: s, cfg: c, cancel: cancel, done: make(chan error, 1)}
	go func() { ts.done <- s.Run(ctx) }()
	select {
	case <-s.Started():
	case err := <-ts.done:
		t.Fatalf("server did not start: %v", err)
	}
	t.Cleanup(func() {
		cancel()
		if err := <-ts.done; err != nil {
			t.Errorf("Run: %v", err)
		}
	})
	return ts
}

func (ts *testServer) url(path string) string { return "https://" + ts.Addr().String() + path }

// caPool reads the generated ca.crt.
func (ts *testServer) caPool(t *testing.T) *x509.CertPool {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(ts.cfg.CertDir, CAFileName))
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(data) {
		t.Fatal("no CA in ca.crt")
	}
	return pool
}

func (ts *testServer) client(t *testing.T, cfg *tls.Config) *http.Client {
	t.Helper()
	if cfg == nil {
		cfg = &tls.Config{}
	}
	if cfg.RootCAs == nil {
		cfg.RootCAs = ts.caPool(t)
	}
	tr := &http.Transport{TLSClientConfig: cfg}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr}
}

func postJSON(c *http.Client, url string, body []byte) (*http.Response, []byte, error) {
	resp, err := c.Post(url, "application/json", bytes.NewReader(body))
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	var buf bytes.Buffer
	_, err = buf.ReadFrom(resp.Body)
	return resp, buf.Bytes(), err
}

func allowAll(ValidationRequest) (ValidationResponse, error) { return ValidationResponse{}, nil }

func mustGet(t *testing.T, url string) int {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

var _ = fmt.Sprint
