package cli

import (
	"cmp"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/cluster"
	"github.com/claimbridge/claimbridge/manifest"
	"github.com/claimbridge/claimbridge/migrate"
	"github.com/claimbridge/claimbridge/report"
)

type convertOptions struct {
	to        string
	filenames []string
	recursive bool
	output    string
	report.Options
	cluster clusterFlags
	gates   cluster.GateFlags
}

func newConvertCommand(s streams) *cobra.Command {
	o := &convertOptions{output: "yaml"}
	cmd := &cobra.Command{
		Use:   "convert --to RELEASE|VERSION -f FILE|- [-f FILE ...] [-o yaml|json] [--quiet]",
		Short: "Convert DRA manifests (claims, templates, classes, slices, taint rules, and the claims of workloads) between v1alpha1 … v1",
		Long: `Convert converts every ResourceClaim and ResourceClaimTemplate of group
resource.claimbridge.dev or resource.k8s.io in the input to the target
version, keeping its group. Pods and workloads get their resourceClaims in
the target release's shape; DeviceClasses, ResourceSlices and
DeviceTaintRules get the version the target release serves them in, judged
as validate --to judges them. Every other object is passed through
unchanged and in order. What the target version cannot hold is kept in claimbridge.dev/restore-*
annotations, so that converting back gives the original exactly.

--feature-gates, --runtime-config and --cluster-config describe the target's
apiserver, as for validate; a target cluster's are read from it.

--to takes a release (` + api.ReleaseRange() + `, or the one after by the newest's
rules): the version it serves, judged by its own rules; or a version
(v1beta1, v1beta2 and v1 for resource.k8s.io only), judged by the newest
release serving it.

A warning on standard error says what the target release reads
differently or drops, an error what it rejects, naming the field. What it
rejects is written all the same, and the exit code is 1; warnings change
it only with --strict. Nothing is written unless every document converts.

docs/cli.md covers the input, the targets and the report;
docs/conversion.md every field.

Exit status: 0 written; 1 an object refused, or written but rejected by
the target (or, with --strict, a warning); 2 unusable input or flags.`,
		Example: `  # Migrate a Kubernetes 1.30 claim to the 1.31 shape
  claimbridge convert --to v1alpha3 -f claim-v1alpha2.yaml

  # Show a Kubernetes 1.26 claim in what 1.34+ clusters serve (to create it there, use migrate)
  claimbridge convert --to v1 -f claim-v1alpha1.yaml

  # Make a chart's output fit a 1.33 cluster
  helm template my-driver ./chart | claimbridge convert --to 1.33 -q -f -

  # Convert everything in a directory and print one JSON List
  claimbridge convert --to v1alpha1 -f manifests/ -o json`,
	}
	o.setUp(cmd, s, o.run, "objects passed through, pods rewritten")
	return cmd
}

// setUp makes cmd run run once the target cluster, if any, gave the target,
// and adds the flags convert and migrate share: --to, -f, -o, the target
// cluster's and the report's (notes is what -q silences).
func (o *convertOptions) setUp(cmd *cobra.Command, s streams, run func(streams) error, notes string) {
	cmd.Args = filesOnlyByFlag
	cmd.RunE = func(*cobra.Command, []string) error {
		release, emulated, err := o.gates.Release()
		if err != nil {
			return withCode(ExitBadInput, err)
		}
		o.to = cmp.Or(emulated, o.to, release) // mid-upgrade, the release emulated

		if err := o.cluster.resolve(&o.to, o.Quiet, s.err); err != nil {
			return err
		}
		return run(s)
	}
	cmd.Flags().StringVar(&o.to, "to", "", "target: a release, "+api.ReleaseRange()+" (the one after, or a cluster's version: v1.33.4, v1.33.4-eks-a1b2c3d), judged by its own rules and written in the version it serves; "+
		"or a version, judged by the newest release serving it: "+targetVersions()+
		"; or cluster, the release of the target cluster (--target-context); required unless a target cluster is named")
	addFilenameFlags(cmd, &o.filenames, &o.recursive)
	cmd.Flags().StringVarP(&o.output, "output", "o", o.output, "output format: yaml or json")
	o.cluster.addTo(cmd)
	o.gates.AddFlags(cmd.Flags())
	o.Options.AddFlags(cmd.Flags(), notes)
}

// targetVersions lists each version with the release that judges it.
func targetVersions() string {
	var out []string
	for _, v := range api.ConversionVersions {
		judge, _ := api.Judge(v)
		out = append(out, v+" ("+judge.String()+")")
	}
	return strings.Join(out, ", ") + "; the last three for resource.k8s.io only"
}

func (o *convertOptions) run(s streams) error {
	target, err := o.validate()
	if err != nil {
		return withCode(ExitBadInput, err)
	}
	// Each object is converted and encoded as it is read; what is said
	// waits until every document has been read.
	r := o.newReport("convert", target)
	objects := manifest.Writer{Format: o.output}
	seen := sourcesSeen{}
	visit := func(doc manifest.Document) error {
		defer documentDone()
		seen.add(doc)
		v := migrate.Convert(doc.Object, target)
		v.Findings = append(v.Findings, deprecated(v.Object, target.Cluster)...) // of the version written
		r.Add(doc, v)
		if v.Object != nil {
			objects.Add(v.Object, doc)
			o.cluster.add(v.Object, doc)
		}
		return nil
	}
	if err := cmp.Or(manifest.EachIn(o.filenames, o.recursive, s.in, visit), noObjects(o.filenames, seen)); err != nil {
		return withCode(ExitBadInput, err)
	}
	r.WarningsLast = true
	return o.finish(s, r, &objects, "converted")
}

// newReport is the report of a run of command for target.
func (o *convertOptions) newReport(command string, target migrate.Target) *report.Report {
	return &report.Report{Options: o.Options, Command: command, Release: target.Releases}
}

// finish says what the run found and writes the objects unless one was
// refused.
func (o *convertOptions) finish(s streams, r *report.Report, objects *manifest.Writer, verb string) error {
	if r.Refused() == 0 && objects.Err() == nil {
		o.cluster.send(r) // the target cluster's answers join the report
	}
	if err := r.Write(s.err, nil); err != nil {
		return withCode(ExitBadInput, fmt.Errorf("writing the report: %w", err))
	}
	code := exitCode(r)
	if refused := r.Refused(); refused > 0 {
		if refused == 1 {
			return withCode(code, errors.New(""))
		}
		return withCode(code, fmt.Errorf("%d objects could not be %s; nothing was written", refused, verb))
	}
	if objects.Err() != nil {
		return withCode(ExitInvalid, objects.Err())
	}
	if err := objects.Flush(s.out); err != nil {
		return withCode(ExitInvalid, fmt.Errorf("writing the output: %w", err))
	}
	if code != ExitOK {
		return withCode(code, errors.New(""))
	}
	return nil
}

func (o *convertOptions) validate() (migrate.Target, error) {
	switch {
	case o.to == "":
		return migrate.Target{}, fmt.Errorf("--to is required (a release such as 1.33, or one of %s)", strings.Join(api.ConversionVersions, ", "))
	case len(o.filenames) == 0:
		return migrate.Target{}, fmt.Errorf("at least one -f is required (a file, a directory or - for standard input)")
	case o.output != "yaml" && o.output != "json":
		return migrate.Target{}, fmt.Errorf("-o %q: unsupported output format (supported: yaml, json)", o.output)
	}
	if err := o.Options.Validate(); err != nil {
		return migrate.Target{}, err
	}
	t, err := migrate.TargetOf(o.to)
	if err != nil {
		return t, err
	}
	if o.cluster.live != nil {
		t.Cluster, _ = o.cluster.live.Upgrade(t.Minor)
	}
	return t, o.gates.Apply(&t.Cluster)
}
