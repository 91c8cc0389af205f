package cli

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/claimbridge/claimbridge/api"
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
	if err := m.Write(o.format, support.Declaring(o.dir, o.chart), out, s.err); err != nil {
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
	minors, err := support.ParseReleases(o.releases)
	if err != nil {
		return nil, fmt.Errorf("--releases %w", err)
	}
	d := support.Driver{Judge: func(obj map[string]interface{}, c api.Cluster) ([]string, []string) { return guardJudge(obj, c, 0) }}
	var note string
	if d.Module, note, err = support.ReadDir(o.dir, o.chart); err != nil {
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
