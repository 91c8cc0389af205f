//go:build !linux

package webhook

import "net"

// setListenBacklog is Linux-only; elsewhere the listener keeps Go's
// backlog (the system's maximum).
func setListenBacklog(net.Listener, int) error { return nil }
