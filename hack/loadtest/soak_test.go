package main

import (
	"strings"
	"testing"
	"time"
)

func TestGauge(t *testing.T) {
	const exposition = `# HELP go_goroutines Number of goroutines that currently exist.
# TYPE go_goroutines gauge
go_goroutines_total_not_it 7
go_goroutines 56
go_threads 9
`
	if v, ok := gauge(strings.NewReader(exposition), "go_goroutines"); !ok || v != 56 {
		t.Errorf("gauge(go_goroutines) = %v, %v; want 56, true", v, ok)
	}
	if _, ok := gauge(strings.NewReader(exposition), "go_missing"); ok {
		t.Error("gauge(go_missing) found a value")
	}
}

func TestSoakSummary(t *testing.T) {
	every := 30 * time.Second
	ss := []soakSample{
		{rss: 45.9, goroutines: 40, fds: 36},
		{rss: 46.2, goroutines: 71, fds: 47}, // 30 s
		{rss: 46.4, goroutines: 69, fds: 47}, // 1 min
		{rss: 47.0, goroutines: -1, fds: 48}, // 1.5 min
		{rss: 46.6, goroutines: 68, fds: 47}, // 2 min
	}
	want := "RSS 45.9 → 46.6 MiB (max 47.0), goroutines 40 → 68 (max 71), open file descriptors 36 → 47 (max 48); " +
		"at each minute: RSS [46.4 46.6] MiB, goroutines [69 68], file descriptors [47 47]"
	if got := soakSummary(ss, every); got != want {
		t.Errorf("soakSummary:\n got %s\nwant %s", got, want)
	}
	short := ss[:2]
	want = "RSS 45.9 → 46.2 MiB (max 46.2), goroutines 40 → 71 (max 71), open file descriptors 36 → 47 (max 47)"
	if got := soakSummary(short, every); got != want {
		t.Errorf("soakSummary of a short soak:\n got %s\nwant %s", got, want)
	}
	if got, want := soakSummary([]soakSample{{rss: 1, goroutines: -1, fds: 3}}, every), "RSS 1.0 → 1.0 MiB (max 1.0), goroutines ? → ? (max ?), open file descriptors 3 → 3 (max 3)"; got != want {
		t.Errorf("soakSummary without goroutines:\n got %s\nwant %s", got, want)
	}
}

func TestSoakWatchSamplesUntilStopped(t *testing.T) {
	n := 0
	w := watchSoak(func() soakSample { n++; return soakSample{fds: n} }, time.Millisecond)
	for {
		w.mu.Lock()
		k := len(w.samples)
		w.mu.Unlock()
		if k >= 3 {
			break
		}
		time.Sleep(time.Millisecond)
	}
	ss := w.stop()
	for i, s := range ss {
		if s.fds != i+1 {
			t.Fatalf("sample %d is take's call %d; want the calls in order: %v", i, s.fds, ss)
		}
	}
	if len(ss) < 4 {
		t.Errorf("%d samples; want the first, at least two ticks and the last", len(ss))
	}
}
