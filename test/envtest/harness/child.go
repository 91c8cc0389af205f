package harness

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/claimbridge/claimbridge/cli"
)

// ServeChild is TestMain in a child process a suite started from its own
// test binary with its serve variable set in the environment: `claimbridge
// serve` with the process's arguments until SIGTERM, and the exit code.
// component-base applies its logging configuration once per process, so a
// further server (a replica, or a server per repetition of a test) gets a
// process of its own, started in a moment without a build.
func ServeChild() int {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	if err := cli.Serve(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}
