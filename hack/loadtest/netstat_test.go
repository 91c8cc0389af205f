package main

import (
	"strings"
	"testing"
)

func TestParseListenOverflows(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     int64
	}{
		{"counter present", "TcpExt: SyncookiesSent ListenOverflows ListenDrops\nTcpExt: 3 1234 1240\nIpExt: InNoRoutes\nIpExt: 0\n", 1234},
		{"after other sections", "IpExt: InNoRoutes\nIpExt: 0\nTcpExt: ListenDrops ListenOverflows\nTcpExt: 9 7\n", 7},
		{"counter absent", "TcpExt: SyncookiesSent\nTcpExt: 3\n", -1},
		{"values missing", "TcpExt: SyncookiesSent ListenOverflows\n", -1},
		{"not a number", "TcpExt: ListenOverflows\nTcpExt: x\n", -1},
		{"empty", "", -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := parseListenOverflows(strings.NewReader(tc.in)); got != tc.want {
				t.Errorf("got %d, want %d", got, tc.want)
			}
		})
	}
}
