package webhook

import (
	"bufio"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	certutil "k8s.io/client-go/util/cert"
	"k8s.io/klog/v2"

	"github.com/claimbridge/claimbridge/api"
)

// eventually polls cond every 100 ms for up to 30 s.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); !cond(); time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("not within 30s: %s", what)
		}
	}
}

// servedLeaf is the certificate the server presents, or nil.
func servedLeaf(addr string) []byte {
	conn, err := tls.Dial("tcp", addr, &tls.Config{InsecureSkipVerify: true})
	if err != nil {
		return nil
	}
	defer conn.Close()
	return conn.ConnectionState().PeerCertificates[0].Raw
}

// leafOf is the first certificate of a PEM file.
func leafOf(t *testing.T, path string) *x509.Certificate {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	certs, err := certutil.ParseCertsPEM(data)
	if err != nil {
		t.Fatal(err)
	}
	return certs[0]
}

// clientIdentity is a self-signed CA that is also the client certificate
// it verifies: the CA bundle in PEM, and the certificate to present.
func clientIdentity(t *testing.T) ([]byte, tls.Certificate) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	ca, err := certutil.NewSelfSignedCACert(certutil.Config{CommonName: "apiserver-client"}, key)
	if err != nil {
		t.Fatal(err)
	}
	caPEM, err := certutil.EncodeCertificates(ca)
	if err != nil {
		t.Fatal(err)
	}
	return caPEM, tls.Certificate{Certificate: [][]byte{ca.Raw}, PrivateKey: key}
}

// TestTLS: the generated CA verifies the served certificate for
// localhost; TLS 1.3 only and HTTP/1.1 only by default.
func TestTLS(t *testing.T) {
	r := start(t, nil)
	ca, leaf := leafOf(t, filepath.Join(r.cfg.CertDir, CAFileName)), leafOf(t, filepath.Join(r.cfg.CertDir, CertFileName))
	roots := x509.NewCertPool()
	roots.AddCert(ca)
	for _, name := range []string{"localhost", "127.0.0.1", "::1"} {
		if _, err := leaf.Verify(x509.VerifyOptions{Roots: roots, DNSName: name}); err != nil {
			t.Errorf("ca.crt does not verify tls.crt for %s: %v", name, err)
		}
	}
	if got := servedLeaf(r.Addr().String()); string(got) != string(leaf.Raw) {
		t.Error("the served certificate is not tls.crt")
	}

	if _, err := tls.Dial("tcp", r.Addr().String(), &tls.Config{InsecureSkipVerify: true, MaxVersion: tls.VersionTLS12}); err == nil {
		t.Error("a TLS 1.2 client completed the handshake")
	}
	eventually(t, "the TLS 1.2 handshake counted as incompatible", func() bool {
		got, _ := metricValue(t, r.Server, "claimbridge_webhook_tls_handshake_errors_total", "reason", "incompatible")
		return got == 1
	})

	resp, _ := post(t, r.client(t, &tls.Config{NextProtos: []string{"h2", "http/1.1"}}), r.url("/convert"), conversionReview("u", api.Group+"/v1alpha1"))
	if resp.ProtoMajor != 1 || resp.TLS.NegotiatedProtocol == "h2" || resp.TLS.Version != tls.VersionTLS13 {
		t.Errorf("negotiated %s %q TLS %x, want HTTP/1.1 over TLS 1.3", resp.Proto, resp.TLS.NegotiatedProtocol, resp.TLS.Version)
	}
}

// TestServingCertificateReload: a new pair in the cert dir is served
// without a restart, written in place or swapped in as kubelet updates a
// Secret volume (a ..data symlink to a new directory, the old one removed).
func TestServingCertificateReload(t *testing.T) {
	for name, kubelet := range map[string]bool{"in-place": false, "kubelet-symlink-swap": true} {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "certs")
			write := func(version string) {
				if !kubelet {
					if _, err := WriteCertificates(dir, nil); err != nil {
						t.Fatal(err)
					}
					return
				}
				data := filepath.Join(dir, version)
				if err := os.MkdirAll(data, 0o755); err != nil {
					t.Fatal(err)
				}
				if _, err := WriteCertificates(data, nil); err != nil {
					t.Fatal(err)
				}
				if err := os.Symlink(version, filepath.Join(dir, "..data_tmp")); err != nil {
					t.Fatal(err)
				}
				if err := os.Rename(filepath.Join(dir, "..data_tmp"), filepath.Join(dir, "..data")); err != nil {
					t.Fatal(err)
				}
				for _, f := range []string{CAFileName, CertFileName, KeyFileName} {
					if err := os.Symlink(filepath.Join("..data", f), filepath.Join(dir, f)); err != nil && !os.IsExist(err) {
						t.Fatal(err)
					}
				}
			}
			write("..v1")
			r := start(t, func(c *Config) { c.CertDir = dir })
			if servedLeaf(r.Addr().String()) == nil {
				t.Fatal("no certificate served")
			}
			reloads, _ := metricValue(t, r.Server, "claimbridge_certificate_reloads_total", "result", "success")
			write("..v2")
			if kubelet {
				if err := os.RemoveAll(filepath.Join(dir, "..v1")); err != nil {
					t.Fatal(err)
				}
			}
			want := leafOf(t, filepath.Join(dir, CertFileName)).Raw
			eventually(t, "the new certificate served", func() bool { return string(servedLeaf(r.Addr().String())) == string(want) })
			if got, _ := metricValue(t, r.Server, "claimbridge_certificate_reloads_total", "result", "success"); got <= reloads {
				t.Errorf("reloads counted: %v, want more than %v", got, reloads)
			}
		})
	}
}

// TestClientCertificates: with a client CA, /validate and /default require
// a certificate it verifies, /convert never does; a new CA bundle is
// used without a restart.
func TestClientCertificates(t *testing.T) {
	caFile := filepath.Join(t.TempDir(), "client-ca.crt")
	oldCA, oldCert := clientIdentity(t)
	if err := os.WriteFile(caFile, oldCA, 0o600); err != nil {
		t.Fatal(err)
	}
	secured := start(t, func(c *Config) { c.ClientCAFile = caFile })
	open := start(t, nil)
	withCert := func(r *running, cert *tls.Certificate) *http.Client {
		cfg := &tls.Config{}
		if cert != nil {
			cfg.GetClientCertificate = func(*tls.CertificateRequestInfo) (*tls.Certificate, error) { return cert, nil }
		}
		c := r.client(t, cfg)
		c.Transport.(*http.Transport).DisableKeepAlives = true
		return c
	}
	convert := conversionReview("u", api.Group+"/v1alpha1", fixture(t, api.V1alpha3))
	admission := admissionReview(claimRequest(t, admissionv1.Create, api.V1alpha3))
	for _, c := range []struct {
		name     string
		r        *running
		cert     *tls.Certificate
		endpoint string
		want     int
	}{
		{"convert-without-certificate", secured, nil, "/convert", http.StatusOK},
		{"validate-without-certificate", secured, nil, "/validate", http.StatusUnauthorized},
		{"default-without-certificate", secured, nil, "/default", http.StatusUnauthorized},
		{"validate-with-certificate", secured, &oldCert, "/validate", http.StatusOK},
		{"default-with-certificate", secured, &oldCert, "/default", http.StatusOK},
		{"validate-without-client-ca", open, nil, "/validate", http.StatusOK},
	} {
		body := admission
		if c.endpoint == "/convert" {
			body = convert
		}
		if resp, data := post(t, withCert(c.r, c.cert), c.r.url(c.endpoint), body); resp.StatusCode != c.want {
			t.Errorf("%s: got %d %s, want %d", c.name, resp.StatusCode, data, c.want)
		}
	}

	newCA, newCert := clientIdentity(t)
	if err := os.WriteFile(caFile, newCA, 0o600); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the new client CA used", func() bool {
		resp, err := withCert(secured, &newCert).Post(secured.url("/validate"), "application/json", strings.NewReader(string(admission)))
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	})
	if resp, err := withCert(secured, &oldCert).Post(secured.url("/validate"), "application/json", strings.NewReader(string(admission))); err == nil {
		resp.Body.Close()
		t.Errorf("a certificate of the replaced CA got %d, want a failed handshake", resp.StatusCode)
	}
}

// TestDrain: once its context is done, the server fails /readyz, answers
// with Connection: close for ShutdownDrain, and lets an in-flight review
// finish before Run returns.
func TestDrain(t *testing.T) {
	var calls atomic.Int32
	entered, release := make(chan struct{}), make(chan struct{})
	r := start(t, func(c *Config) {
		c.ShutdownDrain, c.ConversionCacheBytes = 2*time.Second, 0
		c.Converter = func(obj map[string]any, to string) (map[string]any, error) {
			if calls.Add(1) == 1 {
				entered <- struct{}{}
				<-release
			}
			return fakeConvert(obj, to)
		}
	})
	client := r.client(t, nil)
	review := conversionReview("u", api.Group+"/v1alpha1", fixture(t, api.V1alpha3))
	inFlight := make(chan int, 1)
	go func() {
		resp, err := client.Post(r.url("/convert"), "application/json", strings.NewReader(string(review)))
		if err != nil {
			inFlight <- 0
			return
		}
		resp.Body.Close()
		inFlight <- resp.StatusCode
	}()
	<-entered
	ready := func() int {
		resp, err := http.Get("http://" + r.healthAddr.String() + "/readyz")
		if err != nil {
			return 0
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if got := ready(); got != http.StatusOK {
		t.Fatalf("/readyz before shutdown: %d", got)
	}
	r.cancel()
	eventually(t, "/readyz failing", func() bool { return ready() == http.StatusServiceUnavailable })
	resp, _ := post(t, client, r.url("/convert"), review)
	if resp.StatusCode != http.StatusOK || !resp.Close {
		t.Errorf("during the drain: got %d, Connection %q, want 200 with Connection: close", resp.StatusCode, resp.Header.Get("Connection"))
	}
	close(release)
	if got := <-inFlight; got != http.StatusOK {
		t.Errorf("the in-flight review: got %d, want 200", got)
	}
	err := <-r.done
	if err != nil {
		t.Errorf("Run: %v", err)
	}
	r.done <- err // for the cleanup
}

// TestSetupErrors: what Run cannot use before serving is a SetupError
// naming the setting.
func TestSetupErrors(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	onlyCert := filepath.Join(t.TempDir(), "certs")
	if err := os.MkdirAll(onlyCert, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(onlyCert, CertFileName), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(t.TempDir(), "missing")
	tests := map[string]struct {
		mutate func(*Config)
		want   Setting
		msg    string
	}{
		"busy-port":          {func(c *Config) { c.Port = busy.Addr().(*net.TCPAddr).Port }, SettingListener, "another process listens on that port"},
		"busy-health-port":   {func(c *Config) { c.HealthProbeAddress = busy.Addr().String() }, SettingHealthProbeAddress, "health probe listener"},
		"busy-metrics-port":  {func(c *Config) { c.MetricsAddress = busy.Addr().String() }, SettingMetricsAddress, "metrics listener"},
		"cert-dir-only-cert": {func(c *Config) { c.CertDir = onlyCert }, SettingCertDir, "holds tls.crt but no tls.key"},
		"missing-cert-file":  {func(c *Config) { c.CertFile, c.KeyFile = missing, missing }, SettingServingCertificate, "loading the serving certificate"},
		"missing-client-ca":  {func(c *Config) { c.ClientCAFile = missing }, SettingClientCA, "loading the client CA bundle"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			err := newServer(t, tc.mutate).Run(context.Background())
			var setup *SetupError
			if !errors.As(err, &setup) || setup.Setting != tc.want || !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("got %v, want a SetupError of setting %d containing %q", err, tc.want, tc.msg)
			}
		})
	}
}

// TestMetrics: the series operators use exist once the server serves; a
// plain HTTP request to the TLS port counts as not_tls.
func TestMetrics(t *testing.T) {
	r := start(t, nil)
	client := r.client(t, nil)
	post(t, client, r.url("/convert"), conversionReview("u", api.Group+"/v1alpha1", fixture(t, api.V1alpha3)))
	post(t, client, r.url("/validate"), admissionReview(claimRequest(t, admissionv1.Create, api.V1alpha3)))
	if resp, err := http.Get("http://" + r.Addr().String() + "/convert"); err == nil {
		resp.Body.Close()
	}
	eventually(t, "a plain HTTP request counted as not_tls", func() bool {
		got, _ := metricValue(t, r.Server, "claimbridge_webhook_tls_handshake_errors_total", "reason", "not_tls")
		return got == 1
	})
	resp, err := http.Get("http://" + r.MetricsAddr().String() + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	series := map[string]bool{}
	for sc := bufio.NewScanner(resp.Body); sc.Scan(); {
		if line := sc.Text(); !strings.HasPrefix(line, "#") {
			series[strings.FieldsFunc(line, func(r rune) bool { return r == '{' || r == ' ' })[0]] = true
		}
	}
	for _, name := range []string{
		"claimbridge_webhook_requests_total", "claimbridge_webhook_request_duration_seconds_bucket", "claimbridge_webhook_requests_in_flight",
		"claimbridge_webhook_shed_total", "claimbridge_conversion_objects_total", "claimbridge_conversion_cache_lookups_total",
		"claimbridge_conversion_cache_bytes", "claimbridge_conversion_cache_entries", "claimbridge_certificate_expiration_timestamp_seconds",
		"claimbridge_certificate_not_before_timestamp_seconds", "claimbridge_certificate_ca_expiration_timestamp_seconds",
		"claimbridge_certificate_reloads_total", "claimbridge_webhook_panics_total", "claimbridge_webhook_tls_handshake_errors_total",
		"claimbridge_build_info",
	} {
		if !series[name] {
			t.Errorf("no series %s", name)
		}
	}
	notAfter, _ := metricValue(t, r.Server, "claimbridge_certificate_expiration_timestamp_seconds")
	if want := leafOf(t, filepath.Join(r.cfg.CertDir, CertFileName)).NotAfter.Unix(); int64(notAfter) != want {
		t.Errorf("expiration %v, want %v", notAfter, want)
	}
	for _, c := range []struct{ endpoint, result string }{{"/convert", "success"}, {"/validate", "allowed"}} {
		if got, _ := metricValue(t, r.Server, "claimbridge_webhook_requests_total", "endpoint", c.endpoint, "result", c.result); got != 1 {
			t.Errorf("requests %s %s: %v, want 1", c.endpoint, c.result, got)
		}
	}
}

// TestNoObjectContentsInLogs: converting, failing and denying an object
// logs its identity and field paths, never its values (below -v=4, which
// logs denial messages).
func TestNoObjectContentsInLogs(t *testing.T) {
	const secret = "Sk_Live_51HsEcReTtOkEn"
	var logs logBuffer
	r := startCtx(t, klog.NewContext(context.Background(), logs.logger(3)), nil)
	client := r.client(t, nil)
	claim := strings.Replace(string(fixture(t, api.V1alpha3)), `"r-and-d"`, `"`+secret+`"`, 1)
	invalid := strings.Replace(claim, `"deviceClassName":"gpu.example.com"`, `"deviceClassName":"`+secret+`"`, 1)
	unsupported := `{"apiVersion":"` + api.Group + `/v1alpha3","kind":"DeviceClass","metadata":{"name":"d"},"spec":{"token":"` + secret + `"}}`
	req := claimRequest(t, admissionv1.Create, api.V1alpha3)
	req.Object.Raw = []byte(invalid)
	for endpoint, body := range map[string]string{
		"/convert":  string(conversionReview("u1", api.Group+"/v1alpha1", []byte(claim), []byte(unsupported))),
		"/validate": string(admissionReview(req)),
		"/default":  `{"kind":"AdmissionReview","apiVersion":"admission.k8s.io/v1","request":{"uid":"u2","object":{"a":"` + secret + `"`,
	} {
		post(t, client, r.url(endpoint), []byte(body))
	}
	got := logs.String()
	for _, want := range []string{"Conversion failed", "Admission denied", "Admission denied before decoding", "deviceClassName"} {
		if !strings.Contains(got, want) {
			t.Errorf("log lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, secret) {
		t.Errorf("log holds the object's value:\n%s", got)
	}
}
