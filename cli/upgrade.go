package cli

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/report"
	"github.com/claimbridge/claimbridge/upgrade"
	"github.com/claimbridge/claimbridge/validation"
)

type upgradeOptions struct {
	checkOptions
	dryRun, yes, stopPods    bool
	journal, journalNS, save string
}

func newUpgradeCommand(s streams) *cobra.Command {
	o := &upgradeOptions{checkOptions: checkOptions{live: true, validateOptions: validateOptions{cel: validation.NewCELCache()}}}
	cmd := &cobra.Command{
		Use:   "upgrade --to RELEASE [--kubeconfig FILE] [--context NAME] [--dry-run | --yes]",
		Short: "Do the steps of check's plan that are claimbridge's, and say the operator's",
		Long: `Upgrade reads the cluster as check does, plans its change in place to
--to, and does in order each step that is claimbridge's: it rewrites every
stored object of a resource the target cannot read as stored, once
kube-apiserver stores what the target reads; where no rewrite helps, it saves
the objects to --save FILE, deletes them, and re-creates them on the target.
At a step that is the operator's (restart kube-apiserver with a flag, stop
Pods without --stop-pods, replace the control plane) it stops, says it and
what it looks for, and exits 3: do it, then run upgrade again. Run on the target release, it rewrites again what it
rewrote, as the target writes it, and verifies that it reads every DRA object.

A journal records each step done: the ConfigMap claimbridge-upgrade in
--journal-namespace, or --journal FILE. A run again, also after an
interruption, continues where the last one stopped. Nothing is written
without --yes or a yes on the terminal; --dry-run writes nothing and lists
every step and every object a step would write or delete.

Exit status: 0 done (with --dry-run: listed), 1 a step failed or the target
rejects an object, 2 bad flags or an unreadable cluster, 3 the next step is
the operator's.`,
		Example: `  # What a rollback of the cluster of context prod to 1.33 takes
  claimbridge upgrade --context prod --to 1.33 --dry-run

  # Do it, step by step: run again after each of the operator's steps
  claimbridge upgrade --context prod --to 1.33 --yes`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error { return o.run(s) },
	}
	cmd.Flags().StringVar(&o.kubeconfig, "kubeconfig", "", "kubeconfig file (default: $KUBECONFIG, else ~/.kube/config)")
	cmd.Flags().StringVar(&o.context, "context", "", "kubeconfig context (default: its current context)")
	cmd.Flags().StringVar(&o.to, "to", "", "the release to change to ("+api.ReleaseRange()+")")
	cmd.Flags().BoolVar(&o.dryRun, "dry-run", false, "write nothing: list the steps and every object a step would write or delete")
	cmd.Flags().BoolVar(&o.yes, "yes", false, "write without asking")
	cmd.Flags().StringVar(&o.save, "save", "", "where the change saves and re-creates objects, save them to this file first")
	cmd.Flags().BoolVar(&o.stopPods, "stop-pods", false, "stop (delete) the Pods that hold the claims the change deletes, unless a controller would start one again")
	cmd.Flags().StringVar(&o.journal, "journal", "", "keep the journal in this file instead of the cluster")
	cmd.Flags().StringVar(&o.journalNS, "journal-namespace", "kube-system", "the namespace of the journal's ConfigMap, claimbridge-upgrade")
	o.gates.AddFlags(cmd.Flags())
	o.Options.AddFlags(cmd.Flags(), "the target's, on the objects")
	_ = cmd.MarkFlagRequired("to")
	return cmd
}

func (o *upgradeOptions) run(s streams) error {
	ctx := context.Background()
	if err := o.setTarget(o.to); err != nil {
		return withCode(ExitBadInput, fmt.Errorf("--to %w", err))
	}
	if err := o.Options.Validate(); err != nil {
		return withCode(ExitBadInput, err)
	}
	o.patch = api.ParsePatch(o.to)
	c, source, err := o.source(true, s.err)
	if err != nil {
		return withCode(ExitBadInput, err)
	}
	to := o.cluster.Minor
	o.cluster, _ = source.Upgrade(to)
	o.from, o.storedAs = source.Minor, source.Minor // as stored before any restart: the journal says what is rewritten since
	var said bytes.Buffer                           // what upgrade says on standard output, a line each, for the report
	out := io.MultiWriter(s.out, &said)
	var r *report.Report // the target's verdicts on the objects last read
	read := map[string]int{}
	readAll := func() error {
		clear(read)
		r = &report.Report{Options: o.Options, Command: "upgrade", Release: o.target()}
		err := c.DRAObjects(ctx, func(obj map[string]interface{}) error {
			resource := api.Resource(fmt.Sprint(obj["kind"]))
			if _, group, _, _, _ := api.TypeOf(obj); group != api.UpstreamGroup { // claimbridge's CRD
				resource += "." + group
			}
			read[resource]++
			return o.judgeLive(r, obj)
		})
		if err != nil {
			return withCode(ExitInvalid, fmt.Errorf("the cluster, on 1.%d, does not read every DRA object: %w", source.Minor, err))
		}
		return nil
	}
	if err := readAll(); err != nil {
		return err
	}
	j, err := upgrade.Open(ctx, c, o.journal, o.journalNS, "claimbridge-upgrade", o.target())
	if err != nil {
		return withCode(ExitBadInput, err)
	}
	run := upgrade.Run{Cluster: c, Release: o.cluster, Journal: j, DryRun: o.dryRun, Out: out, Confirm: o.confirm(s), SaveTo: o.save, StopPods: o.stopPods}
	stop, err := run.Do(ctx, run.Plan(o.from, source.Compatible, to, o.lost, o.held))
	switch {
	case err != nil:
		return o.report(s, r, said.String(), false, withCode(ExitInvalid, err))
	case stop != nil && o.dryRun:
		return o.report(s, r, said.String(), false, nil)
	case stop != nil:
		fmt.Fprintf(out, "next, the operator's step: %s; then run claimbridge upgrade again\n", stop.Action)
		return o.report(s, r, said.String(), false, withCode(ExitOperator, errors.New("")))
	}
	if err := readAll(); err != nil { // after the steps
		return o.report(s, r, said.String(), false, err)
	}
	var counts []string
	for _, resource := range slices.Sorted(maps.Keys(read)) {
		counts = append(counts, fmt.Sprintf("%s: %d", resource, read[resource]))
	}
	fmt.Fprintf(out, "Kubernetes 1.%d reads every DRA object of the cluster (%s)\n", to, strings.Join(counts, ", "))
	return o.report(s, r, said.String(), true, nil)
}

// report ends a run with err, and writes the report: the target's verdicts
// on the DRA objects last read and, when it is not text, what upgrade said.
// In text, only a run done writes it; a verdict the target rejects fails
// that run.
func (o *upgradeOptions) report(s streams, r *report.Report, said string, done bool, err error) error {
	if o.Format == "text" && !done {
		return err
	}
	if o.Format != "text" {
		r.Steps = strings.FieldsFunc(said, func(c rune) bool { return c == '\n' })
	}
	if werr := r.Write(s.err, s.out); werr != nil {
		return withCode(ExitBadInput, fmt.Errorf("writing the report: %w", werr))
	}
	if code := exitCode(r); done && code != ExitOK {
		return withCode(code, errors.New(""))
	}
	return err
}

// confirm asks on the terminal, unless --yes says yes; with neither, no.
func (o *upgradeOptions) confirm(s streams) func(string) bool {
	return func(what string) bool {
		in, _ := s.in.(*os.File)
		if fi, err := in.Stat(); o.yes || err != nil || fi.Mode()&os.ModeCharDevice == 0 { // Stat of no file fails
			return o.yes
		}
		fmt.Fprintf(s.err, "%s? [y/N] ", what)
		answer, _ := bufio.NewReader(in).ReadString('\n')
		return slices.Contains([]string{"y", "yes"}, strings.ToLower(strings.TrimSpace(answer)))
	}
}
