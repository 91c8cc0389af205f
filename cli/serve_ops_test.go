package cli

import (
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
