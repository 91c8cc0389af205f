package cli

import (
	"bytes"
	"context"
	"crypto/tls"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/spf13/pflag"

	"github.com/claimbridge/claimbridge/webhook"
)

func TestServeOptionsConfig(t *testing.T) {
	defaults := webhook.Config{
		Port:                  9443,
		CertDir:               filepath.Join(os.TempDir(), "claimbridge", "serving-certs"),
		MinTLSVersion:         tls.VersionTLS13,
		CipherSuites:          webhook.DefaultCipherSuites,
		CertReloadInterval:    10 * time.Second,
		HealthProbeAddress:    ":8081",
		MetricsAddress:        ":8080",
		MaxConvertBodyBytes:   64 << 20,
		MaxValidateBodyBytes:  7 << 20,
		MaxJSONDepth:          1000,
		MaxHeaderBytes:        64 << 10,
		MaxConnections:        32,
		OverloadListenBacklog: 64,
		OverloadRefuseAfter:   time.Second,
		MaxQueueWait:          time.Second,
		MaxReviewMemory:       128 << 20,
		ReleaseStartupPages:   true,
		ConversionCacheBytes:  16 << 20,
		ReadHeaderTimeout:     10 * time.Second,
		ReadTimeout:           30 * time.Second,
		WriteTimeout:          time.Minute,
		IdleTimeout:           2 * time.Minute,
		RequestTimeout:        30 * time.Second,
		ShutdownDrain:         5 * time.Second,
		ShutdownTimeout:       30 * time.Second,
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
		"keep-startup-pages": {
			args: []string{"--release-startup-pages=false"},
			want: func(c *webhook.Config) { c.ReleaseStartupPages = false },
		},
		"deprecated-tls-version-spelling": {
			args: []string{"--tls-min-version=1.2"},
			want: func(c *webhook.Config) { c.MinTLSVersion = tls.VersionTLS12 },
		},
		"disabled-plain-listeners": {
			args: []string{"--health-probe-bind-address=0", "--metrics-bind-address=0", "--cert-reload-interval=0"},
			want: func(c *webhook.Config) { c.HealthProbeAddress, c.MetricsAddress, c.CertReloadInterval = "", "", 0 },
		},
		"listener-and-limits": {
			args: []string{"--bind-address=::1", "--port=0", "--dns-name=a.ns.svc", "--max-connections=10", "--max-json-depth=50", "--shutdown-drain=0s"},
			want: func(c *webhook.Config) {
				c.BindAddress, c.Port, c.DNSNames, c.MaxConnections, c.MaxJSONDepth, c.ShutdownDrain = "::1", 0, []string{"a.ns.svc"}, 10, 50, 0
			},
		},
		"load-shedding": {
			args: []string{"--max-in-flight=3", "--max-queue-wait=250ms", "--max-connections=0"},
			want: func(c *webhook.Config) { c.MaxInFlight, c.MaxQueueWait, c.MaxConnections = 3, 250*time.Millisecond, 0 },
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			o := NewServeOptions()
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
// default: /metrics is HTTPS unless --metrics-secure=false, and self-managed
// certificates need a --dns-name.
func TestServeListenerHelp(t *testing.T) {
	fs := pflag.NewFlagSet("serve", pflag.ContinueOnError)
	NewServeOptions().AddFlags(fs)
	for flag, want := range map[string][]string{
		"metrics-bind-address":      {"HTTPS with --metrics-secure (the default)", `"0" disables`},
		"health-probe-bind-address": {"over HTTP", `"0" disables`},
		"dns-name":                  {"--cert-mode=self-managed needs at least one"},
	} {
		usage := fs.Lookup(flag).Usage
		for _, w := range want {
			if !strings.Contains(usage, w) {
				t.Errorf("--%s help %q does not say %q", flag, usage, w)
			}
		}
	}
}

func TestServeDeprecatedTLSVersionWarns(t *testing.T) {
	out, err := executeServe(t, func(_ context.Context, o *ServeOptions) error { return nil }, "--tls-min-version=1.3")
	if err != nil {
		t.Fatal(err)
	}
	if want := "Warning: --tls-min-version=1.3 is deprecated, use --tls-min-version=VersionTLS13\n"; out != want {
		t.Errorf("output %q, want %q", out, want)
	}
}

// TestREADMEFlagsTable keeps the README's table of `claimbridge serve`
// flags equal to --help: the same flags, each with the default --help
// shows (the temp dir written as <tmp>).
func TestREADMEFlagsTable(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	got := readmeFlags(t, readme)

	fs := pflag.NewFlagSet("serve", pflag.ContinueOnError)
	NewServeOptions().AddFlags(fs)
	want := map[string]string{}
	fs.VisitAll(func(f *pflag.Flag) {
		want[f.Name] = strings.ReplaceAll(f.DefValue, os.TempDir(), "<tmp>")
	})
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("README flags table (-help +README):\n%s", d)
	}
}

var backticked = regexp.MustCompile("`([^`]*)`")

// readmeFlags reads the "## Server flags" table: flag name → default, each
// the first backticked text of its cell.
func readmeFlags(t *testing.T, readme []byte) map[string]string {
	t.Helper()
	_, section, ok := bytes.Cut(readme, []byte("\n## Server flags\n"))
	if !ok {
		t.Fatal("README has no \"## Server flags\" section")
	}
	section, _, _ = bytes.Cut(section, []byte("\n## "))
	flags := map[string]string{}
	for _, line := range strings.Split(string(section), "\n") {
		cells := strings.Split(line, "|")
		if len(cells) < 4 || !strings.HasPrefix(strings.TrimSpace(cells[1]), "`-") {
			continue
		}
		name := backticked.FindStringSubmatch(cells[1])
		def := backticked.FindStringSubmatch(cells[2])
		if name == nil || def == nil {
			t.Fatalf("README flags row without a backticked flag and default: %s", line)
		}
		value := def[1]
		if value == `""` {
			value = ""
		}
		flags[strings.TrimLeft(name[1], "-")] = value
	}
	return flags
}
