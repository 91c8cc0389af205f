package server

import (
	"crypto/tls"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/spf13/pflag"

	"github.com/claimbridge/claimbridge/webhook"
)

func TestServeOptionsConfig(t *testing.T) {
	defaults := webhook.Config{
		Port:                 9443,
		CertDir:              filepath.Join(os.TempDir(), "claimbridge", "serving-certs"),
		MinTLSVersion:        tls.VersionTLS13,
		CipherSuites:         webhook.DefaultCipherSuites,
		HealthProbeAddress:   ":8081",
		MaxConvertBodyBytes:  64 << 20,
		MaxValidateBodyBytes: 7 << 20,
		MaxJSONDepth:         1000,
		MaxHeaderBytes:       64 << 10,
		MaxQueueWait:         250 * time.Millisecond,
		ConversionCacheBytes: 16 << 20,
		ReadHeaderTimeout:    10 * time.Second,
		ReadTimeout:          30 * time.Second,
		WriteTimeout:         time.Minute,
		IdleTimeout:          2 * time.Minute,
		RequestTimeout:       30 * time.Second,
		ShutdownDrain:        5 * time.Second,
		ShutdownTimeout:      30 * time.Second,
	}
	tests := map[string]struct {
		args []string
		want func(*webhook.Config)
	}{
		"defaults": {},
		"tls-flags": {
			args: []string{"--tls-min-version=VersionTLS12", "--tls-cipher-suites=TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305",
				"--tls-cert-file=/tls/a.crt", "--tls-private-key-file=/tls/a.key", "--client-ca-file=/tls/ca.crt"},
			want: func(c *webhook.Config) {
				c.MinTLSVersion = tls.VersionTLS12
				c.CipherSuites = []uint16{tls.TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256, tls.TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256}
				c.CertFile, c.KeyFile, c.ClientCAFile = "/tls/a.crt", "/tls/a.key", "/tls/ca.crt"
			},
		},
		"deprecated-tls-version-spelling": {
			args: []string{"--tls-min-version=1.2"},
			want: func(c *webhook.Config) { c.MinTLSVersion = tls.VersionTLS12 },
		},
		"plain-listeners": {
			args: []string{"--health-probe-bind-address=0", "--metrics-bind-address=:8443", "--metrics-secure=false"},
			want: func(c *webhook.Config) { c.HealthProbeAddress, c.MetricsAddress = "", ":8443" },
		},
		"listener-and-limits": {
			args: []string{"--bind-address=::1", "--port=0", "--dns-name=a.ns.svc", "--max-json-depth=50", "--shutdown-drain=0s"},
			want: func(c *webhook.Config) {
				c.BindAddress, c.Port, c.DNSNames, c.MaxJSONDepth, c.ShutdownDrain = "::1", 0, []string{"a.ns.svc"}, 50, 0
			},
		},
		"load-shedding": {
			args: []string{"--max-in-flight=3", "--max-queue-wait=100ms"},
			want: func(c *webhook.Config) { c.MaxInFlight, c.MaxQueueWait = 3, 100*time.Millisecond },
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			o := NewOptions()
			fs := pflag.NewFlagSet("serve", pflag.ContinueOnError)
			o.AddFlags(fs)
			if err := fs.Parse(tc.args); err != nil {
				t.Fatal(err)
			}
			got, err := o.Config()
			if err != nil {
				t.Fatal(err)
			}
			want := defaults
			if tc.want != nil {
				tc.want(&want)
			}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("Config (-want +got):\n%s", d)
			}
		})
	}
}

// TestServeListenerHelp keeps --help saying what each listener serves by
// default.
func TestServeListenerHelp(t *testing.T) {
	fs := pflag.NewFlagSet("serve", pflag.ContinueOnError)
	NewOptions().AddFlags(fs)
	for flag, want := range map[string][]string{
		"metrics-bind-address":      {"/metrics", `"0": off`},
		"metrics-secure":            {"HTTPS", "false: plain HTTP"},
		"health-probe-bind-address": {"over HTTP", `"0": off`},
	} {
		usage := fs.Lookup(flag).Usage
		for _, w := range want {
			if !strings.Contains(usage, w) {
				t.Errorf("--%s help %q does not say %q", flag, usage, w)
			}
		}
	}
}
