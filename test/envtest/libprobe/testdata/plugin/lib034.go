//go:build lib034 || lib037

package main

import (
	"context"
	"fmt"
	"os"

	resourceapi "k8s.io/api/resource/v1"
)

// claim is what the helper of v0.34 and later reads, through v1 (or a
// beta it falls back to).
type claim = resourceapi.ResourceClaim

// HandleError is required from v0.34.
func (driver) HandleError(_ context.Context, err error, msg string) {
	fmt.Fprintln(os.Stderr, msg+":", err)
}
