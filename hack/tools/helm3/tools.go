//go:build tools

// Package tools pins Helm 3, built by hack/envtest-assets.sh so that the
// tests can run claimbridge as Helm 3's executable post-renderer.
package tools

import _ "helm.sh/helm/v3/cmd/helm"
