//go:build envtest

// Package builds runs this build of claimbridge beside older builds against
// a real kube-apiserver, as an operator's roll forward and back does: an
// upgrade, after which this build serves what an older build stored
// (upgrade_test.go), a rollback, after which an older build serves objects
// this build converted and stored (rollback_test.go), and a roll, during
// which both builds serve /convert, /validate and /default behind the
// Services (mixed_test.go, refusals_test.go); server-side apply by field
// managers of every version across all of these (apply_test.go); what a
// failed conversion call costs a write (outage_test.go). TestOnOldest
// (across_releases_test.go) runs every one of them again, at the same time,
// against kube-apiserver 1.30, the oldest the server supports
// (ENVTEST_ASSETS_1_30).
//
// The older builds are pinned commits that hack/older-builds.sh builds from
// the clone's own history into the directory $OLDER_BUILDS names (`make
// test` builds them and sets it; a missing build is an error, never a
// skip). The CRDs' conversion webhook and the admission webhooks point at
// two TCP proxies (the Services) in this process, which pass each
// connection through to the replica the test routes it to: this build in
// this process, or an older build in a process of its own, all serving the
// harness's certificate.
package builds

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/claimbridge/claimbridge/test/envtest/harness"
)

// The older builds, by the short commit hack/older-builds.sh names their
// directories with.
const (
	// beforeDefaults is the last build before the defaults in conversion
	// (867d02e): restore data against sections without defaults, no
	// /default, CRDs without the allocationMode default.
	beforeDefaults = "a47459f"
	// previousRelease is the last build of chart 0.4.0, the release before
	// this one: the defaults in conversion and /default.
	previousRelease = "0e199e8"
	// recent is a build of the day before this suite.
	recent = "bd67635"
)

// withDefaults are the older builds that write the defaults in conversion,
// as this one does: rolls to and from them lose nothing.
var withDefaults = []string{previousRelease, recent}

var (
	env *harness.Env
	// conversion is the proxy the CRDs' conversion webhook points at,
	// admission the one the admission webhooks point at: two Services in
	// front of the same replicas, so that a test can send a write's
	// conversion and its admission to different builds (kube-apiserver
	// sends every call of a write over one connection per Service).
	conversion, admission *proxy
	// replicas are the backends' addresses: "new" is this build, the
	// others the older builds by commit.
	replicas = map[string]string{}
	// olderBuilds is $OLDER_BUILDS.
	olderBuilds string
)

// thisBuild names this build among replicas.
const thisBuild = "new"

func TestMain(m *testing.M) {
	olderBuilds = os.Getenv("OLDER_BUILDS")
	if olderBuilds == "" {
		fmt.Fprintln(os.Stderr, "OLDER_BUILDS is not set: run `make older-builds` and set OLDER_BUILDS=$(hack/older-builds.sh --print-dir) (`make test` does both)")
		os.Exit(1)
	}
	opts := harness.Options{StartServer: startReplicas}
	if os.Getenv(onOldestEnv) != "" {
		opts.Assets = oldest
	}
	os.Exit(harness.Main(m, opts, &env))
}

// startReplicas is the harness's ServerFunc: the conversion proxy on port
// and the admission proxy, routing to this build, which runs in this
// process on a port of its own, and every older build, each in a process
// of its own.
func startReplicas(ctx context.Context, certDir string, port int) (func(), error) {
	var stops []func()
	stopAll := func() {
		for i := len(stops) - 1; i >= 0; i-- {
			stops[i]()
		}
	}
	newPort, err := harness.FreePort()
	if err != nil {
		return nil, err
	}
	stop, err := harness.InProcessServer(ctx, certDir, newPort)
	if err != nil {
		return nil, err
	}
	stops = append(stops, stop)
	replicas[thisBuild] = fmt.Sprintf("127.0.0.1:%d", newPort)
	for _, commit := range append([]string{beforeDefaults}, withDefaults...) {
		addr, stop, err := startOlder(ctx, commit, certDir)
		if err != nil {
			stopAll()
			return nil, err
		}
		stops = append(stops, stop)
		replicas[commit] = addr
	}
	for _, p := range []**proxy{&conversion, &admission} {
		addr := fmt.Sprintf("127.0.0.1:%d", port)
		if p == &admission {
			addr = "127.0.0.1:0"
		}
		if *p, err = newProxy(addr); err != nil {
			stopAll()
			return nil, err
		}
		(*p).route(replicas[thisBuild])
		stops = append(stops, (*p).close)
	}
	return stopAll, nil
}

// startOlder starts `claimbridge serve` of an older build on a free port
// with the harness's certificate and waits until it is ready.
func startOlder(ctx context.Context, commit, certDir string) (addr string, stop func(), err error) {
	bin := filepath.Join(olderBuilds, commit, "claimbridge")
	if fi, err := os.Stat(bin); err != nil || fi.Mode().Perm()&0o111 == 0 {
		return "", nil, fmt.Errorf("no build of %s at %s: run `make older-builds`", commit, bin)
	}
	port, err := harness.FreePort()
	if err != nil {
		return "", nil, err
	}
	healthPort, err := harness.FreePort()
	if err != nil {
		return "", nil, err
	}
	var log harness.LogBuffer
	cmd := exec.Command(bin, "serve", "--bind-address=127.0.0.1", fmt.Sprintf("--port=%d", port),
		"--cert-dir="+certDir, fmt.Sprintf("--health-probe-bind-address=127.0.0.1:%d", healthPort),
		"--metrics-bind-address=0", "--shutdown-drain=0s", "--shutdown-timeout=5s")
	cmd.Stdout, cmd.Stderr = &log, &log
	if err := cmd.Start(); err != nil {
		return "", nil, err
	}
	exited := make(chan struct{})
	var waitErr error
	go func() { waitErr = cmd.Wait(); close(exited) }()
	stop = func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(15 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
	}
	readyz := fmt.Sprintf("http://127.0.0.1:%d/readyz", healthPort)
	deadline := time.Now().Add(time.Minute)
	for {
		select {
		case <-exited:
			return "", nil, fmt.Errorf("build %s stopped before it was ready: %v\n%s", commit, waitErr, log.String())
		case <-ctx.Done():
			stop()
			return "", nil, ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
		if resp, err := http.Get(readyz); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return fmt.Sprintf("127.0.0.1:%d", port), stop, nil
			}
		}
		if time.Now().After(deadline) {
			stop()
			return "", nil, errors.Join(fmt.Errorf("build %s not ready within a minute", commit), errors.New(log.String()))
		}
	}
}
