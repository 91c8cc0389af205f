package cli

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/cluster"
	"github.com/claimbridge/claimbridge/judge"
	"github.com/claimbridge/claimbridge/manifest"
	"github.com/claimbridge/claimbridge/migrate"
	"github.com/claimbridge/claimbridge/report"
	"github.com/claimbridge/claimbridge/validation"
)

type checkOptions struct {
	kubeconfig, context string
	// from is the cluster's release, storedAs the one whose storage versions
	// it writes; lost counts its stored objects the target cannot read, by
	// resource; lacks is the note on each when the target lacks flags to
	// serve DRA; clients read and write them besides the control plane.
	from, storedAs int
	lost           map[string]int
	held, pods     []string // the Pods that hold the claims lost (judge.Holders, judge.Pods)
	patch          int      // of --to ("v1.32.1"), -1 when it names none
	lacks          string
	live           bool // a cluster is read, also beside --cluster-config (upgrade)
	clients        judge.Clients
	validateOptions
}

func newCheckCommand(s streams) *cobra.Command {
	o := &checkOptions{validateOptions: validateOptions{cel: validation.NewCELCache()}}
	cmd := &cobra.Command{
		Use:   "check [--kubeconfig FILE] [--context NAME] [--to RELEASE]",
		Short: "Report what in a cluster the next Kubernetes release (or --to RELEASE) would reject",
		Long: `Check reads a cluster, without writing to it, and says what the target
release does with it after an upgrade or a rollback in place:

  kube-apiserver 1.N
      each flag its kube-apiserver refuses to start with, in its words, and
      before 1.34 the flags it lacks to serve DRA
  helm:NAMESPACE/NAME@REVISION (chart NAME-VERSION)
      each Helm release's deployed manifest, judged as validate --to does
  live:KIND NAMESPACE/NAME
      each stored DRA object: kept, unreadable, out of reach, or (a
      template) refused in each claim made from it
  last-applied:KIND NAMESPACE/NAME
      what kubectl apply last sent for it, judged as validate --to does
  node:NAME, manager:NAME, requests:resource.k8s.io/VERSION RESOURCE
      each kubelet (skew policy, the version it reads claims through), each
      field manager of the DRA objects and each deprecated version still
      requested, against what the target serves; then the steps, in order

The cluster's flags are read (/metrics, discovery, /version's emulated
release); --feature-gates, --runtime-config, --cluster-config and
--emulated-version win. Given only --cluster-config, no cluster is read.
Without --to, the target is the release after the cluster's. 1.38 is known
from its beta; the release after it is judged by its rules and the versions
upstream stops serving in it.

Exit status: 0 the target accepts everything, 1 it rejects something (or,
with --strict, warns), 2 bad flags, an unknown target or an unreadable cluster.`,
		Example: `  # What of the cluster of context prod breaks on the release after its own
  claimbridge check --context prod

  # Which flags of a kind cluster kube-apiserver 1.38 refuses, with no cluster
  claimbridge check --cluster-config kind.yaml --to 1.38

  # The same for Kubernetes 1.34, as a SARIF report
  claimbridge check --context prod --to 1.34 --report sarif --report-file check.sarif`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			s.out = controlEscaper{s.out}
			return o.run(s)
		},
	}
	cmd.Flags().StringVar(&o.kubeconfig, "kubeconfig", "", "kubeconfig file (default: $KUBECONFIG, else ~/.kube/config)")
	cmd.Flags().StringVar(&o.context, "context", "", "kubeconfig context (default: its current context)")
	cmd.Flags().StringVar(&o.to, "to", "", "judge by the rules of this release ("+api.ReleaseRange()+", the one after, or a cluster's version) instead of the release after the cluster's")
	o.gates.AddFlags(cmd.Flags())
	o.Options.AddFlags(cmd.Flags(), "objects skipped, the target")
	cmd.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { // check -f is the usual one
		return fmt.Errorf("%w (check reads a cluster; to judge manifests: claimbridge validate --to %s -f FILE)", err, api.Newest())
	})
	return cmd
}

func (o *checkOptions) run(s streams) error {
	if err := o.Options.Validate(); err != nil {
		return withCode(ExitBadInput, err)
	}
	o.patch = api.ParsePatch(o.to)
	if err := o.setTarget(o.to); o.to != "" && err != nil { // a bad --to before the cluster is read
		return withCode(ExitBadInput, fmt.Errorf("--to %w", err))
	}
	quiet := o.Quiet || o.Format != "text"
	c, source, err := o.source(quiet, s.err)
	if err != nil {
		return withCode(ExitBadInput, err)
	}
	to, what := o.to, ""
	if to == "" { // mid-upgrade, the binary's own release
		to, what = fmt.Sprintf("1.%d", max(source.Minor+1, source.Binary)), fmt.Sprintf(", the release after the cluster's 1.%d", source.Minor)
	}
	if err := o.setTarget(to); err != nil {
		return withCode(ExitBadInput, fmt.Errorf("--to %w", err))
	}
	o.beyondNote(s.err, what)
	target, refusals := source.Upgrade(o.cluster.Minor)
	o.cluster, o.from, o.storedAs = target, source.Minor, min(source.Minor, source.Compatible+1)
	o.lacks = api.LacksNote(refusals, o.target())
	if settings := o.cluster.SettingsString(); settings != "" && !quiet {
		fmt.Fprintf(s.err, "target: Kubernetes %s with %s\n", o.target(), settings)
	}
	r := o.newReport()
	r.Command = "check"
	apiserver := manifest.Document{Source: "kube-apiserver " + o.target()}
	for _, ref := range refusals {
		r.Say(apiserver, report.Finding{Severity: report.Error, Path: ref.Setting, Message: ref.Message + "; " + ref.Mend})
	}
	if components := o.gates.Components(); components != "" && len(refusals) > 0 {
		r.Say(apiserver, report.Finding{Severity: report.Note, Message: components})
	}
	if err := o.readKubelets(c, r); err != nil {
		return withCode(ExitBadInput, err)
	}
	if c != nil {
		if err := o.checkObjects(c, r); err != nil {
			return withCode(ExitBadInput, err)
		}
	}
	o.planClients(source, r, len(refusals) > 0)
	if len(o.lost) > 0 {
		r.Say(apiserver, report.Finding{Severity: report.Note, Message: judge.Runbook(o.from, cmp.Or(o.beyond, o.cluster.Minor), o.lost, o.held), Pods: o.pods})
	}
	if err := r.Write(s.err, s.out); err != nil {
		return withCode(ExitBadInput, fmt.Errorf("writing the report: %w", err))
	}
	if code := exitCode(r); code != ExitOK {
		return withCode(code, errors.New(""))
	}
	return nil
}

// source is the cluster checked, as it runs: read from the cluster of the
// kubeconfig's context, or, given only --cluster-config, the file's (c is
// then nil). The flags win over what is read.
func (o *checkOptions) source(quiet bool, notes io.Writer) (c *cluster.Cluster, source cluster.Live, err error) {
	release, emulated, err := o.gates.Release()
	if err != nil {
		return nil, source, err
	}
	if !o.live && o.kubeconfig == "" && o.context == "" && o.gates.Told() && (release != "" || o.to != "") {
		minor, ok := api.ParseMinor(cmp.Or(release, o.to))
		if !ok {
			return nil, source, fmt.Errorf("%q: not a release", release)
		}
		if release == "" { // the release before the target
			minor--
		}
		source = cluster.Live{Cluster: api.Bare(minor), Binary: minor, Compatible: minor - 1}
	} else {
		if c, err = cluster.Connect(o.kubeconfig, o.context, notes); err != nil {
			return nil, source, err
		}
		if source, err = readLive(c, quiet, notes); err != nil {
			return nil, source, err
		}
	}
	if m, ok := api.ParseMinor(emulated); ok {
		source.Cluster, source.Compatible = api.Bare(m), min(source.Compatible, m-1)
	}
	return c, source, o.gates.Apply(&source.Cluster)
}

// checkObjects judges the objects of the cluster: each Helm release's
// manifest, and each live DRA object.
func (o *checkOptions) checkObjects(c *cluster.Cluster, r *report.Report) error {
	ctx := context.Background()
	releases, err := c.HelmReleases(ctx)
	if err != nil {
		return err
	}
	for _, h := range releases {
		if err := o.judgeStream(r, "helm:"+h.String(), h.Manifest, h.Namespace); err != nil {
			return err
		}
	}
	return c.DRAObjects(ctx, func(obj map[string]interface{}) error { return o.judgeLive(r, obj) })
}

// judgeLive judges a live object (source live:KIND NAMESPACE/NAME) as the
// target's apiserver treats what is stored, and what kubectl apply last
// sent for it (last-applied:KIND NAMESPACE/NAME) as a create.
func (o *checkOptions) judgeLive(r *report.Report, obj map[string]interface{}) error {
	who := api.Describe(obj)
	r.Add(manifest.Document{Source: "live:" + who, Index: 1, Line: 1, Item: -1, Object: obj}, o.stored(obj))
	o.clients.AddWrites(obj, fmt.Sprint(obj["kind"]))
	if applied, ok := api.Annotations(obj)[migrate.LastApplied].(string); ok {
		return o.judgeStream(r, "last-applied:"+who, applied, "")
	}
	return nil
}

// stored is the target's verdict on a stored object (judge.Stored); the
// objects it cannot read are counted for the runbook.
func (o *checkOptions) stored(obj map[string]interface{}) report.Verdict {
	kind, _ := obj["kind"].(string)
	_, ref, _ := strings.Cut(api.Describe(obj), " ")
	storedAs := o.storedAs
	if !api.FollowsCompatibility(kind) {
		storedAs = o.from
	}
	stored := judge.Stored(obj, o.cluster, kind, storedAs, cmp.Or(o.beyond, o.cluster.Minor))
	if o.lost == nil {
		o.lost = map[string]int{}
	}
	if stored.Lost != "" {
		o.lost[stored.Lost]++
	}
	holders := judge.Holders(obj)
	if stored.Lost == "resourceclaims" {
		o.held, o.pods = append(o.held, holders...), append(o.pods, judge.Pods(obj)...)
	}
	v := report.Verdict{Outcome: report.Kept}
	switch {
	case stored.Unreached != "" && len(holders) > 0:
		v.Outcome, v.Findings = report.Unreachable, []report.Finding{{Severity: report.Error, Kind: kind, Object: ref, Message: stored.Unreached + " (" + judge.HeldBy(holders) + ")", Pods: judge.Pods(obj)}}
	case stored.Unreached != "":
		v.Outcome, v.Findings = report.Unreachable, []report.Finding{{Severity: report.Error, Kind: kind, Object: ref, Message: stored.Unreached}}
	case o.lacks != "":
		v.Findings = append(v.Findings, report.Finding{Severity: report.Note, Kind: kind, Object: ref, Message: o.lacks})
	}
	for _, e := range stored.Errors {
		path, msg, _ := strings.Cut(e, ": ")
		v.Outcome = report.Invalid
		v.Findings = append(v.Findings, report.Finding{Severity: report.Error, Kind: kind, Object: ref, Path: path, Message: msg})
	}
	if severity, msg := judge.Reservations(obj, cmp.Or(o.beyond, o.cluster.Minor), o.patch, stored.Lost != ""); severity != "" && kind == api.KindClaim && (stored.Unreached == "" || stored.Lost != "") {
		if stored.Unreached == "" {
			v.Outcome = map[string]string{report.Error: report.Invalid, report.Warning: v.Outcome}[severity]
		}
		v.Findings = append(v.Findings, report.Finding{Severity: severity, Kind: kind, Object: ref, Path: "status.reservedFor", Message: msg, Pods: judge.Pods(obj)})
	}
	for _, w := range stored.Warnings {
		path, msg, _ := strings.Cut(w, ": ")
		v.Findings = append(v.Findings, report.Finding{Severity: report.Warning, Kind: kind, Object: ref, Path: path, Message: msg})
	}
	return v
}

// readKubelets reads the kubelet version of each node: of the cluster c,
// else of the kind file. Nodes that cannot be listed are noted.
func (o *checkOptions) readKubelets(c *cluster.Cluster, r *report.Report) error {
	o.clients.Kubelets = o.gates.Kubelets()
	if c == nil {
		return nil
	}
	kubelets, err := c.Kubelets(context.Background())
	if errors.Is(err, cluster.ErrNodesForbidden) {
		r.Say(manifest.Document{Source: "nodes"}, report.Finding{Severity: report.Note, Message: err.Error()})
		return nil
	}
	o.clients.Kubelets = kubelets
	return err
}

// planClients judges the clients of the cluster: each node's kubelet,
// each field manager of its DRA objects, each deprecated version
// requested; and says the steps of the change in order when anything is
// to be done.
func (o *checkOptions) planClients(source cluster.Live, r *report.Report, refused bool) {
	for _, q := range source.Requested {
		o.clients.Requested = append(o.clients.Requested, judge.Request(q))
	}
	target := o.cluster
	target.Minor = cmp.Or(o.beyond, target.Minor) // judged by 1.38's flags, served as upstream stops serving
	plan := judge.PlanChange(o.clients, source.Cluster, target, refused)
	for _, at := range slices.Sorted(maps.Keys(plan.Findings)) {
		for _, f := range plan.Findings[at] {
			r.Say(manifest.Document{Source: at}, f)
		}
	}
	r.Clients = plan.Rows
	if refused || len(plan.Findings) > 0 {
		r.Steps = plan.Steps
	}
}

// clusterScoped are the DRA kinds without a namespace.
var clusterScoped = []string{api.KindDeviceClass, api.KindResourceClass, api.KindResourceSlice, api.KindDeviceTaintRule}

// judgeStream judges each object of a YAML stream from source; a
// namespaced one without a namespace is in namespace, as helm install -n
// puts it, unless namespace is "".
func (o *checkOptions) judgeStream(r *report.Report, source, data, namespace string) error {
	docs, err := manifest.Parse(source, []byte(data))
	if err != nil {
		return err
	}
	for _, doc := range docs {
		meta := api.Metadata(doc.Object)
		if ns, _ := meta["namespace"].(string); namespace != "" && meta != nil && ns == "" && !slices.Contains(clusterScoped, fmt.Sprint(doc.Object["kind"])) {
			meta["namespace"] = namespace
		}
		o.judge(r, doc)
	}
	return nil
}

// judge adds to r the verdict of the target release on doc's DRA object
// (and on each item of a typed list), created as validate --to judges it;
// an object of another group is not counted.
func (o *checkOptions) judge(r *report.Report, doc manifest.Document) {
	if _, group, _, _, _ := api.TypeOf(doc.Object); !api.IsGroup(group) && api.GroupTypo(doc.Object) == "" {
		return
	}
	items, err := typedItems(doc)
	if err != nil {
		r.Add(doc, checkedAs([]report.Finding{unusable(doc, err)}))
		return
	}
	for _, doc := range items {
		if v, ok := o.judgeCreate(doc); ok {
			r.Add(doc, v)
		} else if o.supported(r, doc, "") {
			r.Add(doc, o.check(doc, nil))
		}
	}
}
