//go:build tools

// Package tools pins the kustomize main package in this module's go.mod so
// that `go build sigs.k8s.io/kustomize/kustomize/v5` resolves from here.
package tools

import (
	_ "sigs.k8s.io/kustomize/kustomize/v5"
)
