// Command loadtest measures claimbridge serve against a null server with
// the same TLS on loopback, with vegeta as the load generator. Run it with
// `make loadtest` (flags in LOADTEST_FLAGS); see docs/performance.md.
//
// For each server: a closed loop of status updates (-workers clients for
// -closed) gives its capacity; then an open-loop step at twice that rate
// (-step, vegeta's constant pacer) while /healthz is probed every 100 ms.
// The servers run on CPU 1, the generator on CPU 0 (taskset).
package main

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"

	"github.com/claimbridge/claimbridge/api"
)

const (
	pinnedEnv     = "LOADTEST_PINNED"
	clientTimeout = 10 * time.Second
)

func main() {
	null := flag.String("null", "", "internal: serve as the null server with this cert dir")
	addr := flag.String("addr", "", "internal: null server TLS address")
	health := flag.String("health", "", "internal: null server /healthz address")
	closed := flag.Duration("closed", 10*time.Second, "closed-loop capacity measurement, per server")
	step := flag.Duration("step", 20*time.Second, "open-loop step at 2× capacity, per server")
	workers := flag.Uint64("workers", 16, "closed-loop clients")
	maxWorkers := flag.Uint64("max-workers", 600, "open loop: requests outstanding at most, each on its own kept-alive connection (kube-apiserver's default in-flight limits total 600)")
	bin := flag.String("bin", "", "claimbridge binary (default: go build ./cmd/claimbridge)")
	flag.Parse()
	if *null != "" {
		exit(runNull(*null, *addr, *health))
	}
	if os.Getenv(pinnedEnv) == "" { // re-execute on CPU 0, every thread
		self, err := os.Executable()
		exit(err)
		tasksetPath, err := exec.LookPath("taskset")
		exit(err)
		os.Setenv(pinnedEnv, "1")
		exit(syscall.Exec(tasksetPath, append([]string{"taskset", "-c", "0", self}, os.Args[1:]...), os.Environ()))
	}
	exit(run(*closed, *step, *workers, *maxWorkers, *bin))
}

func exit(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "loadtest:", err)
		os.Exit(1)
	}
}

// server is a running server process on CPU 1.
type server struct {
	name, url, healthz string
	cmd                *exec.Cmd
}

func freeAddr() string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	defer l.Close()
	return l.Addr().String()
}

func start(name, addr, health string, args ...string) (*server, error) {
	cmd := exec.Command("taskset", append([]string{"-c", "1"}, args...)...)
	if os.Getenv("LOADTEST_VERBOSE") != "" {
		cmd.Stderr = os.Stderr
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	s := &server{name: name, url: "https://" + addr, healthz: "http://" + health + "/healthz", cmd: cmd}
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if resp, err := http.Get(s.healthz); err == nil {
			resp.Body.Close()
			return s, nil
		}
		if time.Now().After(deadline) {
			s.stop()
			return nil, fmt.Errorf("%s did not answer %s", name, s.healthz)
		}
	}
}

func (s *server) stop() {
	_ = s.cmd.Process.Signal(os.Interrupt)
	done := make(chan struct{})
	go func() { _ = s.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		_ = s.cmd.Process.Kill()
	}
}

// statusUpdate is an AdmissionReview UPDATE of a claim's status
// subresource that reserves the claim (the old object has no consumer).
func statusUpdate() ([]byte, error) {
	obj, err := os.ReadFile(filepath.Join("webhook", "testdata", "claim-v1alpha3.json"))
	if err != nil {
		return nil, err
	}
	var o map[string]any
	if err := json.Unmarshal(obj, &o); err != nil {
		return nil, err
	}
	delete(o["status"].(map[string]any), "reservedFor")
	old, _ := json.Marshal(o)
	return json.Marshal(map[string]any{"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "request": map[string]any{
		"uid": "u", "operation": "UPDATE", "subResource": "status", "name": "multi-claim", "namespace": "team-c",
		"kind":     map[string]string{"group": api.Group, "version": api.V1alpha3, "kind": api.KindClaim},
		"resource": map[string]string{"group": api.Group, "version": api.V1alpha3, "resource": "resourceclaims"},
		"userInfo": map[string]string{"username": "loadtest"}, "object": json.RawMessage(obj), "oldObject": json.RawMessage(old)}})
}

// attack sends the review to s at rate (0: closed loop of workers clients)
// for d and tallies the answers until the last one is in.
func attack(s *server, tlsConf *tls.Config, body []byte, rate int, workers uint64, d time.Duration) *tally {
	a := vegeta.NewAttacker(vegeta.Timeout(clientTimeout), vegeta.TLSConfig(tlsConf), vegeta.HTTP2(false),
		vegeta.KeepAlive(true), vegeta.Workers(min(workers, 64)), vegeta.MaxWorkers(workers), vegeta.Connections(int(workers)))
	target := vegeta.NewStaticTargeter(vegeta.Target{Method: http.MethodPost, URL: s.url + "/validate", Body: body,
		Header: http.Header{"Content-Type": {"application/json"}}})
	t, start := &tally{paced: d}, time.Now()
	for r := range a.Attack(target, vegeta.ConstantPacer{Freq: rate, Per: time.Second}, d, s.name) {
		t.add(r.Code, r.Body, r.Error, r.Latency)
	}
	t.elapsed = time.Since(start)
	return t
}

// probe GETs url every 100 ms until stop is closed and sends the slowest
// answer (a failure counts as its time to fail).
func probe(url string, stop <-chan struct{}) <-chan time.Duration {
	out := make(chan time.Duration, 1)
	go func() {
		c := &http.Client{Timeout: 5 * time.Second}
		var worst time.Duration
		t := time.NewTicker(100 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-stop:
				out <- worst
				return
			case <-t.C:
			}
			begin := time.Now()
			if resp, err := c.Get(url); err == nil {
				resp.Body.Close()
			}
			worst = max(worst, time.Since(begin))
		}
	}()
	return out
}

func run(closed, step time.Duration, workers, maxWorkers uint64, bin string) error {
	body, err := statusUpdate()
	if err != nil {
		return fmt.Errorf("the status update review (run from the repository root): %w", err)
	}
	tmp, err := os.MkdirTemp("", "claimbridge-loadtest-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	if bin == "" {
		bin = filepath.Join(tmp, "claimbridge")
		if out, err := exec.Command("go", "build", "-o", bin, "./cmd/claimbridge").CombinedOutput(); err != nil {
			return fmt.Errorf("go build: %v\n%s", err, out)
		}
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	certDir := filepath.Join(tmp, "certs")
	cbAddr, cbHealth := freeAddr(), freeAddr()
	_, port, _ := net.SplitHostPort(cbAddr)
	cb, err := start("claimbridge", cbAddr, cbHealth, bin, "serve", "--bind-address=127.0.0.1", "--port="+port, "--cert-dir="+certDir,
		"--health-probe-bind-address="+cbHealth, "--metrics-bind-address=0", "--shutdown-drain=0s")
	if err != nil {
		return err
	}
	defer cb.stop()
	nAddr, nHealth := freeAddr(), freeAddr() // the null server serves claimbridge's generated pair
	null, err := start("null", nAddr, nHealth, self, "-null="+certDir, "-addr="+nAddr, "-health="+nHealth)
	if err != nil {
		return err
	}
	defer null.stop()
	ca, err := os.ReadFile(filepath.Join(certDir, "ca.crt"))
	if err != nil {
		return err
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(ca)
	tlsConf := &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS13}

	fmt.Printf("loadtest %s: status update AdmissionReview; servers on CPU 1, generator on CPU 0; closed loop %v × %d clients, step %v at 2× capacity (at most %d outstanding), client timeout %v\n\n",
		time.Now().UTC().Format(time.RFC3339), closed, workers, step, maxWorkers, clientTimeout)
	for _, s := range []*server{cb, null} {
		c := attack(s, tlsConf, body, 0, workers, closed)
		capacity := c.summary(0).Goodput
		if capacity < 1 {
			return fmt.Errorf("%s: no capacity measured (%s)", s.name, c.firstErr)
		}
		rate := int(2*capacity + 0.5)
		stop := make(chan struct{})
		worst := probe(s.healthz, stop)
		o := attack(s, tlsConf, body, rate, maxWorkers, step)
		close(stop)
		sum := o.summary(capacity)
		sum.Offered, sum.HealthzMax = float64(rate), <-worst
		fmt.Print(sum.report(s.name, s == cb))
		if o.firstErr != "" {
			fmt.Printf("  first error: %s\n", o.firstErr)
		}
		fmt.Println()
	}
	return nil
}
