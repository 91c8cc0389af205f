package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"runtime/pprof"
	"strings"
	"time"
)

// Profiling the overload step (LOADTEST_PROFILE_DIR). With the variable set,
// claimbridge serves its pprof handlers (--profiling) and the load test
// writes into that directory, for the overload step:
//
//   - metrics-before.txt and metrics-after.txt: claimbridge's /metrics right
//     before and right after the step (diff them for the counters: TLS
//     handshakes, connections accepted, reclaimed, rotated, refusals, sheds,
//     the collector's cycles);
//   - cpu.pprof: a CPU profile of claimbridge over seconds 5–15 of the step
//     (`go tool pprof -top cpu.pprof`), and generator-cpu.pprof one of the
//     load generator itself over the same seconds;
//   - heap.pprof and goroutine.txt: taken at second 15.
//
// So a full run's step and an overload-only step (-capacity) can be
// compared with the same instruments.

// profileDir is LOADTEST_PROFILE_DIR, "" when profiling is off.
func profileDir() string { return os.Getenv("LOADTEST_PROFILE_DIR") }

// profileArgs are the extra flags claimbridge needs for profiling.
func profileArgs() []string {
	if profileDir() == "" {
		return nil
	}
	return []string{"--profiling"}
}

// stepProfiler profiles one overload step.
type stepProfiler struct {
	dir, health, metrics string
	done                 chan struct{}
	cancel               context.CancelFunc
}

// startStepProfile saves the metrics and starts the profiles; nil when
// profiling is off. healthBase is http://host:port of the health listener.
func startStepProfile(healthBase, metricsURL string, step time.Duration) *stepProfiler {
	dir := profileDir()
	if dir == "" {
		return nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		fmt.Fprintln(os.Stderr, "loadtest: profile:", err)
		return nil
	}
	p := &stepProfiler{dir: dir, health: healthBase, metrics: metricsURL, done: make(chan struct{})}
	p.save("metrics-before.txt", metricsURL)
	ctx, cancel := context.WithTimeout(context.Background(), step+30*time.Second)
	p.cancel = cancel
	from, length := 5*time.Second, 10*time.Second
	if step < from+length {
		from, length = step/4, step/2
	}
	go func() {
		defer close(p.done)
		select {
		case <-time.After(from):
		case <-ctx.Done():
			return
		}
		stopSelf := p.profileSelf("generator-cpu.pprof")
		p.saveCtx(ctx, "cpu.pprof", fmt.Sprintf("%s/debug/pprof/profile?seconds=%d", healthBase, max(1, int(length/time.Second))))
		stopSelf()
		p.saveCtx(ctx, "heap.pprof", healthBase+"/debug/pprof/heap")
		p.saveCtx(ctx, "goroutine.txt", healthBase+"/debug/pprof/goroutine?debug=1")
	}()
	return p
}

// stop waits for the profiles and saves the metrics after the step.
func (p *stepProfiler) stop() {
	if p == nil {
		return
	}
	p.save("metrics-after.txt", p.metrics)
	<-p.done
	p.cancel()
	fmt.Printf("Profiles and metrics of the step: %s.\n", p.dir)
}

// profileSelf starts a CPU profile of the load generator itself into name;
// the function it returns stops it.
func (p *stepProfiler) profileSelf(name string) (stop func()) {
	f, err := os.Create(filepath.Join(p.dir, name))
	if err != nil {
		fmt.Fprintln(os.Stderr, "loadtest: profile:", err)
		return func() {}
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		fmt.Fprintln(os.Stderr, "loadtest: profile:", err)
		f.Close()
		return func() {}
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}
}

func (p *stepProfiler) save(name, url string) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	p.saveCtx(ctx, name, url)
}

func (p *stepProfiler) saveCtx(ctx context.Context, name, url string) {
	if err := fetchTo(ctx, filepath.Join(p.dir, name), url); err != nil {
		fmt.Fprintf(os.Stderr, "loadtest: profile %s: %v\n", name, err)
	}
}

func fetchTo(ctx context.Context, path, url string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := profileClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, resp.Body); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// profileClient has no timeout of its own: a CPU profile takes its seconds,
// and the caller's context bounds each request.
var profileClient = &http.Client{}

// healthBase turns the /healthz URL into the health listener's base URL.
func healthBase(healthz string) string { return strings.TrimSuffix(healthz, "/healthz") }
