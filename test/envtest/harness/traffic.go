package harness

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Traffic runs request sequences one after another in the background, for
// tests that must show that something (a certificate rotation) fails no
// request. It is bounded in time (four minutes) and in count (10,000
// sequences) whatever happens.
type Traffic struct {
	ok       atomic.Int64
	mu       sync.Mutex
	failures []string
	cancel   context.CancelFunc
	done     chan struct{}
}

// sequences numbers the sequences of every Traffic of the process, so that
// a sequence's objects (named by its number) never meet those an earlier
// Traffic stopped mid-sequence left behind (a test run again, -count=2).
var sequences atomic.Int64

// NextSequence is a sequence number unique in the process, shared with
// StartTraffic's: for a test that runs a sequence of its own now and then.
func NextSequence() int { return int(sequences.Add(1)) }

// StartTraffic runs sequence(ctx, i) for increasing i, unique in the
// process, with pause between them until Stop (also called at t's cleanup).
// A sequence that fails while the traffic is not being stopped is recorded
// as a failure.
func StartTraffic(t *testing.T, pause time.Duration, sequence func(ctx context.Context, i int) error) *Traffic {
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	tr := &Traffic{cancel: cancel, done: make(chan struct{})}
	t.Cleanup(func() { tr.Stop() })
	go func() {
		defer close(tr.done)
		for n := 1; n <= 10000 && ctx.Err() == nil; n++ {
			i := int(sequences.Add(1))
			if err := sequence(ctx, i); err != nil {
				if ctx.Err() != nil {
					return // stopped mid-sequence
				}
				tr.mu.Lock()
				tr.failures = append(tr.failures, fmt.Sprintf("%s sequence %d: %v", time.Now().Format("15:04:05.000"), i, err))
				tr.mu.Unlock()
			} else {
				tr.ok.Add(1)
			}
			if pause > 0 {
				select {
				case <-ctx.Done():
				case <-time.After(pause):
				}
			}
		}
	}()
	return tr
}

// WaitFor waits until n more sequences have succeeded; it fails t as soon as
// one failed, when the traffic stopped, and after timeout.
func (tr *Traffic) WaitFor(t *testing.T, n int64, timeout time.Duration) {
	t.Helper()
	target := tr.ok.Load() + n
	deadline := time.Now().Add(timeout)
	for tr.ok.Load() < target {
		tr.mu.Lock()
		failed := slices.Clone(tr.failures)
		tr.mu.Unlock()
		if len(failed) > 0 {
			tr.Stop()
			t.Fatalf("requests failed:\n%s", strings.Join(failed, "\n"))
		}
		select {
		case <-tr.done:
			t.Fatal("the traffic stopped early")
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d request sequences did not succeed within %s", n, timeout)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Stop ends the traffic and returns the successful sequence count and the
// failures; it is safe to call more than once.
func (tr *Traffic) Stop() (int64, []string) {
	tr.cancel()
	<-tr.done
	tr.mu.Lock()
	defer tr.mu.Unlock()
	return tr.ok.Load(), slices.Clone(tr.failures)
}
