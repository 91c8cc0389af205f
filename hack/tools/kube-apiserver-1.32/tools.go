//go:build tools

// Package tools pins the kube-apiserver main package of Kubernetes 1.32 in
// this module's go.mod so that `go build k8s.io/kubernetes/cmd/kube-apiserver`
// resolves from here.
package tools

import (
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
)
