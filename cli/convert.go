package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math/big"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"sigs.k8s.io/yaml"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/conversion"
	"github.com/claimbridge/claimbridge/gacheck"
	"github.com/claimbridge/claimbridge/manifest"
	"github.com/claimbridge/claimbridge/migrate"
)

type convertOptions struct {
	to        string
	filenames []string
	output    string
	quiet     bool
}

func newConvertCommand(s streams) *cobra.Command {
	o := &convertOptions{output: "yaml"}
	cmd := &cobra.Command{
		Use:   "convert --to VERSION -f FILE|- [-f FILE ...] [-o yaml|json] [--quiet]",
		Short: "Convert ResourceClaim and ResourceClaimTemplate manifests between v1alpha1, v1alpha2, v1alpha3, v1beta1, v1beta2 and v1",
		Long: `Convert reads YAML or JSON manifests (multi-document streams, kind: List,
files, directories and standard input) and converts every ResourceClaim and
ResourceClaimTemplate of group resource.claimbridge.dev or resource.k8s.io to
the requested version, keeping its group. Every other object is passed through
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
per-device parameters, handles of other drivers; classic DRA claims and
allocations, status that a create discards, limits and admin-access rules of
1.32+ ...), a warning is printed on standard error, one line each, as every command
prints them:

  <file>: document N (line L): warning: <Kind> ns/name: <path>: <what the target release does>

phrased for the release serving the target version. So is every rule of
that release the converted object breaks (the checks of claimbridge
validate for v1alpha1-v1alpha3, migrate's for v1beta1, v1beta2 and v1):
migrate refuses such objects, convert writes them and says so. Warnings
do not change the exit code; --quiet silences the notes (objects passed
through, pods rewritten), never the warnings. Check GA output with
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
named, in input order, and with more than one a last line counts them.`,
		Example: `  # Migrate a Kubernetes 1.30 claim to the 1.31 shape
  claimbridge convert --to v1alpha3 -f claim-v1alpha2.yaml

  # Show a Kubernetes 1.26 claim in what 1.34+ clusters serve (to create it there, use migrate)
  claimbridge convert --to v1 -f claim-v1alpha1.yaml

  # Convert everything in a directory and print one JSON List
  claimbridge convert --to v1alpha1 -f manifests/ -o json`,
		Args: filesOnlyByFlag,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return o.run(s)
		},
	}
	o.addFlags(cmd)
	cmd.Flags().BoolVarP(&o.quiet, "quiet", "q", false, "do not print notes (objects passed through, pods rewritten); warnings are always printed")
	return cmd
}

// addFlags adds the flags convert and migrate share: --to, -f and -o.
func (o *convertOptions) addFlags(cmd *cobra.Command) {
	cmd.Flags().StringVar(&o.to, "to", "", "target version: "+strings.Join(conversion.ChainVersions, ", ")+" (required; the last three for resource.k8s.io only)")
	cmd.Flags().StringArrayVarP(&o.filenames, "filename", "f", nil, "file, directory or - for standard input (repeatable, required)")
	cmd.Flags().StringVarP(&o.output, "output", "o", o.output, "output format: yaml or json")
}

func (o *convertOptions) run(s streams) error {
	if err := o.validate(); err != nil {
		return withCode(ExitBadInput, err)
	}
	// Each object is converted and encoded as it is read; what is printed
	// waits until every document has been read (see recorder).
	var (
		notes    recorder
		warnings []string
		objects  = objectWriter{format: o.output}
		failed   = failures{w: notes.to(s.err)}
		seen     = sourcesSeen{}
	)
	visit := func(doc manifest.Document) error {
		defer afterDocument()
		seen.add(doc)
		noteTo := notes.to(s.err)
		if o.quiet {
			noteTo = io.Discard
		}
		out, ws, err := convertDocument(doc, o.to, noteTo)
		if err != nil {
			failed.add(err)
			return nil
		}
		for _, w := range ws {
			warnings = append(warnings, warningLine(doc.Position(), w))
		}
		objects.add(out, doc)
		return nil
	}
	if err := manifest.Each(o.filenames, s.in, visit); err != nil {
		return withCode(ExitBadInput, err)
	}
	notes.replay()
	if err := failed.result("converted"); err != nil {
		return err
	}
	if err := noObjects(o.filenames, seen); err != nil {
		return withCode(ExitBadInput, err)
	}
	if objects.err != nil {
		return withCode(ExitInvalid, objects.err)
	}
	// Warnings say what the target release rejects or does otherwise:
	// --quiet silences the notes, never these.
	for _, w := range warnings {
		fmt.Fprintln(s.err, w)
	}
	if err := objects.writeTo(s.out); err != nil {
		return withCode(ExitInvalid, fmt.Errorf("writing the output: %w", err))
	}
	return nil
}

func (o *convertOptions) validate() error {
	switch {
	case o.to == "":
		return fmt.Errorf("--to is required (one of %s)", strings.Join(conversion.ChainVersions, ", "))
	case !isVersion(o.to):
		return fmt.Errorf("--to %q: unsupported version (supported: %s)", o.to, strings.Join(conversion.ChainVersions, ", "))
	case len(o.filenames) == 0:
		return fmt.Errorf("at least one -f is required (a file, a directory or - for standard input)")
	case o.output != "yaml" && o.output != "json":
		return fmt.Errorf("-o %q: unsupported output format (supported: yaml, json)", o.output)
	}
	return nil
}

func isVersion(v string) bool { return slices.Contains(conversion.ChainVersions, v) }

// warningLine is the line every command prints for warning w
// ("<Kind> ns/name: <path>: <message>") about the object at position.
func warningLine(position, w string) string {
	return position + ": warning: " + w
}

// convertDocument converts a claim or template, and passes anything else
// through (passThrough). The warnings are phrased for the release serving
// to, each field once.
func convertDocument(doc manifest.Document, to string, notes io.Writer) (map[string]interface{}, []string, error) {
	group, from, kind, err := conversion.Identify(doc.Object)
	if err != nil {
		if errors.Is(err, conversion.ErrNewerV1alpha3) {
			return nil, nil, fmt.Errorf("%s: %w", doc.Position(), err)
		}
		if err := mistakenClaimError(doc, err); err != nil {
			return nil, nil, err
		}
		return passThrough(doc, to, err, notes)
	}
	out, ws, err := conversion.ConvertWithWarnings(doc.Object, to)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", doc.Position(), err)
	}
	unknown, err := unknownFieldWarnings(doc, group, from, kind, to)
	if err != nil {
		return nil, nil, err
	}
	all := append(unknown, ws...)
	all = append(all, targetWarnings(doc.Object, out, group, from, kind, to)...)
	return out, formatWarnings(all, to), nil
}

// formatWarnings renders ws for version to, each field of an object once:
// a field that two conversion steps lose is one loss for the user.
func formatWarnings(ws []conversion.Warning, to string) []string {
	type field struct{ kind, object, path string }
	seen := map[field]bool{}
	var out []string
	for _, w := range ws {
		f := field{w.Kind, w.Object, w.Path}
		if seen[f] {
			continue
		}
		seen[f] = true
		out = append(out, w.For(to))
	}
	return out
}

// convertWorkload gives a Pod or workload the resourceClaims shape of the
// release serving to, as migrate does. What is rewritten is a note; what the
// target cannot hold, and pod spec fields it lacks, are warnings.
func convertWorkload(doc manifest.Document, to string, notes io.Writer) (map[string]interface{}, []string, error) {
	out, r, ok := migrate.Workload(doc.Object, to)
	if !ok {
		out = doc.Object
	}
	who := api.Describe(doc.Object)
	for _, c := range r.Changed {
		fmt.Fprintf(notes, "%s: %s: changed %s\n", doc.Position(), who, c)
	}
	var ws []string
	for _, l := range r.Lost {
		ws = append(ws, who+": "+l+" (not kept: claimbridge keeps restore data for claims and templates only)")
	}
	for _, e := range append(migrate.NameErrors(out), migrate.ClaimRefErrors(out)...) {
		ws = append(ws, who+": "+e+": the apiserver rejects this object")
	}
	for _, e := range migrate.PodFieldErrors(out, to) {
		ws = append(ws, who+": "+e+": "+migrate.PodFieldConsequence)
	}
	for _, w := range migrate.PodFieldWarnings(out, to) {
		ws = append(ws, who+": "+w)
	}
	return out, ws, nil
}

// mistakenClaimError refuses doc, which conversion.Identify refused with err,
// when it is most likely a claim or template with a wrong apiVersion or kind
// (api.MistakenClaim). It is nil for any other object.
func mistakenClaimError(doc manifest.Document, err error) error {
	kind, ok := api.MistakenClaim(doc.Object)
	if !ok {
		return nil
	}
	return fmt.Errorf("%s: %s: not converted: %v%s", doc.Position(), api.Describe(doc.Object), err, kindHint(doc.Object, kind))
}

// kindHint names the kind meant when obj's is spelt otherwise.
func kindHint(obj map[string]interface{}, kind string) string {
	if k, _ := obj["kind"].(string); k != kind {
		return fmt.Sprintf(" (did you mean kind %s?)", kind)
	}
	return ""
}

// unknownFieldWarnings warns of spec and status fields of doc's claims and
// templates that their own version does not have. Conversion keeps them only
// in a restore annotation, so the converted object does not ask for them (a
// 1.31 body labelled v1alpha2 becomes a claim without requests).
func unknownFieldWarnings(doc manifest.Document, group, from, kind, to string) ([]conversion.Warning, error) {
	alpha := func(v string) bool { return slices.Contains(api.ServedVersions, v) }
	if from == to || !alpha(from) && !alpha(to) {
		// Between GA versions such fields are carried as they are.
		return nil, nil
	}
	// From a GA version they are carried to v1beta1, whose annotation keeps them.
	kept := from
	if !alpha(from) {
		kept = conversion.V1beta1
	}
	objects, prefix := []map[string]interface{}{doc.Object}, func(int) string { return "" }
	if strings.HasSuffix(kind, "List") {
		items, err := typedListItems(doc, kind)
		if err != nil {
			return nil, err
		}
		objects, prefix = items, func(i int) string { return fmt.Sprintf("items[%d].", i) }
	}
	var ws []conversion.Warning
	for i, obj := range objects {
		// Unknown fields elsewhere are carried as they are.
		paths := slices.DeleteFunc(migrate.UnknownFields(obj), func(p string) bool {
			return !strings.HasPrefix(p, "spec.") && !strings.HasPrefix(p, "status.")
		})
		for _, p := range paths {
			ws = append(ws, conversion.Warning{
				Kind: strings.TrimSuffix(kind, "List"), Object: api.Ref(obj),
				From: from, To: to, Path: prefix(i) + p,
				Message: fmt.Sprintf("unknown field in %s/%s: kept only in the %s annotation, so the converted object does not carry it%s",
					group, from, conversion.RestoreAnnotation(kept), shapeHint(p, paths)),
			})
		}
	}
	return ws, nil
}

// shapeHint is the hint on unknown field p's shape, or else on that of the
// other paths.
func shapeHint(p string, paths []string) string {
	if hint := migrate.ShapeHint([]string{p}); hint != "" {
		return hint
	}
	return migrate.ShapeHint(paths)
}

// readsBack returns an error when data, obj written as YAML, does not read
// back as obj: a number a float64 cannot hold, or a string sigs.k8s.io/yaml
// garbles (U+0085 becomes a space; a key "<<" is a merge key). Numbers
// compare by value.
func readsBack(obj map[string]interface{}, data []byte) error {
	want, err := jsonTree(json.Marshal(obj))
	if err != nil {
		return err
	}
	got, err := jsonTree(yaml.YAMLToJSON(data))
	if err != nil {
		return fmt.Errorf("its YAML does not read back: %w", err)
	}
	return sameTree(want, got, "")
}

func jsonTree(data []byte, err error) (interface{}, error) {
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v interface{}
	err = dec.Decode(&v)
	return v, err
}

func sameTree(want, got interface{}, path string) error {
	switch w := want.(type) {
	case map[string]interface{}:
		g, ok := got.(map[string]interface{})
		if !ok {
			break
		}
		for _, k := range slices.Sorted(maps.Keys(w)) {
			gv, ok := g[k]
			if !ok {
				return fmt.Errorf("%s: missing when YAML is read back", joinPath(path, k))
			}
			if err := sameTree(w[k], gv, joinPath(path, k)); err != nil {
				return err
			}
		}
		for _, k := range slices.Sorted(maps.Keys(g)) {
			if _, ok := w[k]; !ok {
				return fmt.Errorf("%s: added when YAML is read back", joinPath(path, k))
			}
		}
		return nil
	case []interface{}:
		g, ok := got.([]interface{})
		if !ok || len(g) != len(w) {
			break
		}
		for i := range w {
			if err := sameTree(w[i], g[i], fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
		return nil
	case json.Number:
		if g, ok := got.(json.Number); ok && sameNumber(w, g) {
			return nil
		}
	default: // a string, bool or nil
		if want == got {
			return nil
		}
	}
	return fmt.Errorf("%s: %s reads back from YAML as %s", path, show(want), show(got))
}

func sameNumber(a, b json.Number) bool {
	x, okX := new(big.Rat).SetString(a.String())
	y, okY := new(big.Rat).SetString(b.String())
	return okX && okY && x.Cmp(y) == 0
}

func joinPath(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func show(v interface{}) string {
	switch v := v.(type) {
	case json.Number:
		return "the number " + v.String()
	case string:
		return fmt.Sprintf("the string %q", v)
	case map[string]interface{}:
		return "an object"
	case []interface{}:
		return "an array"
	case nil:
		return "null"
	}
	return fmt.Sprint(v)
}

// passThrough returns an object convert does not convert, which Identify
// refused with why: Pods and workloads get the target's resourceClaims
// shape. What the release serving to rejects gets a warning: a
// resource.k8s.io object of a version or kind it does not serve, a name it
// refuses, a DeviceClass it finds invalid, a misspelt group, a pod field it
// lacks. Other kinds of the claim groups get a note.
func passThrough(doc manifest.Document, to string, why error, notes io.Writer) (map[string]interface{}, []string, error) {
	_, group, version, kind, _ := api.TypeOf(doc.Object)
	who := api.Describe(doc.Object)
	if notServed := migrate.NotServed(doc.Object, to); notServed != "" {
		w := who + ": " + notServed + ", passed through unchanged"
		if strings.HasSuffix(kind, "Class") || strings.HasSuffix(kind, "Parameters") {
			w += " (claimbridge migrate rewrites classes and parameters for it)"
		}
		return doc.Object, []string{w}, nil
	}
	if group == api.UpstreamGroup {
		errs := migrate.NameErrors(doc.Object)
		if migrate.IsDeviceClass(doc.Object) && slices.Contains(conversion.GAVersions, version) {
			errs = append(errs, gacheck.DeviceClassErrors(doc.Object)...)
		}
		var ws []string
		for _, e := range errs {
			ws = append(ws, who+": "+e+": the apiserver rejects this object, passed through unchanged")
		}
		if len(ws) > 0 {
			return doc.Object, ws, nil
		}
	}
	if api.IsGroup(group) {
		fmt.Fprintf(notes, "%s: passed through unchanged: %v\n", doc.Position(), why)
	}
	if typo := groupTypo(doc.Object); typo != "" {
		return doc.Object, []string{who + ": " + typo + " (passed through unchanged; no cluster serves that group)"}, nil
	}
	if migrate.IsWorkload(doc.Object) {
		return convertWorkload(doc, to, notes)
	}
	return doc.Object, nil, nil
}

// targetWarnings are the warnings about out, the conversion of in, as a
// whole: devices of a classic DRA driver, and every rule of the release
// serving to that out breaks (migrate refuses such output).
func targetWarnings(in, out map[string]interface{}, group, from, kind, to string) []conversion.Warning {
	items, outItems := []map[string]interface{}{in}, []map[string]interface{}{out}
	prefix := func(int) string { return "" }
	if strings.HasSuffix(kind, "List") {
		items, outItems = listItems(in), listItems(out)
		if len(items) != len(outItems) {
			return nil
		}
		prefix = func(i int) string { return fmt.Sprintf("items[%d].", i) }
	}
	itemKind := strings.TrimSuffix(kind, "List")
	release := conversion.Release(to)
	var ws []conversion.Warning
	for i := range items {
		w := conversion.Warning{Kind: itemKind, Object: api.Ref(outItems[i]), From: from, To: to}
		if c := migrate.ClassicWarning(items[i], from, itemKind, to); c != "" {
			w.Path, w.Message, _ = strings.Cut(c, ": ")
			w.Path = prefix(i) + w.Path
			ws = append(ws, w)
		}
		if group != conversion.UpstreamGroup && slices.Contains(conversion.GAVersions, to) {
			continue
		}
		errs, err := migrate.TargetErrors(outItems[i], to, itemKind)
		if err != nil {
			continue // conversion said what cannot be read
		}
		for _, e := range errs {
			w.Path, w.Message, _ = strings.Cut(e, ": ")
			w.Path = prefix(i) + w.Path
			w.Message += fmt.Sprintf(": a Kubernetes %s apiserver rejects this object", release)
			ws = append(ws, w)
		}
	}
	return ws
}

// listItems are the objects among the items of a typed list.
func listItems(list map[string]interface{}) []map[string]interface{} {
	var out []map[string]interface{}
	items, _ := list["items"].([]interface{})
	for _, it := range items {
		if m, ok := it.(map[string]interface{}); ok {
			out = append(out, m)
		}
	}
	return out
}
