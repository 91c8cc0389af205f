package main

import (
	"strings"
	"testing"
	"time"
)

func TestSummary(t *testing.T) {
	tl := &tally{paced: time.Second, elapsed: 2 * time.Second}
	for i := 1; i <= 100; i++ { // 100 allowed, 1 ms … 100 ms
		tl.add(200, []byte(`{"response":{"allowed":true}}`), "", time.Duration(i)*time.Millisecond)
	}
	tl.add(200, []byte(`{"response":{"allowed":false,"status":{"code":429}}}`), "", 2*time.Second) // shed in band
	tl.add(429, nil, "429 Too Many Requests", time.Millisecond)                                    // shed over HTTP
	tl.add(0, nil, `Post "https://127.0.0.1:1/validate": context deadline exceeded (Client.Timeout exceeded while awaiting headers)`, 10*time.Second)
	tl.add(0, nil, `Post "https://127.0.0.1:1/validate": net/http: TLS handshake timeout`, 10*time.Second)
	tl.add(0, nil, `Post "https://127.0.0.1:1/validate": EOF`, time.Millisecond)
	tl.add(500, []byte("boom"), "500 Internal Server Error", time.Millisecond)

	s := tl.summary(80)
	want := summary{Sent: 106, Goodput: 50, Capacity: 80, Shed: 2, Timeouts: 2, Errors: 2, P99: 100 * time.Millisecond}
	if s != want {
		t.Errorf("summary = %+v\nwant      %+v", s, want)
	}
	if !strings.HasPrefix(tl.firstErr, `HTTP 0 Post "https://127.0.0.1:1/validate": context deadline exceeded`) {
		t.Errorf("firstErr = %q", tl.firstErr)
	}

	s.HealthzMax = 150 * time.Millisecond
	out := s.report("claimbridge", true)
	for _, line := range []string{"= 62% of capacity  PASS", "2  FAIL", "100.0 ms  PASS", "150.0 ms  FAIL"} {
		if !strings.Contains(out, line) {
			t.Errorf("report lacks %q:\n%s", line, out)
		}
	}
	if out := s.report("null", false); strings.Contains(out, "PASS") || strings.Contains(out, "FAIL") {
		t.Errorf("unjudged report has verdicts:\n%s", out)
	}
}
