package main

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"time"
)

// tally counts the answers of one attack.
type tally struct {
	paced, elapsed time.Duration   // sending; until the last answer
	sent           int             // requests sent
	good, shed     int             // 2xx not shed; 429 (HTTP or the denial's code)
	timeouts, errs int             // client time-outs; every other failure
	lat            []time.Duration // answered reviews (good or shed)
	firstErr       string
}

// add counts one result: its HTTP code (0 without an answer), body, error
// and latency.
func (t *tally) add(code uint16, body []byte, err string, lat time.Duration) {
	t.sent++
	switch {
	case code == 429 || code/100 == 2 && bytes.Contains(body, []byte(`"code":429`)):
		t.shed++
		t.lat = append(t.lat, lat)
	case code/100 == 2:
		t.good++
		t.lat = append(t.lat, lat)
	case strings.Contains(strings.ToLower(err), "timeout"):
		t.timeouts++
	default:
		t.errs++
	}
	if t.firstErr == "" && code/100 != 2 && code != 429 {
		t.firstErr = fmt.Sprintf("HTTP %d %s %.100s", code, err, body)
	}
}

// summary of one attack against a server of capacity req/s (0: unknown).
type summary struct {
	Sent, Goodput, Offered, Capacity float64 // req/s; Goodput until the last answer
	Shed, Timeouts, Errors           int
	P99, HealthzMax                  time.Duration
}

func (t *tally) summary(capacity float64) summary {
	s := summary{Capacity: capacity, Shed: t.shed, Timeouts: t.timeouts, Errors: t.errs}
	if t.paced > 0 && t.elapsed > 0 {
		s.Sent, s.Goodput = float64(t.sent)/t.paced.Seconds(), float64(t.good)/t.elapsed.Seconds()
	}
	if len(t.lat) > 0 {
		l := slices.Clone(t.lat)
		slices.Sort(l)
		s.P99 = l[min(len(l)-1, (len(l)*99+99)/100-1)]
	}
	return s
}

// Targets of the step against claimbridge.
const (
	minGoodputShare = 0.60
	maxP99          = time.Second
	maxHealthz      = 100 * time.Millisecond
)

// report prints s, with PASS or FAIL beside each target if judged.
func (s summary) report(name string, judged bool) string {
	verdict := func(ok bool) string {
		switch {
		case !judged:
			return ""
		case ok:
			return "  PASS"
		}
		return "  FAIL"
	}
	share := 0.0
	if s.Capacity > 0 {
		share = s.Goodput / s.Capacity
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n", name)
	fmt.Fprintf(&b, "  capacity (closed loop)   %8.0f req/s\n", s.Capacity)
	fmt.Fprintf(&b, "  offered (open loop)      %8.0f req/s (sent %.0f/s)\n", s.Offered, s.Sent)
	fmt.Fprintf(&b, "  goodput                  %8.0f req/s = %.0f%% of capacity%s\n", s.Goodput, 100*share, verdict(share >= minGoodputShare))
	fmt.Fprintf(&b, "  shed (429)               %8d\n", s.Shed)
	fmt.Fprintf(&b, "  client time-outs         %8d%s\n", s.Timeouts, verdict(s.Timeouts == 0))
	fmt.Fprintf(&b, "  other errors             %8d\n", s.Errors)
	fmt.Fprintf(&b, "  p99 of answered reviews  %8.1f ms%s\n", ms(s.P99), verdict(s.P99 <= maxP99))
	fmt.Fprintf(&b, "  /healthz max             %8.1f ms%s\n", ms(s.HealthzMax), verdict(s.HealthzMax <= maxHealthz))
	return b.String()
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
