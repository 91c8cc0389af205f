// Command loadtest measures claimbridge serve against a null server with the
// same TLS settings on loopback and prints a markdown table (see
// docs/performance.md). Run it with `make loadtest`; SOAK=10m sets the soak.
//
// Phases, each against claimbridge (the real binary, built with go build)
// and the null server (this program in -null mode, a separate process so
// that its CPU is measured the same way): closed loop with 1, 8 and 32
// clients and a fixed rate for every review shape; then, against
// claimbridge, 2× the closed-loop capacity of the most expensive shape and a
// soak. Every phase is bounded in time and in requests outstanding.
package main

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/claimbridge/claimbridge/api"
)

func main() {
	null := flag.Bool("null", false, "run as the null server (internal)")
	certDir := flag.String("cert-dir", "", "null server: directory with tls.crt and tls.key")
	addr := flag.String("addr", "", "null server: TLS address")
	health := flag.String("health", "", "null server: health address")
	probe := flag.String("probe", "", "run as the prober of this URL (internal)")
	probeFor := flag.Duration("probe-for", 0, "prober: how long to probe")
	phase := flag.Duration("phase", 3*time.Second, "duration of each measured phase")
	flag.DurationVar(&overloadPhase, "overload-phase", 20*time.Second, "duration of the overload step (longer than the clients' 10 s TLS handshake timeout, after which the dials left waiting give up)")
	flag.Float64Var(&knownCapacity, "capacity", 0, "skip the closed-loop and fixed-rate phases and overload the status update at 2× this capacity")
	flag.StringVar(&serverArgs, "server-args", "", "extra flags for claimbridge serve, space-separated")
	flag.IntVar(&maxOutstanding, "max-outstanding", 4000, "requests a fixed-rate phase keeps outstanding at most; one more counts as an error at once (kube-apiserver's concurrency limits bound its webhook calls to about 600 by default)")
	flag.IntVar(&maxIdlePerHost, "max-idle-per-host", 4096, "idle connections the load generator keeps for reuse (client-go's transport, which kube-apiserver's webhook client uses, keeps 25; Go's default transport 2)")
	flag.IntVar(&closedLoopOnly, "closed-loop", 0, "run only closed loops of this many clients against claimbridge, -phase each, for every shape (e.g. to count the errors of reclaimed connections)")
	flag.StringVar(&claimbridgeBin, "bin", "", "claimbridge binary to run (default: go build ./cmd/claimbridge), e.g. to compare two builds")
	flag.Parse()
	if *probe != "" {
		if err := runProbe(*probe, *probeFor); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		return
	}
	if *null {
		if err := runNull(*certDir, *addr, *health); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		return
	}
	if maxOutstanding < 1 {
		fmt.Fprintf(os.Stderr, "-max-outstanding=%d: want at least 1\n", maxOutstanding)
		os.Exit(2)
	}
	if maxIdlePerHost < 1 {
		fmt.Fprintf(os.Stderr, "-max-idle-per-host=%d: want at least 1\n", maxIdlePerHost)
		os.Exit(2)
	}
	soak := 30 * time.Second
	if s := os.Getenv("SOAK"); s != "" {
		d, err := time.ParseDuration(s)
		if err != nil {
			fmt.Fprintf(os.Stderr, "SOAK=%q: %v\n", s, err)
			os.Exit(2)
		}
		soak = d
	}
	if err := run(*phase, soak); err != nil {
		fmt.Fprintln(os.Stderr, "loadtest:", err)
		os.Exit(1)
	}
}

var (
	knownCapacity  float64
	closedLoopOnly int
	maxOutstanding int
	maxIdlePerHost int
	overloadPhase  time.Duration
	serverArgs     string
	claimbridgeBin string
)

// handshakeTimeout is the load generator's TLS handshake timeout, client-go's
// (utilnet.SetTransportDefaults) and Go's default transport's.
const handshakeTimeout = 10 * time.Second

// shape is one kind of review.
type shape struct {
	name, path string
	body       []byte
}

func shapes(root string) ([]shape, error) {
	read := func(v string) ([]byte, error) {
		return os.ReadFile(filepath.Join(root, "webhook", "testdata", "claim-"+v+".json"))
	}
	v1, err := read("v1alpha1")
	if err != nil {
		return nil, err
	}
	v3, err := read("v1alpha3")
	if err != nil {
		return nil, err
	}
	conv := func(obj []byte, to string) []byte {
		b, _ := json.Marshal(map[string]interface{}{"apiVersion": "apiextensions.k8s.io/v1", "kind": "ConversionReview",
			"request": map[string]interface{}{"uid": "u", "desiredAPIVersion": "resource.claimbridge.dev/" + to, "objects": []json.RawMessage{obj}}})
		return b
	}
	adm := func(op, sub string, obj, old []byte) []byte {
		req := map[string]interface{}{"uid": "u", "operation": op, "subResource": sub, "name": "multi-claim", "namespace": "team-c",
			"kind":     map[string]string{"group": api.Group, "version": api.V1alpha3, "kind": api.KindClaim},
			"resource": map[string]string{"group": api.Group, "version": api.V1alpha3, "resource": "resourceclaims"},
			"userInfo": map[string]string{"username": "loadtest"}, "object": json.RawMessage(obj)}
		if old != nil {
			req["oldObject"] = json.RawMessage(old)
		}
		b, _ := json.Marshal(map[string]interface{}{"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "request": req})
		return b
	}
	// The status update reserves the claim: old has no consumer.
	var o map[string]interface{}
	if err := json.Unmarshal(v3, &o); err != nil {
		return nil, err
	}
	delete(o["status"].(map[string]interface{}), "reservedFor")
	old, _ := json.Marshal(o)
	return []shape{
		{"convert v1alpha3→v1alpha1", "/convert", conv(v3, "v1alpha1")},
		{"convert v1alpha1→v1alpha3", "/convert", conv(v1, "v1alpha3")},
		{"create v1alpha3", "/validate", adm("CREATE", "", v3, nil)},
		{"status update v1alpha3", "/validate", adm("UPDATE", "status", v3, old)},
	}, nil
}

// server is a running server process.
type server struct {
	name         string
	cmd          *exec.Cmd
	url, healthz string
	client       *http.Client
	dialer       *dialer      // s.client's dials, each bounded by its phase (measure)
	dials        atomic.Int64 // connections s.client has dialled
	stat         *procStat    // /proc/<pid>/stat, opened at start
}

func freePort() string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	defer l.Close()
	return l.Addr().String()
}

func start(name string, args []string, certDir, addr, health string, extra ...string) (*server, error) {
	args = append(args, extra...)
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stderr = io.Discard
	if os.Getenv("LOADTEST_VERBOSE") != "" {
		cmd.Stderr = os.Stderr
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	s := &server{name: name, cmd: cmd, url: "https://" + addr, healthz: "http://" + health + "/healthz",
		stat: openProcStat(fmt.Sprintf("/proc/%d/stat", cmd.Process.Pid))}
	deadline := time.Now().Add(60 * time.Second)
	for {
		if resp, err := plainClient.Get(s.healthz); err == nil {
			resp.Body.Close()
			break
		}
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			return nil, fmt.Errorf("%s did not start", name)
		}
		time.Sleep(50 * time.Millisecond)
	}
	ca, err := os.ReadFile(filepath.Join(certDir, "ca.crt"))
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(ca)
	s.dialer = &dialer{tls: &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS13}, dials: &s.dials}
	s.client = &http.Client{Timeout: 10 * time.Second, Transport: newTransport(s.dialer)}
	return s, nil
}

func (s *server) stop() {
	_ = s.cmd.Process.Signal(os.Interrupt)
	done := make(chan struct{})
	go func() { _ = s.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(15 * time.Second):
		_ = s.cmd.Process.Kill()
	}
}

// cpuAndRSS reads utime+stime (seconds) and RSS (MiB) from /proc/<pid>/stat.
func (s *server) cpuAndRSS() (float64, float64) {
	cpu, rss := s.stat.read()
	return cpu, rss * float64(os.Getpagesize()) / (1 << 20)
}

// procStat is a /proc/<pid>/stat file kept open: the overload step can use
// up this process's file descriptors (dials waiting in the server's accept
// queue), and the measurements must not fail then.
type procStat struct {
	f   *os.File
	buf []byte
}

func openProcStat(path string) *procStat {
	f, err := os.Open(path)
	if err != nil {
		panic(err)
	}
	return &procStat{f: f, buf: make([]byte, 4096)}
}

// read returns utime+stime in seconds and the RSS in pages.
func (p *procStat) read() (cpu, rssPages float64) {
	n, err := p.f.ReadAt(p.buf, 0)
	if n == 0 && err != nil {
		return 0, 0
	}
	data := p.buf[:n]
	f := strings.Fields(string(data[bytes.LastIndexByte(data, ')')+2:]))
	ut, _ := strconv.ParseFloat(f[11], 64)
	st, _ := strconv.ParseFloat(f[12], 64)
	rss, _ := strconv.ParseFloat(f[21], 64)
	return (ut + st) / 100, rss
}

// result of one phase.
type result struct {
	lat            []time.Duration // from the request's start to the whole answer, including connWait
	connWait       []time.Duration // client side: waiting for a connection (an idle one, or a dial and TLS handshake)
	ok, shed, errs int64
	dials          int64 // TLS connections the client dialled during the phase
	overflows      int64 // the kernel's ListenOverflows during the phase (-1: unknown)
	firstErr       string
	errKinds       map[string]int // errors by message, addresses left out
	start          time.Time
	okPerSecond    []int64 // successes by second since start
	errPerSecond   []int64 // errors by second since start
	shedLat        []time.Duration
	shedServer     []time.Duration // shed answers from the connection's acquisition on: the server's part
	okServer       []time.Duration // the same for successes
	probe          []time.Duration // /healthz from the separate prober process
	probeFails     int             // probes that failed or took longer than probeTimeout
	genProbe       []time.Duration // /healthz from inside the load generator
	cpuPerReq, rss float64
	clientCores    float64 // the load generator's own CPU use during the phase, in cores
	elapsed        time.Duration
	cpu            *cpuSeconds // server and generator cores, second by second
	mu             sync.Mutex
}

func (r *result) record(d, connWait time.Duration, outcome int, msg string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if outcome != 2 || d > 0 {
		r.connWait = append(r.connWait, connWait)
	}
	switch outcome {
	case 0:
		r.ok++
		r.okPerSecond = countSecond(r.okPerSecond, r.start)
		r.lat = append(r.lat, d)
		r.okServer = append(r.okServer, d-connWait)
	case 1:
		r.shed++
		r.shedLat = append(r.shedLat, d)
		r.shedServer = append(r.shedServer, d-connWait)
	default:
		r.errs++
		r.errPerSecond = countSecond(r.errPerSecond, r.start)
		if r.firstErr == "" {
			r.firstErr = msg
		}
		if r.errKinds == nil {
			r.errKinds = map[string]int{}
		}
		r.errKinds[errKind(msg)]++
	}
}

// countSecond counts one event in the second since start in which it
// happened now.
func countSecond(perSecond []int64, start time.Time) []int64 {
	sec := int(time.Since(start) / time.Second)
	if sec < 0 {
		return perSecond
	}
	for len(perSecond) <= sec {
		perSecond = append(perSecond, 0)
	}
	perSecond[sec]++
	return perSecond
}

// send posts one review and records it: 0 success, 1 shed (429, in band or
// HTTP), 2 error. The time spent waiting for a connection (client side) is
// recorded apart as well.
func send(s *server, sh shape, r *result) {
	start := time.Now()
	var getConn, gotConn time.Time
	ctx := httptrace.WithClientTrace(context.Background(), &httptrace.ClientTrace{
		GetConn: func(string) { getConn = time.Now() },
		GotConn: func(httptrace.GotConnInfo) { gotConn = time.Now() },
	})
	out, msg := post(ctx, s, sh)
	wait := time.Duration(0)
	if !gotConn.IsZero() {
		wait = gotConn.Sub(getConn)
	} else if !getConn.IsZero() {
		wait = time.Since(getConn)
	}
	r.record(time.Since(start), wait, out, msg)
}

func post(ctx context.Context, s *server, sh shape) (int, string) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.url+sh.path, bytes.NewReader(sh.body))
	if err != nil {
		return 2, err.Error()
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := s.client.Do(req)
	if err != nil {
		return 2, err.Error()
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return 2, err.Error()
	}
	if resp.StatusCode == http.StatusTooManyRequests {
		return 1, ""
	}
	if resp.StatusCode != http.StatusOK {
		return 2, fmt.Sprintf("HTTP %d %.100s", resp.StatusCode, body)
	}
	switch {
	case bytes.Contains(body, []byte(`"allowed":true`)), bytes.Contains(body, []byte(`"status":"Success"`)):
		return 0, ""
	case bytes.Contains(body, []byte(`"code":429`)):
		return 1, ""
	}
	return 2, fmt.Sprintf("%.200s", body)
}

// lateGoodput is the successes per second from handshakeTimeout to the end
// of the offered load (d); ok is false when d ends before a full second of it.
func lateGoodput(r *result, d time.Duration) (perSecond float64, ok bool) {
	from, to := int(handshakeTimeout/time.Second), int(d/time.Second)
	if to <= from {
		return 0, false
	}
	var n int64
	for _, c := range r.okPerSecond[min(from, len(r.okPerSecond)):min(to, len(r.okPerSecond))] {
		n += c
	}
	return float64(n) / float64(to-from), true
}

// measure runs load against s for d, probing /healthz every 100ms both from
// a separate prober process (as kubelet does) and from inside this process.
func measure(s *server, d time.Duration, load func(ctx context.Context, r *result)) *result {
	r := &result{start: time.Now()}
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	p := startProber(context.Background(), s.healthz, d)
	probeDone := make(chan struct{})
	go func() {
		defer close(probeDone)
		t := time.NewTicker(100 * time.Millisecond)
		defer t.Stop()
		c := &http.Client{Timeout: 5 * time.Second}
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			start := time.Now()
			if resp, err := c.Get(s.healthz); err == nil {
				resp.Body.Close()
			}
			r.mu.Lock()
			r.genProbe = append(r.genProbe, time.Since(start))
			r.mu.Unlock()
		}
	}()
	cpu0, _ := s.cpuAndRSS()
	self0 := selfCPU()
	dials0 := s.dials.Load()
	overflows0 := listenOverflows()
	cpuSampler := sampleCPU(ctx, s)
	endPhase := s.dialer.startPhase()
	start := time.Now()
	load(ctx, r)
	r.elapsed = time.Since(start)
	endPhase()
	// The sampler reads the same /proc files (and buffers) as below.
	r.cpu = cpuSampler.wait()
	r.clientCores = (selfCPU() - self0) / r.elapsed.Seconds()
	cpu1, rss := s.cpuAndRSS()
	r.dials = s.dials.Load() - dials0
	r.overflows = -1
	if overflows1 := listenOverflows(); overflows0 >= 0 && overflows1 >= 0 {
		r.overflows = overflows1 - overflows0
	}
	<-probeDone
	r.probe, r.probeFails = p.wait()
	if n := r.ok + r.shed + r.errs; n > 0 {
		r.cpuPerReq = (cpu1 - cpu0) / float64(n) * 1000
	}
	r.rss = rss
	return r
}

func closedLoop(s *server, sh shape, clients int) func(context.Context, *result) {
	return func(ctx context.Context, r *result) {
		var wg sync.WaitGroup
		for range clients {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for ctx.Err() == nil {
					send(s, sh, r)
				}
			}()
		}
		wg.Wait()
	}
}

// openLoop sends rate requests per second, at most maxOutstanding at once
// (a request that would exceed it counts as an error).
func openLoop(s *server, mix []shape, rate float64) func(context.Context, *result) {
	maxOutstanding := int64(maxOutstanding)
	return func(ctx context.Context, r *result) {
		var wg sync.WaitGroup
		var outstanding atomic.Int64
		interval := time.Duration(float64(time.Second) / rate)
		next := time.Now()
		for i := 0; ctx.Err() == nil; i++ {
			time.Sleep(time.Until(next))
			next = next.Add(interval)
			if outstanding.Load() >= maxOutstanding {
				r.record(0, 0, 2, "client: too many requests outstanding")
				continue
			}
			outstanding.Add(1)
			wg.Add(1)
			sh := mix[i%len(mix)]
			go func() {
				defer wg.Done()
				defer outstanding.Add(-1)
				send(s, sh, r)
			}()
		}
		wg.Wait()
	}
}

func pct(ds []time.Duration, p float64) string {
	if len(ds) == 0 {
		return "–"
	}
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	i := int(float64(len(s))*p/100+0.5) - 1
	i = max(0, min(i, len(s)-1))
	return fmt.Sprintf("%.1f", float64(s[i])/float64(time.Millisecond))
}

func row(phase, srv, sh, load string, r *result) {
	thr := float64(r.ok) / r.elapsed.Seconds()
	fmt.Printf("| %s | %s | %s | %s | %.0f | %s | %s | %s | %s | %s | %d | %d | %d | %d (p99 %s / %s ms) | %.3f | %.2f | %.1f | %s / %s (%d failed) | %s |\n",
		phase, srv, sh, load, thr, pct(r.lat, 50), pct(r.lat, 99), pct(r.lat, 99.9), pct(r.connWait, 99), pct(r.okServer, 99), r.dials, r.overflows, r.errs, r.shed, pct(r.shedLat, 99), pct(r.shedServer, 99),
		r.cpuPerReq, r.clientCores, r.rss, pct(r.probe, 50), pct(r.probe, 99), r.probeFails, pct(r.genProbe, 99))
	if r.firstErr != "" {
		fmt.Fprintf(os.Stderr, "%s %s %s %s: first error: %s; errors by kind: %s\n", phase, srv, sh, load, r.firstErr, kinds(r.errKinds))
	}
}

var addrRE = regexp.MustCompile(`\d+\.\d+\.\d+\.\d+:\d+`)

// errKind is an error message with its addresses left out.
func errKind(msg string) string { return addrRE.ReplaceAllString(msg, "ADDR") }

// dialFailures counts the errors of kinds that are the client's own
// connection attempts failing (a dial, or its TLS handshake timing out):
// requests that never reached a server.
func dialFailures(kinds map[string]int) int {
	n := 0
	for k, c := range kinds {
		if strings.Contains(k, ": dial tcp ") || strings.HasSuffix(k, ": "+errHandshakeTimeout.Error()) {
			n += c
		}
	}
	return n
}

// kinds lists error kinds, most frequent first.
func kinds(m map[string]int) string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Slice(ks, func(i, j int) bool { return m[ks[i]] > m[ks[j]] })
	var b strings.Builder
	for i, k := range ks {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%d× %q", m[k], k)
	}
	return b.String()
}

func run(phase, soak time.Duration) error {
	root, err := os.Getwd()
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "claimbridge-loadtest-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	bin := claimbridgeBin
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
	all, err := shapes(root)
	if err != nil {
		return err
	}
	certDir := filepath.Join(tmp, "certs")
	cbAddr, cbHealth, cbMetrics := freePort(), freePort(), freePort()
	cb, err := start("claimbridge", []string{bin, "serve", "--bind-address=127.0.0.1", "--port=" + strings.Split(cbAddr, ":")[1],
		"--cert-dir=" + certDir, "--health-probe-bind-address=" + cbHealth, "--metrics-bind-address=" + cbMetrics, "--metrics-secure=false",
		// The load test repeats the same reviews: the conversion cache would
		// answer them all, so it is off and conversion is measured.
		"--shutdown-drain=0s", "--conversion-cache-bytes=0"}, certDir, cbAddr, cbHealth, append(profileArgs(), strings.Fields(serverArgs)...)...)
	if err != nil {
		return err
	}
	defer cb.stop()
	// The null server serves with claimbridge's generated certificate.
	nAddr, nHealth := freePort(), freePort()
	null, err := start("null", []string{self, "-null", "-cert-dir=" + certDir, "-addr=" + nAddr, "-health=" + nHealth}, certDir, nAddr, nHealth)
	if err != nil {
		return err
	}
	defer null.stop()

	fmt.Printf("Load test %s: phase %v, soak %v; capacity = best closed-loop ok/s of claimbridge. The generator keeps at most %d requests outstanding in a fixed-rate phase and %d idle connections per server. Latencies are from the request's start (client side), including the wait for a connection (reported apart); \"after conn\" excludes it. /healthz: a separate prober process (kubelet-like, %v timeout) and the generator itself.\n\n",
		time.Now().UTC().Format(time.RFC3339), phase, soak, maxOutstanding, maxIdlePerHost, probeTimeout)
	fmt.Println("| phase | server | shape | load | ok/s | p50 ms | p99 ms | p99.9 ms | of which conn wait p99 ms | p99 ms after conn | new conns | listen overflows | errors | shed (p99 ms / after conn) | server CPU ms/req | load generator CPU cores | RSS MiB | /healthz p50 / p99 ms (prober process) | /healthz p99 ms (in generator) |")
	fmt.Println("|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
	if closedLoopOnly > 0 {
		for _, sh := range all {
			row("closed loop", cb.name, sh.name, fmt.Sprintf("%d clients", closedLoopOnly), measure(cb, phase, closedLoop(cb, sh, closedLoopOnly)))
		}
		return nil
	}
	capacity := map[string]float64{}
	if knownCapacity > 0 {
		all = all[3:]
		capacity[all[0].name] = knownCapacity
	}
	for _, sh := range all {
		if knownCapacity > 0 {
			break
		}
		for _, clients := range []int{1, 8, 32} {
			for _, s := range []*server{cb, null} {
				r := measure(s, phase, closedLoop(s, sh, clients))
				row("closed loop", s.name, sh.name, fmt.Sprintf("%d clients", clients), r)
				if s == cb {
					capacity[sh.name] = max(capacity[sh.name], float64(r.ok)/r.elapsed.Seconds())
				}
			}
		}
		rate := max(1, capacity[sh.name]/2)
		for _, s := range []*server{cb, null} {
			r := measure(s, phase, openLoop(s, []shape{sh}, rate))
			row("fixed rate", s.name, sh.name, fmt.Sprintf("%.0f/s", rate), r)
		}
	}
	worst := all[0]
	for _, sh := range all {
		if capacity[sh.name] < capacity[worst.name] {
			worst = sh
		}
	}
	over := 2 * capacity[worst.name]
	shed0, fast0 := shedTimes("http://" + cbMetrics + "/metrics")
	refusing0 := refusalsStarted("http://" + cbMetrics + "/metrics")
	prof := startStepProfile(healthBase(cb.healthz), "http://"+cbMetrics+"/metrics", overloadPhase)
	r := measure(cb, overloadPhase, openLoop(cb, []shape{worst}, over))
	prof.stop()
	row("overload 2×", cb.name, worst.name, fmt.Sprintf("%.0f/s", over), r)
	shed1, fast1 := shedTimes("http://" + cbMetrics + "/metrics")
	refusing1 := refusalsStarted("http://" + cbMetrics + "/metrics")
	// The same offered load against the null server, in the same run: what
	// the machine and the load generator deliver at that rate.
	rn := measure(null, overloadPhase, openLoop(null, []shape{worst}, over))
	row("overload 2×", null.name, worst.name, fmt.Sprintf("%.0f/s", over), rn)
	fmt.Printf("\nOverload: goodput %.0f/s = %.0f%% of the closed-loop capacity %.0f/s (null server at the same rate: %.0f/s).\n",
		float64(r.ok)/r.elapsed.Seconds(), 100*float64(r.ok)/r.elapsed.Seconds()/capacity[worst.name], capacity[worst.name],
		float64(rn.ok)/rn.elapsed.Seconds())
	if late, ok := lateGoodput(r, overloadPhase); ok {
		lateNull, _ := lateGoodput(rn, overloadPhase)
		fmt.Printf("From second %d on (the clients' TLS handshake timeout has passed: the dials the server left waiting give up): goodput %.0f/s = %.0f%% (null server: %.0f/s).\n",
			int(handshakeTimeout/time.Second), late, 100*late/capacity[worst.name], lateNull)
	}
	fmt.Printf("Successes per second of the step: claimbridge %v, null server %v.\n", r.okPerSecond, rn.okPerSecond)
	fmt.Printf("CPU cores per second of the step: claimbridge %s with the load generator %s; null server %s with the load generator %s.\n",
		cores(r.cpu.server), cores(r.cpu.generator), cores(rn.cpu.server), cores(rn.cpu.generator))
	fmt.Printf("Shed answers, server side (claimbridge_webhook_shed_duration_seconds): %.0f of %.0f within 50 ms.\n", fast1-fast0, shed1-shed0)
	fmt.Printf("Requests failed on the generator's own connection attempts, never sent (in a cluster: failed webhook calls): claimbridge %d, null server %d.\n",
		dialFailures(r.errKinds), dialFailures(rn.errKinds))
	fmt.Printf("claimbridge started refusing connections %s in the step (claimbridge_webhook_listen_refusing_started_total).\n", times(refusing0, refusing1))

	mixRate := capacity[worst.name] / 2
	watch := watchSoak(func() soakSample { return serverSample(cb, "http://"+cbMetrics+"/metrics") }, soakSampleEvery)
	refusing2 := refusalsStarted("http://" + cbMetrics + "/metrics")
	r = measure(cb, soak, openLoop(cb, all, mixRate))
	refusing3 := refusalsStarted("http://" + cbMetrics + "/metrics")
	samples := watch.stop()
	row("soak", cb.name, "all four, round robin", fmt.Sprintf("%.0f/s", mixRate), r)
	fmt.Printf("\nSoak %v, %d requests: %s.\n", soak, r.ok+r.shed+r.errs, soakSummary(samples, soakSampleEvery))
	fmt.Printf("Soak errors by minute: %v; claimbridge started refusing connections %s in the soak.\n",
		perMinute(r.errPerSecond, soak), times(refusing2, refusing3))
	return nil
}

var selfStat = openProcStat("/proc/self/stat")

// selfCPU is this process's utime+stime in seconds.
func selfCPU() float64 {
	cpu, _ := selfStat.read()
	return cpu
}

func countFDs(s *server) int {
	ents, _ := os.ReadDir(fmt.Sprintf("/proc/%d/fd", s.cmd.Process.Pid))
	return len(ents)
}
