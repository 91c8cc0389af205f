//go:build !linux

package webhook

import (
	"net"
	"time"
)

// peerGone is Linux-only (TCP_INFO); elsewhere every accepted connection is
// handshaken.
func peerGone(net.Conn) bool { return false }

// quietFor is Linux-only (TCP_INFO); elsewhere an idle connection counts as
// quiet.
func quietFor(net.Conn, time.Duration) bool { return true }

// abortClose is Linux-only (TCP_INFO tells that nothing is unacknowledged);
// elsewhere it closes as usual.
func abortClose(c net.Conn, _ int64) error { return c.Close() }
