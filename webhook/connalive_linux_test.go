package webhook

import (
	"net"
	"testing"
	"time"
)

// A connection whose client closed it while it waited for a place is closed
// without being handed to the TLS server; the live one behind it is
// accepted, and only the abandoned one is counted.
func TestConnLimiterSkipsAbandonedConnection(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	l := newConnLimiter(ln, 1, nil)
	l.minReapIdle, l.rotateAfter = time.Hour, time.Hour
	t.Cleanup(func() { _ = l.Close() })
	dial := func() net.Conn {
		t.Helper()
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = c.Close() })
		return c
	}

	holder := dial()
	held, err := l.Accept()
	if err != nil {
		t.Fatal(err)
	}
	if held.RemoteAddr().String() != holder.LocalAddr().String() {
		t.Fatalf("accepted %v, want %v", held.RemoteAddr(), holder.LocalAddr())
	}

	// Both wait: gone in the limiter's hand, live in the kernel's queue.
	gone := dial()
	if _, err := gone.Write([]byte("client hello")); err != nil {
		t.Fatal(err)
	}
	live := dial()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, err := l.Accept()
		if err != nil {
			t.Error(err)
		}
		accepted <- c
	}()
	time.Sleep(50 * time.Millisecond) // Accept holds gone and waits for the place
	if err := gone.Close(); err != nil {
		t.Fatal(err)
	}
	if peerGone(held) {
		t.Fatal("a live connection counted as gone")
	}
	time.Sleep(50 * time.Millisecond) // the FIN reaches gone's server side
	_ = held.Close()                  // frees the place

	select {
	case c := <-accepted:
		if c == nil {
			return
		}
		defer c.Close()
		if c.RemoteAddr().String() != live.LocalAddr().String() {
			t.Errorf("accepted %v, want the live connection %v (abandoned: %v)", c.RemoteAddr(), live.LocalAddr(), gone.LocalAddr())
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Accept did not return the live connection")
	}
	if got := value(t, l.abandoned); got != 1 {
		t.Errorf("abandoned %v connections, want 1", got)
	}
}
