package cli

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/conversion"
	"github.com/claimbridge/claimbridge/manifest"
	"github.com/claimbridge/claimbridge/migrate"
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
		Use:   "migrate --to VERSION -f FILE|- [-f FILE ...] [-o yaml|json]",
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
    v1 it is what a 1.36 apiserver rejects (fields the version does not
    have, a request without a device class, a CEL selector over 10 Ki,
    opaque parameters that are not a JSON object or over 10 Ki).
    kubectl create --dry-run=server -f OUTPUT is the full check.

What was dropped or changed is reported per object on standard error, and
what the target version cannot hold as "lost" (the fields convert would keep
in a restore annotation). Every warning convert --to prints for the same
object is printed as a "Warning:" line (except those about the status and a
classic allocation's finalizers, which migrate drops, and about a
parametersRef that migrate translates or warns about itself), and so is
anything else the migrated object asks for differently than the original
did (for GA targets also everything the 1.32+ consumers act on differently:
classic DRA controllers, adminAccess and its namespace label ...). For a
refused object, the lost fields and warnings are printed before the error.
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

Every refused object is named, in input order (with more than one, a last
line counts them), and nothing is written. Exit status: 0 written; 1 an
object refused or not migratable; 2 unusable input (unreadable, malformed
objects, bad flags).`,
		Example: `  # Re-create a 1.30 cluster's claims and templates on a 1.31 cluster (the
  # parameters and classes let migrate translate the 1.30 parameters)
  kubectl get resourceclaims,resourceclaimtemplates,resourceclaimparameters,resourceclasses,resourceclassparameters -A -o yaml > old.yaml
  claimbridge migrate --to v1alpha3 -f old.yaml > new.yaml
  kubectl create -f new.yaml

  # Re-create a 1.26 claim on a cluster of today (resource.k8s.io/v1)
  claimbridge migrate --to v1 -f claim-1.26.yaml | kubectl create -f -`,
		Args: filesOnlyByFlag,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return o.run(s)
		},
	}
	o.addFlags(cmd)
	cmd.Flags().BoolVar(&o.keepOwnerReferences, "keep-owner-references", false, "keep metadata.ownerReferences (only when the owners survive with the same uids)")
	return cmd
}

func (o *migrateOptions) run(s streams) error {
	if err := o.validate(); err != nil {
		return withCode(ExitBadInput, err)
	}
	target, ok := migrate.Targets[o.to]
	if !ok {
		return withCode(ExitBadInput, fmt.Errorf("--to %q: no migration target is defined for this version", o.to))
	}
	docs, idx, failed, err := readForMigrate(o.filenames, s)
	if err != nil {
		return withCode(ExitBadInput, err)
	}
	if err := failed.result("read"); err != nil {
		return err // the parameters of the claims are unknown: migrating them would mislead
	}
	seen := sourcesSeen{}
	for _, doc := range docs.docs {
		seen.add(doc)
	}
	if err := noObjects(o.filenames, seen); err != nil {
		return withCode(ExitBadInput, err)
	}
	opts := migrate.Options{KeepOwnerReferences: o.keepOwnerReferences, Parameters: idx}
	objects := objectWriter{format: o.output}
	var named []namedObject
	write := func(obj map[string]interface{}, doc manifest.Document) {
		objects.add(obj, doc)
		if n, ok := nameOf(obj, doc.Position()); ok {
			named = append(named, n)
		}
	}
	for doc, err := range docs.all() {
		if err != nil {
			return withCode(ExitBadInput, err)
		}
		afterDocument()
		// Classes and 1.30 parameter objects: rewritten for the target
		// release, or left out where it has no such kind.
		var other func(map[string]interface{}, string, migrate.Options) (map[string]interface{}, migrate.Report, bool)
		var why string
		switch {
		case migrate.IsDeviceClass(doc.Object):
			other, why = migrate.DeviceClass, "has no DeviceClass (its claims name a ResourceClass)"
		case migrate.IsParameters(doc.Object):
			other, why = migrate.Parameters, "does not serve it"
		}
		if note, ok := migrate.ClusterState(doc.Object); ok {
			fmt.Fprintf(s.err, "%s: %s: left out: %s\n", doc.Position(), api.Describe(doc.Object), note)
			continue
		}
		if other != nil {
			out, report, served := other(doc.Object, o.to, opts)
			if !served {
				fmt.Fprintf(s.err, "%s: %s: left out: Kubernetes %s %s\n", doc.Position(), api.Describe(doc.Object), target.Releases, why)
				continue
			}
			printReport(s.err, doc.Position(), api.Describe(doc.Object), report)
			if errs := migrate.NameErrors(out); len(errs) > 0 {
				failed.add(rejected(doc, o.to, errs))
				continue
			}
			if err := migrate.CheckDeviceClass(out, o.to); err != nil {
				failed.add(fmt.Errorf("%s: %w", doc.Position(), err))
				continue
			}
			write(out, doc)
			continue
		}
		out, at := migrateDocument(doc, o.to, opts, s.err, &failed)
		for i := range out {
			write(out[i], at[i])
		}
	}
	if err := failed.result("migrated"); err != nil {
		return err
	}
	warnDuplicates(s.err, named)
	if objects.err != nil {
		return withCode(ExitInvalid, objects.err)
	}
	if err := objects.writeTo(s.out); err != nil {
		return withCode(ExitInvalid, fmt.Errorf("writing the output: %w", err))
	}
	return nil
}

// migrateDocument migrates a claim, template or workload, reporting on notes;
// anything else goes through convertDocument. It returns the objects to write
// and the documents they are made of. What cannot be migrated goes to failed.
func migrateDocument(doc manifest.Document, to string, opts migrate.Options, notes io.Writer, failed *failures) (objects []map[string]interface{}, docs []manifest.Document) {
	_, _, kind, err := conversion.Identify(doc.Object)
	if errors.Is(err, conversion.ErrNewerV1alpha3) {
		// A 1.32/1.33 manifest: its advice (label it v1beta1), not that
		// the target does not serve v1alpha3.
		failed.add(fmt.Errorf("%s: %w", doc.Position(), err))
		return nil, nil
	}
	if err != nil {
		if migrate.IsWorkload(doc.Object) {
			if owner, controlled := migrate.ControlledPod(doc.Object); controlled && !opts.KeepOwnerReferences {
				fmt.Fprintf(notes, "%s: %s: left out: created by %s, whose migrated workload the new cluster's controller creates it again from "+
					"(this copy would be one pod too many; --keep-owner-references keeps it)\n", doc.Position(), api.Describe(doc.Object), owner)
				return nil, nil
			}
			out, report, err := migrate.WorkloadObject(doc.Object, to, opts)
			if err != nil {
				printReport(notes, doc.Position(), api.Describe(doc.Object), migrate.Report{Lost: report.Lost, Warnings: report.Warnings})
				failed.add(fmt.Errorf("%s: %w", doc.Position(), err))
				return nil, nil
			}
			printReport(notes, doc.Position(), api.Describe(doc.Object), report)
			return []map[string]interface{}{out}, []manifest.Document{doc}
		}
		if mistaken := mistakenClaimError(doc, err); mistaken != nil {
			failed.add(mistaken)
			return nil, nil
		}
		if _, group, _, _, _ := api.TypeOf(doc.Object); group == api.UpstreamGroup {
			errs := migrate.NameErrors(doc.Object)
			if notServed := migrate.NotServed(doc.Object, to); notServed != "" {
				errs = []string{notServed}
			}
			if len(errs) > 0 {
				failed.add(rejected(doc, to, errs))
				return nil, nil
			}
		}
		if typo := groupTypo(doc.Object); typo != "" {
			failed.add(rejected(doc, to, []string{typo}))
			return nil, nil
		}
		out, ws, err := convertDocument(doc, to, notes) // not a claim or template: passed through
		if err != nil {
			failed.add(err)
			return nil, nil
		}
		for _, w := range ws {
			fmt.Fprintln(notes, warningLine(doc.Position(), w))
		}
		return []map[string]interface{}{out}, []manifest.Document{doc}
	}
	objs := []map[string]interface{}{doc.Object}
	if strings.HasSuffix(kind, "List") {
		// Items that are not an array of objects are malformed, as convert says.
		if err := conversion.CheckShape(doc.Object); err != nil {
			failed.add(fmt.Errorf("%s: %w", doc.Position(), err))
			return nil, nil
		}
		if objs, err = typedListItems(doc, kind); err != nil {
			failed.add(err)
			return nil, nil
		}
	}
	for i, obj := range objs {
		item := doc
		if strings.HasSuffix(kind, "List") {
			item = doc.InItem(i, obj)
		}
		// An item is migrated by its own apiVersion and kind, as kubectl
		// creates it; a misspelt one is refused.
		if _, _, _, err := conversion.Identify(obj); err != nil {
			if mistaken := mistakenClaimError(item, err); mistaken != nil {
				failed.add(mistaken)
				continue
			}
		}
		who := item.Position() + ": " + api.Describe(obj)
		if pod, entry, generated := migrate.GeneratedForPod(obj); generated && !opts.KeepOwnerReferences {
			fmt.Fprintf(notes, "%s: left out: %s\n", who, generatedNote(pod, entry))
			continue
		}
		migrated, report, err := migrate.Object(obj, to, opts)
		if err != nil {
			// What was lost and the warnings explain most refusals.
			printReport(notes, item.Position(), api.Describe(obj), migrate.Report{Lost: report.Lost, Warnings: report.Warnings})
			failed.add(fmt.Errorf("%s: %w", item.Position(), err))
			continue
		}
		printReport(notes, item.Position(), api.Describe(obj), report)
		objects, docs = append(objects, migrated), append(docs, item)
	}
	return objects, docs
}

// rejected refuses doc, which the release serving to rejects for errs.
func rejected(doc manifest.Document, to string, errs []string) error {
	return fmt.Errorf("%s: %s: a Kubernetes %s apiserver would reject it: %s",
		doc.Position(), api.Describe(doc.Object), migrate.Targets[to].Releases, strings.Join(errs, "; "))
}

// generatedNote says why a claim generated for a pod is left out.
func generatedNote(pod, entry string) string {
	of := "Pod " + pod
	if entry != "" {
		of += fmt.Sprintf(" (its resourceClaims entry %q)", entry)
	}
	return "generated for " + of + " from a ResourceClaimTemplate; the resourceclaim controller of the new cluster " +
		"creates the pod's claim again from the template when the pod is re-created (migrate the template and the pod's workload), " +
		"while this copy, without its pod, would never be used (--keep-owner-references keeps it, for pods that survive with the same uids)"
}

// printReport prints r for the object desc at position, each line once (a
// 1.30 selector's "<=" becomes two comparisons with the same warning).
func printReport(w io.Writer, position, desc string, r migrate.Report) {
	who := position + ": " + desc
	if len(r.Dropped) > 0 {
		fmt.Fprintf(w, "%s: dropped %s\n", who, strings.Join(slices.Compact(slices.Clone(r.Dropped)), ", "))
	}
	seen := map[string]bool{}
	once := func(l string) {
		if !seen[l] {
			seen[l] = true
			fmt.Fprint(w, l)
		}
	}
	for _, c := range r.Changed {
		once(fmt.Sprintf("%s: changed %s\n", who, c))
	}
	for _, l := range r.Lost {
		once(fmt.Sprintf("%s: lost %s\n", who, l))
	}
	for _, warning := range r.Warnings {
		once(warningLine(position, desc+": "+warning) + "\n")
	}
}
