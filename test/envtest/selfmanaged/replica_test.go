//go:build envtest

package selfmanaged

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/claimbridge/claimbridge/test/envtest/harness"
)

// serveEnv, set in the environment of a child process of this test binary,
// makes TestMain run `claimbridge serve` with the process's arguments
// instead of the suite (harness.ServeChild): component-base applies its logging
// configuration once per process, so a further replica gets a process of
// its own, started in a moment without a build.
const serveEnv = "CLAIMBRIDGE_SELFMANAGED_SERVE"

// replica is a `claimbridge serve` in a child process of this test binary:
// a further pod of an install.
type replica struct {
	name    string
	addr    string // the webhook listener, 127.0.0.1:<port>
	log     *harness.LogBuffer
	stopped chan struct{}
	// ready waits until /readyz passes; stop sends SIGTERM and waits.
	ready func(context.Context) error
	stop  func() error
}

// replicaArgs are args (an install's serve arguments) followed by a
// listener of its own on 127.0.0.1, a cert dir of its own, localhost as a
// DNS name and no metrics listener.
func replicaArgs(args []string, port, healthPort int, certDir string) []string {
	return append(append([]string(nil), args...),
		"--cert-dir="+certDir,
		"--bind-address=127.0.0.1",
		fmt.Sprintf("--port=%d", port),
		"--dns-name=localhost",
		fmt.Sprintf("--health-probe-bind-address=127.0.0.1:%d", healthPort),
		"--metrics-bind-address=0",
		"--shutdown-drain=0s",
	)
}

// startReplica starts `claimbridge serve` with replicaArgs(args, …) in a
// child process (environment: this process's) and returns without waiting
// for it to be ready (ready). Its cert dir holds the files of kept, as a
// restarted container finds its pod's emptyDir. The child is stopped at t's
// cleanup if stop was not called; its log is printed if t failed.
func startReplica(t *testing.T, name string, args []string, kept map[string][]byte) *replica {
	t.Helper()
	port, err := harness.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	healthPort, err := harness.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	certDir := filepath.Join(t.TempDir(), "certs")
	if err := os.Mkdir(certDir, 0o700); err != nil {
		t.Fatal(err)
	}
	for file, content := range kept {
		if err := os.WriteFile(filepath.Join(certDir, file), content, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	r := &replica{
		name: name, addr: fmt.Sprintf("127.0.0.1:%d", port),
		log: &harness.LogBuffer{}, stopped: make(chan struct{}),
	}
	cmd := exec.Command(os.Args[0], replicaArgs(args, port, healthPort, certDir)...)
	cmd.Env = append(os.Environ(), serveEnv+"=1")
	cmd.Stdout, cmd.Stderr = r.log, r.log
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting replica %s: %v", name, err)
	}
	var waitErr error
	go func() { waitErr = cmd.Wait(); close(r.stopped) }()
	healthz := fmt.Sprintf("http://127.0.0.1:%d/readyz", healthPort)
	r.ready = func(ctx context.Context) error {
		return wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 2*time.Minute, true, func(context.Context) (bool, error) {
			select {
			case <-r.stopped:
				return false, fmt.Errorf("replica %s stopped before it was ready: %v", name, waitErr)
			default:
			}
			return get(healthz), nil
		})
	}
	r.stop = func() error {
		select {
		case <-r.stopped:
			return waitErr
		default:
		}
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-r.stopped:
			return waitErr
		case <-time.After(30 * time.Second):
			_ = cmd.Process.Kill()
			<-r.stopped
			return fmt.Errorf("replica %s did not stop within 30s of SIGTERM", name)
		}
	}
	t.Cleanup(func() {
		if err := r.stop(); err != nil {
			t.Errorf("replica %s: %v", name, err)
		}
		if t.Failed() {
			t.Logf("replica %s log (tail):\n%s", name, r.log.Tail(6000))
		}
	})
	return r
}

// dialLeaf dials addr for the name localhost, verifying against caPEM, and
// returns the certificate served.
func dialLeaf(addr string, caPEM []byte) (*x509.Certificate, error) {
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(caPEM) {
		return nil, errors.New("no CA certificate to verify against")
	}
	conn, err := tls.Dial("tcp", addr, &tls.Config{RootCAs: roots, ServerName: "localhost"})
	if err != nil {
		return nil, fmt.Errorf("TLS dial of %s verifying against the Secret's CA: %w", addr, err)
	}
	defer conn.Close()
	return conn.ConnectionState().PeerCertificates[0], nil
}
