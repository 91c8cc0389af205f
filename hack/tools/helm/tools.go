//go:build tools

// Package tools pins helm, built by hack/envtest-assets.sh into bin/ so that
// `make test` can run `helm lint` and `helm template` on charts/claimbridge.
package tools

import _ "helm.sh/helm/v4/cmd/helm"
