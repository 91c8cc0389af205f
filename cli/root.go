// Package cli holds the claimbridge command tree: serve, convert, migrate,
// export, validate and version.
package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/claimbridge/claimbridge/internal/version"
	"github.com/claimbridge/claimbridge/report"
)

// Exit codes shared by every command.
const (
	ExitOK       = 0 // success; for validate: every object is valid
	ExitInvalid  = 1 // validate: at least one object is invalid; other commands: failure
	ExitBadInput = 2 // input that cannot be used (unreadable, undecodable, bad flags)
	ExitOperator = 3 // upgrade: the next step is the operator's
)

// exitError carries an exit code out of a command's RunE.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// exitCode is the exit code of a run that reported r.
func exitCode(r *report.Report) int {
	switch {
	case r.Unusable():
		return ExitBadInput
	case r.Rejected():
		return ExitInvalid
	}
	return ExitOK
}

// withCode wraps err so that Main exits with code.
func withCode(code int, err error) error {
	if err == nil {
		return nil
	}
	return &exitError{code: code, err: err}
}

// streams are the command's standard streams, injected for tests.
type streams struct {
	in       io.Reader
	out, err io.Writer
}

// NewRootCommand returns the claimbridge command with all subcommands.
func NewRootCommand(s streams) *cobra.Command {
	root := &cobra.Command{
		Use:   "claimbridge",
		Short: "Keep Kubernetes DRA objects valid across the releases of resource.k8s.io",
		Long: `claimbridge converts, validates and migrates Dynamic Resource Allocation
objects between the six shapes of resource.k8s.io (v1alpha1 of Kubernetes 1.26
to v1 of 1.34+), judged by the rules of each release. Its server serves the
v1alpha1, v1alpha2 and v1alpha3 shapes of the ResourceClaim as one custom
resource: a CRD conversion webhook and validating and defaulting admission
webhooks.`,
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       version.Get().Version,
		Annotations:   map[string]string{cobra.CommandDisplayNameAnnotation: displayName(os.Args[0])},
	}
	root.SetVersionTemplate("{{.Version}}\n")
	root.SetIn(s.in)
	root.SetOut(s.out)
	root.SetErr(s.err)
	root.AddCommand(newConvertCommand(s), newMigrateCommand(s), newExportCommand(s), newValidateCommand(s), newCheckCommand(s), newUpgradeCommand(s), newSupportCommand(s), newServeCommand(s), newVersionCommand(s), newFnCommand(s))
	return root
}

// displayName is the command as the user typed it: "kubectl claimbridge"
// when kubectl runs the binary as its plugin kubectl-claimbridge (a copy or
// link of that name on the PATH, as krew installs it).
func displayName(arg0 string) string {
	name := strings.TrimSuffix(filepath.Base(arg0), ".exe")
	if plugin, ok := strings.CutPrefix(name, "kubectl-"); ok {
		return "kubectl " + strings.ReplaceAll(plugin, "_", "-")
	}
	return "claimbridge"
}

// Main runs the command line and returns the process exit code.
func Main(args []string, in io.Reader, out, errOut io.Writer) int {
	errOut = controlEscaper{errOut}
	root := NewRootCommand(streams{in: in, out: out, err: errOut})
	root.SetArgs(args)
	err := root.Execute()
	if err == nil {
		return ExitOK
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.err != nil && ee.err.Error() != "" {
			fmt.Fprintln(errOut, "Error:", ee.err)
		}
		return ee.code
	}
	fmt.Fprintln(errOut, "Error:", err)
	return ExitBadInput
}

// filesOnlyByFlag refuses arguments of convert, migrate and validate, which
// read their input from -f: a file named without it is the usual mistake,
// and cobra would call it an unknown command.
func filesOnlyByFlag(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	return fmt.Errorf("%s takes no arguments: give the input with -f (-f %s)", cmd.Name(), strings.Join(args, " -f "))
}
