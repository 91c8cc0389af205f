package webhook

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-logr/logr"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/internal/version"
)

// eventually polls cond until it holds; the long guard only bounds a hung
// test, it is not an assertion on timing.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func convertOK(t *testing.T, c *http.Client, url string) {
	t.Helper()
	resp, body, err := postJSON(c, url, conversionReview("apiextensions.k8s.io/v1", "u", api.Group+"/v1alpha1", fixture(t, "v1alpha3")))
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 200 || !bytes.Contains(body, []byte(`"status":"Success"`)) {
		t.Fatalf("status %d: %s", resp.StatusCode, body)
	}
}

func TestServerGeneratedCA(t *testing.T) {
	const dnsName = "claimbridge.claimbridge-system.svc"
	ts := startServer(t, func(c *Config) { c.DNSNames = []string{dnsName} })
	for _, f := range []string{CAFileName, CertFileName, KeyFileName} {
		if _, err := os.Stat(filepath.Join(ts.cfg.CertDir, f)); err != nil {
			t.Fatal(err)
		}
	}
	if fi, _ := os.Stat(filepath.Join(ts.cfg.CertDir, KeyFileName)); fi.Mode().Perm() != 0o600 {
		t.Errorf("key mode %v, want 0600", fi.Mode().Perm())
	}
	convertOK(t, ts.client(t, &tls.Config{ServerName: dnsName}), ts.url("/convert"))
	convertOK(t, ts.client(t, &tls.Config{ServerName: "localhost"}), ts.url("/convert"))
	if _, _, err := postJSON(ts.client(t, &tls.Config{ServerName: "other.example.com"}), ts.url("/convert"), nil); err == nil {
		t.Error("a name outside the SANs verified")
	}

	health := "http://" + ts.HealthAddr().String()
	if c := mustGet(t, health+"/healthz"); c != 200 {
		t.Errorf("healthz %d", c)
	}
	if c := mustGet(t, health+"/readyz"); c != 200 {
		t.Errorf("readyz %d", c)
	}
	resp, err := http.Get("http://" + ts.MetricsAddr().String() + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	build := version.Get()
	for _, m := range []string{
		`claimbridge_webhook_requests_total{endpoint="/convert",operation="",result="success"} 2`,
		`claimbridge_conversion_objects_total{from="v1alpha3",result="success",to="v1alpha1"} 2`,
		`claimbridge_certificate_reloads_total{result="success"} 1`,
		"claimbridge_webhook_request_duration_seconds_bucket", "claimbridge_webhook_requests_in_flight", "go_goroutines", "process_",
		// Which build runs, as claimbridge version says.
		fmt.Sprintf(`claimbridge_build_info{go_version=%q,revision=%q,version=%q} 1`, build.GoVersion, build.Revision, build.Version),
	} {
		if !strings.Contains(string(body), m) {
			t.Errorf("metrics lack %s", m)
		}
	}
	// The metrics listener serves /metrics, nothing else.
	if c := mustGet(t, "http://"+ts.MetricsAddr().String()+"/foo/bar"); c != http.StatusNotFound {
		t.Errorf("GET /foo/bar on the metrics listener: %d, want 404", c)
	}
	if resp, err := http.Post("http://"+ts.MetricsAddr().String()+"/metrics", "text/plain", nil); err != nil || resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("POST /metrics: %v %v, want 405", resp, err)
	} else {
		resp.Body.Close()
	}
}

func TestServerRejectsHalfACertificate(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, CertFileName), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	err := run(testConfig(dir))
	wantSetupError(t, err, SettingCertDir, "holds tls.crt but no tls.key: add the key, or remove tls.crt")
}

// TestServerRejectsDanglingCertificateLinks: a Secret volume's layout whose
// data is missing (tls.crt and tls.key links to ..data/) is an error, not an
// empty directory to generate a pair into.
func TestServerRejectsDanglingCertificateLinks(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{CertFileName, KeyFileName} {
		if err := os.Symlink(filepath.Join("..data", f), filepath.Join(dir, f)); err != nil {
			t.Fatal(err)
		}
	}
	err := run(testConfig(dir))
	wantSetupError(t, err, SettingCertDir, filepath.Join(dir, CertFileName)+" is a link to ..data/tls.crt, which does not exist")
	if _, statErr := os.Lstat(filepath.Join(dir, CAFileName)); !errors.Is(statErr, fs.ErrNotExist) {
		t.Errorf("a CA was generated beside the links: %v", statErr)
	}
}

// wantSetupError checks that err is a SetupError of setting whose message
// contains want.
func wantSetupError(t *testing.T, err error, setting Setting, want string) {
	t.Helper()
	var se *SetupError
	if !errors.As(err, &se) || se.Setting != setting || !strings.Contains(err.Error(), want) {
		t.Errorf("error %v (%#v), want a SetupError of setting %d containing %q", err, se, setting, want)
	}
}

// TestServerPortInUse: a busy address fails Run before it serves, naming
// the listener, the address and what to do.
func TestServerPortInUse(t *testing.T) {
	ts := startServer(t, nil)
	busy := ts.Addr().String()
	_, port, _ := net.SplitHostPort(busy)
	for name, tc := range map[string]struct {
		mutate  func(*Config)
		setting Setting
		want    string
	}{
		"webhook": {func(c *Config) { c.Port = mustAtoi(t, port) }, SettingListener, "binding the webhook listener to " + busy},
		"health":  {func(c *Config) { c.HealthProbeAddress = busy }, SettingHealthProbeAddress, "binding the health probe listener to " + busy},
		"metrics": {func(c *Config) { c.MetricsAddress = busy }, SettingMetricsAddress, "binding the metrics listener to " + busy},
	} {
		t.Run(name, func(t *testing.T) {
			c := testConfig(ts.cfg.CertDir)
			tc.mutate(&c)
			err := run(c)
			wantSetupError(t, err, tc.setting, tc.want)
			if err != nil && !strings.Contains(err.Error(), "another process listens on that port") {
				t.Errorf("error %v does not say what to do", err)
			}
		})
	}
}

// TestServerUnusableCertificates: serving pairs and client CA bundles that
// cannot be loaded, and a certificate directory that cannot take a
// generated pair, fail Run before it serves with the setting and the files.
func TestServerUnusableCertificates(t *testing.T) {
	good := t.TempDir()
	if _, err := WriteCertificates(good, nil); err != nil {
		t.Fatal(err)
	}
	other := t.TempDir()
	if _, err := WriteCertificates(other, nil); err != nil {
		t.Fatal(err)
	}
	garbage := filepath.Join(t.TempDir(), "garbage.pem")
	if err := os.WriteFile(garbage, []byte("garbage"), 0o600); err != nil {
		t.Fatal(err)
	}
	notDir := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(notDir, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	onlyKey := t.TempDir()
	if err := os.WriteFile(filepath.Join(onlyKey, KeyFileName), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	for name, tc := range map[string]struct {
		mutate  func(*Config)
		setting Setting
		want    string
	}{
		"mismatched-key": {func(c *Config) {
			c.CertDir, c.CertFile, c.KeyFile = "", filepath.Join(good, CertFileName), filepath.Join(other, KeyFileName)
		}, SettingServingCertificate, "loading the serving certificate " + filepath.Join(good, CertFileName) + " and key " + filepath.Join(other, KeyFileName)},
		"missing-file": {func(c *Config) {
			c.CertDir, c.CertFile, c.KeyFile = "", filepath.Join(good, "missing.crt"), filepath.Join(good, KeyFileName)
		}, SettingServingCertificate, "no such file"},
		"garbage-in-cert-dir": {func(c *Config) {
			c.CertDir = t.TempDir()
			for _, f := range []string{CertFileName, KeyFileName} {
				if err := os.WriteFile(filepath.Join(c.CertDir, f), []byte("garbage"), 0o600); err != nil {
					t.Fatal(err)
				}
			}
		}, SettingCertDir, "loading the serving certificate"},
		"only-key":                 {func(c *Config) { c.CertDir = onlyKey }, SettingCertDir, "holds tls.key but no tls.crt: add the certificate, or remove tls.key"},
		"cert-dir-not-a-directory": {func(c *Config) { c.CertDir = notDir }, SettingCertDir, "not a directory"},
		"cert-dir-cannot-take-a-pair": {func(c *Config) {
			// ca.crt a non-empty directory: writing it fails, as a
			// read-only directory would for a user other than root.
			c.CertDir = t.TempDir()
			if err := os.MkdirAll(filepath.Join(c.CertDir, CAFileName, "x"), 0o700); err != nil {
				t.Fatal(err)
			}
		}, SettingCertDir, "holds no tls.crt and tls.key, and generating them there failed (make the directory writable, or provide the pair)"},
		"garbage-client-ca": {func(c *Config) { c.CertDir, c.ClientCAFile = good, garbage }, SettingClientCA, "loading the client CA bundle " + garbage},
	} {
		t.Run(name, func(t *testing.T) {
			c := testConfig(t.TempDir())
			tc.mutate(&c)
			wantSetupError(t, run(c), tc.setting, tc.want)
		})
	}
}

// run runs a server with c until it fails; it must fail before serving.
func run(c Config) error {
	s, err := New(c)
	if err != nil {
		return err
	}
	return s.Run(klog.NewContext(context.Background(), logr.Discard()))
}

func mustAtoi(t *testing.T, s string) int {
	var n int
	if err := json.Unmarshal([]byte(s), &n); err != nil {
		t.Fatal(err)
	}
	return n
}

func TestServerHTTP1Only(t *testing.T) {
	ts := startServer(t, nil)
	pool := ts.caPool(t)
	conn, err := tls.Dial("tcp", ts.Addr().String(), &tls.Config{RootCAs: pool, NextProtos: []string{"h2", "http/1.1"}})
	if err != nil {
		t.Fatal(err)
	}
	if p := conn.ConnectionState().NegotiatedProtocol; p != "http/1.1" {
		t.Errorf("negotiated %q, want http/1.1", p)
	}
	conn.Close()
	if conn, err := tls.Dial("tcp", ts.Addr().String(), &tls.Config{RootCAs: pool, NextProtos: []string{"h2"}}); err == nil {
		if p := conn.ConnectionState().NegotiatedProtocol; p == "h2" {
			t.Error("h2 negotiated")
		}
		conn.Close()
	}
	tr := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}, ForceAttemptHTTP2: true}
	defer tr.CloseIdleConnections()
	resp, _, err := postJSON(&http.Client{Transport: tr}, ts.url("/convert"), conversionReview("apiextensions.k8s.io/v1", "u", api.Group+"/v1alpha1"))
	if err != nil {
		t.Fatal(err)
	}
	if resp.ProtoMajor != 1 {
		t.Errorf("protocol %s", resp.Proto)
	}
}

func TestServerTLSVersions(t *testing.T) {
	ts := startServer(t, nil)
	pool := ts.caPool(t)
	if conn, err := tls.Dial("tcp", ts.Addr().String(), &tls.Config{RootCAs: pool, MaxVersion: tls.VersionTLS12}); err == nil {
		conn.Close()
		t.Error("TLS 1.2 accepted by default")
	}

	ts12 := startServer(t, func(c *Config) { c.MinTLSVersion = tls.VersionTLS12 })
	pool12 := ts12.caPool(t)
	conn, err := tls.Dial("tcp", ts12.Addr().String(), &tls.Config{RootCAs: pool12, MaxVersion: tls.VersionTLS12})
	if err != nil {
		t.Fatalf("TLS 1.2 with --tls-min-version=1.2: %v", err)
	}
	st := conn.ConnectionState()
	conn.Close()
	if st.Version != tls.VersionTLS12 || !strings.Contains(tls.CipherSuiteName(st.CipherSuite), "ECDHE") {
		t.Errorf("version %x suite %s", st.Version, tls.CipherSuiteName(st.CipherSuite))
	}
	cbc := &tls.Config{RootCAs: pool12, MaxVersion: tls.VersionTLS12, CipherSuites: []uint16{tls.TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA, tls.TLS_RSA_WITH_AES_128_GCM_SHA256}}
	if conn, err := tls.Dial("tcp", ts12.Addr().String(), cbc); err == nil {
		conn.Close()
		t.Error("CBC / non-ECDHE suite accepted")
	}
	if conn, err := tls.Dial("tcp", ts12.Addr().String(), &tls.Config{RootCAs: pool12, MaxVersion: tls.VersionTLS11, MinVersion: tls.VersionTLS10}); err == nil {
		conn.Close()
		t.Error("TLS 1.1 accepted")
	}
}

// serial is a random certificate serial number.
func serial() *big.Int {
	n, err := rand.Int(rand.Reader, big.NewInt(1<<62))
	if err != nil {
		panic(err)
	}
	return n
}

// clientCert returns a CA (PEM) and a client certificate it signed. The
// server's generator makes serving certificates only, so the test signs a
// client certificate itself.
func clientCert(t *testing.T) ([]byte, tls.Certificate) {
	t.Helper()
	caKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	caTmpl := &x509.Certificate{SerialNumber: serial(), Subject: pkix.Name{CommonName: "client-ca"}, NotBefore: time.Now().Add(-time.Hour),
		NotAfter: time.Now().Add(time.Hour), IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	ca, _ := x509.ParseCertificate(caDER)
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	tmpl := &x509.Certificate{SerialNumber: serial(), Subject: pkix.Name{CommonName: "kube-apiserver"}, NotBefore: time.Now().Add(-time.Hour),
		NotAfter: time.Now().Add(time.Hour), KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}), tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
}

func TestServerClientCA(t *testing.T) {
	caPEM, cert := clientCert(t)
	caFile := filepath.Join(t.TempDir(), "client-ca.crt")
	if err := os.WriteFile(caFile, caPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	ts := startServer(t, func(c *Config) { c.ClientCAFile = caFile })
	review := admissionReview("admission.k8s.io/v1", claimRequest(t, "CREATE", "v1alpha3", ""))

	anon := ts.client(t, nil)
	convertOK(t, anon, ts.url("/convert"))
	resp, body, err := postJSON(anon, ts.url("/validate"), review)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("/validate without client certificate: %d %s", resp.StatusCode, body)
	}

	authed := ts.client(t, &tls.Config{Certificates: []tls.Certificate{cert}})
	convertOK(t, authed, ts.url("/convert"))
	resp, body, err = postJSON(authed, ts.url("/validate"), review)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 200 || !bytes.Contains(body, []byte(`"allowed":true`)) {
		t.Errorf("/validate with client certificate: %d %s", resp.StatusCode, body)
	}

	_, foreign := clientCert(t)
	if _, _, err := postJSON(ts.client(t, &tls.Config{Certificates: []tls.Certificate{foreign}}), ts.url("/validate"), review); err == nil {
		t.Error("a client certificate from another CA was accepted")
	}
}

// writeAtomic mimics the kubelet's atomic writer for Secret volumes: the
// files live in a timestamped directory, ..data points at it, and the
// visible names are symlinks through ..data; an update swaps ..data.
func writeAtomic(t *testing.T, dir, version string, files map[string][]byte) {
	t.Helper()
	ts := filepath.Join(dir, "..ts-"+version)
	if err := os.MkdirAll(ts, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(ts, name), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	tmp := filepath.Join(dir, "..data_tmp")
	_ = os.Remove(tmp)
	if err := os.Symlink(filepath.Base(ts), tmp); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, filepath.Join(dir, "..data")); err != nil {
		t.Fatal(err)
	}
	for name := range files {
		link := filepath.Join(dir, name)
		if _, err := os.Lstat(link); err != nil {
			if err := os.Symlink(filepath.Join("..data", name), link); err != nil {
				t.Fatal(err)
			}
		}
	}
}

func TestServerCertificateRotationUnderLoad(t *testing.T) {
	dir := t.TempDir()
	ca1, crt1, key1, _ := GenerateCertificates(nil)
	ca2, crt2, key2, _ := GenerateCertificates(nil)
	writeAtomic(t, dir, "1", map[string][]byte{CAFileName: ca1, CertFileName: crt1, KeyFileName: key1})
	ts := startServer(t, func(c *Config) { c.CertDir = dir; c.CertReloadInterval = 200 * time.Millisecond })

	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(ca1)
	pool.AppendCertsFromPEM(ca2)
	tr := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}, DisableKeepAlives: true}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr}
	block, _ := pem.Decode(crt2)
	newLeaf, _ := x509.ParseCertificate(block.Bytes)

	var ok, failed, onNew atomic.Int64
	var firstErr atomic.Value
	stop := make(chan struct{})
	var wg sync.WaitGroup
	review := conversionReview("apiextensions.k8s.io/v1", "u", api.Group+"/v1alpha2", fixture(t, "v1alpha1"))
	for range 4 {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				resp, body, err := postJSON(client, ts.url("/convert"), review)
				if err != nil || resp.StatusCode != 200 || !bytes.Contains(body, []byte(`"Success"`)) {
					failed.Add(1)
					firstErr.CompareAndSwap(nil, err)
					continue
				}
				ok.Add(1)
				if resp.TLS.PeerCertificates[0].SerialNumber.Cmp(newLeaf.SerialNumber) == 0 {
					onNew.Add(1)
				}
			}
		})
	}
	eventually(t, "requests with the first certificate", func() bool { return ok.Load() >= 20 })
	writeAtomic(t, dir, "2", map[string][]byte{CAFileName: ca2, CertFileName: crt2, KeyFileName: key2})
	if err := os.RemoveAll(filepath.Join(dir, "..ts-1")); err != nil { // as the kubelet does
		t.Fatal(err)
	}
	eventually(t, "the rotated certificate to be served", func() bool { return onNew.Load() >= 20 })
	close(stop)
	wg.Wait()
	if n := failed.Load(); n != 0 {
		t.Errorf("%d of %d requests failed during rotation, first: %v", n, n+ok.Load(), firstErr.Load())
	}
}

func TestServerGracefulShutdownUnderLoad(t *testing.T) {
	const inFlight = 8
	entered := make(chan struct{}, inFlight)
	release := make(chan struct{})
	slow := func(obj map[string]interface{}, to string) (map[string]interface{}, error) {
		entered <- struct{}{}
		<-release
		return fakeConvert(obj, to)
	}
	ts := startServer(t, func(c *Config) { c.Converter = slow })
	client := ts.client(t, nil)
	health := "http://" + ts.HealthAddr().String() + "/readyz"

	type result struct {
		code int
		body []byte
		err  error
	}
	results := make(chan result, inFlight)
	for i := range inFlight {
		go func() {
			resp, body, err := postJSON(client, ts.url("/convert"),
				conversionReview("apiextensions.k8s.io/v1", "u", api.Group+"/v1alpha1", withName(t, fixture(t, "v1alpha3"), "c"+string(rune('a'+i)))))
			r := result{body: body, err: err}
			if resp != nil {
				r.code = resp.StatusCode
			}
			results <- r
		}()
	}
	for range inFlight {
		<-entered
	}
	ts.cancel() // SIGTERM
	eventually(t, "readyz to fail", func() bool {
		resp, err := http.Get(health)
		if err != nil {
			return true
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusServiceUnavailable
	})
	eventually(t, "the listener to close", func() bool {
		c, err := net.Dial("tcp", ts.Addr().String())
		if err != nil {
			return true
		}
		c.Close()
		return false
	})
	close(release)
	for range inFlight {
		r := <-results
		if r.err != nil || r.code != 200 {
			t.Errorf("in-flight request: %d %v %s", r.code, r.err, r.body)
			continue
		}
		var review apiextensionsv1.ConversionReview
		if err := json.Unmarshal(r.body, &review); err != nil || review.Response.Result.Status != metav1.StatusSuccess {
			t.Errorf("in-flight request: %s", r.body)
		}
	}
	if err := <-ts.done; err != nil {
		t.Errorf("Run: %v", err)
	}
	ts.done <- nil // for the cleanup
}

func TestServerStalledConnections(t *testing.T) {
	ts := startServer(t, func(c *Config) {
		c.ReadHeaderTimeout = 500 * time.Millisecond
		c.ReadTimeout = time.Second
	})
	pool := ts.caPool(t)
	var stalled []net.Conn
	defer func() {
		for _, c := range stalled {
			c.Close()
		}
	}()
	for i := range 48 {
		switch i % 3 {
		case 0: // TCP only, no handshake
			c, err := net.Dial("tcp", ts.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			stalled = append(stalled, c)
		case 1: // half a header
			c, err := tls.Dial("tcp", ts.Addr().String(), &tls.Config{RootCAs: pool})
			if err != nil {
				t.Fatal(err)
			}
			io.WriteString(c, "POST /convert HTTP/1.1\r\nHost: x\r\nContent-Type: appl")
			stalled = append(stalled, c)
		case 2: // headers and part of the body
			c, err := tls.Dial("tcp", ts.Addr().String(), &tls.Config{RootCAs: pool})
			if err != nil {
				t.Fatal(err)
			}
			io.WriteString(c, "POST /convert HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{\"apiVersion\":")
			stalled = append(stalled, c)
		}
	}
	client := ts.client(t, nil)
	for range 20 {
		convertOK(t, client, ts.url("/convert"))
	}
	// The server closes every stalled connection by itself.
	for i, c := range stalled {
		c.SetReadDeadline(time.Now().Add(30 * time.Second))
		if _, err := io.Copy(io.Discard, c); err != nil && strings.Contains(err.Error(), "timeout") {
			t.Errorf("stalled connection %d still open", i)
		}
	}
}

func TestServerPanicKeepsServing(t *testing.T) {
	var calls atomic.Int64
	ts := startServer(t, func(c *Config) {
		c.Converter = func(obj map[string]interface{}, to string) (map[string]interface{}, error) {
			if calls.Add(1) == 1 {
				panic("first call")
			}
			return fakeConvert(obj, to)
		}
	})
	client := ts.client(t, nil)
	_, body, err := postJSON(client, ts.url("/convert"), conversionReview("apiextensions.k8s.io/v1", "u", api.Group+"/v1alpha1", fixture(t, "v1alpha2")))
	if err != nil || !bytes.Contains(body, []byte(`"Failure"`)) || !bytes.Contains(body, []byte("panicked")) {
		t.Fatalf("%v %s", err, body)
	}
	convertOK(t, client, ts.url("/convert"))
}

// TestServerClosesConnectionsWhileDraining: once the stop signal has turned
// /readyz false, every answer says Connection: close, so that keep-alive
// clients leave the pod during --shutdown-drain instead of writing a request
// on a connection that Shutdown closes at its end.
func TestServerClosesConnectionsWhileDraining(t *testing.T) {
	ts := startServer(t, func(c *Config) { c.ShutdownDrain = 3 * time.Second })
	client := ts.client(t, nil)
	review := conversionReview("apiextensions.k8s.io/v1", "u", api.Group+"/v1alpha1", fixture(t, "v1alpha3"))
	resp, _, err := postJSON(client, ts.url("/convert"), review)
	if err != nil || resp.StatusCode != 200 || resp.Close {
		t.Fatalf("before the stop signal: %v, close %v", err, resp != nil && resp.Close)
	}
	ts.cancel() // SIGTERM
	eventually(t, "readyz to fail", func() bool {
		resp, err := http.Get("http://" + ts.HealthAddr().String() + "/readyz")
		if err != nil {
			return true
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusServiceUnavailable
	})
	resp, body, err := postJSON(client, ts.url("/convert"), review)
	if err != nil || resp.StatusCode != 200 || !bytes.Contains(body, []byte(`"status":"Success"`)) {
		t.Fatalf("during the drain: %v %s", err, body)
	}
	if !resp.Close {
		t.Errorf("an answer during the drain keeps the connection open; want Connection: close")
	}
	if err := <-ts.done; err != nil {
		t.Errorf("Run: %v", err)
	}
	ts.done <- nil // for the cleanup
}

// countingReader counts the bytes a client's transport took from a body.
type countingReader struct {
	r io.Reader
	n atomic.Int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n.Add(int64(n))
	return n, err
}

// TestServerRefusesByHeadersWithoutReadingTheBody: a request refused for
// its method, content type or missing client certificate is answered from
// its headers: with `Expect: 100-continue` the server never asks for the
// body, so the client sends none of it.
func TestServerRefusesByHeadersWithoutReadingTheBody(t *testing.T) {
	ts := startServer(t, nil)
	tr := ts.client(t, nil).Transport.(*http.Transport)
	tr.ExpectContinueTimeout = 10 * time.Second // longer than the test: only an answer ends the wait
	client := &http.Client{Transport: tr}
	for _, c := range []struct {
		method, path, contentType, encoding string
		want                                int
	}{
		{http.MethodPost, "/convert", "text/plain", "", http.StatusUnsupportedMediaType},
		{http.MethodPut, "/convert", "application/json", "", http.StatusMethodNotAllowed},
		{http.MethodPost, "/validate", "application/x-yaml", "", http.StatusUnsupportedMediaType},
		{http.MethodPost, "/convert", "application/json", "gzip", http.StatusUnsupportedMediaType},
	} {
		body := &countingReader{r: bytes.NewReader(make([]byte, 8<<20))}
		req, err := http.NewRequest(c.method, ts.url(c.path), body)
		if err != nil {
			t.Fatal(err)
		}
		req.ContentLength = 8 << 20
		req.Header.Set("Content-Type", c.contentType)
		if c.encoding != "" {
			req.Header.Set("Content-Encoding", c.encoding)
		}
		req.Header.Set("Expect", "100-continue")
		resp, err := client.Do(req)
		if err != nil {
			t.Fatalf("%s %s: %v", c.method, c.path, err)
		}
		resp.Body.Close()
		if resp.StatusCode != c.want || body.n.Load() != 0 {
			t.Errorf("%s %s as %s: status %d after the client sent %d body bytes; want %d before any", c.method, c.path, c.contentType, resp.StatusCode, body.n.Load(), c.want)
		}
	}
}
