package selfmanaged

import (
	"crypto/x509"
	"slices"
	"strings"
	"time"

	"github.com/open-policy-agent/cert-controller/pkg/rotator"

	"github.com/claimbridge/claimbridge/certs"
)

// missingDNSNames returns the names, of dnsNames, that the serving
// certificate of a Secret's data was not issued for, when cert-controller
// keeps that certificate anyway: it checks the certificate for its first
// DNS name only (rotator.ValidCert with CertRotator.DNSName), so a
// certificate of the CA written for fewer names — by a replica run with
// fewer --dns-name flags, or put there by hand — would be kept until its
// renewal, up to a year, while clients that dial another name refuse it.
// A certificate cert-controller replaces itself (not of the CA, expired,
// due, not for the first name, no key) yields nil.
//
// A name counts as issued when the certificate lists it as a DNS name
// (case aside), as cert-controller writes every one: a name it cannot
// serve as such (an IP address, a wildcard) is then not missing from the
// certificate it issues, so removing that certificate can never repeat.
func missingDNSNames(data map[string][]byte, dnsNames []string, lookahead time.Duration, now time.Time) []string {
	ok, err := rotator.ValidCert(data["ca.crt"], data["tls.crt"], data["tls.key"], dnsNames[0],
		&[]x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}, now.Add(lookahead))
	if err != nil || !ok {
		return nil
	}
	leaf, err := certs.Leaf(data["tls.crt"])
	if err != nil {
		return nil
	}
	var missing []string
	for _, name := range dnsNames[1:] {
		if !slices.ContainsFunc(leaf.DNSNames, func(n string) bool { return strings.EqualFold(n, name) }) {
			missing = append(missing, name)
		}
	}
	return missing
}
