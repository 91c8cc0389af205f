// Command claimbridge converts, validates and migrates Kubernetes DRA objects
// between the releases of resource.k8s.io, and serves its webhooks. See
// README.md.
package main

import (
	"os"

	"github.com/claimbridge/claimbridge/cli"
	"github.com/claimbridge/claimbridge/internal/helmout"
)

func main() {
	stderr := os.Stderr
	if helm := helmout.Stderr(); helm != nil {
		stderr = helm // as Helm's post-renderer: where helm writes
	}
	os.Exit(cli.Main(os.Args[1:], os.Stdin, os.Stdout, stderr))
}
