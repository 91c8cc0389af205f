//go:build envtest

// Package envtest_test runs claimbridge against a real kube-apiserver: one
// environment (test/envtest/harness) for the whole package, started in
// TestMain, with the claimbridge server in this process.
//
// Run with `make test-envtest`, or:
//
//	env $(hack/envtest-assets.sh --env) go test -tags envtest ./test/envtest/
package envtest_test

import (
	"os"
	"testing"

	"github.com/claimbridge/claimbridge/test/envtest/harness"
)

// env is shared by every test of the package. A test that changes what the
// harness installed (the CRDs, the webhook configuration) restores it in
// t.Cleanup.
var env *harness.Env

func TestMain(m *testing.M) { os.Exit(harness.Main(m, harness.Options{}, &env)) }
