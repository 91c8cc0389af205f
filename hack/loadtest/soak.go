package main

import (
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// soakSample is what the soak watches for growth in the server: resident
// memory, goroutines (its go_goroutines gauge) and open file descriptors.
type soakSample struct {
	rss        float64 // MiB
	goroutines int     // -1: the metrics endpoint did not answer
	fds        int
}

// soakWatch samples the server every interval from its start until stop,
// which returns the samples in order (the first taken at the start, the
// last at stop).
type soakWatch struct {
	take     func() soakSample
	mu       sync.Mutex
	samples  []soakSample
	done     chan struct{}
	finished chan struct{}
}

func watchSoak(take func() soakSample, interval time.Duration) *soakWatch {
	w := &soakWatch{take: take, samples: []soakSample{take()}, done: make(chan struct{}), finished: make(chan struct{})}
	go func() {
		defer close(w.finished)
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-w.done:
				return
			case <-t.C:
				s := w.take()
				w.mu.Lock()
				w.samples = append(w.samples, s)
				w.mu.Unlock()
			}
		}
	}()
	return w
}

func (w *soakWatch) stop() []soakSample {
	close(w.done)
	<-w.finished
	w.mu.Lock()
	defer w.mu.Unlock()
	return append(w.samples, w.take())
}

// serverSample takes a soakSample of s, reading go_goroutines from metricsURL.
func serverSample(s *server, metricsURL string) soakSample {
	_, rss := s.cpuAndRSS()
	g := -1
	if v, ok := metricValue(metricsURL, "go_goroutines"); ok {
		g = int(v)
	}
	return soakSample{rss: rss, goroutines: g, fds: countFDs(s)}
}

// metricValue scrapes metricsURL for the unlabelled metric name.
func metricValue(metricsURL, name string) (float64, bool) {
	resp, err := plainClient.Get(metricsURL)
	if err != nil {
		return 0, false
	}
	defer resp.Body.Close()
	return gauge(resp.Body, name)
}

// gauge returns the value of the unlabelled metric name in a Prometheus text
// exposition.
func gauge(r io.Reader, name string) (v float64, ok bool) {
	eachSample(r, func(line string, x float64) {
		if !ok && strings.Fields(line)[0] == name {
			v, ok = x, true
		}
	})
	return v, ok
}

// soakSummary is the soak's report: first → last (max) of each figure, then
// the figures at each whole minute when the soak lasted more than one.
func soakSummary(ss []soakSample, interval time.Duration) string {
	if len(ss) == 0 {
		return "no samples"
	}
	first, last, top := ss[0], ss[len(ss)-1], ss[0]
	for _, s := range ss {
		top.rss = max(top.rss, s.rss)
		top.goroutines = max(top.goroutines, s.goroutines)
		top.fds = max(top.fds, s.fds)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "RSS %.1f → %.1f MiB (max %.1f), goroutines %s → %s (max %s), open file descriptors %d → %d (max %d)",
		first.rss, last.rss, top.rss, count(first.goroutines), count(last.goroutines), count(top.goroutines), first.fds, last.fds, top.fds)
	perMinute := int(time.Minute / interval)
	if perMinute < 1 || len(ss) <= perMinute+1 {
		return b.String()
	}
	var rss, gs, fds []string
	for i := perMinute; i < len(ss); i += perMinute {
		rss = append(rss, fmt.Sprintf("%.1f", ss[i].rss))
		gs = append(gs, count(ss[i].goroutines))
		fds = append(fds, strconv.Itoa(ss[i].fds))
	}
	fmt.Fprintf(&b, "; at each minute: RSS [%s] MiB, goroutines [%s], file descriptors [%s]",
		strings.Join(rss, " "), strings.Join(gs, " "), strings.Join(fds, " "))
	return b.String()
}

func count(n int) string {
	if n < 0 {
		return "?"
	}
	return strconv.Itoa(n)
}

// plainClient reads the servers' health and metrics endpoints (plain HTTP):
// a server that stops answering makes a sample or a start-up check fail
// after its timeout instead of hanging the load test.
var plainClient = &http.Client{Timeout: 5 * time.Second}

// soakSampleEvery is how often the soak samples the server.
const soakSampleEvery = 5 * time.Second
