package webhook

import (
	"net"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// tcpEstablished is TCP_ESTABLISHED of linux/tcp_states.h.
const tcpEstablished = 1

// peerGone reports whether the client of an accepted, not yet handshaken
// connection has already closed or reset it: the socket is no longer
// ESTABLISHED (CLOSE_WAIT after the client's FIN, CLOSE after its RST).
// Under overload, connections wait in the kernel's accept queue and for a
// place (--max-connections) longer than clients wait for a TLS handshake
// (client-go and Go's transport: 10 s); a TLS handshake on such a
// connection costs the server a key exchange and a signature for nobody.
// One getsockopt per accepted connection.
func peerGone(c net.Conn) bool {
	info, ok := connInfo(c)
	return ok && info.State != tcpEstablished
}

// connInfo reads a connection's TCP_INFO; ok is false when it has none or
// cannot be read.
func connInfo(c net.Conn) (info *unix.TCPInfo, ok bool) {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return nil, false
	}
	info, err := tcpInfo(sc)
	return info, err == nil
}

// tcpInfo reads a TCP socket's TCP_INFO (for a listening socket, Linux
// reports its backlog in Sacked).
func tcpInfo(sc syscall.Conn) (*unix.TCPInfo, error) {
	raw, err := sc.SyscallConn()
	if err != nil {
		return nil, err
	}
	var info *unix.TCPInfo
	var ierr error
	if err := raw.Control(func(fd uintptr) { info, ierr = unix.GetsockoptTCPInfo(int(fd), unix.IPPROTO_TCP, unix.TCP_INFO) }); err != nil {
		return nil, err
	}
	return info, ierr
}

// quietFor reports whether an established connection has received no data
// for at least d (the kernel's time since the last data segment, in
// milliseconds): no request has begun to arrive on it. A connection whose
// TCP state cannot be read counts as quiet.
func quietFor(c net.Conn, d time.Duration) bool {
	info, ok := connInfo(c)
	return !ok || info.State != tcpEstablished || time.Duration(info.Last_data_recv)*time.Millisecond >= d
}

// abortClose closes a connection with a reset (SO_LINGER 0) instead of a
// FIN when the client has acknowledged at least the first `acked` bytes it
// was sent (for a connection idle between requests, all it was sent before
// it became idle, so no answer can be lost; what may follow is TLS's
// close_notify), so that a client that takes the connection for a request
// at the moment it is closed fails to write any of that request. Go's and
// client-go's transports send a request of which nothing was written again
// on another connection (net/http nothingWrittenError), POSTs included;
// after a FIN the write would succeed and the request fail with EOF, which
// a POST is never retried on. Otherwise it closes with a FIN.
func abortClose(c net.Conn, acked int64) error {
	if tc, ok := c.(*net.TCPConn); ok {
		if info, ok := connInfo(tc); ok && info.State == tcpEstablished && int64(info.Bytes_acked) >= acked {
			_ = tc.SetLinger(0)
		}
	}
	return c.Close()
}
