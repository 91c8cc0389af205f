//go:build tools

// Package tools pins the main packages of kube-apiserver, kube-scheduler and
// kube-controller-manager (and kubectl) in this module's go.mod so that
// `go build k8s.io/kubernetes/cmd/<component>` resolves from here. The
// scheduler and controller-manager are built for `make record` only.
package tools

import (
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
	_ "k8s.io/kubernetes/cmd/kube-controller-manager"
	_ "k8s.io/kubernetes/cmd/kube-scheduler"
	_ "k8s.io/kubernetes/cmd/kubectl"
)
