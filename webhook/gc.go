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

// ApplyMemoryLimitDefault sets the soft memory limit to cacheBytes +
// MemoryLimitBase, at least MemoryLimitMin, unless the GOMEMLIMIT
// environment variable chose one.
func ApplyMemoryLimitDefault(cacheBytes int64) {
	if _, set := os.LookupEnv("GOMEMLIMIT"); !set {
		debug.SetMemoryLimit(max(cacheBytes+MemoryLimitBase, MemoryLimitMin))
	}
}
