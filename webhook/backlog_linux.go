package webhook

import (
	"errors"
	"net"
	"syscall"

	"golang.org/x/sys/unix"
)

// setListenBacklog sets the accept queue of a listening TCP socket: on
// Linux, listen(2) on a socket that already listens changes its backlog.
//
// Go listens with net.core.somaxconn (4096 on current kernels). Under
// sustained overload with a connection limit, that queue fills with
// connections the kernel completed but the server will not accept before
// their clients give up (Go's and client-go's transports dial one for every
// request that finds no idle connection, and wait 10 s for its TLS
// handshake): each costs its client a TLS key generation (X25519 and
// ML-KEM) and a socket, and the server an accept and a close. With a short
// queue the kernel drops the surplus SYNs; the client's kernel retransmits
// them after 1 s, 3 s, …, which costs no CPU, and a connection the server
// can take soon still arrives (docs/server.md, "Overload").
func setListenBacklog(ln net.Listener, n int) error {
	tl, ok := ln.(*net.TCPListener)
	if !ok {
		return errors.ErrUnsupported
	}
	raw, err := tl.SyscallConn()
	if err != nil {
		return err
	}
	var lerr error
	if err := raw.Control(func(fd uintptr) { lerr = syscall.Listen(int(fd), n) }); err != nil {
		return err
	}
	return lerr
}

// acceptQueueLen returns the connections waiting in a listening TCP
// socket's accept queue: for a listener, Linux reports sk_ack_backlog in
// TCP_INFO's tcpi_unacked.
func acceptQueueLen(ln net.Listener) (int, error) {
	info, err := listenerInfo(ln)
	if err != nil {
		return 0, err
	}
	return int(info.Unacked), nil
}

// listenBacklog returns a listening TCP socket's backlog: for a listener,
// Linux reports sk_max_ack_backlog in TCP_INFO's tcpi_sacked.
func listenBacklog(ln net.Listener) (int, error) {
	info, err := listenerInfo(ln)
	if err != nil {
		return 0, err
	}
	return int(info.Sacked), nil
}

func listenerInfo(ln net.Listener) (*unix.TCPInfo, error) {
	tl, ok := ln.(*net.TCPListener)
	if !ok {
		return nil, errors.ErrUnsupported
	}
	return tcpInfo(tl)
}

// pauseListener stops a listening TCP socket from taking connections:
// shutdown(2) with SHUT_RD takes a Linux listener out of the listening
// state, the connections in its accept queue are reset, and the kernel
// answers SYNs to its address with a reset, so that a client's connect(2)
// fails at once with "connection refused". The socket keeps its file
// descriptor (and its place in Go's network poller) and, when it was bound
// to a given port, its port; a port the kernel chose is released. resume
// binds it to the same address again where needed and listens with
// backlog; a blocked Accept meanwhile fails (EINVAL), and an Accept after
// resume takes connections as before.
func pauseListener(ln net.Listener, backlog int) (resume func() error, err error) {
	tl, ok := ln.(*net.TCPListener)
	if !ok {
		return nil, errors.ErrUnsupported
	}
	raw, err := tl.SyscallConn()
	if err != nil {
		return nil, err
	}
	var sa syscall.Sockaddr
	var serr error
	if err := raw.Control(func(fd uintptr) {
		if sa, serr = syscall.Getsockname(int(fd)); serr == nil {
			serr = syscall.Shutdown(int(fd), syscall.SHUT_RD)
		}
	}); err != nil {
		return nil, err
	}
	if serr != nil {
		return nil, serr
	}
	return func() error {
		var rerr error
		if err := raw.Control(func(fd uintptr) {
			// EINVAL: still bound (to its given port).
			if rerr = syscall.Bind(int(fd), sa); rerr == nil || rerr == syscall.EINVAL {
				rerr = syscall.Listen(int(fd), backlog)
			}
		}); err != nil {
			return err
		}
		return rerr
	}, nil
}
