//go:build linux

// Command acceptstall shows what a full accept queue does to TLS clients'
// first bytes (docs/performance-log.md, "Short accept queue: backlog 512,
// recovery and the storm"): it listens with a backlog of 2, lets 40 TLS
// clients dial while it accepts nothing, then accepts one connection every
// 50 ms and prints how long each waited for its first byte (the
// ClientHello) after accept. A client whose final ACK and ClientHello the
// kernel dropped while the queue was full can be completed by a bare ACK
// and send its ClientHello only on its next retransmission. Linux only.
//
//	go run ./hack/acceptstall
package main

import (
	"crypto/tls"
	"fmt"
	"net"
	"os"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

const (
	backlog = 2
	clients = 40
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "acceptstall:", err)
		os.Exit(1)
	}
}

func run() error {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	defer ln.Close()
	raw, err := ln.(syscall.Conn).SyscallConn()
	if err != nil {
		return err
	}
	var lerr error
	if err := raw.Control(func(fd uintptr) { lerr = unix.Listen(int(fd), backlog) }); err != nil {
		return err
	}
	if lerr != nil {
		return lerr
	}
	addr := ln.Addr().String()
	for range clients {
		go dial(addr)
	}
	time.Sleep(2 * time.Second)
	start := time.Now()
	tl := ln.(*net.TCPListener)
	for i := range clients {
		if err := tl.SetDeadline(time.Now().Add(12 * time.Second)); err != nil {
			return err
		}
		c, err := tl.Accept()
		if err != nil {
			fmt.Printf("no further connection: %v\n", err)
			return nil
		}
		accepted := time.Since(start)
		if err := c.SetReadDeadline(time.Now().Add(10 * time.Second)); err != nil {
			return err
		}
		t0 := time.Now()
		_, err = c.Read(make([]byte, 1))
		fmt.Printf("connection %2d accepted at %6.2f s: first byte after %v (error: %v)\n",
			i, accepted.Seconds(), time.Since(t0).Round(time.Millisecond), err)
		c.Close()
		time.Sleep(50 * time.Millisecond)
	}
	return nil
}

// dial connects and starts a TLS handshake that nobody answers, with the
// timeouts of client-go's transport (30 s dial, 10 s handshake).
func dial(addr string) {
	c, err := net.DialTimeout("tcp", addr, 30*time.Second)
	if err != nil {
		return
	}
	defer c.Close()
	tc := tls.Client(c, &tls.Config{InsecureSkipVerify: true})
	_ = tc.SetDeadline(time.Now().Add(10 * time.Second))
	_ = tc.Handshake()
}
