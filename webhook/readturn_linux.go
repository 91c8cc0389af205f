package webhook

import (
	"io"
	"net"
	"os"
	"syscall"
)

// turnReader reads a TCP connection itself, through its RawConn in Go's
// network poller, so that it knows when a read would wait for data: the
// connection's turn (readTurns) is given back before waiting, and taken
// again once data has arrived, before the data is returned to be
// processed. Deadlines apply to the wait for data, as for net.Conn.Read;
// the wait for a turn ends when the connection or the listener closes.
type turnReader struct {
	raw syscall.RawConn
}

func newTurnReader(c net.Conn) *turnReader {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return nil
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return nil
	}
	return &turnReader{raw: raw}
}

// read reads into p as net.Conn.Read does. wait is called before waiting
// for data; arrived after data has arrived (false: the read gives up with
// errClosedWaitingForTurn).
func (r *turnReader) read(p []byte, wait func(), arrived func() bool) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	var n int
	var rerr error
	err := r.raw.Read(func(fd uintptr) bool {
		for {
			n, rerr = syscall.Read(int(fd), p)
			if rerr != syscall.EINTR {
				break
			}
		}
		if rerr == syscall.EAGAIN {
			wait()
			return false
		}
		return true
	})
	switch {
	case err != nil:
		return 0, err // a deadline passed, or the connection was closed
	case rerr != nil:
		return 0, &net.OpError{Op: "read", Net: "tcp", Err: os.NewSyscallError("read", rerr)}
	case n <= 0:
		return 0, io.EOF
	case !arrived():
		return 0, errClosedWaitingForTurn
	}
	return n, nil
}
