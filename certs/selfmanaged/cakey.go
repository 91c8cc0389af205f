package selfmanaged

import (
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"time"

	"github.com/open-policy-agent/cert-controller/pkg/rotator"
)

// caName is the CA's common and DNS name; cert-controller finds a CA valid
// only for it.
const caName = "claimbridge-ca"

// caKeyRepair says how to change a Secret's ca.key that cert-controller
// keeps but cannot sign with. It keeps a CA valid by its certificate and
// its key whatever the key's encoding (rotator.ValidCert loads the pair as
// crypto/tls does: PKCS #1, PKCS #8, EC), but signs a serving certificate
// only with an RSA key in PKCS #1 (it parses ca.key with
// x509.ParsePKCS1PrivateKey): given another, it fails every renewal and
// every start for good, and injects the CA nowhere any more. A ca.key
// restored through a tool that writes PKCS #8 (OpenSSL 3 does, converting
// an RSA key) is enough.
//
// change is false when there is nothing to change (cert-controller can
// sign, or replaces the CA anyway). Otherwise key is the same RSA key in
// PKCS #1, which keeps the CA, or nil for a key of another type: ca.key is
// to be removed, so that cert-controller starts over with a new CA.
func caKeyRepair(data map[string][]byte, lookahead time.Duration, now time.Time) (key []byte, change bool) {
	ok, err := rotator.ValidCert(data["ca.crt"], data["ca.crt"], data["ca.key"], caName, nil, now.Add(lookahead))
	if err != nil || !ok {
		return nil, false
	}
	block, _ := pem.Decode(data["ca.key"])
	if block == nil {
		return nil, false // not a key ValidCert would have loaded
	}
	if _, err := x509.ParsePKCS1PrivateKey(block.Bytes); err == nil {
		return nil, false
	}
	if k, err := x509.ParsePKCS8PrivateKey(block.Bytes); err == nil {
		if rsaKey, ok := k.(*rsa.PrivateKey); ok {
			return pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(rsaKey)}), true
		}
	}
	return nil, true
}
