package webhook

import (
	"net"
	"syscall"

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
	sc, ok := c.(syscall.Conn)
	if !ok {
		return false
	}
	info, err := tcpInfo(sc)
	return err == nil && info.State != tcpEstablished
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
