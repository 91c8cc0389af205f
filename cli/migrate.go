package cli

import (
	"errors"
	"strings"

	"github.com/spf13/cobra"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/conversion"
	"github.com/claimbridge/claimbridge/manifest"
	"github.com/claimbridge/claimbridge/migrate"
	"github.com/claimbridge/claimbridge/report"
)

// migrateOptions are convert's options (target, inputs, output format) and
// what re-creation adds.
type migrateOptions struct {
	convertOptions
	keepOwnerReferences bool
}

func newMigrateCommand(s streams) *cobra.Command {
	o := &migrateOptions{convertOptions: convertOptions{output: "yaml"}}
	cmd := &cobra.Command{
		Use:   "migrate --to RELEASE|VERSION -f FILE|- [-f FILE ...] [-o yaml|json]",
		Short: "Turn exported claims and templates into manifests that re-create them on a cluster of another release",
		Long: `Migrate reads exported objects (claimbridge export, kubectl get -o yaml)
and writes manifests that re-create them on a cluster of the target
release. Claims and templates are converted, then lose what the old
cluster set on them: server-set metadata, status, ownerReferences (unless
--keep-owner-references), restore annotations and last-applied-configuration.
So does the built-in finalizer, with the allocation. With v1alpha3 and
later, 1.30 parameters and classes become device requests and DeviceClasses.
Pods and workloads get their resourceClaims in the target release's shape.
Claims and Pods that the new cluster's controllers create again,
ResourceSlices and PodSchedulingContexts are left out, with a note. Other
objects are passed through unchanged.

What is dropped, lost or read differently is reported per object on
standard error. An object the target release would reject is refused,
naming every field, and nothing is written.

--to takes a release (` + api.ReleaseRange() + `, or the one after by the newest's
rules), or a version, judged by the newest release serving it. docs/conversion.md ("Migrate") lists every rule;
docs/cli.md covers the input, the targets and the report.

Exit status: 0 written; 1 an object refused (or, with --strict, a
warning); 2 unusable input or flags.`,
		Example: `  # Re-create a 1.30 cluster's claims and templates on a 1.31 cluster (the
  # parameters and classes let migrate translate the 1.30 parameters)
  kubectl get resourceclaims,resourceclaimtemplates,resourceclaimparameters,resourceclasses,resourceclassparameters -A -o yaml > old.yaml
  claimbridge migrate --to v1alpha3 -f old.yaml > new.yaml
  kubectl create -f new.yaml

  # Re-create a 1.26 claim on a cluster of today (resource.k8s.io/v1)
  claimbridge migrate --to v1 -f claim-1.26.yaml | kubectl create -f -`,
	}
	o.setUp(cmd, s, o.run, "what is dropped, changed or left out")
	cmd.Flags().BoolVar(&o.keepOwnerReferences, "keep-owner-references", false, "keep metadata.ownerReferences (only when the owners survive with the same uids)")
	return cmd
}

func (o *migrateOptions) run(s streams) error {
	target, err := o.validate()
	if err != nil {
		return withCode(ExitBadInput, err)
	}
	r := o.newReport("migrate", target)
	docs, idx, err := readForMigrate(o.filenames, o.recursive, s, r)
	if err != nil {
		return withCode(ExitBadInput, err)
	}
	if r.Refused() > 0 {
		// The parameters of the claims are unknown: migrating them would mislead.
		return o.finish(s, r, &manifest.Writer{}, "read")
	}
	seen := sourcesSeen{}
	for _, doc := range docs.docs {
		seen.add(doc)
	}
	if err := noObjects(o.filenames, seen); err != nil {
		return withCode(ExitBadInput, err)
	}
	opts := migrate.Options{KeepOwnerReferences: o.keepOwnerReferences, Parameters: idx}
	objects := manifest.Writer{Format: o.output}
	var named []namedObject
	for doc, err := range docs.all() {
		if err != nil {
			return withCode(ExitBadInput, err)
		}
		documentDone()
		items, err := migrateItems(doc)
		if err != nil {
			r.Add(doc, refusedFor(err))
			continue
		}
		for _, item := range items {
			v := migrate.Migrate(item.Object, target, opts)
			v.Findings = append(v.Findings, deprecated(v.Object, target.Cluster)...) // of the version written
			r.Add(item, v)
			if v.Object != nil {
				objects.Add(v.Object, item)
				o.cluster.add(v.Object, item)
				if n, ok := nameOf(v.Object, item); ok {
					named = append(named, n)
				}
			}
		}
	}
	warnDuplicates(r, named)
	return o.finish(s, r, &objects, "migrated")
}

// migrateItems are the objects of doc that migrate takes one by one: the
// items of a typed list (typedItems; a claim list's must have their
// fields' JSON types), as kubectl creates them, or doc itself.
func migrateItems(doc manifest.Document) ([]manifest.Document, error) {
	if _, _, kind, err := conversion.Identify(doc.Object); err == nil && strings.HasSuffix(kind, "List") {
		if err := conversion.CheckShape(doc.Object); err != nil {
			return nil, err
		}
	}
	items, err := typedItems(doc)
	return items, errors.Unwrap(err) // without doc's position: the report says it
}

// refusedFor is the verdict on a document that cannot be read for err.
func refusedFor(err error) report.Verdict {
	var malformed *conversion.MalformedError
	return report.Verdict{Outcome: report.Refused, Findings: []report.Finding{{
		Severity: report.Error, Message: err.Error(), Malformed: errors.As(err, &malformed)}}}
}
