package harness

import (
	"bytes"
	"sync"
)

// LogBuffer collects a server's output, written from several goroutines
// (a process's output copiers, klog, the server's own logger), for a test
// to show when it fails.
type LogBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *LogBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// String is everything written so far.
func (b *LogBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// Tail is the last n bytes written (all of them when fewer).
func (b *LogBuffer) Tail(n int) string {
	s := b.String()
	return s[max(0, len(s)-n):]
}
