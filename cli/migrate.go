package cli

import (
	"errors"
	"strings"

	"github.com/spf13/cobra"

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
		Long: `Migrate reads exported objects (kubectl get -o yaml: YAML or JSON, streams,
kind: List, files, directories, standard input) and writes manifests that
re-create every ResourceClaim and ResourceClaimTemplate on a cluster of the
release serving the target version (v1alpha1: 1.26, v1alpha2: 1.27–1.30,
v1alpha3: 1.31, and upstream's v1beta1: 1.32, v1beta2: 1.33, v1: 1.34+ for
group resource.k8s.io). A claim that the resourceclaim controller generated
for a pod from a template (a controller owner reference to a Pod) is left
out, with a note: the new cluster's controller creates it again from the
migrated template when the pod's workload re-creates the pod (kept, with its
owner references, with --keep-owner-references). Every other claim and
template is converted (its group is kept), then:

  - server-set metadata is dropped (uid, resourceVersion, generation,
    creationTimestamp, deletionTimestamp, deletionGracePeriodSeconds,
    managedFields, selfLink), and ownerReferences unless
    --keep-owner-references (they name the old cluster's owners by uid);
  - status is dropped: the API server resets it on create and the claim is
    allocated again (the report names what was allocated and reserved);
  - the built-in finalizer is renamed to the target release's
    (dra.k8s.io/delete-protection <-> resource.kubernetes.io/delete-protection,
    the finalizer of 1.31 and later; dropped for 1.26, which has none);
  - claimbridge's restore annotations and kubectl's last-applied-configuration
    are dropped: re-creation is one-way;
  - for v1alpha3 and later, a claim whose 1.30 ResourceClaimParameters are in
    the input gets device requests with the same selectors, counts and opaque
    config (translated into the 1.31 shape, then converted on to v1beta1,
    v1beta2 or v1); the 1.30 parameter objects are left out, and a 1.26 or
    1.30 ResourceClass becomes the DeviceClass of the same name that the
    migrated claims name, selecting its driver's devices;
  - a DeviceClass gets the target's apiVersion (fields the target lacks,
    such as 1.31's suitableNodes, are reported lost); left out for v1alpha1
    and v1alpha2, whose releases have none;
  - for v1alpha1 and v1alpha2, a ResourceClass gets the target's apiVersion
    (1.26 serves only v1alpha1, 1.27–1.30 only v1alpha2; 1.30's
    structuredParameters is lost going to v1alpha1) and loses its
    server-set metadata; the 1.30 ResourceClaimParameters and
    ResourceClassParameters are kept for v1alpha2 (without server-set
    metadata) and left out for v1alpha1;
  - a migrated object that the target release's apiserver would reject is
    refused: exit 1, nothing is written, and the error names every field
    in the target version. For v1alpha1, v1alpha2 and v1alpha3 the check
    is claimbridge validate's (the create rules of 1.26, 1.30 and 1.31; a
    missing namespace is left to kubectl), e.g. a 1.34+ request with only
    firstAvailable has no device class in 1.31; for v1beta1, v1beta2 and
    v1 it is what that release rejects (1.37 for v1) (fields the version does not
    have, a request without a device class, a CEL selector over 10 Ki,
    opaque parameters that are not a JSON object or over 10 Ki).
    kubectl create --dry-run=server -f OUTPUT is the full check.

What was dropped or changed is reported per object on standard error, what
the target version cannot hold as "lost", and as a warning everything the
migrated object asks for differently than the original did (convert's
warnings, but not those about what migrate drops or translates).
Pods and the pod templates of workloads (PodTemplate, ReplicationController,
Deployment, ReplicaSet, StatefulSet, DaemonSet, Job, CronJob) get their
resourceClaims in the target release's shape: 1.26–1.30 name the claim or
template under resourceClaims[].source, 1.31 and later directly (a
container's 1.31+ resources.claims[].request is lost going back), and lose
what the old cluster set on them as claims do (server-set metadata, owner
references unless --keep-owner-references, last-applied-configuration,
status, and a Pod's spec.nodeName, so that the new cluster's scheduler places
it and allocates its claims); one whose pod spec has a field the target
release does not have (1.36's schedulingGroup for 1.31) is refused, naming
each field. A Pod that a controller created (a ReplicaSet's,
a Job's ...) is left out, with a note: the new cluster's controller creates it
again from the migrated workload (kept with --keep-owner-references). So are
resource.k8s.io ResourceSlices and PodSchedulingContexts, which the new
cluster's drivers and scheduler create for themselves. Other objects are
passed through unchanged, but not a claim or template of a version that cannot
be one (resource.k8s.io/v1alpha4, a version resource.claimbridge.dev does not
serve) or of a misspelt kind (ResourceClaims), nor an object of a group one
edit away from resource.k8s.io or resource.claimbridge.dev (resource.k8s.oi):
it is refused (exit 1). Pod templates of any kind (a JobSet, an Argo Rollout)
are found by their shape and migrated as a Deployment's. An input without
objects is unusable (exit 2).

One file or stream may hold up to 64 MiB; a larger export is read from a
directory of files (-f DIR), e.g. one kubectl get per namespace or per kind:
the parameters and classes of every file serve the claims of all of them.

--to takes a release (1.26 … 1.37), which writes the version it serves and
judges by its own rules, or a version, judged by the newest release
serving it. A finding about more than 3 objects is printed once, with a
count (--verbose prints each); --report json writes them as JSON
(docs/report.schema.json); the last line sums up the run (not with -q).

Every refused object is named, in input order (with more than one, a last
line counts them), and nothing is written. Exit status: 0 written; 1 an
object refused or not migratable (or, with --strict, a warning); 2 unusable
input (unreadable, malformed objects, bad flags).`,
		Example: `  # Re-create a 1.30 cluster's claims and templates on a 1.31 cluster (the
  # parameters and classes let migrate translate the 1.30 parameters)
  kubectl get resourceclaims,resourceclaimtemplates,resourceclaimparameters,resourceclasses,resourceclassparameters -A -o yaml > old.yaml
  claimbridge migrate --to v1alpha3 -f old.yaml > new.yaml
  kubectl create -f new.yaml

  # Re-create a 1.26 claim on a cluster of today (resource.k8s.io/v1)
  claimbridge migrate --to v1 -f claim-1.26.yaml | kubectl create -f -`,
		Args: filesOnlyByFlag,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := o.cluster.resolve(&o.to, o.Quiet, s.err); err != nil {
				return err
			}
			return o.run(s)
		},
	}
	o.addFlags(cmd)
	o.Options.AddFlags(cmd.Flags(), "what is dropped, changed or left out")
	cmd.Flags().BoolVar(&o.keepOwnerReferences, "keep-owner-references", false, "keep metadata.ownerReferences (only when the owners survive with the same uids)")
	return cmd
}

func (o *migrateOptions) run(s streams) error {
	target, err := o.validate()
	if err != nil {
		return withCode(ExitBadInput, err)
	}
	r := o.newReport("migrate", target)
	docs, idx, err := readForMigrate(o.filenames, s, r)
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
		afterDocument()
		items, err := migrateItems(doc)
		if err != nil {
			r.Add(doc, refusedFor(err))
			continue
		}
		for _, item := range items {
			v := migrate.Migrate(item.Object, target, opts)
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
// items of a typed list (ResourceClaimList), as kubectl creates them, or
// doc itself.
func migrateItems(doc manifest.Document) ([]manifest.Document, error) {
	if _, _, kind, err := conversion.Identify(doc.Object); err != nil || !strings.HasSuffix(kind, "List") {
		return []manifest.Document{doc}, nil
	}
	if err := conversion.CheckShape(doc.Object); err != nil {
		return nil, err
	}
	items, err := migrate.ListItems(doc.Object)
	docs := make([]manifest.Document, len(items))
	for i, item := range items {
		docs[i] = doc.InItem(i, item)
	}
	return docs, err
}

// refusedFor is the verdict on a document that cannot be read for err.
func refusedFor(err error) report.Verdict {
	var malformed *conversion.MalformedError
	return report.Verdict{Outcome: report.Refused, Findings: []report.Finding{{
		Severity: report.Error, Message: err.Error(), Malformed: errors.As(err, &malformed)}}}
}
