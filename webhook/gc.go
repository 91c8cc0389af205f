package webhook

import (
	"os"
	"runtime/debug"
)

// DefaultGCPercent is the GOGC `claimbridge serve` runs with unless GOGC is
// set. A one-object ConversionReview leaves tens of KB of short-lived
// garbage, and the collector's work per review grows with that garbage
// divided by GOGC: at Go's default of 100 the collector made claimbridge's
// CPU per review 1.5× a null webhook's under `make bench`, and at 200 it was
// still a quarter of the in-process cost of a v1alpha3 → v1alpha1 review.
// The soft memory limit (ApplyMemoryLimitDefault) bounds the heap whatever
// GOGC says, so 400 costs no more peak memory under `make bench` than 200
// did. See docs/performance.md ("GC setting") for the measurements. The
// in-process benchmarks run with it too, so that they measure the server's
// configuration.
const DefaultGCPercent = 400

// ApplyGCDefault sets DefaultGCPercent unless the GOGC environment variable
// chose a setting.
func ApplyGCDefault() {
	if _, set := os.LookupEnv("GOGC"); !set {
		debug.SetGCPercent(DefaultGCPercent)
	}
}

// MemoryLimitBase is the soft memory limit `claimbridge serve` sets, on top
// of --conversion-cache-bytes, unless GOMEMLIMIT is set. GOGC=400 lets the
// heap grow to five times what is live; with the conversion cache live,
// that would be five times the cache. The limit instead leaves the
// collector about MemoryLimitBase for everything else, garbage included:
// without the cache GOGC mostly governs (a few MiB live, five times that
// at most), with it the collector runs when the total reaches cache +
// MemoryLimitBase. Under `make bench` about 6 MiB of it is live (buffers,
// connections, the API scheme), which leaves about 12 MiB, a few hundred
// reviews, of garbage between two collections. It is soft: a review larger
// than it is still served (the collector works harder, at most half the
// CPU, then lets the heap grow). See docs/performance.md ("Memory").
const MemoryLimitBase = 18 << 20

// MemoryLimitMin is the least soft memory limit `claimbridge serve` sets.
// With the cache off or small, the live heap is the validator's (CEL
// programs, the cross-version views of the reviews in flight) and the
// connections', and the collector needs room for the garbage of status
// updates: under `make loadtest` with the cache off, a limit of 18 MiB made
// a status update cost 0.40–0.50 ms of CPU against 0.29–0.35 ms at 24 MiB.
const MemoryLimitMin = 24 << 20

// MemoryPerConnection is what the soft memory limit adds for each
// connection --max-connections lets open. A connection costs about 60 KiB
// live while its client keeps it busy (net/http's 4 KiB read and write
// buffers, TLS record buffers and AES-GCM state, its goroutine's stack, its
// request read before its slot); the other half is room for garbage, so
// that the collector runs about as often per review with many connections
// as with few. Without it, a limit sized for 32 connections made the
// collector take most of the CPU once 600 connections were busy: in the
// load test's overload step with a client keeping 600 requests outstanding
// and --max-connections=1024, 16 % of the closed-loop capacity with the
// limit at 24 MiB against 108 % with GOMEMLIMIT=256MiB (docs/performance.md,
// "Clients that bound their requests").
const MemoryPerConnection = 128 << 10

// unlimitedConnectionsAllowance is the number of connections the soft
// memory limit allows for when --max-connections is 0 (no limit).
const unlimitedConnectionsAllowance = 1024

// MemoryLimit is the soft memory limit `claimbridge serve` sets unless
// GOMEMLIMIT is set: cacheBytes + MemoryLimitBase + maxConnections ×
// MemoryPerConnection (1,024 connections when maxConnections is 0, no
// limit), at least MemoryLimitMin.
func MemoryLimit(cacheBytes int64, maxConnections int) int64 {
	if maxConnections <= 0 {
		maxConnections = unlimitedConnectionsAllowance
	}
	return max(cacheBytes+MemoryLimitBase+int64(maxConnections)*MemoryPerConnection, MemoryLimitMin)
}

// ApplyMemoryLimitDefault sets the soft memory limit to MemoryLimit unless
// the GOMEMLIMIT environment variable chose one.
func ApplyMemoryLimitDefault(cacheBytes int64, maxConnections int) {
	if _, set := os.LookupEnv("GOMEMLIMIT"); !set {
		debug.SetMemoryLimit(MemoryLimit(cacheBytes, maxConnections))
	}
}
