package cli

import (
	"cmp"
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
	dir, chart, releases, declared, format, file string
	valueFiles, sets                             []string
}

// supportFormats are the values of support's --report.
var supportFormats = []string{"text", "markdown", "json", "sarif", "junit"}

func newSupportCommand(s streams) *cobra.Command {
	o := &supportOptions{}
	cmd := &cobra.Command{
		Use:   "support [DIR] [--chart PATH] [-f values.yaml] [--set K=V] [--releases 1.31-1.38] [--declared RANGE]",
		Short: "Say which Kubernetes releases, with which kube-apiserver flags, a DRA driver release runs on",
		Long: `Support reads a DRA driver release, its Go module (DIR; without --chart,
the current directory) and its Helm chart (--chart), and says on which
releases it runs: at their defaults, only with the least kube-apiserver
flags named, or not at all. --declared and the chart's kubeVersion are
checked against them (docs/cli.md).

Exit status: 0 the declared releases hold, 1 a declared release cannot run
the driver, 2 unusable input.`,
		Example: `  # The table for the README, from the module and its chart
  claimbridge support . --chart deployments/helm/driver --report markdown`,
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
	m, err := o.matrix()
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

// matrix reads the driver, judges it on each release and checks the
// declared ranges.
func (o *supportOptions) matrix() (*support.Matrix, error) {
	if !slices.Contains(supportFormats, o.format) {
		return nil, fmt.Errorf("--report %q: unsupported format (supported: %s)", o.format, strings.Join(supportFormats, ", "))
	}
	minors, err := parseReleases(o.releases)
	if err != nil {
		return nil, fmt.Errorf("--releases %w", err)
	}
	d := support.Driver{Judge: func(obj map[string]interface{}, c api.Cluster) ([]string, []string) { return guardJudge(obj, c, 0) }}
	var note string
	if d.Module, note, err = o.module(); err != nil {
		return nil, err
	}
	if o.chart != "" {
		if d.Chart, err = support.LoadChart(o.chart, o.valueFiles, o.sets); err != nil {
			return nil, fmt.Errorf("--chart %s: %w", o.chart, err)
		}
	}
	m := support.Support(d, minors)
	if note != "" {
		m.Notes = append(m.Notes, note)
	}
	if d.Chart != nil && d.Chart.KubeVersion() != "" {
		err = m.Declare("the chart's kubeVersion", d.Chart.KubeVersion())
	}
	if o.declared != "" && err == nil {
		err = m.Declare("--declared", o.declared)
	}
	return m, err
}

// module reads DIR's module: nil with only a chart, and a note when DIR
// has no go.mod.
func (o *supportOptions) module() (*support.Module, string, error) {
	if o.dir == "" && o.chart != "" {
		return nil, "", nil
	}
	dir := cmp.Or(o.dir, ".")
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return nil, "", fmt.Errorf("%s: not a directory", dir)
	}
	if _, err := os.Stat(filepath.Join(dir, "go.mod")); errors.Is(err, os.ErrNotExist) {
		if o.chart == "" {
			return nil, "", fmt.Errorf("%s has no go.mod and no --chart is given: nothing to judge", dir)
		}
		return nil, dir + " has no go.mod: only the chart is judged", nil
	}
	m, err := support.ReadModule(dir)
	return m, "", err
}

// parseReleases reads --releases: FIRST-LAST or one release of
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
// notes, warnings and errors on errOut.
func (o *supportOptions) write(m *support.Matrix, out, errOut io.Writer) error {
	switch o.format {
	case "json":
		return m.WriteJSON(out)
	case "junit":
		var cases []report.Case
		for _, c := range m.Cells {
			kase := report.Case{Name: fmt.Sprintf("Kubernetes %s (%s)", c.Release, c.Setting), Class: o.declaring(), Output: strings.Join(c.Reasons, "\n")}
			if c.Verdict != support.Works {
				kase.Failure = fmt.Sprintf("%s on Kubernetes %s (%s)", c.Verdict, c.Release, c.Setting)
			}
			cases = append(cases, kase)
		}
		return report.WriteJUnit(out, "claimbridge support", cases)
	case "sarif":
		r := &report.Report{Options: report.Options{Format: o.format}, Command: "support"}
		doc := manifest.Document{Source: o.declaring(), Line: o.kubeVersionLine(), Item: -1}
		for i, said := range [][]string{m.Notes, m.Warnings, m.Errors} {
			for _, msg := range said {
				r.Say(doc, report.Finding{Severity: []string{report.Note, report.Warning, report.Error}[i], Message: msg})
			}
		}
		return r.Write(out, nil)
	}
	write := m.WriteText
	if o.format == "markdown" {
		write = m.WriteMarkdown
	}
	if err := write(out); err != nil {
		return err
	}
	for i, said := range [][]string{m.Notes, m.Warnings, m.Errors} {
		for _, msg := range said {
			fmt.Fprintln(errOut, []string{"note: ", "warning: ", "Error: "}[i]+msg)
		}
	}
	return nil
}

// declaring is the file that declares the driver's releases, where SARIF
// puts what is said of them: the chart's Chart.yaml (or its package), else
// the module's go.mod.
func (o *supportOptions) declaring() string {
	switch fi, err := os.Stat(o.chart); {
	case o.chart == "":
		return filepath.Join(cmp.Or(o.dir, "."), "go.mod")
	case err == nil && fi.IsDir():
		return filepath.Join(o.chart, "Chart.yaml")
	}
	return o.chart
}

// kubeVersionLine is the line of Chart.yaml's kubeVersion; 0 for none.
func (o *supportOptions) kubeVersionLine() int {
	data, _ := os.ReadFile(o.declaring())
	for i, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, "kubeVersion:") {
			return i + 1
		}
	}
	return 0
}
