package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// probeTimeout is kubelet's default probe timeoutSeconds: a probe that takes
// longer counts as failed.
const probeTimeout = time.Second

// runProbe is the -probe mode: like kubelet, a separate small process that
// GETs url every 100 ms for d (each probe on a new connection, as kubelet's
// HTTP prober does) and prints one line per probe: the latency in
// microseconds, or "fail" for an error, a status other than 200 or a probe
// slower than probeTimeout. Its latencies therefore do not include the load
// generator's own scheduling delay.
func runProbe(url string, d time.Duration) error {
	c := &http.Client{Timeout: probeTimeout, Transport: &http.Transport{DisableKeepAlives: true}}
	w := bufio.NewWriter(os.Stdout)
	defer w.Flush()
	t := time.NewTicker(100 * time.Millisecond)
	defer t.Stop()
	for end := time.Now().Add(d); time.Now().Before(end); <-t.C {
		start := time.Now()
		resp, err := c.Get(url)
		if err == nil {
			resp.Body.Close()
		}
		if err != nil || resp.StatusCode != http.StatusOK {
			fmt.Fprintln(w, "fail")
			continue
		}
		fmt.Fprintln(w, time.Since(start).Microseconds())
	}
	return nil
}

// prober is a running -probe process.
type prober struct {
	cmd *exec.Cmd
	out strings.Builder
}

func startProber(ctx context.Context, url string, d time.Duration) *prober {
	self, err := os.Executable()
	if err != nil {
		return nil
	}
	p := &prober{cmd: exec.CommandContext(ctx, self, "-probe="+url, "-probe-for="+d.String())}
	p.cmd.Stdout = &p.out
	if p.cmd.Start() != nil {
		return nil
	}
	return p
}

// wait returns the latencies of the successful probes and the failures.
func (p *prober) wait() ([]time.Duration, int) {
	if p == nil {
		return nil, 0
	}
	_ = p.cmd.Wait()
	var lat []time.Duration
	fails := 0
	for _, l := range strings.Fields(p.out.String()) {
		us, err := strconv.ParseInt(l, 10, 64)
		if err != nil {
			fails++
			continue
		}
		lat = append(lat, time.Duration(us)*time.Microsecond)
	}
	return lat, fails
}

// shedTimes reads claimbridge's shed duration histogram from its /metrics:
// the shed answers in all and those within 50 ms (the server's side: from
// the handler's start to the answer).
func shedTimes(metricsURL string) (total, within50ms float64) {
	resp, err := plainClient.Get(metricsURL)
	if err != nil {
		return 0, 0
	}
	defer resp.Body.Close()
	eachSample(resp.Body, func(line string, v float64) {
		switch {
		case strings.HasPrefix(line, "claimbridge_webhook_shed_duration_seconds_count{"):
			total += v
		case strings.HasPrefix(line, "claimbridge_webhook_shed_duration_seconds_bucket{") && strings.Contains(line, `le="0.05"`):
			within50ms += v
		}
	})
	return total, within50ms
}

// refusalsStarted reads claimbridge_webhook_listen_refusing_started_total,
// -1 when it cannot be read.
func refusalsStarted(metricsURL string) float64 {
	if v, ok := metricValue(metricsURL, "claimbridge_webhook_listen_refusing_started_total"); ok {
		return v
	}
	return -1
}

// times formats the growth of a counter read twice: "2 times", or "?" when
// either read failed.
func times(before, after float64) string {
	if before < 0 || after < 0 {
		return "? times"
	}
	n := after - before
	if n == 1 {
		return "1 time"
	}
	return fmt.Sprintf("%.0f times", n)
}

// eachSample calls fn with each sample line of a Prometheus text exposition
// (name, labels and value, no timestamp) and its value.
func eachSample(r io.Reader, fn func(line string, v float64)) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		f := strings.Fields(line)
		if len(f) != 2 {
			continue
		}
		if v, err := strconv.ParseFloat(f[1], 64); err == nil {
			fn(line, v)
		}
	}
}
