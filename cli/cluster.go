package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/cluster"
	"github.com/claimbridge/claimbridge/manifest"
	"github.com/claimbridge/claimbridge/report"
)

func newExportCommand(s streams) *cobra.Command {
	var kubeconfig, kubeContext, output string
	cmd := &cobra.Command{
		Use:   "export [--kubeconfig FILE] [--context NAME] [-o yaml|json]",
		Short: "Read a cluster's DRA objects and the workloads that use them, as a List for migrate",
		Long: `Export reads the DRA objects that claimbridge migrate re-creates and the
Pods and workloads that use claims, from the cluster of the kubeconfig's
context, and writes them whole as one kind: List (see docs/clusters.md).
Exit status: 0 written; 1 the cluster could not be read; 2 bad flags or kubeconfig.`,
		Example: `  claimbridge export --context old > old.yaml
  claimbridge migrate -f old.yaml --target-context new --verify > new.yaml`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			if output != "yaml" && output != "json" {
				return withCode(ExitBadInput, fmt.Errorf("-o %q: unsupported output format (supported: yaml, json)", output))
			}
			c, err := cluster.Connect(kubeconfig, kubeContext, s.err)
			if err != nil {
				return withCode(ExitBadInput, err)
			}
			list := manifest.ListWriter{Format: output}
			if err := c.Export(context.Background(), terminal(s.err), list.Add); err != nil {
				return withCode(ExitInvalid, err)
			}
			return withCode(ExitInvalid, list.Flush(s.out))
		},
	}
	cmd.Flags().StringVar(&kubeconfig, "kubeconfig", "", "kubeconfig file (default: $KUBECONFIG, else ~/.kube/config)")
	cmd.Flags().StringVar(&kubeContext, "context", "", "kubeconfig context (default: its current context)")
	cmd.Flags().StringVarP(&output, "output", "o", "yaml", "output format: yaml or json")
	return cmd
}

// terminal is stderr's file when it is a terminal, for a progress line
// (written as it is: it holds only counts and resource names), else nil.
func terminal(stderr io.Writer) io.Writer {
	e, _ := stderr.(controlEscaper)
	if f, _ := e.w.(*os.File); f != nil {
		if fi, err := f.Stat(); err == nil && fi.Mode()&os.ModeCharDevice != 0 {
			return f
		}
	}
	return nil
}

// clusterFlags are convert's and migrate's flags for the target cluster:
// its kubeconfig and context, whose discovery gives --to when it is not
// given, --verify and --apply.
type clusterFlags struct {
	kubeconfig, context string
	verify, apply       bool
	target              *cluster.Cluster
	// live is the target cluster's release with the feature gates and
	// versions it runs with.
	live    *api.Cluster
	objects []map[string]interface{} // the output, for --verify and --apply
	docs    []manifest.Document      // where each came from (without its Object)
}

func (f *clusterFlags) addTo(cmd *cobra.Command) {
	fs := cmd.Flags()
	fs.StringVar(&f.kubeconfig, "target-kubeconfig", "", "kubeconfig of the target cluster (default: $KUBECONFIG, else ~/.kube/config)")
	fs.StringVar(&f.context, "target-context", "", "kubeconfig context of the target cluster (default: its current context); without --to, its release is the target")
	fs.BoolVar(&f.verify, "verify", false, "send each output object to the target cluster as a server-side dry-run create and report its answer (rejected: exit 1)")
	fs.BoolVar(&f.apply, "apply", false, "server-side apply the output to the target cluster (field manager claimbridge): classes and parameters, then claims and templates, then the rest")
}

// resolve connects to the target cluster, if one is named or --to is
// "cluster", and sets *to from it when it is empty or "cluster".
func (f *clusterFlags) resolve(to *string, quiet bool, notes io.Writer) error {
	fromCluster := *to == "cluster" // the target cluster, by its current context if none is named
	if f.kubeconfig == "" && f.context == "" && !fromCluster {
		if f.verify || f.apply {
			return withCode(ExitBadInput, errors.New("--verify and --apply need the target cluster: --target-context or --target-kubeconfig"))
		}
		return nil
	}
	var err error
	if f.target, err = cluster.Connect(f.kubeconfig, f.context, notes); err != nil {
		return withCode(ExitBadInput, fmt.Errorf("the target cluster: %w", err))
	}
	live, err := readLive(f.target, quiet, notes)
	if err != nil {
		return withCode(ExitBadInput, fmt.Errorf("the target cluster: %w", err))
	}
	f.live = &live.Cluster
	if *to != "" && !fromCluster {
		return nil
	}
	t, err := f.target.Target()
	if err != nil {
		return withCode(ExitInvalid, fmt.Errorf("the target cluster: %w", err))
	}
	*to = t.Version
	if r, ok := api.ParseRelease(t.Release); ok && r.Version == t.Version {
		*to = t.Release // judged by its own rules
	}
	if !quiet {
		fmt.Fprintf(notes, "target: Kubernetes %s, %s/%s (from the target cluster)\n", t.Release, api.UpstreamGroup, t.Version)
	}
	return nil
}

// add keeps an output object, written for doc, for --verify and --apply.
func (f *clusterFlags) add(obj map[string]interface{}, doc manifest.Document) {
	if f.verify || f.apply {
		doc.Object = nil
		f.objects, f.docs = append(f.objects, obj), append(f.docs, doc)
	}
}

// send verifies and applies the objects kept, as the flags ask, and adds
// the target cluster's answer to each to r. Nothing is applied when the
// cluster rejects any object in a dry run first.
func (f *clusterFlags) send(r *report.Report) {
	ctx := context.Background()
	if f.verify && f.answers(r, "accepted (server-side dry run)", func(answer func(int, error)) { f.target.Create(ctx, f.objects, true, answer) }) > 0 {
		return
	}
	if !f.apply || f.answers(r, "", func(answer func(int, error)) { f.target.Apply(ctx, f.objects, true, answer) }) > 0 {
		return
	}
	f.answers(r, "applied (server-side apply, field manager "+cluster.FieldManager+")", func(answer func(int, error)) { f.target.Apply(ctx, f.objects, false, answer) })
}

// answers runs ask and reports each answer as it comes: accepted as a note
// (unless accepted is ""), a rejection as an error per cause. It returns
// the number of objects rejected.
func (f *clusterFlags) answers(r *report.Report, accepted string, ask func(answer func(int, error))) (rejected int) {
	ask(func(i int, err error) {
		switch {
		case err != nil:
			rejected++
			for _, msg := range cluster.Findings(err) {
				r.Say(f.docs[i], about(f.objects[i], report.Error, msg))
			}
		case accepted != "":
			r.Say(f.docs[i], about(f.objects[i], report.Note, accepted))
		}
	})
	return rejected
}
