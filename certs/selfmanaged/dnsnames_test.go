package selfmanaged

import (
	"crypto/x509"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/open-policy-agent/cert-controller/pkg/rotator"
)

func TestMissingDNSNames(t *testing.T) {
	now := time.Now()
	const lookahead = 90 * 24 * time.Hour
	names := []string{"claimbridge-webhook.claimbridge-system.svc", "claimbridge-webhook.example.com", "localhost"}
	// Certificates as the rotator makes them, for the given names.
	rotatorFor := func(names ...string) *rotator.CertRotator {
		return &rotator.CertRotator{CAName: "claimbridge-ca", CAOrganization: "claimbridge", DNSName: names[0], ExtraDNSNames: names[1:],
			ExtKeyUsages: &[]x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	}
	ca, err := rotatorFor(names...).CreateCACert(now.Add(-time.Hour), now.Add(10*365*24*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	otherCA, err := rotatorFor(names...).CreateCACert(now.Add(-time.Hour), now.Add(10*365*24*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	data := func(signer *rotator.KeyPairArtifacts, notAfter time.Time, names ...string) map[string][]byte {
		t.Helper()
		cert, key, err := rotatorFor(names...).CreateCertPEM(signer, now.Add(-time.Hour), notAfter)
		if err != nil {
			t.Fatal(err)
		}
		return map[string][]byte{"ca.crt": ca.CertPEM, "ca.key": ca.KeyPEM, "tls.crt": cert, "tls.key": key}
	}
	year := now.Add(365 * 24 * time.Hour)
	for name, tc := range map[string]struct {
		data     map[string][]byte
		dnsNames []string
		want     []string
	}{
		"every-name":                 {data(ca, year, names...), names, nil},
		"names-in-another-order":     {data(ca, year, names[2], names[0], names[1]), names, nil},
		"first-name-only":            {data(ca, year, names[0]), names, names[1:]},
		"one-missing":                {data(ca, year, names[0], names[2]), names, names[1:2]},
		"one-name-configured":        {data(ca, year, names[0]), names[:1], nil},
		"more-names-than-configured": {data(ca, year, names...), names[:2], nil},
		"other-case":                 {data(ca, year, names[0], strings.ToUpper(names[1]), names[2]), names, nil},
		// A name cert-controller writes as a DNS name though no client
		// can verify it as one: what it issues has it, so nothing repeats.
		"ip-address-name":    {data(ca, year, names[0], "10.0.0.7"), []string{names[0], "10.0.0.7"}, nil},
		"ip-address-missing": {data(ca, year, names[0]), []string{names[0], "10.0.0.7"}, []string{"10.0.0.7"}},
		// Issued for the names, not merely valid for them.
		"wildcard-covering-a-name": {data(ca, year, names[0], "*.example.com", names[2]), names, names[1:2]},
		// What the rotator replaces itself is left to it.
		"first-name-missing": {data(ca, year, names[1], names[2]), names, nil},
		"due":                {data(ca, now.Add(lookahead/2), names[0]), names, nil},
		"of-another-ca":      {data(otherCA, year, names[0]), names, nil},
		"no-certificate":     {map[string][]byte{"ca.crt": ca.CertPEM, "ca.key": ca.KeyPEM}, names, nil},
		"garbage-certificate": {func() map[string][]byte {
			d := data(ca, year, names[0])
			d["tls.crt"] = []byte("garbage")
			return d
		}(), names, nil},
	} {
		t.Run(name, func(t *testing.T) {
			got := missingDNSNames(tc.data, tc.dnsNames, lookahead, now)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
