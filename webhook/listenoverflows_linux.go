package webhook

import (
	"bufio"
	"bytes"
	"os"
	"strconv"
)

// listenOverflows reads the kernel's TcpExt ListenOverflows counter from
// /proc/net/netstat: SYNs and connections the network namespace's listening
// sockets dropped because their accept queue was full. In a pod that is the
// pod's own namespace; ok is false where it cannot be read.
func listenOverflows() (n uint64, ok bool) {
	data, err := os.ReadFile("/proc/net/netstat")
	if err != nil {
		return 0, false
	}
	return parseListenOverflows(data)
}

// parseListenOverflows reads ListenOverflows from /proc/net/netstat's
// format: a "TcpExt:" line of names, then one of values.
func parseListenOverflows(data []byte) (uint64, bool) {
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	var header [][]byte
	for sc.Scan() {
		fields := bytes.Fields(sc.Bytes())
		if len(fields) == 0 || string(fields[0]) != "TcpExt:" {
			continue
		}
		if header == nil {
			header = make([][]byte, len(fields))
			for i, f := range fields {
				header[i] = bytes.Clone(f)
			}
			continue
		}
		for i, name := range header {
			if string(name) == "ListenOverflows" && i < len(fields) {
				v, err := strconv.ParseUint(string(fields[i]), 10, 64)
				return v, err == nil
			}
		}
		return 0, false
	}
	return 0, false
}
