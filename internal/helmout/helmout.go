// Package helmout finds where claimbridge should write what it says on
// standard error when Helm runs it as a post-renderer.
package helmout

import (
	"bytes"
	"os"
	"slices"
	"strconv"
	"syscall"
)

// Stderr is where claimbridge writes what it says on standard error
// when Helm runs it as a post-renderer, nil otherwise. Helm keeps a
// post-renderer's standard error to itself: Helm 4 drops it, Helm 3 prints
// it only when the post-renderer fails.
//
// On Linux, when the parent process is a helm run with --post-renderer,
// it is helm's own standard error, if that is a pipe or a terminal (a file
// is left alone: writing it from a second offset would overwrite helm's
// lines). Else, when claimbridge is helm's post-renderer, it is the
// controlling terminal, if there is one.
func Stderr() *os.File {
	helm := "/proc/" + strconv.Itoa(os.Getppid())
	args, _ := os.ReadFile(helm + "/cmdline")
	postRenderer := slices.ContainsFunc(bytes.Split(args, []byte{0}), func(arg []byte) bool {
		return string(arg) == "--post-renderer" || bytes.HasPrefix(arg, []byte("--post-renderer="))
	})
	if postRenderer {
		// O_NONBLOCK: a pipe nobody reads any more fails to open rather
		// than blocking.
		if f, err := os.OpenFile(helm+"/fd/2", os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			if fi, err := f.Stat(); err == nil && fi.Mode()&(os.ModeNamedPipe|os.ModeCharDevice) != 0 {
				return f
			}
			f.Close()
		}
	}
	// Helm 4 names the plugin it runs (in any OS).
	if postRenderer || os.Getenv("HELM_PLUGIN_NAME") == "claimbridge" {
		if f, err := os.OpenFile("/dev/tty", os.O_WRONLY, 0); err == nil {
			return f
		}
	}
	return nil
}
