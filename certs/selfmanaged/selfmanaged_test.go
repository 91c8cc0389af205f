package selfmanaged

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func validConfig() Config {
	return Config{
		Namespace: "claimbridge-system", SecretName: "claimbridge-webhook-server-cert", CertDir: "/certs",
		DNSNames: []string{"claimbridge-webhook.claimbridge-system.svc"}, CRDNames: []string{"resourceclaims.resource.claimbridge.dev"},
		ValidatingWebhookConfigurationName: "claimbridge-validating-webhook-configuration",
	}
}

func TestConfigValidate(t *testing.T) {
	for name, tc := range map[string]struct {
		mutate func(*Config)
		want   string
	}{
		"valid":        {func(*Config) {}, ""},
		"no-namespace": {func(c *Config) { c.Namespace = "" }, "namespace of the certificate Secret: must not be empty"},
		"no-secret":    {func(c *Config) { c.SecretName = "" }, "name of the certificate Secret: must not be empty"},
		"no-dir":       {func(c *Config) { c.CertDir = "" }, "cert dir: must not be empty"},
		"no-dns":       {func(c *Config) { c.DNSNames = nil }, "DNS names: need at least one (the webhook Service's <name>.<namespace>.svc)"},
		"empty-dns":    {func(c *Config) { c.DNSNames = append(c.DNSNames, "") }, "DNS names: must not be empty"},
		"ip-dns-first": {func(c *Config) { c.DNSNames = []string{"10.96.0.12", c.DNSNames[0]} },
			"DNS names: 10.96.0.12 is an IP address, which the certificate cannot hold in self-managed mode: give the webhook Service's DNS name"},
		"ip-dns-later": {func(c *Config) { c.DNSNames = append(c.DNSNames, "fd00::12") },
			"DNS names: fd00::12 is an IP address, which the certificate cannot hold in self-managed mode: give the webhook Service's DNS name"},
		"empty-crd": {func(c *Config) { c.CRDNames = []string{""} }, "CRD names: must not be empty"},
		"no-targets": {func(c *Config) { c.CRDNames, c.ValidatingWebhookConfigurationName = nil, "" },
			"nothing to inject the CA into: name the CRDs and/or the webhook configurations"},
		"lookahead-too-long": {func(c *Config) { c.ServerCertDuration, c.LookaheadInterval = time.Hour, 2*time.Hour },
			"lookahead 2h0m0s: must be shorter than the certificate durations (1h0m0s, CA 87600h0m0s)"},
		"negative": {func(c *Config) { c.RotationCheckFrequency = -time.Second }, "certificate durations: must not be negative"},
	} {
		t.Run(name, func(t *testing.T) {
			c := validConfig()
			tc.mutate(&c)
			got := ""
			if err := c.Validate(); err != nil {
				got = err.Error()
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestWriteCertDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "certs")
	data := map[string][]byte{"ca.crt": []byte("ca"), "ca.key": []byte("secret"), "tls.crt": []byte("crt"), "tls.key": []byte("key")}
	if err := writeCertDir(dir, data); err != nil {
		t.Fatal(err)
	}
	data["tls.crt"] = []byte("crt2")
	if err := writeCertDir(dir, data); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		got[e.Name()] = string(b)
	}
	// ca.key never leaves the Secret; no temporary files stay behind.
	want := map[string]string{"ca.crt": "ca", "tls.crt": "crt2", "tls.key": "key"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("cert dir (-want +got):\n%s", diff)
	}
}
