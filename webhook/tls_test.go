package webhook

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestNewRejectsConfig(t *testing.T) {
	tests := map[string]struct {
		mutate func(*Config)
		want   string
	}{
		"no-certificate-source": {func(c *Config) { c.CertDir = "" }, "CertDir or CertFile and KeyFile must be set"},
		"cert-without-key":      {func(c *Config) { c.CertFile = "/tls.crt" }, "CertFile and KeyFile must be set together"},
		"key-without-cert":      {func(c *Config) { c.KeyFile = "/tls.key" }, "CertFile and KeyFile must be set together"},
		"tls-1.1":               {func(c *Config) { c.MinTLSVersion = tls.VersionTLS11 }, "MinTLSVersion must be TLS 1.2 or later"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			c := testConfig(t.TempDir())
			tc.mutate(&c)
			if _, err := New(c); err == nil || err.Error() != "config: "+tc.want {
				t.Errorf("New: %v, want config: %s", err, tc.want)
			}
		})
	}
}

// TestServerCertFiles serves the pair named by CertFile and KeyFile and
// generates nothing.
func TestServerCertFiles(t *testing.T) {
	dir := t.TempDir()
	caPEM, err := WriteCertificates(dir, []string{"files.example"})
	if err != nil {
		t.Fatal(err)
	}
	ts := startServer(t, func(c *Config) {
		c.CertDir = ""
		c.CertFile, c.KeyFile = filepath.Join(dir, CertFileName), filepath.Join(dir, KeyFileName)
	})
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(caPEM)
	convertOK(t, ts.client(t, &tls.Config{RootCAs: pool, ServerName: "files.example"}), ts.url("/convert"))
}

// TestServerClientCAReload replaces the client CA file; the new CA's client
// certificates are accepted on /validate and the old CA's no longer: with
// the poll, and with only the file watch.
func TestServerClientCAReload(t *testing.T) {
	for name, interval := range map[string]time.Duration{"poll-and-watch": 10 * time.Second, "watch-only": 0} {
		t.Run(name, func(t *testing.T) {
			ca1, cert1 := clientCert(t)
			ca2, cert2 := clientCert(t)
			dir := t.TempDir()
			caFile := filepath.Join(dir, "client-ca.crt")
			if err := os.WriteFile(caFile, ca1, 0o600); err != nil {
				t.Fatal(err)
			}
			ts := startServer(t, func(c *Config) { c.ClientCAFile, c.CertReloadInterval = caFile, interval })
			review := admissionReview("admission.k8s.io/v1", claimRequest(t, "CREATE", "v1alpha3", ""))
			validates := func(cert tls.Certificate) bool {
				tr := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: ts.caPool(t), Certificates: []tls.Certificate{cert}}, DisableKeepAlives: true}
				defer tr.CloseIdleConnections()
				resp, body, err := postJSON(&http.Client{Transport: tr}, ts.url("/validate"), review)
				return err == nil && resp.StatusCode == 200 && bytes.Contains(body, []byte(`"allowed":true`))
			}
			if !validates(cert1) || validates(cert2) {
				t.Fatal("before the reload: want the first CA's certificate accepted and the second's refused")
			}
			if err := writeFileAtomic(caFile, ca2, 0o600); err != nil {
				t.Fatal(err)
			}
			eventually(t, "the second CA's client certificate to be accepted", func() bool { return validates(cert2) })
			if validates(cert1) {
				t.Error("the first CA's client certificate is still accepted after the reload")
			}
		})
	}
}

// TestGenerateCertificates checks the generated CA and serving certificate:
// the SANs, the chain, and that ca.crt alone verifies it.
func TestGenerateCertificates(t *testing.T) {
	caPEM, certPEM, keyPEM, err := GenerateCertificates([]string{"svc.ns.svc"})
	if err != nil {
		t.Fatal(err)
	}
	pair, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		t.Fatal(err)
	}
	leaf, err := x509.ParseCertificate(pair.Certificate[0])
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(caPEM) || strings.Count(string(caPEM), "BEGIN CERTIFICATE") != 1 {
		t.Fatalf("ca.crt is not one certificate: %s", caPEM)
	}
	for _, name := range []string{"localhost", "127.0.0.1", "::1", "svc.ns.svc"} {
		if _, err := leaf.Verify(x509.VerifyOptions{DNSName: name, Roots: pool}); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	if _, err := leaf.Verify(x509.VerifyOptions{DNSName: "other.example", Roots: pool}); err == nil {
		t.Error("a name outside the SANs verified")
	}
	if key, ok := leaf.PublicKey.(*ecdsa.PublicKey); !ok || key.Curve != elliptic.P256() {
		t.Errorf("serving key is %T, want ECDSA P-256", leaf.PublicKey)
	}
	if leaf.IsCA || len(pair.Certificate) != 2 {
		t.Errorf("tls.crt: leaf IsCA %v, %d certificates; want the leaf followed by the CA", leaf.IsCA, len(pair.Certificate))
	}
}

// TestCertificateProblems: a serving certificate that loads but that
// clients refuse (expired, not yet valid, not for a configured DNS name) is
// reported, so that the server logs it at start and after each reload.
func TestCertificateProblems(t *testing.T) {
	_, certPEM, _, err := GenerateCertificates([]string{"svc.ns.svc"})
	if err != nil {
		t.Fatal(err)
	}
	block, _ := pem.Decode(certPEM)
	cert, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	for name, tc := range map[string]struct {
		now      time.Time
		dnsNames []string
		want     []string
	}{
		"fine":          {time.Now(), []string{"svc.ns.svc"}, nil},
		"expired":       {cert.NotAfter.Add(time.Second), nil, []string{"expired at " + cert.NotAfter.UTC().Format(time.RFC3339)}},
		"not-yet-valid": {cert.NotBefore.Add(-time.Second), nil, []string{"not valid before " + cert.NotBefore.UTC().Format(time.RFC3339)}},
		"wrong-name":    {time.Now(), []string{"svc.ns.svc", "other.ns.svc"}, []string{"not valid for the DNS name other.ns.svc (valid for [localhost svc.ns.svc 127.0.0.1 ::1])"}},
	} {
		t.Run(name, func(t *testing.T) {
			if got := certificateProblems(certPEM, tc.dnsNames, tc.now); !slices.Equal(got, tc.want) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
	if got := certificateProblems([]byte("garbage"), nil, time.Now()); len(got) != 1 {
		t.Errorf("garbage: %q", got)
	}
}
