//go:build unix

package cli

import (
	"context"
	"os"
	"os/signal"
	"syscall"
	"testing"
	"time"
)

// TestServeShutdownSignals: SIGINT, SIGTERM and SIGHUP, sent to the
// process, reach the shutdown (none of them kills the process).
func TestServeShutdownSignals(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP} {
		t.Run(sig.String(), func(t *testing.T) {
			sigs := make(chan os.Signal, 1)
			signal.Notify(sigs, shutdownSignals...)
			defer signal.Stop(sigs)
			ctx, stop := shutdownOnSignal(context.Background(), sigs, func(code int) { t.Errorf("exit(%d) on the first signal", code) })
			defer stop()
			if err := syscall.Kill(os.Getpid(), sig); err != nil {
				t.Fatal(err)
			}
			select {
			case <-ctx.Done():
			case <-time.After(10 * time.Second):
				t.Fatalf("%v did not start the shutdown within 10 s", sig)
			}
		})
	}
}
