package cli

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/spf13/pflag"
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
			"--cert-mode=self-managed: namespace of the certificate Secret: must not be empty"},
		"self-managed-explicit-namespace": {[]string{"--cert-mode=self-managed", "--dns-name=svc.ns.svc", "--cert-secret=ns/s"}, "", ""},
		"self-managed-tls-cert-file": {[]string{"--cert-mode=self-managed", "--dns-name=svc.ns.svc", "--tls-cert-file=c", "--tls-private-key-file=k"}, "ns",
			"--cert-mode=self-managed: writes the pair into --cert-dir; --tls-cert-file and --tls-private-key-file must not be set"},
		"self-managed-no-dns": {[]string{"--cert-mode=self-managed"}, "ns",
			"--cert-mode=self-managed: DNS names: need at least one (the webhook Service's <name>.<namespace>.svc)"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Setenv("POD_NAMESPACE", tc.env)
			fs := pflag.NewFlagSet("serve", pflag.ContinueOnError)
			opts := NewServeOptions()
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
			// Cancelled: should a configuration be found after all, the
			// server stops at once instead of hanging the test.
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			opts := NewServeOptions()
			fs := pflag.NewFlagSet("serve", pflag.ContinueOnError)
			opts.AddFlags(fs)
			if err := fs.Parse(append(slices.Clone(base), tc.args...)); err != nil {
				t.Fatal(err)
			}
			cfg, err := opts.Config()
			if err != nil {
				t.Fatal(err)
			}
			err = runWithOps(ctx, cfg, opts, nil)
			if err == nil || !strings.HasPrefix(err.Error(), tc.want+": ") {
				t.Errorf("error:\n%v\nwant prefix:\n%s: ", err, tc.want)
			}
		})
	}
}
