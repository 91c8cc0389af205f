package webhook

import (
	"os"
	"runtime/debug"
	"testing"
)

func TestApplyGCDefault(t *testing.T) {
	orig := debug.SetGCPercent(100)
	t.Cleanup(func() { debug.SetGCPercent(orig) })
	for _, tc := range []struct {
		name, env string
		unset     bool
		before    int
		want      int
	}{
		{name: "GOGC unset", unset: true, before: 100, want: DefaultGCPercent},
		{name: "GOGC set", env: "150", before: 150, want: 150},
		{name: "GOGC=off", env: "off", before: -1, want: -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("GOGC", tc.env)
			if tc.unset {
				unsetenv(t, "GOGC")
			}
			debug.SetGCPercent(tc.before)
			ApplyGCDefault()
			if got := debug.SetGCPercent(tc.before); got != tc.want {
				t.Errorf("GC percent %d, want %d", got, tc.want)
			}
		})
	}
}

func TestMemoryLimit(t *testing.T) {
	for _, tc := range []struct {
		name  string
		cache int64
		conns int
		want  int64
	}{
		{name: "defaults: 16 MiB cache, 32 connections", cache: 16 << 20, conns: 32, want: 38 << 20},
		{name: "cache off, 32 connections: the minimum", cache: 0, conns: 32, want: 24 << 20},
		{name: "small cache", cache: 4 << 20, conns: 32, want: 26 << 20},
		{name: "large cache", cache: 64 << 20, conns: 32, want: 86 << 20},
		{name: "1,024 connections, cache off", cache: 0, conns: 1024, want: 146 << 20},
		{name: "no connection limit counts as 1,024", cache: 0, conns: 0, want: 146 << 20},
		{name: "one connection", cache: 0, conns: 1, want: 24 << 20},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := MemoryLimit(tc.cache, tc.conns); got != tc.want {
				t.Errorf("MemoryLimit(%d, %d) = %d, want %d", tc.cache, tc.conns, got, tc.want)
			}
		})
	}
}

func TestApplyMemoryLimitDefault(t *testing.T) {
	orig := debug.SetMemoryLimit(-1)
	t.Cleanup(func() { debug.SetMemoryLimit(orig) })
	for _, tc := range []struct {
		name, env string
		unset     bool
		cache     int64
		conns     int
		before    int64
		want      int64
	}{
		{name: "GOMEMLIMIT unset", unset: true, cache: 16 << 20, conns: 32, before: 1 << 40, want: 38 << 20},
		{name: "GOMEMLIMIT unset, cache off", unset: true, cache: 0, conns: 32, before: 1 << 40, want: 24 << 20},
		{name: "GOMEMLIMIT unset, many connections", unset: true, cache: 0, conns: 1024, before: 1 << 40, want: 146 << 20},
		{name: "GOMEMLIMIT set", env: "100MiB", cache: 16 << 20, conns: 1024, before: 100 << 20, want: 100 << 20},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("GOMEMLIMIT", tc.env)
			if tc.unset {
				unsetenv(t, "GOMEMLIMIT")
			}
			debug.SetMemoryLimit(tc.before)
			ApplyMemoryLimitDefault(tc.cache, tc.conns)
			if got := debug.SetMemoryLimit(-1); got != tc.want {
				t.Errorf("memory limit %d, want %d", got, tc.want)
			}
		})
	}
}

// unsetenv removes key for the rest of the test (t.Setenv restores it).
func unsetenv(t *testing.T, key string) {
	t.Helper()
	if err := os.Unsetenv(key); err != nil {
		t.Fatal(err)
	}
}
