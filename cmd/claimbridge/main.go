// Command claimbridge serves, converts and validates the three shapes of the
// Kubernetes DRA ResourceClaim. See README.md.
package main

import (
	"os"

	"github.com/claimbridge/claimbridge/cli"
)

func main() {
	os.Exit(cli.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
