package helmout

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
)

// TestStderr runs the test binary under bash, standing in for helm:
// what it writes on Stderr reaches bash's standard error when bash's
// arguments have --post-renderer, though its own standard error is
// /dev/null. Under another parent, and without a terminal, Stderr is
// nil. (dash redirects its own standard error while it starts a command.)
func TestStderr(t *testing.T) {
	if os.Getenv("CLAIMBRIDGE_TEST_HELM_STDERR") != "" {
		if f := Stderr(); f != nil {
			fmt.Fprint(f, "written where helm writes")
			f.Close()
		} else {
			fmt.Print("no helm")
		}
		return
	}
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Fatalf("bash stands in for helm: %v", err)
	}
	for _, c := range []struct {
		arg, plugin, wantStderr, wantStdout string
	}{
		{"--post-renderer", "", "written where helm writes", ""},
		{"--post-renderer=claimbridge", "", "written where helm writes", ""},
		{"--post-renderers", "", "", "no helm"},
		{"template", "claimbridge", "", "no helm"}, // Helm 4 names the plugin, but there is no terminal
	} {
		var stdout, stderr bytes.Buffer
		cmd := exec.Command(bash, "-c", `"$0" -test.run='^TestStderr$' 2>/dev/null; true`, os.Args[0], c.arg)
		cmd.Env = append(os.Environ(), "CLAIMBRIDGE_TEST_HELM_STDERR=1", "HELM_PLUGIN_NAME="+c.plugin)
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true} // no controlling terminal
		if err := cmd.Run(); err != nil {
			t.Fatalf("%v\n%s%s", err, &stdout, &stderr)
		}
		if stderr.String() != c.wantStderr || !strings.Contains(stdout.String(), c.wantStdout) {
			t.Errorf("parent with %s, HELM_PLUGIN_NAME=%q: stderr %q, stdout %q; want stderr %q, stdout with %q",
				c.arg, c.plugin, &stderr, &stdout, c.wantStderr, c.wantStdout)
		}
	}
}
