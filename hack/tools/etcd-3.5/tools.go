//go:build tools

// Package tools pins the etcd v3.5 server main package in this module's go.mod so
// that `go build go.etcd.io/etcd/server/v3` resolves from here.
package tools

import (
	_ "go.etcd.io/etcd/server/v3"
)
