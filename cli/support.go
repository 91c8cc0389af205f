package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/manifest"
	"github.com/claimbridge/claimbridge/report"
	"github.com/claimbridge/claimbridge/support"
)

type supportOptions struct {
	dir, chart         string
	valueFiles, sets   []string
	releases, declared string
	format, file       string
}

// supportFormats are the values of support's --report.
var supportFormats = []string{"text", "markdown", "json", "sarif", "junit"}

func newSupportCommand(s streams) *cobra.Command {
	o := &supportOptions{}
	cmd := &cobra.Command{
		Use:   "support [DIR] [--chart PATH] [-f values.yaml] [--set K=V] [--releases 1.31-1.38] [--declared RANGE]",
		Short: "Say which Kubernetes releases, with which kube-apiserver flags, a DRA driver release runs on",
		Long: `Support reads a DRA driver release, its Go module (DIR; without --chart,
the current directory by default) and its Helm chart (--chart), and says for each release of
--releases whether it runs there at the release's defaults, only with
kube-apiserver flags (the least --runtime-config and --feature-gates), or
not at all:

  the module: the k8s.io/dynamic-resource-allocation it builds with (what
      it writes and reads through, the DRA gRPC its kubeletplugin serves)
      and its own typed calls of resource.k8s.io, read from its syntax tree
  the chart: rendered by Helm's engine with each release's capabilities
      (its kubeVersion, the versions it serves with the cell's flags); each
      DRA object judged as validate --to judges it

--declared (and the chart's kubeVersion) name the releases you support:
one where the driver cannot run at its defaults is an error, one where it
needs flags a warning. See docs/cli.md.

Exit status: 0 the declared releases hold, 1 a declared release cannot run
the driver, 2 unusable input.`,
		Example: `  # The table for the README, from the module and its chart
  claimbridge support . --chart deployments/helm/driver --report markdown

  # Check in CI that the releases the chart declares run it
  claimbridge support . --chart deployments/helm/driver --declared ">=1.32"`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			if len(args) == 1 {
				o.dir = args[0]
			}
			s.out = controlEscaper{s.out}
			return o.run(s)
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&o.chart, "chart", "", "the driver's Helm chart: a directory or a packaged .tgz")
	fs.StringArrayVarP(&o.valueFiles, "values", "f", nil, "a values file for the chart, as helm install -f (repeatable)")
	fs.StringArrayVar(&o.sets, "set", nil, "a value for the chart, as helm install --set K=V (repeatable)")
	fs.StringVar(&o.releases, "releases", "1.31-1.38", "the releases to judge, FIRST-LAST ("+api.ReleaseRange()+")")
	fs.StringVar(&o.declared, "declared", "", `the releases the driver declares it runs on, a semver range as kubeVersion (">=1.32")`)
	fs.StringVar(&o.format, "report", "text", "the output: text, markdown (a table for a README), json, sarif or junit")
	fs.StringVar(&o.file, "report-file", "", "write the output to this file instead of standard output")
	return cmd
}

func (o *supportOptions) run(s streams) error {
	m, err := o.matrix(s.err)
	if err != nil {
		return withCode(ExitBadInput, err)
	}
	out := s.out
	if o.file != "" {
		f, err := os.Create(o.file)
		if err != nil {
			return withCode(ExitBadInput, err)
		}
		defer f.Close()
		out = f
	}
	if err := o.write(m, out, s.err); err != nil {
		return withCode(ExitBadInput, fmt.Errorf("writing the report: %w", err))
	}
	if len(m.Errors) > 0 {
		return withCode(ExitInvalid, errors.New(""))
	}
	return nil
}

// matrix reads the driver and judges it on each release; notes are said
// on notes.
func (o *supportOptions) matrix(notes io.Writer) (*support.Matrix, error) {
	if !slices.Contains(supportFormats, o.format) {
		return nil, fmt.Errorf("--report %q: unsupported format (supported: %s)", o.format, strings.Join(supportFormats, ", "))
	}
	minors, err := parseReleases(o.releases)
	if err != nil {
		return nil, fmt.Errorf("--releases %w", err)
	}
	d := support.Driver{Judge: func(obj map[string]interface{}, c api.Cluster) ([]string, []string) { return guardJudge(obj, c, 0) }}
	if d.Module, err = o.module(notes); err != nil {
		return nil, err
	}
	if o.chart != "" {
		if d.Chart, err = support.LoadChart(o.chart, o.valueFiles, o.sets); err != nil {
			return nil, fmt.Errorf("--chart %s: %w", o.chart, err)
		}
	}
	m := support.Support(d, minors)
	if d.Chart != nil && d.Chart.KubeVersion() != "" {
		if err := m.Declare("the chart's kubeVersion", d.Chart.KubeVersion()); err != nil {
			return nil, err
		}
	}
	if o.declared != "" {
		if err := m.Declare("--declared", o.declared); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// module reads DIR's module; nil when only a chart is given and DIR (not
// named) has no go.mod.
func (o *supportOptions) module(notes io.Writer) (*support.Module, error) {
	dir := o.dir
	switch {
	case dir == "" && o.chart != "":
		return nil, nil // only the chart
	case dir == "":
		dir = "."
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("%s: not a directory", dir)
	}
	if _, err := os.Stat(filepath.Join(dir, "go.mod")); errors.Is(err, os.ErrNotExist) {
		if o.chart == "" {
			return nil, fmt.Errorf("%s has no go.mod and no --chart is given: nothing to judge", dir)
		}
		fmt.Fprintf(notes, "note: %s has no go.mod: only the chart is judged\n", dir)
		return nil, nil
	}
	return support.ReadModule(dir)
}

// parseReleases reads --releases: FIRST-LAST or one release, each of
// api.Releases.
func parseReleases(s string) ([]int, error) {
	first, last, ok := strings.Cut(s, "-")
	if !ok {
		last = first
	}
	a, okA := api.ParseRelease(strings.TrimSpace(first))
	b, okB := api.ParseRelease(strings.TrimSpace(last))
	if !okA || !okB || a.Minor > b.Minor {
		return nil, fmt.Errorf("%q: not a range of releases FIRST-LAST of %s", s, api.ReleaseRange())
	}
	var minors []int
	for m := a.Minor; m <= b.Minor; m++ {
		minors = append(minors, m)
	}
	return minors, nil
}

// write writes m to out as --report asks; with text and markdown, its
// notes, errors and warnings on errOut.
func (o *supportOptions) write(m *support.Matrix, out, errOut io.Writer) error {
	switch o.format {
	case "json":
		return m.WriteJSON(out)
	case "sarif", "junit":
		return supportReport(m, o.format).Write(out, nil)
	}
	write := m.WriteText
	if o.format == "markdown" {
		write = m.WriteMarkdown
	}
	if err := write(out); err != nil {
		return err
	}
	for _, n := range m.Notes {
		fmt.Fprintln(errOut, "note: "+n)
	}
	for _, w := range m.Warnings {
		fmt.Fprintln(errOut, "warning: "+w)
	}
	for _, e := range m.Errors {
		fmt.Fprintln(errOut, "Error: "+e)
	}
	return nil
}

// supportReport is m as the report package's findings, for SARIF and
// JUnit: each reason of a cell said of support:RELEASE, an error where the
// driver cannot run, a warning where it needs flags or is warned of.
func supportReport(m *support.Matrix, format string) *report.Report {
	r := &report.Report{Options: report.Options{Format: format}, Command: "support"}
	for _, c := range m.Cells {
		severity := report.Warning
		if c.Verdict == support.Cannot || c.Verdict == support.Refused {
			severity = report.Error
		}
		for _, reason := range c.Reasons {
			r.Say(manifest.Document{Source: "support:" + c.Release}, report.Finding{Severity: severity, Message: reason, Release: c.Release, Path: c.Setting})
		}
	}
	for _, n := range m.Notes {
		r.Say(manifest.Document{Source: "support"}, report.Finding{Severity: report.Note, Message: n})
	}
	for _, w := range m.Warnings {
		r.Say(manifest.Document{Source: "support"}, report.Finding{Severity: report.Warning, Message: w})
	}
	for _, e := range m.Errors {
		r.Say(manifest.Document{Source: "support"}, report.Finding{Severity: report.Error, Message: e})
	}
	return r
}
