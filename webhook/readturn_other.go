//go:build !linux

package webhook

import "net"

// turnReader is Linux-only; elsewhere connections are read without turns.
type turnReader struct{}

func newTurnReader(net.Conn) *turnReader { return nil }

func (*turnReader) read([]byte, func(), func() bool) (int, error) { panic("unreachable") }
