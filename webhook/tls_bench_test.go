package webhook

import (
	"crypto/tls"
	"crypto/x509"
	"net"
	"testing"

	certutil "k8s.io/client-go/util/cert"
)

// BenchmarkTLSHandshake is the cost of one full TLS handshake (client and
// server in this process, the webhook's TLS settings) with the serving
// certificate GenerateCertificates makes (ECDSA P-256) and with client-go's
// self-signed generator (RSA-2048), which claimbridge used before. Under
// overload a client that cannot get a connection dials new ones, and every
// handshake competes with reviews for the server's CPU (docs/server.md).
func BenchmarkTLSHandshake(b *testing.B) {
	ecCA, ecChain, ecKey, err := GenerateCertificates(nil)
	if err != nil {
		b.Fatal(err)
	}
	rsaChain, rsaKey, err := certutil.GenerateSelfSignedCertKey("localhost", []net.IP{net.IPv4(127, 0, 0, 1)}, nil)
	if err != nil {
		b.Fatal(err)
	}
	rsaCerts, err := certutil.ParseCertsPEM(rsaChain)
	if err != nil {
		b.Fatal(err)
	}
	rsaCA, err := certutil.EncodeCertificates(rsaCerts[len(rsaCerts)-1])
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name           string
		ca, chain, key []byte
	}{{"ecdsa-p256", ecCA, ecChain, ecKey}, {"rsa-2048", rsaCA, rsaChain, rsaKey}} {
		pair, err := tls.X509KeyPair(c.chain, c.key)
		if err != nil {
			b.Fatal(err)
		}
		pool := x509.NewCertPool()
		pool.AppendCertsFromPEM(c.ca)
		server := &tls.Config{MinVersion: tls.VersionTLS13, Certificates: []tls.Certificate{pair}}
		client := &tls.Config{MinVersion: tls.VersionTLS13, RootCAs: pool, ServerName: "localhost"}
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				cc, sc := net.Pipe()
				done := make(chan error, 1)
				go func() { done <- tls.Server(sc, server).Handshake() }()
				if err := tls.Client(cc, client).Handshake(); err != nil {
					b.Fatal(err)
				}
				if err := <-done; err != nil {
					b.Fatal(err)
				}
				cc.Close()
				sc.Close()
			}
		})
	}
}
