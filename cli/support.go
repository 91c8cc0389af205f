package cli

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/support"
)

type supportOptions struct {
	dir, chart, release, namespace, releases, declared, format, file, update string
	valueFiles, sets, filenames, binaries                                    []string
	recursive, check                                                         bool
}

// supportFormats are the values of support's --report.
var supportFormats = []string{"text", "markdown", "json", "sarif", "junit"}

func newSupportCommand(s streams) *cobra.Command {
	o := &supportOptions{}
	cmd := &cobra.Command{
		Use:   "support [DIR] [--chart PATH [-n NS] [--values F] [--set K=V]] [-f MANIFESTS] [--binary PATH] [--releases 1.31-1.38] [--declared RANGE]",
		Short: "Say which Kubernetes releases, with which flags, a DRA driver release runs on",
		Long: `Support reads a DRA driver release: the binaries its Go modules build (DIR;
without --chart or -f, the current directory), its Helm chart (--chart) and
its install manifests or kustomizations (-f), and says on which releases it
runs: at their defaults, only with the least flags named, or not at all.
--declared and the chart's kubeVersion are checked against them
(docs/cli.md).

Exit status: 0 the declared releases hold, 1 a declared release cannot run
the driver (or --check found the table out of date), 2 unusable input.`,
		Example: `  # The table in the README, kept up to date (CI: add --check)
  claimbridge support . --chart deployments/helm/driver --report markdown --update README.md`,
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
	fs.StringVar(&o.release, "release-name", "", "the chart's release name, as helm install NAME (default: the chart's name)")
	fs.StringVarP(&o.namespace, "namespace", "n", "", "the chart's namespace, as helm install -n (default: the chart's name)")
	fs.StringArrayVar(&o.valueFiles, "values", nil, "a values file for the chart, as helm install -f (repeatable)")
	fs.StringArrayVar(&o.sets, "set", nil, "a value for the chart, as helm install --set K=V (repeatable)")
	addFilenameFlags(cmd, &o.filenames, &o.recursive)
	fs.Lookup("filename").Usage = "install manifests: a file, a directory or a kustomization (repeatable)"
	fs.StringArrayVar(&o.binaries, "binary", nil, "judge only this main package's binary, by directory (repeatable)")
	fs.StringVar(&o.releases, "releases", "1.31-1.38", "the releases to judge, FIRST-LAST ("+api.ReleaseRange()+")")
	fs.StringVar(&o.declared, "declared", "", `the releases the driver declares it runs on, a semver range as kubeVersion (">=1.32")`)
	fs.StringVar(&o.format, "report", "text", "the output: text, markdown (a table for a README), json, sarif or junit")
	fs.StringVar(&o.file, "report-file", "", "write the output to this file instead of standard output")
	fs.StringVar(&o.update, "update", "", "with --report markdown: put the table in this file, between the comments "+support.BeginTable+" and "+support.EndTable)
	fs.BoolVar(&o.check, "check", false, "with --update: change nothing, exit 1 when the file's table differs")
	return cmd
}

func (o *supportOptions) run(s streams) error {
	m, err := o.matrix()
	if err != nil {
		return withCode(ExitBadInput, err)
	}
	var out io.Writer = s.out
	var table bytes.Buffer
	switch {
	case o.update != "":
		out = &table
	case o.file != "":
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
	switch {
	case !slices.ContainsFunc(m.Cells, func(c support.Cell) bool { return c.Verdict != support.Unjudged }):
		return withCode(ExitBadInput, errors.New("nothing could be judged"))
	case o.update != "":
		if err := o.updateFile(table.String(), s); err != nil {
			return err
		}
	}
	if len(m.Errors) > 0 {
		return withCode(ExitInvalid, errors.New(""))
	}
	return nil
}

// updateFile puts table in the file of --update, or with --check fails
// when the file's table is not it.
func (o *supportOptions) updateFile(table string, s streams) error {
	data, err := os.ReadFile(o.update)
	if err != nil {
		return withCode(ExitBadInput, err)
	}
	text, marked := support.Update(string(data), table)
	switch {
	case o.check && !marked:
		return withCode(ExitInvalid, fmt.Errorf("%s has no support table between %s and %s: run without --check to add it", o.update, support.BeginTable, support.EndTable))
	case o.check && text != string(data):
		return withCode(ExitInvalid, fmt.Errorf("%s: its support table differs from the driver's: run without --check to update it", o.update))
	case o.check || text == string(data):
		return nil
	case !marked:
		fmt.Fprintf(s.err, "%s had no support table: added at its end, between %s and %s\n", o.update, support.BeginTable, support.EndTable)
	}
	return os.WriteFile(o.update, []byte(text), 0o644)
}

// matrix reads the driver, judges it on each release and checks the
// declared ranges.
func (o *supportOptions) matrix() (*support.Matrix, error) {
	if !slices.Contains(supportFormats, o.format) {
		return nil, fmt.Errorf("--report %q: unsupported format (supported: %s)", o.format, strings.Join(supportFormats, ", "))
	}
	if o.update != "" && o.format != "markdown" || o.check && o.update == "" {
		return nil, errors.New("--update needs --report markdown, and --check needs --update")
	}
	minors, err := support.ParseReleases(o.releases)
	if err != nil {
		return nil, fmt.Errorf("--releases %w", err)
	}
	d := support.Driver{Judge: func(obj map[string]interface{}, c api.Cluster) ([]string, []string) { return guardJudge(obj, c, 0) }}
	if d.Manifests, err = support.ReadManifests(o.filenames, o.recursive); err != nil {
		return nil, fmt.Errorf("%w (chart values go in --values)", err)
	}
	bins, notes, err := support.ReadDir(o.dir, o.chart != "" || len(o.filenames) > 0)
	if err != nil {
		return nil, err
	}
	install := d.Manifests
	if o.chart != "" {
		if d.Chart, err = support.LoadChart(o.chart, o.valueFiles, o.sets); err != nil {
			return nil, fmt.Errorf("--chart %s: %w", o.chart, err)
		}
		d.Chart.Release, d.Chart.Namespace = cmp.Or(o.release, d.Chart.Release), cmp.Or(o.namespace, d.Chart.Namespace)
		if o.release == "" || o.namespace == "" {
			notes = append(notes, fmt.Sprintf("the chart is rendered as helm install %s -n %s renders it (--release-name, --namespace)", d.Chart.Release, d.Chart.Namespace))
		}
		docs, _ := d.Chart.Render(api.Defaults(minors[len(minors)-1]))
		install = append(slices.Clone(install), docs...)
	}
	var note string
	if d.Binaries, note, err = support.Select(bins, o.binaries, install); err != nil {
		return nil, err
	}
	m := support.Support(d, minors)
	m.Notes = append(append(notes, note), m.Notes...)
	m.Notes = slices.DeleteFunc(m.Notes, func(n string) bool { return n == "" })
	if d.Chart != nil && d.Chart.KubeVersion() != "" {
		err = m.Declare("the chart's kubeVersion", d.Chart.KubeVersion())
	}
	if o.declared != "" && err == nil {
		err = m.Declare("--declared", o.declared)
	}
	return m, err
}
