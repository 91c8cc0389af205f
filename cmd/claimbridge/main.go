// Command claimbridge converts, validates and migrates Kubernetes DRA objects
// between the releases of resource.k8s.io, and serves its webhooks. See
// README.md.
package main

import (
	"os"

	"github.com/claimbridge/claimbridge/cli"
)

func main() {
	os.Exit(cli.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
