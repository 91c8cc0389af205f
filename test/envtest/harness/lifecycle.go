package harness

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"k8s.io/client-go/discovery"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

// StopOnSignalOrDeadline calls stop on SIGINT, SIGTERM or SIGHUP (then
// re-raises the signal) and 10s before the `go test -timeout` deadline, so
// that kube-apiserver and etcd, which envtest starts in their own process
// group, never outlive the test binary. It returns at once; the watcher ends
// when done is closed (stop should close it). name prefixes the messages on
// stderr. Call it from TestMain, before the testing package starts its timer,
// so that the deadline fires before the timeout panic does; -test.timeout is
// read only if the flags are parsed by then.
func StopOnSignalOrDeadline(name string, stop func() error, done <-chan struct{}) {
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	var deadline <-chan time.Time
	if f := flag.Lookup("test.timeout"); f != nil {
		if d, ok := f.Value.(flag.Getter).Get().(time.Duration); ok && d > 0 {
			deadline = time.After(max(d-10*time.Second, d/2))
		}
	}
	go func() {
		defer signal.Stop(sigs)
		select {
		case <-done:
		case sig := <-sigs:
			fmt.Fprintf(os.Stderr, "%s: %v: stopping kube-apiserver and etcd\n", name, sig)
			_ = stop()
			signal.Stop(sigs)
			if p, err := os.FindProcess(os.Getpid()); err == nil {
				_ = p.Signal(sig)
			}
		case <-deadline:
			fmt.Fprintf(os.Stderr, "%s: the go test -timeout deadline is near: stopping kube-apiserver and etcd before the test binary is killed\n", name)
			_ = stop()
		}
	}()
}

// StopControlPlane stops env's kube-apiserver and etcd (if env is not nil) and
// then removes dir (if not ""), and returns both errors joined.
func StopControlPlane(env *envtest.Environment, dir string) error {
	var errs []error
	if env != nil {
		if err := env.Stop(); err != nil {
			errs = append(errs, fmt.Errorf("stopping kube-apiserver and etcd: %w", err))
		}
	}
	if dir != "" {
		if err := os.RemoveAll(dir); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// AssetsDir is $KUBEBUILDER_ASSETS after checking that it holds kube-apiserver
// and etcd: a missing binary is an error, never a reason to skip.
func AssetsDir() (string, error) {
	return AssetsDirFrom("KUBEBUILDER_ASSETS", "--print-assets-dir")
}

// AssetsDirFrom is AssetsDir for the assets directory named by variable
// (ENVTEST_ASSETS_1_30 for the oldest release), which
// `hack/envtest-assets.sh <printFlag>` prints.
func AssetsDirFrom(variable, printFlag string) (string, error) {
	dir := os.Getenv(variable)
	if dir == "" {
		return "", fmt.Errorf("%s is not set: run `make envtest-assets` and set %s=$(hack/envtest-assets.sh %s) (`make test` does both)", variable, variable, printFlag)
	}
	for _, name := range []string{"kube-apiserver", "etcd"} {
		fi, err := os.Stat(filepath.Join(dir, name))
		if err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm()&0o111 == 0 {
			return "", fmt.Errorf("%s=%s has no executable %s: run `make envtest-assets`", variable, dir, name)
		}
	}
	return dir, nil
}

// CheckRelease fails unless `<assets>/kube-apiserver --version` reports
// Kubernetes release ("1.30"): a binary of another release would prove
// nothing about that one.
func CheckRelease(assets, release string) error {
	out, err := exec.Command(filepath.Join(assets, "kube-apiserver"), "--version").CombinedOutput()
	if err != nil {
		return fmt.Errorf("%s/kube-apiserver --version: %v: %s", assets, err, out)
	}
	if got := strings.TrimSpace(string(out)); !strings.HasPrefix(got, "Kubernetes v"+release+".") {
		return fmt.Errorf("%s/kube-apiserver is %q, not Kubernetes %s: rebuild with `make envtest-assets`", assets, got, release)
	}
	return nil
}

// CheckServerRelease fails unless the apiserver behind d reports Kubernetes
// release ("1.30").
func CheckServerRelease(d discovery.ServerVersionInterface, release string) error {
	info, err := d.ServerVersion()
	if err != nil {
		return fmt.Errorf("asking the server its version: %w", err)
	}
	if !strings.HasPrefix(info.GitVersion, "v"+release+".") {
		return fmt.Errorf("the control plane serves Kubernetes %s, not %s", info.GitVersion, release)
	}
	return nil
}

// StopServerAndControlPlane is a chart suite's stop: once only (done is
// closed by the first call; later calls return nil), it stops the server
// (stopServer, if not nil), removes the kubeconfig written beside certDir,
// then stops env and removes certDir (StopControlPlane).
func StopServerAndControlPlane(done chan struct{}, stopServer func() error, env *envtest.Environment, certDir string) error {
	select {
	case <-done:
		return nil
	default:
		close(done)
	}
	var errs []error
	if stopServer != nil {
		if err := stopServer(); err != nil {
			errs = append(errs, fmt.Errorf("server: %w", err))
		}
	}
	if certDir != "" {
		_ = os.Remove(certDir + ".kubeconfig")
	}
	if err := StopControlPlane(env, certDir); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}
