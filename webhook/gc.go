package webhook

import (
	"os"
	"runtime/debug"
)

// DefaultGCPercent is the GOGC `claimbridge serve` runs with unless GOGC is
// set. A one-object ConversionReview leaves tens of KB of short-lived
// garbage; at Go's default of 100 the collector made claimbridge's CPU per
// review 1.5× a null webhook's under `make bench`. See docs/performance.md
// ("GC setting") for the measurements and the memory this costs. The
// in-process benchmarks run with it too, so that they measure the server's
// configuration.
const DefaultGCPercent = 200

// ApplyGCDefault sets DefaultGCPercent unless the GOGC environment variable
// chose a setting.
func ApplyGCDefault() {
	if _, set := os.LookupEnv("GOGC"); !set {
		debug.SetGCPercent(DefaultGCPercent)
	}
}
