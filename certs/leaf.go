// Package certs holds what the server's TLS and the self-managed
// certificates share.
package certs

import (
	"crypto/x509"
	"encoding/pem"
	"errors"
)

// Leaf parses the first certificate of certPEM: the serving certificate of
// a pair (its chain follows it).
func Leaf(certPEM []byte) (*x509.Certificate, error) {
	block, _ := pem.Decode(certPEM)
	if block == nil {
		return nil, errors.New("no PEM certificate")
	}
	return x509.ParseCertificate(block.Bytes)
}
