package cli

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/claimbridge/claimbridge/server"
)

func executeServe(t *testing.T, run serveFunc, args ...string) (string, error) {
	t.Helper()
	var out bytes.Buffer
	cmd := newServeCommandWithRun(streams{out: &out, err: &out}, run)
	cmd.SetOut(&out)
	cmd.SetErr(&out)
	cmd.SetArgs(args)
	err := cmd.Execute()
	return out.String(), err
}

func TestServeFlags(t *testing.T) {
	var got *server.Options
	run := func(ctx context.Context, o *server.Options) error {
		if ctx.Err() != nil {
			t.Error("context already cancelled")
		}
		got = o
		return nil
	}
	_, err := executeServe(t, run, "--port=0", "--bind-address=127.0.0.1", "--cert-dir=/certs",
		"--dns-name=a.ns.svc", "--dns-name=a.ns.svc.cluster.local", "--tls-min-version=VersionTLS12",
		"--health-probe-bind-address=0", "--metrics-bind-address=:9090", "--client-ca-file=/ca.crt",
		"--max-convert-body-bytes=1024", "--shutdown-drain=0s", "--shutdown-timeout=1m", "--log-format=json", "-v=4")
	if err != nil {
		t.Fatal(err)
	}
	if got.Port != 0 || got.BindAddress != "127.0.0.1" || got.CertDir != "/certs" || len(got.DNSNames) != 2 ||
		got.TLSMinVersion != "VersionTLS12" || got.HealthProbeBindAddress != "0" || got.MetricsBindAddress != ":9090" ||
		got.ClientCAFile != "/ca.crt" || got.MaxConvertBodyBytes != 1024 || got.ShutdownDrain != 0 ||
		got.ShutdownTimeout != time.Minute || got.LogFormat != "json" || got.Verbosity != 4 ||
		got.MaxValidateBodyBytes != server.NewOptions().MaxValidateBodyBytes {
		t.Errorf("options %+v", got)
	}
}

func TestServeInvalidFlags(t *testing.T) {
	run := func(context.Context, *server.Options) error { t.Error("run called"); return nil }
	for _, args := range [][]string{
		{"--tls-min-version=1.1"}, {"--tls-min-version=VersionTLS11"}, {"--tls-cipher-suites=TLS_RSA_WITH_RC4_128_SHA"},
		{"--tls-cipher-suites=NOPE"}, {"--tls-cert-file=/a.crt"}, {"--port=70000"}, {"--log-format=xml"}, {"--max-json-depth=0"}, {"--metrics-bind-address=nohost"},
		{"--max-in-flight=-1"}, {"--max-queue-wait=0"}, {"--max-queue-wait=-1s"},
	} {
		_, err := executeServe(t, run, args...)
		var ee *exitError
		if !errors.As(err, &ee) || ee.code != ExitBadInput {
			t.Errorf("%v: err %v, want exit code %d", args, err, ExitBadInput)
		}
	}
	if _, err := executeServe(t, run, "extra-arg"); err == nil {
		t.Error("positional argument accepted")
	}
}

func TestServeRunError(t *testing.T) {
	_, err := executeServe(t, func(context.Context, *server.Options) error { return errors.New("bind: address in use") })
	var ee *exitError
	if !errors.As(err, &ee) || ee.code != ExitInvalid {
		t.Errorf("err %v, want exit code %d", err, ExitInvalid)
	}
}

func TestServeHelpShowsDefaults(t *testing.T) {
	out, err := executeServe(t, nil, "--help")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"--port int", "(default 9443)", `--health-probe-bind-address string`, `(default ":8081")`, `(default "0")`,
		`--tls-min-version string`, `(default "VersionTLS13")`, "--tls-cert-file", "--tls-private-key-file", "--tls-cipher-suites", "--max-convert-body-bytes int", "(default 67108864)",
		"(default 7340032)", "--shutdown-drain duration", "(default 5s)", "--cert-dir", "serving-certs", "--dns-name", "--client-ca-file",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("help lacks %q", want)
		}
	}
}

// TestServeExitCodes: a server error exits 1, a configuration the server
// cannot use (coded ExitBadInput by runServe, e.g. no Kubernetes API for
// --metrics-secure) keeps exit code 2.
func TestServeExitCodes(t *testing.T) {
	for name, tc := range map[string]struct {
		err  error
		want int
	}{
		"server-error": {errors.New("listen: address in use"), ExitInvalid},
		"bad-config":   {withCode(ExitBadInput, errors.New("no kubeconfig")), ExitBadInput},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := executeServe(t, func(context.Context, *server.Options) error { return tc.err }, "--port=0")
			var ee *exitError
			if !errors.As(err, &ee) || ee.code != tc.want {
				t.Errorf("error %v: exit code %v, want %d", err, ee, tc.want)
			}
		})
	}
}

// TestServeSecondSignalExits: the first signal cancels the server's context
// (graceful shutdown), a second one exits at once with code 1.
func TestServeSecondSignalExits(t *testing.T) {
	sigs := make(chan os.Signal, 2)
	exited := make(chan int, 1)
	ctx, stop := shutdownOnSignal(context.Background(), sigs, func(code int) { exited <- code })
	defer stop()
	sigs <- syscall.SIGTERM
	<-ctx.Done()
	select {
	case code := <-exited:
		t.Fatalf("exited with %d on the first signal", code)
	default:
	}
	sigs <- os.Interrupt
	if code := <-exited; code != ExitInvalid {
		t.Errorf("exit code %d, want %d", code, ExitInvalid)
	}
}

// TestServeSignalAfterStop: once the command returned, a signal exits
// nothing.
func TestServeSignalAfterStop(t *testing.T) {
	sigs := make(chan os.Signal, 2)
	ctx, stop := shutdownOnSignal(context.Background(), sigs, func(code int) { t.Errorf("exit(%d) after stop", code) })
	stop()
	<-ctx.Done()
	sigs <- syscall.SIGTERM
	sigs <- syscall.SIGTERM
}

// TestServeRemovedFlagsRefused: the flags 0.6.0 accepted with a warning
// and ignored are unknown now, and serve says which.
func TestServeRemovedFlagsRefused(t *testing.T) {
	for _, flag := range []string{"--max-connections=64", "--listen-backlog=5", "--overload-listen-backlog=64", "--overload-refuse-after=1s",
		"--max-review-memory=1", "--release-startup-pages", "--cert-reload-interval=0"} {
		_, err := executeServe(t, func(_ context.Context, o *server.Options) error { return nil }, flag)
		if name, _, _ := strings.Cut(flag, "="); err == nil || err.Error() != "unknown flag: "+name {
			t.Errorf("%s: error %v, want unknown flag: %s", flag, err, name)
		}
	}
}

func TestServeDeprecatedTLSVersionWarns(t *testing.T) {
	out, err := executeServe(t, func(_ context.Context, o *server.Options) error { return nil }, "--tls-min-version=1.3")
	if err != nil {
		t.Fatal(err)
	}
	if want := "Warning: --tls-min-version=1.3 is deprecated, use --tls-min-version=VersionTLS13\n"; out != want {
		t.Errorf("output %q, want %q", out, want)
	}
}

// TestServerDocHelp keeps the flag reference in docs/server.md equal to
// `claimbridge serve --help` (the temp dir written as <tmp>). UPDATE_DOCS=1
// rewrites it.
func TestServerDocHelp(t *testing.T) {
	path := filepath.Join("..", "docs", "server.md")
	doc, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	const begin, end = "<!-- BEGIN serve --help -->\n", "<!-- END serve --help -->"
	before, rest, ok := bytes.Cut(doc, []byte(begin))
	_, after, ok2 := bytes.Cut(rest, []byte(end))
	if !ok || !ok2 {
		t.Fatalf("%s has no %q … %q block", path, begin, end)
	}
	var help bytes.Buffer
	cmd := NewRootCommand(streams{out: &help, err: &help})
	cmd.SetOut(&help)
	cmd.SetArgs([]string{"serve", "--help"})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	want := "```text\n" + strings.ReplaceAll(help.String(), os.TempDir(), "<tmp>") + "```\n"
	if string(rest[:len(rest)-len(after)-len(end)]) == want {
		return
	}
	if os.Getenv("UPDATE_DOCS") != "" {
		updated := append(append(append(before, begin...), want...), append([]byte(end), after...)...)
		if err := os.WriteFile(path, updated, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("%s: the --help block differs from `claimbridge serve --help`; run UPDATE_DOCS=1 go test ./cli -run TestServerDocHelp", path)
}
