package main

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// cpuSeconds samples, once a second until ctx is done, the CPU the server
// and this load generator used in that second, in cores: they show whether
// a second with few successes was one in which the server was busy or one
// in which it waited for requests while the generator was not sending them.
type cpuSeconds struct {
	server, generator []float64
	done              chan struct{}
}

func sampleCPU(ctx context.Context, s *server) *cpuSeconds {
	c := &cpuSeconds{done: make(chan struct{})}
	go func() {
		defer close(c.done)
		t := time.NewTicker(time.Second)
		defer t.Stop()
		last := time.Now()
		srv0, _ := s.cpuAndRSS()
		gen0 := selfCPU()
		for {
			select {
			case <-ctx.Done():
				return
			case now := <-t.C:
				srv, _ := s.cpuAndRSS()
				gen := selfCPU()
				d := now.Sub(last).Seconds()
				c.server = append(c.server, (srv-srv0)/d)
				c.generator = append(c.generator, (gen-gen0)/d)
				last, srv0, gen0 = now, srv, gen
			}
		}
	}()
	return c
}

// wait returns once sampling has stopped.
func (c *cpuSeconds) wait() *cpuSeconds {
	<-c.done
	return c
}

// cores formats per-second core counts as "[0.95 1.02 …]".
func cores(v []float64) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = fmt.Sprintf("%.2f", x)
	}
	return "[" + strings.Join(s, " ") + "]"
}

// perMinute sums per-second counts by minute, over a phase of length d
// (minutes without a count are 0).
func perMinute(perSecond []int64, d time.Duration) []int64 {
	out := make([]int64, max(1, int((d+time.Minute-1)/time.Minute)))
	for sec, n := range perSecond {
		m := min(sec/60, len(out)-1)
		out[m] += n
	}
	return out
}
