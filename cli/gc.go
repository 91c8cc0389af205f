package cli

import (
	"os"
	"runtime/debug"
)

// defaultGCPercent is the GOGC `claimbridge serve` runs with unless GOGC is
// set. A one-object ConversionReview leaves ~80 KB of short-lived garbage;
// at Go's default of 100 the collector made claimbridge's CPU per review
// 1.5× a null webhook's under `make bench`. See docs/performance.md for the
// measurements and the memory this costs.
const defaultGCPercent = 200

// applyGCDefault sets defaultGCPercent unless the GOGC environment variable
// chose a setting.
func applyGCDefault() {
	if _, set := os.LookupEnv("GOGC"); !set {
		debug.SetGCPercent(defaultGCPercent)
	}
}
