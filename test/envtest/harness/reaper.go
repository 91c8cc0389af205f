package harness

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
)

// startReaper guards against the one exit the harness cannot intercept: a
// test binary that dies without running Stop (a panic in a test, the
// `go test -timeout` panic, SIGKILL). envtest starts kube-apiserver and etcd
// in process groups of their own, so nothing else would end them. The reaper
// is a small shell loop, in its own process group, that waits for this
// process to exit and then terminates the control-plane processes (children
// of this process whose executable is in assets) and removes dirs. Stop ends
// the reaper first. Linux only; elsewhere it does nothing.
func startReaper(assets string, dirs []string) (stop func(), err error) {
	if runtime.GOOS != "linux" {
		return func() {}, nil
	}
	pids, err := childrenIn(assets)
	if err != nil {
		return nil, err
	}
	if len(pids) == 0 {
		return nil, fmt.Errorf("found no kube-apiserver or etcd process started from %s", assets)
	}
	script := `parent=$1; shift; pids=$1; shift
while kill -0 "$parent" 2>/dev/null; do sleep 1; done
kill -TERM $pids 2>/dev/null; sleep 2; kill -KILL $pids 2>/dev/null
for d in "$@"; do rm -rf "$d"; done`
	args := append([]string{"-c", script, "claimbridge-envtest-reaper", strconv.Itoa(os.Getpid()), strings.Join(pids, " ")}, dirs...)
	cmd := exec.Command("/bin/sh", args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting the reaper: %w", err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	return func() {
		_ = cmd.Process.Kill()
		<-done
	}, nil
}

// childrenIn lists the PIDs of this process's children whose executable is
// in dir, from /proc.
func childrenIn(dir string) ([]string, error) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil, err
	}
	self := strconv.Itoa(os.Getpid())
	// /proc/PID/exe is the resolved path: resolve dir too (bin/ may be a
	// symlink, as in a git worktree sharing another checkout's bin/).
	if resolved, err := filepath.EvalSymlinks(dir); err == nil {
		dir = resolved
	}
	var pids []string
	for _, ent := range entries {
		pid := ent.Name()
		if _, err := strconv.Atoi(pid); err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", pid, "stat"))
		if err != nil {
			continue // exited meanwhile
		}
		// pid (comm) state ppid ...: comm may hold spaces, so cut at the last ')'.
		i := strings.LastIndexByte(string(stat), ')')
		fields := strings.Fields(string(stat)[i+1:])
		if len(fields) < 2 || fields[1] != self {
			continue
		}
		exe, err := os.Readlink(filepath.Join("/proc", pid, "exe"))
		if err == nil && filepath.Dir(exe) == filepath.Clean(dir) {
			pids = append(pids, pid)
		}
	}
	return pids, nil
}
