package webhook

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// bearerFilter lets through requests with the token "good", as the
// API-server filter of webhook/securemetrics does for an authorised token.
func bearerFilter(next http.Handler) (http.Handler, error) {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer good" {
			http.Error(w, "Unauthorized", http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r)
	}), nil
}

func getMetrics(c *http.Client, url, token string) (int, string, error) {
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		return 0, "", err
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := c.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body), err
}

// sample returns the value of an unlabelled sample in a text exposition.
func sample(t *testing.T, body, name string) float64 {
	t.Helper()
	for _, line := range strings.Split(body, "\n") {
		if v, ok := strings.CutPrefix(line, name+" "); ok {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				t.Fatalf("%s: %v", line, err)
			}
			return f
		}
	}
	t.Fatalf("no sample %s in:\n%s", name, body)
	return 0
}

// TestServerSecureMetrics serves the pair named by CertFile and KeyFile (no
// cert dir) with a MetricsFilter: /metrics is HTTPS with that certificate,
// the filter decides, and the certificate metrics show the served
// certificate.
func TestServerSecureMetrics(t *testing.T) {
	dir := t.TempDir()
	caPEM, err := WriteCertificates(dir, []string{"files.example"})
	if err != nil {
		t.Fatal(err)
	}
	certPEM, err := os.ReadFile(filepath.Join(dir, CertFileName))
	if err != nil {
		t.Fatal(err)
	}
	block, _ := pem.Decode(certPEM)
	served, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	ts := startServer(t, func(c *Config) {
		c.CertDir = ""
		c.CertFile, c.KeyFile = filepath.Join(dir, CertFileName), filepath.Join(dir, KeyFileName)
		c.MetricsFilter = bearerFilter
	})
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(caPEM)
	client := ts.client(t, &tls.Config{RootCAs: pool, ServerName: "files.example"})
	url := "https://" + ts.MetricsAddr().String() + "/metrics"

	for _, tc := range []struct {
		token string
		want  int
	}{{"", http.StatusUnauthorized}, {"bad", http.StatusUnauthorized}, {"good", http.StatusOK}} {
		code, _, err := getMetrics(client, url, tc.token)
		if err != nil {
			t.Fatal(err)
		}
		if code != tc.want {
			t.Errorf("token %q: status %d, want %d", tc.token, code, tc.want)
		}
	}
	code, body, err := getMetrics(client, url, "good")
	if err != nil || code != http.StatusOK {
		t.Fatalf("status %d, %v", code, err)
	}
	for name, want := range map[string]float64{
		"claimbridge_certificate_expiration_timestamp_seconds": float64(served.NotAfter.Unix()),
		"claimbridge_certificate_not_before_timestamp_seconds": float64(served.NotBefore.Unix()),
	} {
		if got := sample(t, body, name); got != want {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}

	// Plain HTTP gets no metrics.
	plainCode, plainBody, err := getMetrics(http.DefaultClient, "http://"+ts.MetricsAddr().String()+"/metrics", "good")
	if err == nil && (plainCode == http.StatusOK || strings.Contains(plainBody, "claimbridge_")) {
		t.Errorf("plain HTTP on the secure metrics listener: status %d", plainCode)
	}
}

// TestServerMetricsFilterError: a filter that cannot be built fails Run
// before anything serves.
func TestServerMetricsFilterError(t *testing.T) {
	c := testConfig(t.TempDir())
	c.MetricsFilter = func(http.Handler) (http.Handler, error) { return nil, errors.New("no API server") }
	if err := run(c); err == nil || err.Error() != "protecting metrics: no API server" {
		t.Errorf("Run: %v, want protecting metrics: no API server", err)
	}
}

// TestCertificateMetricsBeforeRun: before Run loaded a pair there is no
// certificate sample (the expiry alert's absent() clause covers it).
func TestCertificateMetricsBeforeRun(t *testing.T) {
	s, err := New(testConfig(t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	families, err := s.metrics.registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if strings.HasPrefix(f.GetName(), "claimbridge_certificate_") && f.GetName() != "claimbridge_certificate_reloads_total" {
			t.Errorf("%s exported before Run", f.GetName())
		}
	}
}
