package main

import (
	"os"
	"syscall"
	"testing"
)

// The counter is still read when the process has no file descriptor left,
// as at the end of the overload step: from the file opened once.
func TestListenOverflowsWithoutFreeDescriptors(t *testing.T) {
	before := listenOverflows()
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		t.Fatal(err)
	}
	none := lim
	none.Cur = 0
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &none); err != nil {
		t.Fatal(err)
	}
	_, openErr := os.Open("/proc/net/netstat")
	during := listenOverflows()
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		t.Fatal(err)
	}
	if openErr == nil {
		t.Fatal("a file could still be opened: the test does not exhaust descriptors")
	}
	if before < 0 || during < before {
		t.Errorf("ListenOverflows read %d, then %d without free descriptors: want a count, then at least that", before, during)
	}
}
