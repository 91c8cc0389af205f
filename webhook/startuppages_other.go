//go:build !linux

package webhook

// releaseStartupPages is Linux only.
func releaseStartupPages() int { return 0 }
