// Package upgrade performs the steps of a change of Kubernetes release in
// place that are claimbridge's to do, in the order of check's plan, and
// stops at each step that is the operator's. A journal records each step
// done, so that a run again continues where the last one stopped.
package upgrade

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/yaml"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/cluster"
	"github.com/claimbridge/claimbridge/judge"
	"github.com/claimbridge/claimbridge/manifest"
	"github.com/claimbridge/claimbridge/migrate"
	"github.com/claimbridge/claimbridge/report"
)

// A Step is one step of a change. The operator's has an Action; the
// others save the cluster's DRA objects (Save), or stop the Pods that
// hold its claims (Stop says them), or re-create the objects on the
// target (Recreate), or rewrite, or delete, every stored object of
// Resource (Objects of them).
type Step struct {
	Action, Stop   string
	Save, Recreate bool
	Resource       string
	Objects        int
	Delete         bool
}

// migratorStart is how long a StorageVersionMigration waits for the
// cluster's migrator to take it up before claimbridge rewrites the
// objects itself.
const migratorStart = 30 * time.Second

// Plan is the steps of the change of a cluster of release from, which
// stores what release compatible+1 reads, to release to; lost counts, by
// resource, its stored objects that to cannot read (judge.Stored), held
// the Pods that hold the claims among them (judge.Holders). With nothing
// lost, the only step is the change itself. What no rewrite keeps is saved
// to r.SaveTo, and deleted once no Pod holds it; after the change, a run on
// the target re-creates it. What was rewritten for the target, the target
// rewrites again: a release rolled back from stores what the release after
// the target reads, and so would a rollback past the target lose it.
func (r Run) Plan(from, compatible, to int, lost map[string]int, held []string) []Step {
	change := Step{Action: fmt.Sprintf("replace kube-apiserver, kube-scheduler, kube-controller-manager and the kubelets of 1.%d with 1.%d "+
		"(`claimbridge check --to 1.%d` names the flags, drivers and nodes to change with them; upgrade looks for 1.%d in /version)", from, to, to, to)}
	resources := slices.Sorted(maps.Keys(lost))
	rewritable := judge.Rewritable(from, to, resources)
	if saved := cmp.Or(r.Journal.SavedTo, r.SaveTo); r.Journal.SavedTo != "" || len(lost) > 0 && !rewritable {
		change.Action += "; on 1." + fmt.Sprint(to) + ", upgrade re-creates what " + cmp.Or(saved, "the file --save names") + " holds"
	}
	var steps []Step
	switch {
	case from == to: // on the target: what a rewrite stored for it, stored again as it writes it, which a later rollback reads
		for _, res := range slices.Sorted(maps.Keys(r.Journal.Done)) {
			steps = append(steps, Step{Resource: res, Objects: r.Journal.Counts[res]})
		}
		if r.Journal.SavedTo != "" {
			steps = append(steps, Step{Recreate: true})
		}
		return steps
	case len(lost) == 0 && r.Journal.SavedTo == "" && len(r.Journal.Done) == 0:
		change.Action += fmt.Sprintf("; 1.%d reads every DRA object as it is stored: upgrade has no step of its own", to)
	case len(lost) == 0:
	case !rewritable:
		steps = append(steps, Step{Save: true})
		if stop := (Step{Stop: fmt.Sprintf("the Pods that hold the claims 1.%d cannot read: %s", to, judge.HeldBy(held))}); len(held) > 0 && r.StopPods {
			steps = append(steps, stop)
		} else if len(held) > 0 {
			steps = append(steps, Step{Action: "stop " + stop.Stop + ". upgrade goes on, and deletes the claims, once no Pod holds one; with --stop-pods, upgrade stops them"})
		}
		for _, r := range resources {
			steps = append(steps, Step{Resource: r, Objects: lost[r], Delete: true})
		}
	case compatible > to:
		steps = append(steps, Step{Action: fmt.Sprintf("restart every kube-apiserver 1.%d with --min-compatibility-version=1.%d, so that it stores what 1.%d reads (upgrade looks for it in /version)", from, to, to)})
		fallthrough
	default:
		for _, r := range resources {
			steps = append(steps, Step{Resource: r, Objects: lost[r]})
		}
	}
	return append(steps, change)
}

// A Run performs steps on a cluster.
type Run struct {
	Cluster *cluster.Cluster
	// Release is the cluster's release, as it serves DRA.
	Release api.Cluster
	Journal *Journal
	// DryRun lists the steps and each object a rewrite would write, and
	// writes nothing.
	DryRun bool
	// Confirm is asked once, before the first write, what will be
	// written; false writes nothing.
	Confirm func(what string) bool
	Out     io.Writer
	// SaveTo is the file a save step writes.
	SaveTo string
	// StopPods has a run stop the Pods that hold the claims it deletes,
	// not the operator.
	StopPods bool
}

// Do performs steps in order, and returns the operator's step it stopped
// at (in a dry run, the first of them), or nil when every step is done.
func (r Run) Do(ctx context.Context, steps []Step) (stop *Step, err error) {
	for i := 0; i < len(steps) && err == nil; i++ {
		s := steps[i]
		switch {
		case s.Action != "" && !r.DryRun:
			return &steps[i], nil
		case s.Action != "":
			fmt.Fprintf(r.Out, "step %d, the operator's: %s\n", i+1, s.Action)
			stop = cmp.Or(stop, &steps[i])
		case s.Save && r.DryRun:
			fmt.Fprintf(r.Out, "step %d, claimbridge's: save what export reads (every DRA object but the slices, and the workloads that use claims) to %s\n", i+1, cmp.Or(r.SaveTo, "the file --save names"))
		case s.Save:
			err = r.save(ctx, i+1)
		case s.Stop != "":
			var next *Step
			if next, err = r.stop(ctx, s, i+1); next != nil {
				return next, nil
			}
		case s.Recreate && r.DryRun:
			fmt.Fprintf(r.Out, "step %d, claimbridge's: re-create what %s holds, as migrate writes it for 1.%d\n", i+1, r.Journal.SavedTo, r.Release.Minor)
		case s.Recreate:
			err = r.recreate(ctx, i+1)
		case s.Delete && !r.DryRun:
			err = r.delete(ctx, s, i+1)
		case r.DryRun:
			what := "rewrite every " + s.Resource + " in place"
			if s.Delete {
				what = "delete every " + s.Resource + ", once saved"
			}
			fmt.Fprintf(r.Out, "step %d, claimbridge's: %s:\n", i+1, what)
			var n int
			if n, err = r.Cluster.Rewrite(ctx, s.Resource, func(namespace, name string) {
				fmt.Fprintf(r.Out, "  %s\n", strings.TrimPrefix(namespace+"/"+name, "/"))
			}); err == nil {
				fmt.Fprintf(r.Out, "  (objects: %d)\n", n)
			}
		default: // the rewrites up to the operator's next step, at once
			n := slices.IndexFunc(steps[i:], func(s Step) bool { return s.Action != "" })
			if n < 0 {
				n = len(steps) - i
			}
			err = r.rewrite(ctx, steps[i:i+n], i+1)
			i += n - 1
		}
	}
	if err != nil {
		return nil, err
	}
	return stop, nil
}

// rewrite rewrites every object of the resources of steps (numbered from
// first) that the journal does not have under their storage version hash
// now: through the cluster's storage version migrator if it runs one
// (cluster.Migrate), else itself (cluster.Rewrite). It journals each whose
// hash stayed the same from start to end.
func (r Run) rewrite(ctx context.Context, steps []Step, first int) error {
	hashes := map[string]string{}
	var todo []string
	for i, s := range steps {
		_, hash, err := r.Cluster.Storage(s.Resource)
		switch {
		case err != nil:
			return err
		case r.Journal.Done[s.Resource] == hash:
			fmt.Fprintf(r.Out, "step %d, done before: %s rewritten in place (objects: %d)\n", first+i, s.Resource, r.Journal.Counts[s.Resource])
		default:
			hashes[s.Resource] = hash
			todo = append(todo, s.Resource)
		}
	}
	if len(todo) == 0 {
		return nil
	}
	if err := r.allowed(ctx, dra("patch", todo...), fmt.Sprintf("rewrite every stored %s in place", strings.Join(todo, ", "))); err != nil {
		return err
	}
	migrated, err := r.Cluster.Migrate(ctx, hashes, migratorStart)
	if err != nil {
		return err
	}
	by := " by kube-controller-manager's storage version migrator"
	for i, s := range steps {
		n := s.Objects
		switch {
		case hashes[s.Resource] == "":
			continue
		case !migrated:
			by = ""
			if n, err = r.Cluster.Rewrite(ctx, s.Resource, nil); err != nil {
				return err
			}
		}
		if _, after, err := r.Cluster.Storage(s.Resource); err != nil || after != hashes[s.Resource] {
			return cmp.Or(err, fmt.Errorf("kube-apiserver changed the version it stores %s in during the rewrite (restarted with other flags?): run again", s.Resource))
		}
		r.Journal.Done[s.Resource], r.Journal.Counts[s.Resource] = hashes[s.Resource], n
		if err := r.Journal.Save(ctx); err != nil {
			return err
		}
		fmt.Fprintf(r.Out, "step %d, done: %s rewritten in place%s (objects: %d)\n", first+i, s.Resource, by, n)
	}
	return nil
}

// A permission is a verb on a resource of a group, in a namespace ("" for
// every namespace or none).
type permission struct{ verb, group, resource, namespace string }

// dra are the permissions to verb each of resources of resource.k8s.io.
func dra(verb string, resources ...string) (needs []permission) {
	for _, resource := range resources {
		needs = append(needs, permission{verb, api.UpstreamGroup, resource, ""})
	}
	return needs
}

// allowed names the first permission a step lacks (of needs, and the
// journal's write), else asks Confirm whether to do what: the one
// question before a step writes.
func (r Run) allowed(ctx context.Context, needs []permission, what string) error {
	if r.Journal.file == "" {
		verb := "create"
		if r.Journal.version != "" {
			verb = "update"
		}
		needs = append(needs, permission{verb, "", "configmaps", r.Journal.namespace})
	}
	for _, p := range needs {
		ok, err := r.Cluster.Can(ctx, p.verb, p.group, p.resource, p.namespace)
		if err != nil {
			return err
		}
		if !ok {
			name := strings.TrimSuffix(p.resource+"."+p.group, ".")
			if p.namespace != "" {
				name += " in namespace " + p.namespace
			}
			return fmt.Errorf("the cluster does not let you %s %s, so nothing was written (docs/upgrade.md lists what upgrade needs)", p.verb, name)
		}
	}
	if !r.Confirm(what) {
		return errors.New("not confirmed, so nothing written (--yes confirms)")
	}
	return nil
}

// stop stops the Pods that hold the cluster's claims (cluster.Holders,
// cluster.Stop); in a dry run, it names them. Where a controller owns one,
// and would start it again, it stops none and returns the operator's
// step: scale the controllers down.
func (r Run) stop(ctx context.Context, s Step, step int) (*Step, error) {
	holders, err := r.Cluster.Holders(ctx)
	if err != nil {
		return nil, err
	}
	var controllers []string
	var needs []permission
	var list strings.Builder
	for _, p := range holders {
		fmt.Fprintf(&list, "  %s/%s\n", p.Namespace, p.Name)
		if p.Controller != "" {
			fmt.Fprintf(&list, "    (%s starts it again: scale it down first)\n", p.Controller)
			controllers = append(controllers, p.Controller)
		}
		needs = append(needs, permission{"delete", "", "pods", p.Namespace})
	}
	slices.Sort(controllers)
	switch {
	case r.DryRun:
		fmt.Fprintf(r.Out, "step %d, claimbridge's: stop %s:\n%s", step, s.Stop, list.String())
		return nil, nil
	case len(controllers) > 0:
		return &Step{Action: "stop the controllers that would start again Pods that hold the claims (scale them to 0, suspend a Job): " + strings.Join(slices.Compact(controllers), ", ") +
			"; upgrade stops the other Pods"}, nil
	}
	if err := r.allowed(ctx, slices.Compact(needs), fmt.Sprintf("stop (delete) %d Pods: %s", len(holders), s.Stop)); err != nil {
		return nil, err
	}
	if err := r.Cluster.Stop(ctx, holders); err != nil {
		return nil, err
	}
	fmt.Fprintf(r.Out, "step %d, done: the Pods that held the claims stopped (Pods: %d)\n", step, len(holders))
	return nil, nil
}

// save writes what export reads of the cluster (cluster.Export: every DRA
// object but the slices, and the workloads that use claims), whole, to
// r.SaveTo (a List), reads the file back, and journals it once it holds
// every object, with its status.
func (r Run) save(ctx context.Context, step int) error {
	if r.SaveTo == "" {
		return errors.New("the change saves, deletes and re-creates what the target cannot read: name the file to save them to with --save FILE")
	}
	data, err := os.ReadFile(r.SaveTo)
	switch {
	case err == nil && r.Journal.Saved == fmt.Sprintf("%x", sha256.Sum256(data)):
		fmt.Fprintf(r.Out, "step %d, done before: saved to %s\n", step, r.SaveTo)
		return nil
	case err == nil:
		return fmt.Errorf("%s exists, and is not the save the journal records: name a file that does not exist", r.SaveTo)
	case !errors.Is(err, os.ErrNotExist):
		return err
	}
	if err := r.allowed(ctx, nil, "save the DRA objects to "+r.SaveTo); err != nil {
		return err
	}
	read, list := map[string]int{}, manifest.ListWriter{Format: "yaml"}
	err = r.Cluster.Export(ctx, nil, func(obj map[string]interface{}) error {
		read[counted(obj)]++
		return list.Add(obj)
	})
	var out bytes.Buffer
	if err == nil {
		err = list.Flush(&out)
	}
	if err == nil {
		err = writeFile(r.SaveTo, out.Bytes())
	}
	if err != nil {
		return fmt.Errorf("saving to %s: %w", r.SaveTo, err)
	}
	r.Journal.Saved, r.Journal.SavedTo = fmt.Sprintf("%x", sha256.Sum256(out.Bytes())), r.SaveTo
	saved, err := r.saved() // read back
	if err != nil {
		return err
	}
	held := map[string]int{}
	for _, obj := range saved {
		held[counted(obj)]++
	}
	if !maps.Equal(held, read) {
		return fmt.Errorf("%s does not hold every object read: %v of %v", r.SaveTo, held, read)
	}
	if err := r.Journal.Save(ctx); err != nil {
		return err
	}
	fmt.Fprintf(r.Out, "step %d, done: saved to %s (objects: %d)\n", step, r.SaveTo, len(saved))
	return nil
}

// counted is what save counts obj as: its kind, and whether it has a status.
func counted(obj map[string]interface{}) string {
	if _, ok := obj["status"]; ok {
		return fmt.Sprint(obj["kind"]) + " with status"
	}
	return fmt.Sprint(obj["kind"])
}

// delete deletes every stored object of a step's resource, once the file
// the journal says it saved them to is as it was, and holds each of them
// but the slices (cluster.Delete).
func (r Run) delete(ctx context.Context, s Step, step int) error {
	saved, err := r.saved()
	if err != nil {
		return err
	}
	uids := map[string]bool{}
	for _, obj := range saved {
		uids[fmt.Sprint(api.Metadata(obj)["uid"])] = true
	}
	if err := r.allowed(ctx, dra("delete", s.Resource), fmt.Sprintf("delete every stored %s (saved in %s)", s.Resource, r.Journal.SavedTo)); err != nil {
		return err
	}
	n, err := r.Cluster.Delete(ctx, s.Resource, func(uid string) bool { return uids[uid] || s.Resource == "resourceslices" }) // drivers publish them again
	if err != nil {
		return err
	}
	fmt.Fprintf(r.Out, "step %d, done: %s deleted (objects: %d; %s holds them)\n", step, s.Resource, n, r.Journal.SavedTo)
	return nil
}

// saved are the objects of the save the journal records, once its file is
// as it was written.
func (r Run) saved() ([]map[string]interface{}, error) {
	data, err := os.ReadFile(r.Journal.SavedTo)
	if err != nil || r.Journal.Saved != fmt.Sprintf("%x", sha256.Sum256(data)) {
		return nil, fmt.Errorf("the save %q is gone or changed since it was written (%v): nothing deleted or re-created; save again to a new file", r.Journal.SavedTo, err)
	}
	var saved struct{ Items []map[string]interface{} }
	if err := yaml.Unmarshal(data, &saved); err != nil {
		return nil, err
	}
	return saved.Items, nil
}

// recreate creates, on the cluster of the target release, each DRA object
// of the save that it lacks, as migrate writes it for the release: migrate
// leaves out what the cluster makes itself (slices, claims generated for a
// Pod) and the status, which the target's scheduler writes again when the
// claim's Pods start. An object there already is kept as it is. The Pods
// of the save that are gone are named, to start again.
func (r Run) recreate(ctx context.Context, step int) error {
	if r.Journal.Recreated {
		fmt.Fprintf(r.Out, "step %d, done before: re-created what %s holds\n", step, r.Journal.SavedTo)
		return nil
	}
	saved, err := r.saved()
	if err != nil {
		return err
	}
	target, _ := migrate.TargetOf(fmt.Sprintf("1.%d", r.Release.Minor)) // a release of the table: the cluster's
	target.Cluster = r.Release
	idx := &migrate.Index{} // the classes and parameters the claims name
	for _, obj := range saved {
		idx.Add(obj)
	}
	var objs, pods []map[string]interface{}
	var said strings.Builder // what 1.T reads otherwise, or leaves out
	var resources []string
	for _, obj := range saved {
		if cluster.Rank(obj) == 2 { // Pods and workloads, not deleted
			if obj["kind"] == "Pod" {
				pods = append(pods, obj)
			}
			continue
		}
		v := migrate.Migrate(obj, target, migrate.Options{Parameters: idx})
		for _, f := range v.Findings {
			line := api.Describe(obj) + ": " + strings.TrimPrefix(f.Path+": "+f.Message, ": ")
			switch {
			case v.Outcome == report.Refused && f.Severity == report.Error:
				return fmt.Errorf("1.%d would refuse %s: nothing re-created", r.Release.Minor, line)
			case f.Severity == report.Warning || v.Outcome == report.LeftOut:
				said.WriteString("  " + line + "\n")
			}
		}
		if _, group, _, kind, _ := api.TypeOf(v.Object); v.Object != nil {
			objs = append(objs, v.Object)
			if group == api.UpstreamGroup {
				resources = append(resources, api.Resource(kind))
			}
		}
	}
	slices.Sort(resources)
	if err := r.allowed(ctx, dra("create", slices.Compact(resources)...), fmt.Sprintf("re-create the %d DRA objects of %s", len(objs), r.Journal.SavedTo)); err != nil {
		return err
	}
	there := 0
	r.Cluster.Create(ctx, objs, false, func(i int, e error) {
		switch {
		case apierrors.IsAlreadyExists(e):
			there++
		case e != nil && err == nil:
			err = fmt.Errorf("re-creating %s: %w", api.Describe(objs[i]), e)
		}
	})
	if err != nil {
		return err
	}
	r.Journal.Recreated = true
	if err := r.Journal.Save(ctx); err != nil {
		return err
	}
	fmt.Fprintf(r.Out, "step %d, done: re-created what %s holds (objects: %d, of which there before: %d)\n%s", step, r.Journal.SavedTo, len(objs), there, said.String())
	var gone []string
	for _, pod := range pods {
		if ok, err := r.Cluster.Exists(ctx, pod); err != nil {
			return err
		} else if !ok {
			gone = append(gone, api.Ref(pod))
		}
	}
	if len(gone) > 0 {
		fmt.Fprintf(r.Out, "start again the Pods that were stopped: %s\n", strings.Join(gone, ", "))
	}
	return nil
}
