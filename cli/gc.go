package cli

import "github.com/claimbridge/claimbridge/webhook"

// defaultGCPercent is the GOGC `claimbridge serve` runs with unless GOGC is
// set (webhook.DefaultGCPercent).
const defaultGCPercent = webhook.DefaultGCPercent

// applyGCDefault sets defaultGCPercent unless the GOGC environment variable
// chose a setting.
func applyGCDefault() { webhook.ApplyGCDefault() }
