package webhook

import (
	"bytes"
	"io"
	"log"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/klog/v2"
)

// handshakePrefix starts the line net/http writes to its server's ErrorLog
// for every failed TLS handshake: the only place the failure is reported.
const handshakePrefix = "http: TLS handshake error from "

// Handshake failure reasons: the label values of
// claimbridge_webhook_tls_handshake_errors_total, bounded.
const (
	// The client refused the serving certificate (a Go client, such as
	// kube-apiserver, sends "bad certificate" for any verification error):
	// a stale caBundle in the CRD or the webhook configuration, or a DNS
	// name the certificate lacks.
	handshakeServingCertRejected = "serving_certificate_rejected"
	// The client's certificate did not verify against --client-ca-file.
	handshakeClientCertRejected = "client_certificate_rejected"
	// Not TLS at all (plain HTTP, a port scanner, a load balancer's TCP check
	// that sends bytes).
	handshakeNotTLS = "not_tls"
	// No version, cipher suite or curve in common.
	handshakeIncompatible = "incompatible"
	// The client closed, reset or stopped sending (its own timeout).
	handshakeClientGone = "client_gone"
	handshakeOther      = "other"
)

var handshakeReasons = []string{handshakeServingCertRejected, handshakeClientCertRejected, handshakeNotTLS,
	handshakeIncompatible, handshakeClientGone, handshakeOther}

// handshakeReason classifies the reason net/http logs after handshakePrefix
// and the client's address.
func handshakeReason(reason string) string {
	has := func(subs ...string) bool {
		for _, s := range subs {
			if strings.Contains(reason, s) {
				return true
			}
		}
		return false
	}
	switch {
	case strings.Contains(reason, "remote error: tls: ") && has("certificate", "unrecognized name"),
		// An OpenSSL client (curl, Python, Ruby) refusing the certificate
		// under TLS 1.3 sends its alert unencrypted, before it installs its
		// handshake keys, and crypto/tls cannot open that record. TCP's
		// checksums make a corrupted record the far rarer cause.
		reason == "local error: tls: bad record MAC":
		return handshakeServingCertRejected
	case has("tls: failed to verify certificate", "tls: client didn't provide a certificate", "certificate signed by unknown authority"):
		return handshakeClientCertRejected
	case has("client sent an HTTP request to an HTTPS server", "first record does not look like a TLS handshake",
		"unsupported SSLv2 handshake", "oversized record"):
		return handshakeNotTLS
	case has("unsupported versions", "protocol version not supported", "no cipher suite", "no ECDHE curve",
		"no mutually supported", "unsupported application protocols", "remote error: tls: handshake failure"):
		return handshakeIncompatible
	case has("EOF", "connection reset by peer", "broken pipe", "i/o timeout", "use of closed network connection",
		"context canceled", "deadline exceeded"):
		return handshakeClientGone
	}
	return handshakeOther
}

// errorLogWriter is the webhook listener's http.Server ErrorLog output: it
// counts failed TLS handshakes by reason and passes every line on to klog
// as before.
type errorLogWriter struct {
	handshakeErrors *prometheus.CounterVec
	next            io.Writer
}

func (w *errorLogWriter) Write(p []byte) (int, error) {
	// "server.go:3456: http: TLS handshake error from ADDR: REASON\n" (the
	// logger writes the caller's file and line, which klog's writer reads).
	if i := bytes.Index(p, []byte(handshakePrefix)); i >= 0 && w.handshakeErrors != nil {
		rest := bytes.TrimSuffix(p[i+len(handshakePrefix):], []byte("\n"))
		// "ADDR: REASON"; an address holds no ": ".
		if _, reason, found := bytes.Cut(rest, []byte(": ")); found {
			w.handshakeErrors.WithLabelValues(handshakeReason(string(reason))).Inc()
		} else {
			w.handshakeErrors.WithLabelValues(handshakeOther).Inc()
		}
	}
	return w.next.Write(p)
}

// newErrorLog returns the ErrorLog of the webhook listener's server: as
// klog.NewStandardLogger's, with Lshortfile, whose "file:line: " klog's
// writer takes for the line's source.
func newErrorLog(m *metrics) *log.Logger {
	std := klog.NewStandardLogger("INFO")
	w := &errorLogWriter{next: std.Writer()}
	if m != nil {
		w.handshakeErrors = m.handshakeErrors
	}
	return log.New(w, std.Prefix(), std.Flags())
}
