//go:build !linux

package webhook

import (
	"errors"
	"net"
)

// setListenBacklog is Linux-only; elsewhere the listener keeps Go's
// backlog (the system's maximum).
func setListenBacklog(net.Listener, int) error { return nil }

// acceptQueueLen and listenBacklog are Linux-only (TCP_INFO): elsewhere the
// accept queue is never shortened under overload.
func acceptQueueLen(net.Listener) (int, error) { return 0, errors.ErrUnsupported }

func listenBacklog(net.Listener) (int, error) { return 0, errors.ErrUnsupported }

// pauseListener is Linux-only: elsewhere the listener never refuses
// connections under overload.
func pauseListener(net.Listener, int) (func() error, error) { return nil, errors.ErrUnsupported }
