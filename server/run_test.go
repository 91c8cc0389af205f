package server

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/spf13/pflag"

	"github.com/claimbridge/claimbridge/webhook"
)

func TestOpsOptionsValidate(t *testing.T) {
	for name, tc := range map[string]struct {
		args []string
		env  string
		want string
	}{
		"files-default": {nil, "", ""},
		"self-managed":  {[]string{"--cert-mode=self-managed", "--dns-name=svc.ns.svc"}, "claimbridge-system", ""},
		"bad-mode":      {[]string{"--cert-mode=vault"}, "", `--cert-mode "vault": must be files or self-managed`},
		"self-managed-no-namespace": {[]string{"--cert-mode=self-managed", "--dns-name=svc.ns.svc"}, "",
			`--cert-mode=self-managed: --cert-secret "claimbridge-webhook-server-cert" names no namespace and $POD_NAMESPACE is empty: pass --cert-secret=<namespace>/<name> or set POD_NAMESPACE`},
		"self-managed-explicit-namespace": {[]string{"--cert-mode=self-managed", "--dns-name=svc.ns.svc", "--cert-secret=ns/s"}, "", ""},
		"self-managed-tls-cert-file": {[]string{"--cert-mode=self-managed", "--dns-name=svc.ns.svc", "--tls-cert-file=c", "--tls-private-key-file=k"}, "ns",
			"--cert-mode=self-managed: writes the pair into --cert-dir; --tls-cert-file and --tls-private-key-file must not be set"},
		"self-managed-no-dns": {[]string{"--cert-mode=self-managed"}, "ns",
			"--cert-mode=self-managed: --dns-name: need at least one (the webhook Service's <name>.<namespace>.svc)"},
		"self-managed-no-namespace-no-dns": {[]string{"--cert-mode=self-managed"}, "",
			`--cert-mode=self-managed: --cert-secret "claimbridge-webhook-server-cert" names no namespace and $POD_NAMESPACE is empty: pass --cert-secret=<namespace>/<name> or set POD_NAMESPACE` + "\n" +
				"--cert-mode=self-managed: --dns-name: need at least one (the webhook Service's <name>.<namespace>.svc)"},
		"self-managed-no-secret-name": {[]string{"--cert-mode=self-managed", "--dns-name=svc.ns.svc", "--cert-secret=ns/"}, "",
			`--cert-mode=self-managed: --cert-secret "ns/": must name the Secret`},
		"self-managed-nothing-to-inject": {[]string{"--cert-mode=self-managed", "--dns-name=svc.ns.svc", "--cert-inject-validating-webhook-configuration=", "--cert-inject-mutating-webhook-configuration="}, "ns", ""},
		"self-managed-empty-dns-name": {[]string{"--cert-mode=self-managed", "--dns-name=svc.ns.svc", "--dns-name="}, "ns",
			`--cert-mode=self-managed: --dns-name ["svc.ns.svc" ""]: a name must not be empty`},
		"self-managed-ip-dns-name": {[]string{"--cert-mode=self-managed", "--dns-name=10.96.0.12", "--dns-name=svc.ns.svc"}, "ns",
			`--cert-mode=self-managed: --dns-name ["10.96.0.12" "svc.ns.svc"]: 10.96.0.12 is an IP address; self-managed certificates hold DNS names only (cert-controller's), so give the webhook Service's <name>.<namespace>.svc`},
		"self-managed-no-crd": {[]string{"--cert-mode=self-managed", "--dns-name=svc.ns.svc", "--cert-inject-crd="}, "ns", ""},
		"self-managed-no-crd-no-configuration": {[]string{"--cert-mode=self-managed", "--dns-name=svc.ns.svc", "--cert-inject-crd=",
			"--cert-inject-validating-webhook-configuration=", "--cert-inject-mutating-webhook-configuration="}, "ns",
			"--cert-mode=self-managed: --cert-inject-crd, --cert-inject-validating-webhook-configuration and --cert-inject-mutating-webhook-configuration: name at least one CRD or webhook configuration to inject the CA into"},
		"self-managed-renew-after-expiry": {[]string{"--cert-mode=self-managed", "--dns-name=svc.ns.svc", "--cert-duration=24h", "--cert-renew-before=48h"}, "ns",
			"--cert-mode=self-managed: --cert-renew-before 48h0m0s: must be shorter than --cert-duration 24h0m0s"},
		"token-policy-check":     {[]string{"--cert-mode=self-managed", "--dns-name=svc.ns.svc", "--token-policy-check-interval=5m"}, "ns", ""},
		"token-policy-check-off": {[]string{"--cert-mode=self-managed", "--dns-name=svc.ns.svc", "--token-policy-check-interval=0"}, "ns", ""},
		"token-policy-check-too-often": {[]string{"--cert-mode=self-managed", "--dns-name=svc.ns.svc", "--token-policy-check-interval=10ms"}, "ns",
			"--token-policy-check-interval 10ms: must be 0 (no check) or at least 1s"},
		"token-policy-check-negative": {[]string{"--cert-mode=self-managed", "--dns-name=svc.ns.svc", "--token-policy-check-interval=-1s"}, "ns",
			"--token-policy-check-interval: must not be negative"},
		"token-policy-check-without-self-managed": {[]string{"--token-policy-check-interval=5m"}, "",
			"--token-policy-check-interval 5m0s: only with --cert-mode=self-managed (the token policy restricts the ServiceAccount that injects the CA); pass 0"},
		"self-managed-negative-duration": {[]string{"--cert-mode=self-managed", "--dns-name=svc.ns.svc", "--cert-duration=-1h"}, "ns",
			"--cert-mode=self-managed: --cert-duration and --cert-renew-before: must not be negative"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Setenv("POD_NAMESPACE", tc.env)
			fs := pflag.NewFlagSet("serve", pflag.ContinueOnError)
			opts := NewOptions()
			opts.AddFlags(fs)
			if err := fs.Parse(tc.args); err != nil {
				t.Fatal(err)
			}
			got := ""
			if err := opts.Validate(); err != nil {
				got = err.Error()
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestServeWithoutAPI: with no kubeconfig and no in-cluster config, the
// modes that need the API fail at once, before anything listens, naming the flags and the way out.
func TestServeWithoutAPI(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("KUBECONFIG", filepath.Join(home, "missing"))
	t.Setenv("KUBERNETES_SERVICE_HOST", "")
	t.Setenv("POD_NAMESPACE", "ns")
	base := []string{"--port=0", "--cert-dir=" + filepath.Join(home, "certs"), "--health-probe-bind-address=0", "--metrics-bind-address=127.0.0.1:0"}
	for name, tc := range map[string]struct {
		args []string
		want string
	}{
		"default-secure-metrics": {nil,
			"--metrics-secure (the default): the Kubernetes API is needed (a kubeconfig or the in-cluster config); to run without one, e.g. locally, pass --metrics-secure=false (or --metrics-bind-address=0)"},
		"self-managed": {[]string{"--cert-mode=self-managed", "--dns-name=svc.ns.svc", "--metrics-secure=false"},
			"--cert-mode=self-managed: the Kubernetes API is needed (a kubeconfig or the in-cluster config); to run without one, e.g. locally, pass --cert-mode=files"},
		"both": {[]string{"--cert-mode=self-managed", "--dns-name=svc.ns.svc"},
			"--cert-mode=self-managed and --metrics-secure (the default): the Kubernetes API is needed (a kubeconfig or the in-cluster config); to run without one, e.g. locally, pass --cert-mode=files and --metrics-secure=false (or --metrics-bind-address=0)"},
	} {
		t.Run(name, func(t *testing.T) {
			err := runServeFlags(t, append(slices.Clone(base), tc.args...)...)
			if err == nil || !strings.HasPrefix(err.Error(), tc.want+": ") {
				t.Errorf("error:\n%v\nwant prefix:\n%s: ", err, tc.want)
			}
		})
	}
}

// TestServeNamesFlagsOfSetupErrors: what the server cannot use when it
// starts (a busy port, certificate files) is reported with the flags and
// values it came from, before anything serves.
func TestServeNamesFlagsOfSetupErrors(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	_, port, _ := net.SplitHostPort(busy.Addr().String())
	dir, other := t.TempDir(), t.TempDir()
	for _, d := range []string{dir, other} {
		if _, err := webhook.WriteCertificates(d, nil); err != nil {
			t.Fatal(err)
		}
	}
	half := t.TempDir()
	if err := os.WriteFile(filepath.Join(half, webhook.CertFileName), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	base := []string{"--port=0", "--bind-address=127.0.0.1", "--cert-dir=" + dir, "--health-probe-bind-address=0", "--metrics-bind-address=0", "--metrics-secure=false", "--shutdown-drain=0"}
	for name, tc := range map[string]struct {
		args []string
		want string
	}{
		"port":    {[]string{"--port=" + port}, "--bind-address=127.0.0.1 --port=" + port + ": binding the webhook listener"},
		"health":  {[]string{"--health-probe-bind-address=" + busy.Addr().String()}, "--health-probe-bind-address=" + busy.Addr().String() + ": binding the health probe listener"},
		"metrics": {[]string{"--metrics-bind-address=" + busy.Addr().String()}, "--metrics-bind-address=" + busy.Addr().String() + ": binding the metrics listener"},
		"tls-files": {[]string{"--tls-cert-file=" + filepath.Join(dir, "tls.crt"), "--tls-private-key-file=" + filepath.Join(other, "tls.key")},
			"--tls-cert-file=" + filepath.Join(dir, "tls.crt") + " --tls-private-key-file=" + filepath.Join(other, "tls.key") + ": loading the serving certificate"},
		"cert-dir":  {[]string{"--cert-dir=" + half}, "--cert-dir=" + half + ": certificate directory " + half + " holds tls.crt but no tls.key"},
		"client-ca": {[]string{"--client-ca-file=" + filepath.Join(dir, "tls.key")}, "--client-ca-file=" + filepath.Join(dir, "tls.key") + ": loading the client CA bundle"},
	} {
		t.Run(name, func(t *testing.T) {
			err := runServeFlags(t, append(slices.Clone(base), tc.args...)...)
			if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
				t.Errorf("error:\n%v\nwant prefix:\n%s", err, tc.want)
			}
		})
	}
}

// TestServeKubeconfigFlag: --kubeconfig's file is the API's configuration,
// before $KUBECONFIG, and a file it cannot load is named with the flag.
func TestServeKubeconfigFlag(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("KUBECONFIG", filepath.Join(dir, "missing"))
	t.Setenv("KUBERNETES_SERVICE_HOST", "")
	file := filepath.Join(dir, "kubeconfig")
	if err := os.WriteFile(file, []byte(`apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://192.0.2.1:6443"}}]
users: [{name: u, user: {token: t}}]
contexts: [{name: x, context: {cluster: c, user: u}}]
current-context: x
`), 0o600); err != nil {
		t.Fatal(err)
	}
	opts := NewOptions()
	fs := pflag.NewFlagSet("serve", pflag.ContinueOnError)
	opts.AddFlags(fs)
	if err := fs.Parse([]string{"--kubeconfig=" + file}); err != nil {
		t.Fatal(err)
	}
	c, err := opts.restConfig()
	if err != nil || c.Host != "https://192.0.2.1:6443" || c.BearerToken != "t" {
		t.Errorf("restConfig() = %+v, %v; want the host and token of %s", c, err, file)
	}

	missing := filepath.Join(dir, "nope")
	want := "--metrics-secure (the default): the Kubernetes API is needed (a kubeconfig or the in-cluster config); to run without one, e.g. locally, pass --metrics-secure=false (or --metrics-bind-address=0): --kubeconfig " + missing + ": "
	if err := runServeFlags(t, "--metrics-bind-address=127.0.0.1:0", "--kubeconfig="+missing); err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("error:\n%v\nwant prefix:\n%s", err, want)
	}
}

// runServeFlags runs the server of these serve flags with a cancelled
// context (should it start after all, it stops at once instead of hanging
// the test) and returns what it failed with.
func runServeFlags(t *testing.T, args ...string) error {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	opts := NewOptions()
	fs := pflag.NewFlagSet("serve", pflag.ContinueOnError)
	opts.AddFlags(fs)
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	cfg, err := opts.Config()
	if err != nil {
		t.Fatal(err)
	}
	return runWithOps(ctx, cfg, opts, nil)
}
