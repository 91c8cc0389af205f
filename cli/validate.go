package cli

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/conversion"
	"github.com/claimbridge/claimbridge/defaulting"
	"github.com/claimbridge/claimbridge/gacheck"
	"github.com/claimbridge/claimbridge/manifest"
	"github.com/claimbridge/claimbridge/validation"
)

type validateOptions struct {
	filenames   []string
	old         string
	subResource string
	quiet       bool
}

func newValidateCommand(s streams) *cobra.Command {
	o := &validateOptions{}
	cmd := &cobra.Command{
		Use:   "validate -f FILE|- [-f FILE ...] [--old FILE] [--subresource status] [--quiet]",
		Short: "Validate ResourceClaim and ResourceClaimTemplate manifests as the claimbridge webhook would",
		Long: `Validate reads YAML or JSON manifests (multi-document streams, kind: List,
typed lists, files, directories and standard input) and checks every
ResourceClaim and ResourceClaimTemplate of group resource.claimbridge.dev or
resource.k8s.io (v1alpha1, v1alpha2, v1alpha3) with the rules of the
Kubernetes release that served that version, after the upstream defaults.
Other objects are skipped, but a claim or template of a version that cannot
be one (resource.k8s.io/v1alpha4, a version resource.claimbridge.dev does not
serve), of a misspelt kind (ResourceClaims) or of a misspelt group
(resource.k8s.oi) is reported as not checked (exit 1). An object without metadata.namespace is checked as if in namespace
"default" (kubectl takes it from its context).

Claims and templates of resource.k8s.io v1beta1, v1beta2 and v1 get every
create rule of the release that serves the version (1.32, 1.33, 1.36). They
are checked as creates only: with --old, their old objects are skipped. Check
an update of those versions on the cluster:
  kubectl replace --dry-run=server [--subresource=status] -f FILE

Without --old, every object is validated as a create (its status is ignored,
as the API server drops it). With --old, objects are validated as updates of
the matching old object (same kind, namespace and name; a single old object
pairs with a single new one); --subresource status validates a write to the
status subresource instead of the main resource. A claimbridge claim written
through the main resource first gets what the defaulting webhook does to the
status data of its restore annotations (removed on a create, the old object's
kept on an update: a restored backup), with the same warning.

Each finding is printed on standard output as
  <position>: <Kind> <namespace>/<name>: <path>: <type>: <value>: <detail>
and warnings on standard error. Fields the version does not have are
reported as "unknown field".

Exit status: 0 all valid, 1 some object invalid, 2 unusable input.`,
		Example: `  # Check a claim before applying it to a 1.31-shaped cluster
  claimbridge validate -f claim.yaml

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
	cmd.Flags().StringArrayVarP(&o.filenames, "filename", "f", nil, "file, directory or - for standard input (repeatable, required)")
	cmd.Flags().StringVar(&o.old, "old", "", "file with the stored objects: validate the input as updates of them")
	cmd.Flags().StringVar(&o.subResource, "subresource", "", `"status" to validate updates of the status subresource (needs --old)`)
	cmd.Flags().BoolVarP(&o.quiet, "quiet", "q", false, "do not print notes (objects skipped); findings and warnings are always printed")
	return cmd
}

func (o *validateOptions) validate() error {
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
	// Each object is checked as it is read, but output waits for the whole
	// input (see recorder): first the GA objects' (gaOut), then the notes on
	// skipped objects, then the other findings (checked). With --old, the
	// others are checked once the old objects are read.
	var (
		gaOut, skipped, checked recorder
		later                   storedDocuments // with --old
		r                       validateResult
		readErr                 error // a typed list that cannot be read
		seen                    = sourcesSeen{}
	)
	visit := func(doc manifest.Document) error {
		defer afterDocument()
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
			if version, kind := gacheck.Version(doc.Object); version != "" {
				invalid, unusable := checkGA(doc, version, kind, gaOut.to(s.out), gaOut.to(s.err))
				r.gaInvalid, r.unusable = r.gaInvalid || invalid, r.unusable || unusable
				continue
			}
			notes := skipped.to(s.err)
			if o.quiet {
				notes = io.Discard
			}
			if ok, mistaken := supportedDocument(doc, skipped.to(s.out), notes, ""); !ok {
				r.mistaken = r.mistaken || mistaken
				continue
			}
			if o.old != "" {
				if err := later.add(doc); err != nil {
					return err
				}
				continue
			}
			invalid, unusable := o.check(doc, nil, checked.to(s.out), checked.to(s.err))
			r.invalid, r.unusable = r.invalid || invalid, r.unusable || unusable
		}
		return nil
	}
	if err := manifest.Each(o.filenames, s.in, visit); err != nil {
		return withCode(ExitBadInput, err)
	}
	if readErr != nil {
		return withCode(ExitBadInput, readErr)
	}
	if err := noObjects(o.filenames, seen); err != nil {
		return withCode(ExitBadInput, err)
	}
	gaOut.replay()
	skipped.replay()
	if o.old != "" {
		oldDocs, err := readItems([]string{o.old}, s.in)
		if err != nil {
			return withCode(ExitBadInput, err)
		}
		// Old objects are not validated: a mistaken one is only noted (an
		// update it was meant for finds no old object and says so).
		var olds []manifest.Document
		for _, doc := range oldDocs {
			notes := s.err
			if o.quiet {
				notes = io.Discard
			}
			if ok, _ := supportedDocument(doc, s.err, notes, "old "); ok {
				olds = append(olds, doc)
			}
		}
		pairs := oldPairs{olds: olds, byIdentity: indexOld(olds), single: len(later.docs) == 1 && len(olds) == 1}
		for doc, err := range later.all() {
			if err != nil {
				return withCode(ExitBadInput, err)
			}
			invalid, unusable := o.check(doc, &pairs, s.out, s.err)
			r.invalid, r.unusable = r.invalid || invalid, r.unusable || unusable
		}
	}
	checked.replay()
	switch {
	case r.unusable:
		return withCode(ExitBadInput, errors.New(""))
	case r.invalid || r.mistaken || r.gaInvalid:
		return withCode(ExitInvalid, errors.New(""))
	}
	return nil
}

// validateResult is what validate's findings make of its exit status.
type validateResult struct {
	invalid   bool // an object is invalid
	mistaken  bool // a claim or template of a version or kind that cannot be one
	gaInvalid bool // a resource.k8s.io v1beta1, v1beta2 or v1 object is invalid
	unusable  bool // an object cannot be checked (malformed, no old object)
}

// check validates doc, a claim or template of a version validation
// supports, as a create, or with pairs as an update of its old object:
// findings on out, warnings and why it cannot be checked on errOut.
func (o *validateOptions) check(doc manifest.Document, pairs *oldPairs, out, errOut io.Writer) (invalid, unusable bool) {
	req := validation.Request{Operation: validation.Create, Object: validation.WithGeneratedName(api.InDefaultNamespace(doc.Object))}
	if pairs != nil {
		old, err := pairs.find(doc)
		if err != nil {
			fmt.Fprintf(errOut, "%s: %s: %v\n", doc.Position(), api.Describe(doc.Object), err)
			return false, true
		}
		req = validation.Request{Operation: validation.Update, SubResource: o.subResource, Object: api.InDefaultNamespace(doc.Object), OldObject: api.InDefaultNamespace(old.Object)}
	}
	_, group, version, kind, _ := api.TypeOf(doc.Object)
	var kept []string
	if group == api.Group && kind == api.KindClaim && req.SubResource == "" {
		// As the defaulting webhook stores it; /validate sees the old
		// object in the new one's version.
		if _, _, oldVersion, _, _ := api.TypeOf(req.OldObject); req.OldObject != nil && oldVersion != version {
			if converted, err := conversion.Convert(req.OldObject, version); err == nil {
				req.OldObject = converted
			}
		}
		req.Object, kept = defaulting.KeepStoredStatusRestoreData(req.Object, req.OldObject, version)
	}
	resp, err := validation.Validate(req)
	if err != nil {
		fmt.Fprintf(errOut, "%s: %s: %v\n", doc.Position(), api.Describe(doc.Object), err)
		return false, true
	}
	upstream := group == conversion.UpstreamGroup
	for _, w := range append(kept, resp.Warnings...) {
		if upstream && strings.HasPrefix(w, validation.StorageWarningPrefix) {
			continue // about claimbridge's CRD storage, which a resource.k8s.io object never reaches
		}
		fmt.Fprintln(errOut, warningLine(doc.Position(), api.Describe(doc.Object)+": "+w))
	}
	if pairs == nil {
		statusIgnored(doc, errOut)
	}
	for _, e := range resp.Errors {
		fmt.Fprintf(out, "%s: %s: %s\n", doc.Position(), api.Describe(doc.Object), e.Error())
	}
	return len(resp.Errors) > 0, false
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

// typedItems is doc, or its items when it is a typed list.
func typedItems(doc manifest.Document) ([]manifest.Document, error) {
	_, _, kind, err := conversion.Identify(doc.Object)
	if err != nil || !strings.HasSuffix(kind, "List") {
		return []manifest.Document{doc}, nil
	}
	if items, ok := doc.Object["items"].([]interface{}); !ok && doc.Object["items"] != nil {
		return nil, fmt.Errorf("%s: the items of the %s are not an array", doc.Position(), kind)
	} else if len(items) == 0 {
		return nil, nil
	}
	items, err := typedListItems(doc, kind)
	if err != nil {
		return nil, err
	}
	out := make([]manifest.Document, len(items))
	for i, item := range items {
		out[i] = doc.InItem(i, item)
	}
	return out, nil
}

// typedListItems returns copies of the items of doc, a typed list of kind,
// with the list's apiVersion and item kind where they have none.
func typedListItems(doc manifest.Document, kind string) ([]map[string]interface{}, error) {
	items, _ := doc.Object["items"].([]interface{})
	out := make([]map[string]interface{}, 0, len(items))
	for i, it := range items {
		item, ok := it.(map[string]interface{})
		if !ok {
			return nil, fmt.Errorf("%s: items[%d] of the %s is not an object", doc.Position(), i, kind)
		}
		item = maps.Clone(item)
		if _, ok := item["apiVersion"]; !ok {
			item["apiVersion"] = doc.Object["apiVersion"]
		}
		if _, ok := item["kind"]; !ok {
			item["kind"] = strings.TrimSuffix(kind, "List")
		}
		out = append(out, item)
	}
	return out, nil
}

// checkGA checks doc, a resource.k8s.io v1beta1, v1beta2 or v1 object, as a
// create: findings on out, warnings and shape errors on errOut.
func checkGA(doc manifest.Document, version, kind string, out, errOut io.Writer) (invalid, unusable bool) {
	if err := conversion.CheckShape(doc.Object); err != nil {
		fmt.Fprintf(errOut, "%s: %v\n", doc.Position(), err)
		return false, true
	}
	errs, warnings := gacheck.Check(doc.Object, version, kind)
	for _, w := range warnings {
		fmt.Fprintln(errOut, warningLine(doc.Position(), api.Describe(doc.Object)+": "+w))
	}
	statusIgnored(doc, errOut)
	for _, e := range errs {
		fmt.Fprintf(out, "%s: %s: %s\n", doc.Position(), api.Describe(doc.Object), e)
	}
	return len(errs) > 0, false
}

// supportedDocument reports whether validation checks doc, and notes a
// skipped object on errOut. A mistaken claim or template (api.MistakenClaim)
// is reported as invalid on report instead, and mistaken is true.
func supportedDocument(doc manifest.Document, report, errOut io.Writer, what string) (ok, mistaken bool) {
	if validation.IsSupported(doc.Object) {
		return true, false
	}
	if kind, ok := api.MistakenClaim(doc.Object); ok {
		_, _, _, err := conversion.Identify(doc.Object)
		fmt.Fprintf(report, "%s: %s%s: not checked: %v%s\n", doc.Position(), what, api.Describe(doc.Object), err, kindHint(doc.Object, kind))
		return false, true
	}
	if typo := groupTypo(doc.Object); typo != "" {
		fmt.Fprintf(report, "%s: %s%s: not checked: %s\n", doc.Position(), what, api.Describe(doc.Object), typo)
		return false, true
	}
	apiVersion, _ := doc.Object["apiVersion"].(string)
	if version, _ := gacheck.Version(doc.Object); version != "" {
		// Only old objects get here: checkGA checked the new ones.
		fmt.Fprintf(errOut, "%s: skipping %sobject %s %s: %s %s claims and templates are checked as creates only; "+
			"to check an update, send it to the cluster: kubectl replace --dry-run=server -f FILE\n",
			doc.Position(), what, apiVersion, api.Describe(doc.Object), api.UpstreamGroup, version)
		return false, false
	}
	alpha := api.ServedVersions[0] + "-" + api.ServedVersions[len(api.ServedVersions)-1]
	upstream := alpha
	if what == "" {
		upstream += ", " + strings.Join(conversion.GAVersions, ", ")
	}
	fmt.Fprintf(errOut, "%s: skipping %sobject %s %s: not a %s or %s of %s %s or %s %s\n",
		doc.Position(), what, apiVersion, api.Describe(doc.Object), api.KindClaim, api.KindTemplate, api.Group, alpha,
		api.UpstreamGroup, upstream)
	return false, false
}

// oldPairs pairs the objects validated as updates with their old objects.
type oldPairs struct {
	olds       []manifest.Document
	byIdentity map[objectIdentity]int // indexOld's
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

// indexOld maps each identity to its first old object.
func indexOld(olds []manifest.Document) map[objectIdentity]int {
	m := make(map[objectIdentity]int, len(olds))
	for i, old := range olds {
		if _, ok := m[identity(old.Object)]; !ok {
			m[identity(old.Object)] = i
		}
	}
	return m
}

type objectIdentity struct{ kind, namespace, name string }

func identity(obj map[string]interface{}) objectIdentity {
	kind, _ := obj["kind"].(string)
	namespace, name, _ := api.Meta(obj)
	return objectIdentity{kind, namespace, name}
}

// statusIgnored notes that a claim's status was not checked, as an apiserver
// ignores the status of a create, and says how to check it.
func statusIgnored(doc manifest.Document, errOut io.Writer) {
	if _, _, _, kind, _ := api.TypeOf(doc.Object); kind != api.KindClaim {
		return
	}
	if status, ok := doc.Object["status"].(map[string]interface{}); !ok || len(status) == 0 {
		return
	}
	check := "claimbridge validate -f " + sourceArg(doc.Source) + " --old STORED.yaml --subresource status"
	if version, _ := gacheck.Version(doc.Object); version != "" {
		check = "kubectl replace --dry-run=server --subresource=status -f " + sourceArg(doc.Source)
	}
	fmt.Fprintf(errOut, "%s: %s: note: status not validated: an apiserver ignores the status of a create; "+
		"to check a status write, send it as an update of the stored claim: %s\n",
		doc.Position(), api.Describe(doc.Object), check)
}

// sourceArg is source as an -f argument.
func sourceArg(source string) string {
	if source == manifest.Stdin {
		return "-"
	}
	return source
}
