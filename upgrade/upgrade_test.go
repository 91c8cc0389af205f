package upgrade

import (
	"reflect"
	"testing"
)

func TestPlan(t *testing.T) {
	change := func(from, to string) Step {
		return Step{Action: "replace kube-apiserver, kube-scheduler, kube-controller-manager and the kubelets of " + from + " with " + to +
			" (`claimbridge check --to " + to + "` names the flags, drivers and nodes to change with them; upgrade looks for " + to + " in /version)"}
	}
	recreate := func(s Step, to, file string) Step {
		s.Action += "; on " + to + ", upgrade re-creates what " + file + " holds"
		return s
	}
	nothing := func(s Step) Step {
		s.Action += "; 1.37 reads every DRA object as it is stored: upgrade has no step of its own"
		return s
	}
	restart := Step{Action: "restart every kube-apiserver 1.36 with --min-compatibility-version=1.33, so that it stores what 1.33 reads (upgrade looks for it in /version)"}
	claims := map[string]int{"resourceclaims": 3, "deviceclasses": 1}
	for name, tc := range map[string]struct {
		from, compatible, to int
		lost                 map[string]int
		held                 []string
		saveTo, savedTo      string
		stopPods             bool
		done                 map[string]string // the journal's rewrites
		want                 []Step
	}{
		"on the target": {from: 33, compatible: 32, to: 33, want: nil},
		"on the target, rewritten before": {from: 33, compatible: 32, to: 33, done: map[string]string{"resourceclaims": "h", "deviceclasses": "h"},
			want: []Step{{Resource: "deviceclasses", Objects: 1}, {Resource: "resourceclaims", Objects: 3}}},
		"nothing lost":                 {from: 36, compatible: 35, to: 37, want: []Step{nothing(change("1.36", "1.37"))}},
		"rewrite, restart":             {from: 36, compatible: 35, to: 33, lost: claims, want: []Step{restart, {Resource: "deviceclasses", Objects: 1}, {Resource: "resourceclaims", Objects: 3}, change("1.36", "1.33")}},
		"rewritten, before the change": {from: 36, compatible: 33, to: 33, done: map[string]string{"resourceclaims": "h"}, want: []Step{change("1.36", "1.33")}},
		"rewrite, restarted":           {from: 36, compatible: 33, to: 33, lost: claims, want: []Step{{Resource: "deviceclasses", Objects: 1}, {Resource: "resourceclaims", Objects: 3}, change("1.36", "1.33")}},
		"save and delete, held": {from: 36, compatible: 35, to: 32, lost: claims, held: []string{"Pod ml/a holds claim ml/c"}, saveTo: "dra.yaml", want: []Step{
			{Save: true},
			{Action: "stop the Pods that hold the claims 1.32 cannot read: Pod ml/a holds claim ml/c. upgrade goes on, and deletes the claims, once no Pod holds one; with --stop-pods, upgrade stops them"},
			{Resource: "deviceclasses", Objects: 1, Delete: true}, {Resource: "resourceclaims", Objects: 3, Delete: true},
			recreate(change("1.36", "1.32"), "1.32", "dra.yaml")}},
		"save and delete, held, --stop-pods": {from: 36, compatible: 35, to: 32, lost: claims, held: []string{"Pod ml/a holds claim ml/c"}, saveTo: "dra.yaml", stopPods: true, want: []Step{
			{Save: true},
			{Stop: "the Pods that hold the claims 1.32 cannot read: Pod ml/a holds claim ml/c"},
			{Resource: "deviceclasses", Objects: 1, Delete: true}, {Resource: "resourceclaims", Objects: 3, Delete: true},
			recreate(change("1.36", "1.32"), "1.32", "dra.yaml")}},
		"save, no file named": {from: 31, compatible: 30, to: 30, lost: map[string]int{"resourceslices": 2}, want: []Step{
			{Save: true}, {Resource: "resourceslices", Objects: 2, Delete: true},
			recreate(change("1.31", "1.30"), "1.30", "the file --save names")}},
		"deleted since the save":     {from: 36, compatible: 35, to: 32, savedTo: "dra.yaml", want: []Step{recreate(change("1.36", "1.32"), "1.32", "dra.yaml")}},
		"a save named, nothing lost": {from: 36, compatible: 35, to: 37, saveTo: "dra.yaml", want: []Step{nothing(change("1.36", "1.37"))}},
		"changed, saved":             {from: 32, compatible: 31, to: 32, savedTo: "dra.yaml", want: []Step{{Recreate: true}}},
	} {
		t.Run(name, func(t *testing.T) {
			r := Run{Journal: &Journal{SavedTo: tc.savedTo, Done: tc.done, Counts: claims}, SaveTo: tc.saveTo, StopPods: tc.stopPods}
			if got := r.Plan(tc.from, tc.compatible, tc.to, tc.lost, tc.held); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got:\n%+v\nwant:\n%+v", got, tc.want)
			}
		})
	}
}
