package main

import (
	"bufio"
	"io"
	"os"
	"strconv"
	"strings"
)

// netstat is /proc/net/netstat, opened once: the overload step can use up
// this process's file descriptors (dials waiting in the server's accept
// queue), and the count at its end must still be read. Nil where it cannot
// be opened (not Linux).
var netstat, _ = os.Open("/proc/net/netstat")

// listenOverflows reads the kernel's TcpExt ListenOverflows counter from
// /proc/net/netstat: connections or SYNs a listening socket dropped because
// its accept queue was full (the listen backlog, docs/server.md
// "Overload"). It counts for the whole network namespace, so a phase's
// delta covers both servers' listeners; the phases run one server at a
// time. -1 where the counter cannot be read (not Linux).
func listenOverflows() int64 {
	if netstat == nil {
		return -1
	}
	if _, err := netstat.Seek(0, io.SeekStart); err != nil {
		return -1
	}
	return parseListenOverflows(netstat)
}

// parseListenOverflows reads ListenOverflows from /proc/net/netstat's
// format: a "TcpExt:" line of names, then one of values; -1 if absent.
func parseListenOverflows(r io.Reader) int64 {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	var header []string
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) == 0 || fields[0] != "TcpExt:" {
			continue
		}
		if header == nil {
			header = fields
			continue
		}
		for i, name := range header {
			if name == "ListenOverflows" && i < len(fields) {
				if v, err := strconv.ParseInt(fields[i], 10, 64); err == nil {
					return v
				}
			}
		}
		return -1
	}
	return -1
}
