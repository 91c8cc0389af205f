package cli

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/conversion"
	"github.com/claimbridge/claimbridge/manifest"
	"github.com/claimbridge/claimbridge/migrate"
	"github.com/claimbridge/claimbridge/report"
)

type convertOptions struct {
	to        string
	filenames []string
	output    string
	report.Options
	cluster clusterFlags
}

func newConvertCommand(s streams) *cobra.Command {
	o := &convertOptions{output: "yaml"}
	cmd := &cobra.Command{
		Use:   "convert --to RELEASE|VERSION -f FILE|- [-f FILE ...] [-o yaml|json] [--quiet]",
		Short: "Convert ResourceClaim and ResourceClaimTemplate manifests between v1alpha1, v1alpha2, v1alpha3, v1beta1, v1beta2 and v1",
		Long: `Convert reads YAML or JSON manifests (multi-document streams, kind: List,
files, directories and standard input) and converts every ResourceClaim and
ResourceClaimTemplate of group resource.claimbridge.dev or resource.k8s.io to
the requested version, keeping its group. --to takes a release (1.26 …
1.37): the version it serves, judged by its own rules; or a version, judged
by the newest release serving it. A DeviceClass gets the target's version
too. Every other object is passed through
unchanged and in order, but not a claim or template of a version that cannot
be one (resource.k8s.io/v1alpha4, a version resource.claimbridge.dev does not
serve) or of a misspelt kind (ResourceClaims): it is refused (exit 1). A later
upstream version (v2) is passed through with a note.

A field of a spec or status that the object's version does not have (a 1.31
body labelled v1alpha2, a misspelt field) is kept only in the restore
annotation, so the converted object does not ask for it: a warning says so
(between two of v1beta1, v1beta2 and v1 such a field is carried as it is,
without a warning).

What the target version cannot hold is kept in claimbridge.dev/restore-*
annotations, so that converting back gives the original exactly.

The upstream versions v1beta1 (Kubernetes 1.32), v1beta2 (1.33) and v1
(1.34+) are targets for group resource.k8s.io only; the claimbridge CRD
serves the three alpha versions. Input in resource.k8s.io/v1alpha3 must be
the Kubernetes 1.31 shape (1.32 and 1.33 served a different v1alpha3: give
such manifests apiVersion resource.k8s.io/v1beta1, which has the same fields).

When a field means something different to the target release's scheduler,
kubelet, controllers or apiserver (parametersRef, an allocation mode, a count,
classic DRA, status that a create discards ...), a warning on standard error
says what that release does (docs/cli.md, "The report"). So is every rule of
that release the converted object breaks (the checks of claimbridge
validate for v1alpha1-v1alpha3, migrate's for v1beta1, v1beta2 and v1):
migrate refuses such objects, convert writes them and says so. Warnings
change the exit code only with --strict; --quiet silences the notes
(objects passed through, pods rewritten) and the summary, never the
warnings. A finding about more than 3 objects is printed once, with a
count (--verbose prints each); --report json writes them as JSON
(docs/report.schema.json). Check GA output with
kubectl apply --dry-run=server -f OUTPUT, or claimbridge validate.

Pods and the pod templates of workloads (Deployment, StatefulSet,
DaemonSet, ReplicaSet, Job, CronJob, ReplicationController, PodTemplate)
get their resourceClaims in the target release's shape, as migrate gives
them: 1.26–1.30 name the claim or template under resourceClaims[].source,
1.31 and later directly, with a warning for each field of the pod spec
that the target release does not have. An object whose apiVersion's
group is one edit away from resource.k8s.io or resource.claimbridge.dev
is passed through with a "did you mean" warning. Pod templates of any kind
(a JobSet, an Argo Rollout) are found by their shape and converted as a
Deployment's. An input without objects is unusable (exit 2).

An object whose known fields have the wrong JSON type (spec a string,
reservedFor an object ...) is refused: exit 2, naming the document and path.
An object that cannot be converted (a newer v1alpha3, a GA target for the
claimbridge group ...) is refused: exit 1.

Nothing is written unless every document converts: every refused object is
named, in input order, and with more than one a last line counts them.

Exit status: 0 written; 1 an object refused (or, with --strict, a
warning); 2 unusable input or flags.`,
		Example: `  # Migrate a Kubernetes 1.30 claim to the 1.31 shape
  claimbridge convert --to v1alpha3 -f claim-v1alpha2.yaml

  # Show a Kubernetes 1.26 claim in what 1.34+ clusters serve (to create it there, use migrate)
  claimbridge convert --to v1 -f claim-v1alpha1.yaml

  # Make a chart's output fit a 1.33 cluster
  helm template my-driver ./chart | claimbridge convert --to 1.33 -q -f -

  # Convert everything in a directory and print one JSON List
  claimbridge convert --to v1alpha1 -f manifests/ -o json`,
		Args: filesOnlyByFlag,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := o.cluster.resolve(&o.to, o.Quiet, s.err); err != nil {
				return err
			}
			return o.run(s)
		},
	}
	o.addFlags(cmd)
	o.Options.AddFlags(cmd.Flags(), "objects passed through, pods rewritten")
	return cmd
}

// addFlags adds the flags convert and migrate share: --to, -f and -o.
func (o *convertOptions) addFlags(cmd *cobra.Command) {
	cmd.Flags().StringVar(&o.to, "to", "", toHelp)
	cmd.Flags().StringArrayVarP(&o.filenames, "filename", "f", nil, "file, directory or - for standard input (repeatable, required)")
	cmd.Flags().StringVarP(&o.output, "output", "o", o.output, "output format: yaml or json")
	o.cluster.addTo(cmd)
}

// toHelp is the help of --to, which convert and migrate share.
var toHelp = "target: a release, 1.26 to 1.37, judged by its own rules and written in the version it serves; " +
	"or a version, judged by the newest release serving it: " + targetVersions() +
	"; or cluster, the release of the target cluster (--target-context); required unless a target cluster is named"

// targetVersions lists each version with the release that judges it.
func targetVersions() string {
	var out []string
	for _, v := range conversion.ChainVersions {
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
		defer afterDocument()
		seen.add(doc)
		v := migrate.Convert(doc.Object, target)
		r.Add(doc, v)
		if v.Object != nil {
			objects.Add(v.Object, doc)
			o.cluster.add(v.Object, doc)
		}
		return nil
	}
	if err := manifest.Each(o.filenames, s.in, visit); err != nil {
		return withCode(ExitBadInput, err)
	}
	if err := noObjects(o.filenames, seen); err != nil {
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
		return migrate.Target{}, fmt.Errorf("--to is required (a release such as 1.33, or one of %s)", strings.Join(conversion.ChainVersions, ", "))
	case len(o.filenames) == 0:
		return migrate.Target{}, fmt.Errorf("at least one -f is required (a file, a directory or - for standard input)")
	case o.output != "yaml" && o.output != "json":
		return migrate.Target{}, fmt.Errorf("-o %q: unsupported output format (supported: yaml, json)", o.output)
	}
	if err := o.Options.Validate(); err != nil {
		return migrate.Target{}, err
	}
	return migrate.TargetOf(o.to)
}
