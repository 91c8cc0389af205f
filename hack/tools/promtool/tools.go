//go:build tools

// Package tools pins promtool, built by hack/envtest-assets.sh into bin/ so
// that `make test` can check the chart's alert rules (test/monitoring).
package tools

import _ "github.com/prometheus/prometheus/cmd/promtool"
