package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"sigs.k8s.io/yaml"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/cluster"
)

func newExportCommand(s streams) *cobra.Command {
	var kubeconfig, context, output string
	cmd := &cobra.Command{
		Use:   "export [--kubeconfig FILE] [--context NAME] [-o yaml|json]",
		Short: "Read a cluster's DRA objects and the workloads that use them, as a List for migrate",
		Long: `Export reads, from the cluster of the kubeconfig's context, every object
that claimbridge migrate re-creates, and writes them as one kind: List:

  - of resource.k8s.io, every ResourceClaim, ResourceClaimTemplate,
    ResourceClass, DeviceClass, ResourceClaimParameters and
    ResourceClassParameters, each kind in the first version the cluster
    serves it in, the preferred version first (any release 1.26-1.37);
  - every object of resource.claimbridge.dev, when the cluster serves it;
  - the Pods, PodTemplates, ReplicationControllers, Deployments,
    ReplicaSets, StatefulSets, DaemonSets, Jobs and CronJobs whose pod spec
    has resourceClaims.

Objects are written whole: migrate drops what a re-creation must not
carry. ResourceSlices and PodSchedulingContexts are not read: the new
cluster's drivers and scheduler make their own. Lists are read 500 objects
a request; on a terminal, a progress line is printed on standard error.

Exit status: 0 written; 1 the cluster could not be read; 2 bad flags or
kubeconfig.`,
		Example: `  # Export the DRA objects of the cluster of context old, then migrate them
  claimbridge export --context old > old.yaml
  claimbridge migrate -f old.yaml --target-context new --verify > new.yaml`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			if output != "yaml" && output != "json" {
				return withCode(ExitBadInput, fmt.Errorf("-o %q: unsupported output format (supported: yaml, json)", output))
			}
			c, err := cluster.Connect(kubeconfig, context)
			if err != nil {
				return withCode(ExitBadInput, err)
			}
			list := listWriter{format: output}
			if err := c.Export(contextOf(), cluster.ExportOptions{Progress: terminal(s.err)}, list.add); err != nil {
				return withCode(ExitInvalid, err)
			}
			return withCode(ExitInvalid, list.writeTo(s.out))
		},
	}
	cmd.Flags().StringVar(&kubeconfig, "kubeconfig", "", "kubeconfig file (default: $KUBECONFIG, else ~/.kube/config)")
	cmd.Flags().StringVar(&context, "context", "", "kubeconfig context (default: its current context)")
	cmd.Flags().StringVarP(&output, "output", "o", "yaml", "output format: yaml or json")
	return cmd
}

// contextOf is the context of a command's requests to clusters.
func contextOf() context.Context { return context.Background() }

// terminal is stderr's file when it is a terminal, for a progress line
// (written as it is: it holds only counts and resource names), else nil.
func terminal(stderr io.Writer) io.Writer {
	if e, ok := stderr.(controlEscaper); ok {
		if f, ok := e.w.(*os.File); ok {
			if fi, err := f.Stat(); err == nil && fi.Mode()&os.ModeCharDevice != 0 {
				return f
			}
		}
	}
	return nil
}

// listWriter encodes objects into one v1 List as each is read, holding
// bytes, not objects: what yaml.Marshal of the whole List writes, or
// json.MarshalIndent's four-space indentation without HTML escaping, as
// kubectl get -o yaml|json.
type listWriter struct {
	format string
	buf    bytes.Buffer // the items so far, as they are written
	n      int
}

func (w *listWriter) add(obj map[string]interface{}) error {
	defer func() { w.n++ }()
	if w.format == "json" {
		var data bytes.Buffer
		enc := json.NewEncoder(&data)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(obj); err != nil {
			return err
		}
		if w.n > 0 {
			w.buf.WriteString(",")
		}
		w.buf.WriteString("\n" + itemIndent)
		var ind bytes.Buffer
		_ = json.Indent(&ind, bytes.TrimSuffix(data.Bytes(), []byte("\n")), itemIndent, "    ") // encoding/json's own output
		w.buf.Write(escapeJSONControls(ind.Bytes()))
		return nil
	}
	data, err := yaml.Marshal(obj)
	if err == nil {
		err = readsBack(obj, data)
	}
	if err != nil {
		return fmt.Errorf("%s cannot be written as YAML: %w; use -o json", api.Describe(obj), err)
	}
	// An item of the List: "- " before its first line, its other lines
	// indented by two spaces (yaml.Marshal does not indent a sequence
	// under a key).
	for i, line := range bytes.SplitAfter(bytes.TrimSuffix(data, []byte("\n")), []byte("\n")) {
		switch {
		case i == 0:
			w.buf.WriteString("- ")
		case len(line) > 1:
			w.buf.WriteString("  ")
		}
		w.buf.Write(line)
	}
	w.buf.WriteString("\n")
	return nil
}

func (w *listWriter) writeTo(out io.Writer) error {
	head, tail := "apiVersion: v1\nitems:\n", "kind: List\nmetadata:\n  resourceVersion: \"\"\n"
	switch {
	case w.format == "json" && w.n > 0:
		head, tail = listHead, "\n    "+listTail
	case w.format == "json":
		head, tail = listHead, listTail
	case w.n == 0:
		head = "apiVersion: v1\nitems: []\n"
	}
	_, err := io.WriteString(out, head)
	if err == nil {
		_, err = out.Write(w.buf.Bytes())
	}
	if err == nil {
		_, err = io.WriteString(out, tail)
	}
	return err
}

// clusterFlags are convert's and migrate's flags for the target cluster:
// its kubeconfig and context, whose discovery gives --to when it is not
// given, --verify and --apply.
type clusterFlags struct {
	kubeconfig, context string
	verify, apply       bool
	target              *cluster.Cluster
	objects             []map[string]interface{} // the output, for --verify and --apply
	positions           []string
}

func (f *clusterFlags) addTo(cmd *cobra.Command) {
	fs := cmd.Flags()
	fs.StringVar(&f.kubeconfig, "target-kubeconfig", "", "kubeconfig of the target cluster (default: $KUBECONFIG, else ~/.kube/config)")
	fs.StringVar(&f.context, "target-context", "", "kubeconfig context of the target cluster (default: its current context); without --to, its newest resource.k8s.io version is the target")
	fs.BoolVar(&f.verify, "verify", false, "send each output object to the target cluster as a server-side dry-run create and report its answer (rejected: exit 1)")
	fs.BoolVar(&f.apply, "apply", false, "server-side apply the output to the target cluster (field manager claimbridge): classes and parameters, then claims and templates, then the rest")
}

// resolve connects to the target cluster, if one is named, and sets *to
// from it when empty.
func (f *clusterFlags) resolve(to *string, notes io.Writer) error {
	if f.kubeconfig == "" && f.context == "" {
		if f.verify || f.apply {
			return withCode(ExitBadInput, errors.New("--verify and --apply need the target cluster: --target-context or --target-kubeconfig"))
		}
		return nil
	}
	var err error
	if f.target, err = cluster.Connect(f.kubeconfig, f.context); err != nil {
		return withCode(ExitBadInput, fmt.Errorf("the target cluster: %w", err))
	}
	if *to != "" {
		return nil
	}
	t, err := f.target.Target()
	if err != nil {
		return withCode(ExitInvalid, fmt.Errorf("the target cluster: %w", err))
	}
	*to = t.Version
	fmt.Fprintf(notes, "target: Kubernetes %s, %s/%s (from the target cluster)\n", t.Release, api.UpstreamGroup, t.Version)
	return nil
}

// add keeps an output object, each item of a typed List, for --verify and
// --apply.
func (f *clusterFlags) add(obj map[string]interface{}, position string) {
	if !f.verify && !f.apply {
		return
	}
	if kind, _ := obj["kind"].(string); strings.HasSuffix(kind, "List") {
		items, _ := obj["items"].([]interface{})
		for i, it := range items {
			if item, ok := it.(map[string]interface{}); ok {
				f.add(item, fmt.Sprintf("%s, items[%d]", position, i))
			}
		}
		return
	}
	f.objects, f.positions = append(f.objects, obj), append(f.positions, position)
}

// send verifies and applies the objects kept, as the flags ask, and reports
// the target cluster's answer to each on w. Nothing is applied when the
// cluster rejects any object in a dry run first.
func (f *clusterFlags) send(w io.Writer) error {
	ctx := contextOf()
	if f.verify {
		if n := f.report(w, f.target.Verify(ctx, f.objects), "accepted (server-side dry run)"); n > 0 {
			return withCode(ExitInvalid, fmt.Errorf("the target cluster rejects %d of %d objects", n, len(f.objects)))
		}
	}
	if !f.apply {
		return nil
	}
	if n := f.report(w, f.target.Apply(ctx, f.objects, true), ""); n > 0 {
		return withCode(ExitInvalid, fmt.Errorf("the target cluster rejects %d of %d objects in a dry run: nothing was applied", n, len(f.objects)))
	}
	if n := f.report(w, f.target.Apply(ctx, f.objects, false), "applied (server-side apply, field manager "+cluster.FieldManager+")"); n > 0 {
		return withCode(ExitInvalid, fmt.Errorf("%d of %d objects could not be applied", n, len(f.objects)))
	}
	return nil
}

// report prints each answer, in input order: accepted (unless accepted is
// ""), or each finding of a rejection as a warning; and the cluster's
// warnings. It returns the number of rejections.
func (f *clusterFlags) report(w io.Writer, answers []cluster.Answer, accepted string) int {
	rejected := 0
	for i, a := range answers {
		desc := api.Describe(f.objects[i])
		for _, text := range a.Warnings {
			if accepted == "" && a.Err == nil {
				break // a dry run before the writes: they warn again
			}
			fmt.Fprintln(w, warningLine(f.positions[i], desc+": the target cluster warns: "+text))
		}
		if a.Err == nil {
			if accepted != "" {
				fmt.Fprintf(w, "%s: %s: %s\n", f.positions[i], desc, accepted)
			}
			continue
		}
		rejected++
		for _, finding := range cluster.Findings(a.Err) {
			fmt.Fprintln(w, warningLine(f.positions[i], desc+": "+finding))
		}
	}
	return rejected
}
