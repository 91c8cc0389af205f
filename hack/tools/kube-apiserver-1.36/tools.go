//go:build tools

// Package tools pins the kube-apiserver and kubectl main packages in this
// module's go.mod so that `go build k8s.io/kubernetes/cmd/kube-apiserver`
// (and cmd/kubectl) resolves from here.
package tools

import (
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
	_ "k8s.io/kubernetes/cmd/kubectl"
)
