package webhook

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil"
)

// TestHandshakeReason classifies the reasons net/http logs, as Go's
// crypto/tls words them, into the bounded label values.
func TestHandshakeReason(t *testing.T) {
	for reason, want := range map[string]string{
		"remote error: tls: bad certificate":                                               handshakeServingCertRejected,
		"remote error: tls: unknown certificate authority":                                 handshakeServingCertRejected,
		"remote error: tls: expired certificate":                                           handshakeServingCertRejected,
		"local error: tls: bad record MAC":                                                 handshakeServingCertRejected,
		"tls: failed to verify certificate: x509: certificate signed by unknown authority": handshakeClientCertRejected,
		"tls: client didn't provide a certificate":                                         handshakeClientCertRejected,
		"client sent an HTTP request to an HTTPS server":                                   handshakeNotTLS,
		"tls: first record does not look like a TLS handshake":                             handshakeNotTLS,
		"tls: client offered only unsupported versions: [303 302 301]":                     handshakeIncompatible,
		"tls: no cipher suite supported by both client and server":                         handshakeIncompatible,
		"remote error: tls: protocol version not supported":                                handshakeIncompatible,
		"EOF": handshakeClientGone,
		"read tcp 127.0.0.1:9443->127.0.0.1:5555: read: connection reset by peer": handshakeClientGone,
		"read tcp 127.0.0.1:9443->127.0.0.1:5555: i/o timeout":                    handshakeClientGone,
		"tls: unexpected message": handshakeOther,
	} {
		if got := handshakeReason(reason); got != want {
			t.Errorf("handshakeReason(%q) = %s, want %s", reason, got, want)
		}
	}
}

// TestServerCountsFailedHandshakes: each kind of failed TLS handshake on a
// real server is counted under its reason, which is how an operator tells
// a stale caBundle (the apiserver refuses the serving certificate) from a
// client certificate of another CA, a plain-HTTP probe or an old client.
func TestServerCountsFailedHandshakes(t *testing.T) {
	caPEM, _ := clientCert(t)
	caFile := filepath.Join(t.TempDir(), "client-ca.crt")
	if err := os.WriteFile(caFile, caPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	ts := startServer(t, func(c *Config) { c.ClientCAFile = caFile })
	addr := ts.Addr().String()
	count := func(reason string) float64 {
		return testutil.ToFloat64(ts.metrics.handshakeErrors.WithLabelValues(reason))
	}
	for _, reason := range handshakeReasons {
		if got := count(reason); got != 0 {
			t.Fatalf("%s: %v before any handshake, want 0", reason, got)
		}
	}
	handshake := func(cfg *tls.Config) {
		conn, err := tls.Dial("tcp", addr, cfg)
		if err == nil {
			// TLS 1.3: a client certificate is refused after the client's
			// Finished; reading surfaces it.
			_, err = conn.Read(make([]byte, 1))
			conn.Close()
		}
		if err == nil {
			t.Errorf("handshake with %+v succeeded", cfg)
		}
	}
	wantCount := func(reason string, want float64) {
		t.Helper()
		eventually(t, reason, func() bool { return count(reason) == want })
	}

	handshake(&tls.Config{RootCAs: x509.NewCertPool(), ServerName: "localhost"}) // a stale caBundle
	wantCount(handshakeServingCertRejected, 1)

	_, foreign := clientCert(t)
	handshake(&tls.Config{RootCAs: ts.caPool(t), Certificates: []tls.Certificate{foreign}})
	wantCount(handshakeClientCertRejected, 1)

	handshake(&tls.Config{RootCAs: ts.caPool(t), MaxVersion: tls.VersionTLS12}) // the default minimum is 1.3
	wantCount(handshakeIncompatible, 1)

	// curl and every other OpenSSL client refuse the certificate with an
	// alert sent before they switch to the handshake's keys: crypto/tls
	// cannot open it and logs "bad record MAC".
	openSSLRejects(t, addr)
	wantCount(handshakeServingCertRejected, 2)

	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Write([]byte("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 64)
	n, _ := conn.Read(buf)
	conn.Close()
	if got := string(buf[:n]); got[:min(len(got), 24)] != "HTTP/1.0 400 Bad Request" {
		t.Errorf("plain HTTP answered %q", got)
	}
	wantCount(handshakeNotTLS, 1)

	for _, reason := range []string{handshakeClientGone, handshakeOther} {
		if got := count(reason); got != 0 {
			t.Errorf("%s: %v, want 0", reason, got)
		}
	}
}

// openSSLRejects refuses addr's serving certificate as an OpenSSL client
// does under TLS 1.3: its "unknown CA" alert goes out as a plaintext record,
// since OpenSSL installs its handshake write keys only when it sends its own
// second flight, which it never does. (A Go client encrypts the alert.)
func openSSLRejects(t *testing.T, addr string) {
	t.Helper()
	raw, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	conn := &plaintextAlertConn{Conn: raw}
	cfg := &tls.Config{
		ServerName:         "localhost",
		InsecureSkipVerify: true, // refused below, as an untrusted CA
		VerifyPeerCertificate: func([][]byte, [][]*x509.Certificate) error {
			conn.rejected = true
			return errors.New("unknown CA")
		},
	}
	if err := tls.Client(conn, cfg).Handshake(); err == nil {
		t.Fatal("handshake refusing the certificate succeeded")
	}
}

// plaintextAlertConn writes, once rejected is set, an unencrypted fatal
// unknown_ca alert in place of what crypto/tls writes.
type plaintextAlertConn struct {
	net.Conn
	rejected bool
}

func (c *plaintextAlertConn) Write(p []byte) (int, error) {
	if !c.rejected {
		return c.Conn.Write(p)
	}
	// record type alert, legacy version TLS 1.2, length 2: fatal, unknown_ca.
	if _, err := c.Conn.Write([]byte{21, 3, 3, 0, 2, 2, 48}); err != nil {
		return 0, err
	}
	return len(p), nil
}

// TestErrorLogKeepsTheSource: the lines reach klog with the source file and
// line of their caller (net/http), as klog.NewStandardLogger's do, and the
// handshake failures among them are counted.
func TestErrorLogKeepsTheSource(t *testing.T) {
	var got bytes.Buffer
	m := newMetrics()
	l := newErrorLog(m)
	l.SetOutput(&errorLogWriter{handshakeErrors: m.handshakeErrors, next: &got})
	l.Printf("http: TLS handshake error from [::1]:5555: remote error: tls: bad certificate")
	l.Printf("http: Accept error: too many open files")
	if want := "tlserrors_test.go:"; !strings.HasPrefix(got.String(), want) {
		t.Errorf("log lines %q do not start with the caller's file %q", got.String(), want)
	}
	if n := testutil.ToFloat64(m.handshakeErrors.WithLabelValues(handshakeServingCertRejected)); n != 1 {
		t.Errorf("serving_certificate_rejected %v, want 1", n)
	}
	if n := testutil.CollectAndCount(m.handshakeErrors); n != 1 {
		t.Errorf("%d handshake series, want 1 (the accept error is no handshake)", n)
	}
}
