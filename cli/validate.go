package cli

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/cluster"
	"github.com/claimbridge/claimbridge/conversion"
	"github.com/claimbridge/claimbridge/judge"
	"github.com/claimbridge/claimbridge/manifest"
	"github.com/claimbridge/claimbridge/migrate"
	"github.com/claimbridge/claimbridge/report"
	"github.com/claimbridge/claimbridge/validation"
)

type validateOptions struct {
	filenames   []string
	recursive   bool
	old         string
	subResource string
	to          string
	// beyond is the target when it is the release after the newest of
	// api.Releases (to is then the newest); 0 otherwise.
	beyond int
	// cluster is the target with its feature gates and served versions
	// (gates), when to is set.
	cluster api.Cluster
	gates   cluster.GateFlags
	cel     *validation.CELCache // the run's compiled CEL selectors
	report.Options
}

func newValidateCommand(s streams) *cobra.Command {
	o := &validateOptions{cel: validation.NewCELCache()}
	cmd := &cobra.Command{
		Use:   "validate -f FILE|- [-f FILE ...] [--to RELEASE] [--old FILE] [--subresource status] [--quiet]",
		Short: "Validate DRA claims, templates, DeviceClasses, ResourceSlices and DeviceTaintRules as an apiserver would",
		Long: `Validate checks every ResourceClaim and ResourceClaimTemplate of group
resource.claimbridge.dev or resource.k8s.io in the input with the rules of
the Kubernetes release that serves its version, after the upstream
defaults, as the claimbridge webhook or that release's apiserver would.
DeviceClasses, ResourceSlices and DeviceTaintRules of resource.k8s.io
(v1alpha3, v1beta1, v1beta2, v1), ResourceClasses (v1alpha1, v1alpha2) and
1.30's ResourceSlices, ResourceClaimParameters and ResourceClassParameters
(v1alpha2) are checked as creates in the same way.
Other objects are skipped.

Without --old, every object is checked as a create. With --old, objects
are checked as updates of the stored object of the same kind, namespace and
name; --subresource status checks a write to the status subresource.
resource.k8s.io v1beta1, v1beta2 and v1 objects are checked as creates only.

With --to RELEASE (` + api.ReleaseRange() + `), every object is judged as that release's
apiserver would on a create: one of a version it does not serve is invalid;
one of a version it serves as deprecated gets a warning. The release after
the newest (` + api.Next() + `) is judged by the newest's rules and the
versions upstream stops serving in it.
--to alone means the release's default feature gates and served versions
(from 1.34 the beta versions are not served); --feature-gates and
--runtime-config (kube-apiserver's syntax) or --cluster-config (a kind or
kubeadm file) describe your cluster instead.

Each finding is printed on standard output as
  <position>: <Kind> <namespace>/<name>: <path>: <type>: <value>: <detail>
and warnings on standard error. docs/validation.md lists the rules;
docs/cli.md covers the input and the report.

Exit status: 0 all valid, 1 some object invalid (or, with --strict, a
warning), 2 unusable input.`,
		Example: `  # Check a claim before applying it to a 1.31-shaped cluster
  claimbridge validate -f claim.yaml

  # Check in CI that manifests work on a 1.33 cluster, with a JSON report
  claimbridge validate --to 1.33 -f manifests/ --report json --report-file report.json

  # Check a status update of a stored claim
  claimbridge validate -f claim-new.yaml --old claim-stored.yaml --subresource status`,
		Args: filesOnlyByFlag,
		RunE: func(cmd *cobra.Command, _ []string) error {
			// Its standard output is a report quoting names and field
			// paths from the input, not a manifest: escaped as standard
			// error is (controlEscaper).
			s.out = controlEscaper{s.out}
			return o.run(s)
		},
	}
	addFilenameFlags(cmd, &o.filenames, &o.recursive)
	cmd.Flags().StringVar(&o.old, "old", "", "file with the stored objects: validate the input as updates of them")
	cmd.Flags().StringVar(&o.subResource, "subresource", "", `"status" to validate updates of the status subresource (needs --old)`)
	cmd.Flags().StringVar(&o.to, "to", "", "judge by the rules of this release ("+api.ReleaseRange()+", the one after, or a cluster's version: v1.33.4, v1.33.4-eks-a1b2c3d) instead of those of each object's version")
	o.gates.AddFlags(cmd.Flags())
	o.Options.AddFlags(cmd.Flags(), "objects skipped")
	return cmd
}

func (o *validateOptions) validate() error {
	if err := cmp.Or(o.Options.Validate(), o.setGates()); err != nil {
		return err
	}
	if len(o.filenames) == 0 {
		return errors.New("at least one -f/--filename is required")
	}
	if o.old == manifest.Stdin && slices.Contains(o.filenames, manifest.Stdin) {
		return fmt.Errorf("-f - and --old -: %w", manifest.ErrStdinTwice)
	}
	switch o.subResource {
	case "":
	case "status":
		if o.old == "" {
			return errors.New("--subresource status needs --old")
		}
	default:
		return fmt.Errorf("unsupported --subresource %q: the only subresource is status", o.subResource)
	}
	return nil
}

func (o *validateOptions) run(s streams) error {
	if err := o.validate(); err != nil {
		return withCode(ExitBadInput, err)
	}
	o.beyondNote(s.err, "")
	// The report lists first the GA objects' findings, then the skipped
	// objects, then the other findings (checked).
	ga, skipped, checked := o.newReport(), o.newReport(), o.newReport()
	later, err := o.judgeAll(s.in, ga, skipped, checked)
	if err == nil && o.old != "" {
		err = o.checkUpdates(later, skipped, s.in)
	}
	if err != nil {
		return withCode(ExitBadInput, err)
	}
	r := o.newReport()
	r.Merge(ga, skipped, checked)
	if err := r.Write(s.err, s.out); err != nil {
		return withCode(ExitBadInput, fmt.Errorf("writing the report: %w", err))
	}
	if code := exitCode(r); code != ExitOK {
		return withCode(code, errors.New(""))
	}
	return nil
}

// judgeAll judges each object of the input as it is read, on every core,
// and adds the verdicts in input order. With --old, it judges only the
// objects checked as creates and returns the others (later), to be checked
// once the old objects are read.
func (o *validateOptions) judgeAll(stdin io.Reader, ga, skipped, checked *report.Report) (*storedDocuments, error) {
	var (
		later   = &storedDocuments{}
		readErr error // a typed list that cannot be read
		seen    = sourcesSeen{}
		// The objects being judged, at most two per core, in input order.
		window   = make(chan chan func(), 2*runtime.GOMAXPROCS(0))
		reported = make(chan struct{})
	)
	go func() {
		for next := range window {
			(<-next)()
		}
		close(reported)
	}()
	judge := func(doc manifest.Document) func() {
		if v, ok := o.judgeCreate(doc); ok {
			return func() { ga.Add(doc, v) }
		}
		skip := o.newReport()
		if !o.supported(skip, doc, "") {
			return func() { skipped.Merge(skip) }
		}
		v := o.check(doc, nil)
		return func() { checked.Add(doc, v) }
	}
	visit := func(doc manifest.Document) error {
		defer documentDone()
		if readErr != nil {
			return nil // only a document that cannot be read is said now
		}
		seen.add(doc)
		items, err := typedItems(doc)
		if err != nil {
			readErr = err
			return nil
		}
		for _, doc := range items {
			if o.old == "" {
				next := make(chan func(), 1)
				window <- next
				go func() { next <- judge(doc) }()
				continue
			}
			if v, ok := o.judgeCreate(doc); ok {
				ga.Add(doc, v)
			} else if o.supported(skipped, doc, "") {
				if err := later.add(doc); err != nil {
					return err
				}
			}
		}
		return nil
	}
	err := manifest.EachIn(o.filenames, o.recursive, stdin, visit)
	close(window)
	<-reported
	return later, cmp.Or(err, readErr, noObjects(o.filenames, seen))
}

// checkUpdates checks the objects of later as updates of their old objects
// (--old), adding the verdicts, and the notes on old objects skipped, to
// skipped.
func (o *validateOptions) checkUpdates(later *storedDocuments, skipped *report.Report, stdin io.Reader) error {
	oldDocs, err := readItems([]string{o.old}, stdin)
	if err != nil {
		return err
	}
	olds := o.newReport()
	pairs := oldPairs{byIdentity: map[objectIdentity]int{}}
	for _, doc := range oldDocs {
		if !o.supported(olds, doc, "old ") {
			continue
		}
		if _, ok := pairs.byIdentity[identity(doc.Object)]; !ok { // the first of an identity wins
			pairs.byIdentity[identity(doc.Object)] = len(pairs.olds)
		}
		pairs.olds = append(pairs.olds, doc)
	}
	skipped.Merge(olds)
	pairs.single = len(later.docs) == 1 && len(pairs.olds) == 1
	for doc, err := range later.all() {
		if err != nil {
			return err
		}
		skipped.Add(doc, o.check(doc, &pairs))
	}
	return nil
}

// judgeCreate is the verdict on doc's object as a create by its release
// (or that of --to): a resource.k8s.io claim or template of v1beta1,
// v1beta2 or v1, a DeviceClass, ResourceSlice or DeviceTaintRule, or
// another resource.k8s.io kind the release does not serve; false for the
// objects validation.Validate judges and those it skips.
func (o *validateOptions) judgeCreate(doc manifest.Document) (report.Verdict, bool) {
	if version, kind := judge.Version(doc.Object); version != "" {
		return o.removed(doc, o.checkGA(doc, version, kind)), true
	}
	if version, kind := judge.KindOf(doc.Object); version != "" {
		// A DeviceClass, ResourceSlice or DeviceTaintRule.
		return o.removed(doc, o.gaVerdict(doc, judge.KindRelease(version, kind), kind, judge.CheckKind)), true
	}
	if _, mistaken := api.MistakenClaim(doc.Object); !mistaken && !validation.IsSupported(doc.Object) {
		if f, ok := o.notServed(doc); ok {
			return checkedAs([]report.Finding{f}), true
		}
	}
	return report.Verdict{}, false
}

// guardCEL keeps the CEL selectors the upgrade guard compiled.
var guardCEL = validation.NewCELCache()

// guardJudge is validate --to's verdict on one object for cluster c
// (beyond: the release after the newest judged by c, or 0), for serve's
// upgrade guard: the messages of its errors and of its warnings, word for
// word as validate prints them after the object's name.
func guardJudge(obj map[string]interface{}, c api.Cluster, beyond int) (errs, warnings []string) {
	o := &validateOptions{to: fmt.Sprintf("1.%d", c.Minor), beyond: beyond, cluster: c, cel: guardCEL}
	doc := manifest.Document{Object: obj}
	v, ok := o.judgeCreate(doc)
	if !ok && o.supported(o.newReport(), doc, "") {
		v = o.check(doc, nil)
	}
	for _, f := range v.Findings {
		switch f.Severity {
		case report.Error:
			errs = append(errs, f.Message)
		case report.Warning:
			warnings = append(warnings, f.Message)
		}
	}
	return errs, warnings
}

func (o *validateOptions) newReport() *report.Report {
	return &report.Report{Options: o.Options, Command: "validate", Release: o.target()}
}

// setTarget sets the target to release: one of api.Releases (as the report
// names it: "1.33" for v1.33.4+k3s1), or the one after the newest (beyond).
func (o *validateOptions) setTarget(release string) error {
	r, ok := api.ParseRelease(release)
	newest, next, beyond := api.ParseNext(release)
	if o.beyond = 0; beyond {
		r, ok, o.beyond = newest, true, next
	}
	if !ok {
		return fmt.Errorf("%q: not a release claimbridge can judge by (%s, and 1.%d by the rules of %s and upstream's announced removals)",
			release, api.ReleaseRange(), next, newest)
	}
	o.to, o.cluster = r.String(), api.Defaults(r.Minor)
	return nil
}

// setGates sets the target of --to, or else of --cluster-config, with the
// feature gates and versions the flags tell.
func (o *validateOptions) setGates() error {
	release, emulated, err := o.gates.Release()
	if err != nil {
		return err
	}
	o.to = cmp.Or(emulated, o.to, release) // mid-upgrade, the release emulated
	if o.to == "" {
		if o.gates.Told() {
			return errors.New("--feature-gates, --runtime-config and --cluster-config need --to: gates are a release's")
		}
		return nil
	}
	if err := o.setTarget(o.to); err != nil {
		return fmt.Errorf("--to %w", err)
	}
	return o.gates.Apply(&o.cluster)
}

// target names the release judged by.
func (o *validateOptions) target() string {
	if o.beyond != 0 {
		return fmt.Sprintf("1.%d", o.beyond)
	}
	return o.to
}

// beyondNote says on notes, in a text report, which release is judged
// (after what, when not "") and, for one not out or beyond the newest, how.
func (o *validateOptions) beyondNote(notes io.Writer, what string) {
	r, _ := api.ParseRelease(o.to)
	if o.Quiet || o.Format != "text" {
		return
	}
	switch {
	case o.beyond != 0:
		fmt.Fprintf(notes, "target: Kubernetes 1.%d%s (by the rules and gates of %s, the newest claimbridge knows, and the versions upstream stops serving in 1.%d)\n", o.beyond, what, r.Named(), o.beyond)
	case r.Pre != "":
		fmt.Fprintf(notes, "target: Kubernetes %s%s, as its pre-release's sources tell\n", r.Named(), what)
	case what != "":
		fmt.Fprintf(notes, "target: Kubernetes %s%s\n", o.to, what)
	}
}

// removed is, when the target is the release in which upstream stops
// serving doc's version, the verdict that says so, in place of v;
// otherwise v. (One that an earlier release stopped serving, the target's
// rules reject already.)
func (o *validateOptions) removed(doc manifest.Document, v report.Verdict) report.Verdict {
	_, group, version, kind, _ := api.TypeOf(doc.Object)
	target, _ := api.ParseMinor(o.target())
	if _, removed := api.Lifecycle(version, kind); group != api.UpstreamGroup || target == 0 || removed != target {
		return v
	}
	msg := fmt.Sprintf("apiVersion: Kubernetes 1.%d no longer serves %s/%s %s: its apiserver rejects this object", target, group, version, kind)
	return checkedAs([]report.Finding{about(doc.Object, report.Error, msg)})
}

// checkedAs is the verdict of a check with findings fs: invalid with an
// error, unusable (the error is Malformed) when the object cannot be
// checked.
func checkedAs(fs []report.Finding) report.Verdict {
	v := report.Verdict{Outcome: report.Valid, Findings: fs}
	if slices.ContainsFunc(fs, func(f report.Finding) bool { return f.Severity == report.Error }) {
		v.Outcome = report.Invalid
	}
	return v
}

// about is a finding about obj.
func about(obj map[string]interface{}, severity, msg string) report.Finding {
	kind, ref, _ := strings.Cut(api.Describe(obj), " ")
	return report.Finding{Severity: severity, Kind: kind, Object: ref, Message: msg}
}

// unusable is the finding on doc's object that cannot be checked for err.
func unusable(doc manifest.Document, err error) report.Finding {
	f := about(doc.Object, report.Error, err.Error())
	f.Malformed = true
	return f
}

// notServed is the finding on an object of a version that the release of
// --to does not serve; "" without --to or when it serves it (a beta beside
// its own version too, by upstream's lifecycle).
func (o *validateOptions) notServed(doc manifest.Document) (report.Finding, bool) {
	if o.to == "" {
		return report.Finding{}, false
	}
	target, _ := migrate.TargetOf(o.target())
	target.Cluster = o.cluster
	// A claimbridge CRD object is judged by the CRD of the release's
	// claimbridge, which serves every alpha version.
	_, group, version, kind, _ := api.TypeOf(doc.Object)
	if group != api.UpstreamGroup || o.cluster.Serves(version, kind) {
		return report.Finding{}, false
	}
	if o.cluster.Has(version, kind) { // served with --runtime-config
		return about(doc.Object, report.Error, judge.NotServed(o.cluster, version, kind).Error()), true
	}
	msg := migrate.NotServed(doc.Object, target)
	return about(doc.Object, report.Error, msg), msg != ""
}

func (o *validateOptions) check(doc manifest.Document, pairs *oldPairs) report.Verdict {
	if f, ok := o.notServed(doc); ok {
		return checkedAs([]report.Finding{f})
	}
	req := validation.Request{Operation: validation.Create, Object: doc.Object, CEL: o.cel}
	if pairs != nil {
		old, err := pairs.find(doc)
		if err != nil {
			return checkedAs([]report.Finding{unusable(doc, err)})
		}
		req = validation.Request{Operation: validation.Update, SubResource: o.subResource, Object: doc.Object, OldObject: old.Object, CEL: o.cel}
	}
	_, group, _, _, _ := api.TypeOf(doc.Object)
	resp, err := validation.Admit(req)
	if err != nil { // an object that does not decode is invalid: the file was read
		return checkedAs([]report.Finding{about(doc.Object, report.Error, err.Error())})
	}
	var fs []report.Finding
	for _, w := range resp.Warnings {
		if group == api.UpstreamGroup && strings.HasPrefix(w, validation.StorageWarningPrefix) {
			continue // about claimbridge's CRD storage, which a resource.k8s.io object never reaches
		}
		fs = append(fs, about(doc.Object, report.Warning, w))
	}
	if pairs == nil {
		fs = append(fs, statusIgnored(doc)...)
	}
	for _, e := range resp.Errors {
		fs = append(fs, about(doc.Object, report.Error, e.Error()))
	}
	return checkedAs(fs)
}

// readItems reads the sources, with the items of a typed list in its place,
// as kubectl creates them.
func readItems(sources []string, stdin io.Reader) ([]manifest.Document, error) {
	docs, err := manifest.ReadAll(sources, stdin)
	if err != nil {
		return nil, err
	}
	var out []manifest.Document
	for _, doc := range docs {
		items, err := typedItems(doc)
		if err != nil {
			return nil, err
		}
		out = append(out, items...)
	}
	return out, nil
}

// typedItems is doc, or its items when it is a typed list (migrate.KindList too).
func typedItems(doc manifest.Document) ([]manifest.Document, error) {
	if _, _, kind, err := conversion.Identify(doc.Object); (err != nil || !strings.HasSuffix(kind, "List")) && !migrate.KindList(doc.Object) {
		return []manifest.Document{doc}, nil
	}
	items, err := migrate.ListItems(doc.Object)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", doc.Position(), err)
	}
	out := make([]manifest.Document, len(items))
	for i, item := range items {
		out[i] = doc.InItem(i, item)
	}
	return out, nil
}

// checkGA checks doc, a resource.k8s.io v1beta1, v1beta2 or v1 object, as a
// create.
func (o *validateOptions) checkGA(doc manifest.Document, version, kind string) report.Verdict {
	if f, ok := o.notServed(doc); ok {
		return checkedAs([]report.Finding{f})
	}
	if err := conversion.CheckShape(doc.Object); err != nil { // invalid, as a DeviceClass that does not decode
		return checkedAs([]report.Finding{{Severity: report.Error, Message: err.Error()}})
	}
	release, _ := api.Judge(version)
	return o.gaVerdict(doc, release.Minor, kind, judge.Check)
}

// gaVerdict is the verdict on doc, of kind, of a judge's check as a create
// by the cluster of --to, or else by release at its defaults, with its
// deprecation when --to names the release.
func (o *validateOptions) gaVerdict(doc manifest.Document, release int, kind string, check func(map[string]interface{}, api.Cluster, string) (errs, warnings []string)) report.Verdict {
	c := o.cluster
	if o.to == "" {
		c = api.Defaults(release)
	}
	errs, warnings := check(doc.Object, c, kind)
	var fs []report.Finding
	if o.to != "" { // without --to there is no target whose lifecycle counts
		fs = deprecated(doc.Object, c)
	}
	for _, w := range warnings {
		fs = append(fs, about(doc.Object, report.Warning, w))
	}
	fs = append(fs, statusIgnored(doc)...)
	for _, e := range errs {
		fs = append(fs, about(doc.Object, report.Error, e))
	}
	return checkedAs(fs)
}

// supported reports whether validation checks doc, and reports a skipped
// object on r: a mistaken claim or template (api.MistakenClaim, a misspelt
// group) as invalid, any other with a note.
func (o *validateOptions) supported(r *report.Report, doc manifest.Document, what string) bool {
	if validation.IsSupported(doc.Object) {
		return true
	}
	who := what + api.Describe(doc.Object)
	invalid := func(msg string) {
		v := report.Verdict{Outcome: report.Invalid, Findings: []report.Finding{{Severity: report.Error, Message: who + ": not checked: " + msg}}}
		if what != "" { // an old object: only a note
			v.Outcome, v.Findings[0].Severity = report.Skipped, report.Note
		}
		r.Add(doc, v)
	}
	if _, _, _, err := conversion.Identify(doc.Object); err != nil {
		if msg, ok := migrate.MistakenClaim(doc.Object, err); ok {
			invalid(msg)
			return false
		}
	}
	if typo := api.GroupTypo(doc.Object); typo != "" {
		invalid(typo)
		return false
	}
	apiVersion, _ := doc.Object["apiVersion"].(string)
	note := func(msg string) {
		r.Add(doc, report.Verdict{Outcome: report.Skipped, Findings: []report.Finding{{Severity: report.Note,
			Message: fmt.Sprintf("skipping %sobject %s %s: %s", what, apiVersion, api.Describe(doc.Object), msg)}}})
	}
	if version, _ := judge.Version(doc.Object); version != "" {
		// Only old objects get here: checkGA checked the new ones.
		note(fmt.Sprintf("%s %s claims and templates are checked as creates only; "+
			"to check an update, send it to the cluster: kubectl replace --dry-run=server -f FILE", api.UpstreamGroup, version))
		return false
	}
	if _, group, _, _, _ := api.TypeOf(doc.Object); !api.IsGroup(group) {
		note("not a DRA object")
		return false
	}
	alpha := api.ServedVersions[0] + "-" + api.ServedVersions[len(api.ServedVersions)-1]
	upstream := alpha
	if what == "" {
		upstream += ", " + strings.Join(api.UpstreamOnlyVersions, ", ")
	}
	note(fmt.Sprintf("not a %s or %s of %s %s or %s %s", api.KindClaim, api.KindTemplate, api.Group, alpha, api.UpstreamGroup, upstream))
	return false
}

// oldPairs pairs the objects validated as updates with their old objects.
type oldPairs struct {
	olds       []manifest.Document
	byIdentity map[objectIdentity]int // the first old object of each identity
	single     bool                   // both sides hold exactly one object
}

// find pairs doc with its old object: the only one when both sides hold one,
// else the first with the same kind, namespace and name.
func (p *oldPairs) find(doc manifest.Document) (manifest.Document, error) {
	if p.single {
		return p.olds[0], nil
	}
	if i, ok := p.byIdentity[identity(doc.Object)]; ok {
		return p.olds[i], nil
	}
	return manifest.Document{}, errors.New("no old object with the same kind, namespace and name")
}

type objectIdentity struct{ kind, namespace, name string }

func identity(obj map[string]interface{}) objectIdentity {
	kind, _ := obj["kind"].(string)
	namespace, name, _ := api.Meta(obj)
	return objectIdentity{kind, namespace, name}
}

// statusIgnored notes that a claim's status was not checked, as an apiserver
// ignores the status of a create, and says how to check it.
func statusIgnored(doc manifest.Document) []report.Finding {
	if _, _, _, kind, _ := api.TypeOf(doc.Object); kind != api.KindClaim {
		return nil
	}
	if status, ok := doc.Object["status"].(map[string]interface{}); !ok || len(status) == 0 {
		return nil
	}
	check := "claimbridge validate -f " + doc.Source + " --old STORED.yaml --subresource status"
	if version, _ := judge.Version(doc.Object); version != "" {
		check = "kubectl replace --dry-run=server --subresource=status -f " + doc.Source
	}
	return []report.Finding{about(doc.Object, report.Note, "note: status not validated: an apiserver ignores the status of a create; "+
		"to check a status write, send it as an update of the stored claim: "+check)}
}
