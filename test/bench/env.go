package main

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/util/retry"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/test/envtest/harness"
)

const crdName = "resourceclaims." + api.Group

// bench holds the running processes and clients.
type bench struct {
	cfg                config
	env                *harness.Env
	apiext             apiextensionsclient.Interface
	kube               kubernetes.Interface
	tmp                string
	cb, nul            *exec.Cmd
	cbMetrics, nullURL string
	pids               map[string]int // kube-apiserver, etcd, claimbridge, null
	mode               mode           // the mode of the running block
	admission          admissionConfigs
}

// startClaimbridge is a harness.ServerFunc: the claimbridge binary built from
// this checkout (or $CLAIMBRIDGE_BIN, another build to compare), run as
// `claimbridge serve` with its metrics on a free port.
func (b *bench) startClaimbridge(ctx context.Context, certDir string, port int) (func(), error) {
	bin := os.Getenv("CLAIMBRIDGE_BIN")
	if bin == "" {
		bin = filepath.Join(b.tmp, "claimbridge")
		root, err := harness.RepoRoot()
		if err != nil {
			return nil, err
		}
		build := exec.CommandContext(ctx, "go", "build", "-o", bin, "./cmd/claimbridge")
		build.Dir, build.Stdout, build.Stderr = root, os.Stderr, os.Stderr
		if err := build.Run(); err != nil {
			return nil, fmt.Errorf("go build ./cmd/claimbridge: %w", err)
		}
	}
	mport, err := harness.FreePort()
	if err != nil {
		return nil, err
	}
	b.cbMetrics = fmt.Sprintf("http://127.0.0.1:%d/metrics", mport)
	b.cb = exec.Command(bin, "serve", "--bind-address=127.0.0.1", "--port="+strconv.Itoa(port), "--cert-dir="+certDir,
		"--health-probe-bind-address=0", fmt.Sprintf("--metrics-bind-address=127.0.0.1:%d", mport), "--metrics-secure=false", "--shutdown-drain=0")
	b.cb.Args = append(b.cb.Args, strings.Fields(os.Getenv("CLAIMBRIDGE_ARGS"))...) // e.g. --conversion-cache-bytes=0
	b.cb.Stdout, b.cb.Stderr = os.Stderr, os.Stderr
	for _, k := range []string{"GOGC", "GOMEMLIMIT"} { // GC settings for claimbridge alone
		if v := os.Getenv("CLAIMBRIDGE_" + k); v != "" {
			if b.cb.Env == nil {
				b.cb.Env = os.Environ()
			}
			b.cb.Env = append(b.cb.Env, k+"="+v)
		}
	}
	if err := b.cb.Start(); err != nil {
		return nil, err
	}
	stop := func() { stopProcess(b.cb) }
	if err := waitTLS(fmt.Sprintf("127.0.0.1:%d", port)); err != nil {
		stop()
		return nil, fmt.Errorf("claimbridge: %w", err)
	}
	return stop, nil
}

func (b *bench) startNull() (func(), error) {
	port, err := harness.FreePort()
	if err != nil {
		return nil, err
	}
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	b.nul = exec.Command(self, "-null-webhook", addr, b.env.CertDir)
	b.nul.Stdout, b.nul.Stderr = os.Stderr, os.Stderr
	if err := b.nul.Start(); err != nil {
		return nil, err
	}
	b.nullURL = "https://" + addr
	stop := func() { stopProcess(b.nul) }
	if err := waitTLS(addr); err != nil {
		stop()
		return nil, fmt.Errorf("null webhook: %w", err)
	}
	return stop, nil
}

func stopProcess(c *exec.Cmd) {
	if c == nil || c.Process == nil {
		return
	}
	_ = c.Process.Signal(syscall.SIGTERM)
	done := make(chan struct{})
	go func() { _ = c.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		_ = c.Process.Kill()
		<-done
	}
}

func waitTLS(addr string) error {
	deadline := time.Now().Add(30 * time.Second)
	for {
		conn, err := tls.DialWithDialer(&net.Dialer{Timeout: time.Second}, "tcp", addr, &tls.Config{InsecureSkipVerify: true}) //nolint:gosec // readiness probe only
		if err == nil {
			conn.Close()
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("not serving TLS on %s within 30s: %w", addr, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// setup starts everything; the returned stop undoes it.
func (b *bench) setup(ctx context.Context) (stop func(), err error) {
	if b.tmp, err = os.MkdirTemp("", "claimbridge-bench-"); err != nil {
		return nil, err
	}
	var stops []func()
	stop = func() {
		for i := len(stops) - 1; i >= 0; i-- {
			stops[i]()
		}
		_ = os.RemoveAll(b.tmp)
	}
	defer func() {
		if err != nil {
			stop()
		}
	}()
	logf("starting etcd, kube-apiserver and claimbridge (go build)")
	if b.env, err = harness.Start(ctx, harness.Options{StartServer: b.startClaimbridge}); err != nil {
		return stop, err
	}
	stops = append(stops, func() {
		if err := b.env.Stop(); err != nil {
			logf("stopping envtest: %v", err)
		}
	})
	stopNull, err := b.startNull()
	if err != nil {
		return stop, err
	}
	stops = append(stops, stopNull)
	if b.apiext, err = apiextensionsclient.NewForConfig(b.env.Config); err != nil {
		return stop, err
	}
	if b.kube, err = kubernetes.NewForConfig(b.env.Config); err != nil {
		return stop, err
	}
	b.pids = map[string]int{"claimbridge": b.cb.Process.Pid, "null": b.nul.Process.Pid}
	for _, name := range []string{"kube-apiserver", "etcd"} {
		if b.pids[name], err = findChild(name); err != nil {
			return stop, err
		}
	}
	// Creates compare conversion alone: the admission webhooks (the same
	// claimbridge process in every mode) would add the same cost to each.
	// The status block installs them again (status.go).
	if err := b.saveAdmission(ctx, harness.WebhookConfigurationName); err != nil {
		return stop, err
	}
	if err := b.setAdmission(ctx, modeStorage); err != nil {
		return stop, err
	}
	return stop, nil
}

// setConversion points the ResourceClaim CRD at the mode's webhook (none for
// storage). The apiserver then rebuilds the storage and every watch cache.
func (b *bench) setConversion(ctx context.Context, m mode) error {
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		crd, err := b.apiext.ApiextensionsV1().CustomResourceDefinitions().Get(ctx, crdName, metav1.GetOptions{})
		if err != nil {
			return err
		}
		switch m {
		case modeStorage:
			crd.Spec.Conversion = &apiextensionsv1.CustomResourceConversion{Strategy: apiextensionsv1.NoneConverter}
		default:
			url := b.env.ConvertURL
			if m == modeNull {
				url = b.nullURL + "/convert"
			}
			crd.Spec.Conversion = &apiextensionsv1.CustomResourceConversion{
				Strategy: apiextensionsv1.WebhookConverter,
				Webhook: &apiextensionsv1.WebhookConversion{
					ClientConfig:             &apiextensionsv1.WebhookClientConfig{URL: &url, CABundle: b.env.CABundle},
					ConversionReviewVersions: []string{"v1"},
				},
			}
		}
		_, err = b.apiext.ApiextensionsV1().CustomResourceDefinitions().Update(ctx, crd, metav1.UpdateOptions{})
		return err
	})
}

// apiserverMetrics returns the apiserver's /metrics text.
func (b *bench) apiserverMetrics(ctx context.Context) (string, error) {
	data, err := b.kube.Discovery().RESTClient().Get().AbsPath("/metrics").DoRaw(ctx)
	return string(data), err
}
