package inplace

import (
	"fmt"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/judge"
)

const rewriteRecording = "testdata/rewrite.json"

// rewrite is what the second release of a rollback past a storage version
// answered for each object, before and after the first release rewrote it
// in place with --min-compatibility-version.
type rewrite struct {
	From, To      string
	Before, After []answer
}

type rewriteBook struct {
	KubeAPIServer map[string]string
	Rollbacks     []rewrite
}

// TestRewriteInPlace proves the gentle runbook of `claimbridge check`: for
// every rollback of two or three releases from 1.35–1.37 whose target
// cannot read what the first release stored, the first release's
// kube-apiserver (every DRA gate on) creates a class, a claim, a template,
// a slice and a taint rule; the target started on the same etcd with the
// flags check gives it cannot read those check calls unreadable. Then the
// first is restarted with --min-compatibility-version of the target and
// each object is written again as it is (GET, PUT; `claimbridge upgrade`
// sends an empty patch, which kube-apiserver stores anew the same way):
// the target now reads, updates and lists each object whose storage
// follows that flag (api.FollowsCompatibility), and only those. The
// runbook rewrites in place exactly when every object lost is one.
//
// Under `make record` the apiservers answer and testdata/rewrite.json is
// written; otherwise the recording is replayed.
func TestRewriteInPlace(t *testing.T) {
	pairs := rewritePairs()
	if len(pairs) == 0 {
		t.Fatal("no rollback that loses objects")
	}
	book := replay(t, rewriteRecording, func(pinned map[string]string) rewriteBook { return recordRewrites(t, pairs, pinned) },
		func(b rewriteBook) map[string]string { return b.KubeAPIServer })
	if len(book.Rollbacks) != len(pairs) {
		t.Fatalf("%s has %d rollbacks, want %d: run `make record`", rewriteRecording, len(book.Rollbacks), len(pairs))
	}
	for i, r := range book.Rollbacks {
		p := pairs[i]
		t.Run(r.From+"-to-"+r.To, func(t *testing.T) {
			if r.From != fmt.Sprintf("1.%d", p[0]) || r.To != fmt.Sprintf("1.%d", p[1]) {
				t.Fatalf("the recording is of other rollbacks (%s→%s): run `make record`", r.From, r.To)
			}
			target := upgraded(t, p[0], p[1])
			lost := lostBy(p[0], p[1])
			rewrites := true
			for _, a := range r.After {
				_, readable, served := target.Keeps(a.Kind, p[0], p[1])
				if !served {
					continue
				}
				kept := readable || api.FollowsCompatibility(a.Kind) && api.Decodes(a.Kind, api.StoredIn(a.Kind, p[1]+1), p[1])
				rewrites = rewrites && kept
				if answered := a.Get == http.StatusOK && a.Update == http.StatusOK && a.List == http.StatusOK; kept != answered {
					t.Errorf("after the rewrite: check says 1.%d reads %s: %t; kube-apiserver answered GET %d, UPDATE %d, LIST %d", p[1], a.Kind, kept, a.Get, a.Update, a.List)
				}
			}
			runbook := judge.Runbook(p[0], p[1], lost, nil)
			if offered := strings.Contains(runbook, fmt.Sprintf("--min-compatibility-version=1.%d", p[1])); offered != rewrites {
				t.Errorf("the runbook rewrites in place: %t, the rewrite keeps every object: %t: %s", offered, rewrites, runbook)
			}
			for _, a := range r.Before {
				_, readable, served := target.Keeps(a.Kind, p[0], p[1])
				if served && readable != (a.Get == http.StatusOK && a.List == http.StatusOK) {
					t.Errorf("before: check says 1.%d reads %s: %t; kube-apiserver answered GET %d, LIST %d", p[1], a.Kind, readable, a.Get, a.List)
				}
			}
		})
	}
}

// rewritePairs are the rollbacks of two or three releases from 1.35–1.37
// that lose objects.
func rewritePairs() [][2]int {
	var pairs [][2]int
	for from := 35; from <= 37; from++ {
		for to := from - 3; to <= from-2; to++ {
			if len(lostBy(from, to)) > 0 {
				pairs = append(pairs, [2]int{from, to})
			}
		}
	}
	return pairs
}

// lostBy counts, by resource, the objects of storedObjects(from) that
// release to has the kind of but cannot read as from stores them.
func lostBy(from, to int) map[string]int {
	lost := map[string]int{}
	for _, obj := range storedObjects(from) {
		kind, _ := obj["kind"].(string)
		has := slices.ContainsFunc(api.ConversionVersions, func(v string) bool { return api.Bare(to).Has(v, kind) })
		if has && !api.Decodes(kind, api.StoredIn(kind, from), to) {
			lost[api.Resource(kind)]++
		}
	}
	return lost
}

// recordRewrites rolls each pair back twice, before and after the rewrite.
func recordRewrites(t *testing.T, pairs [][2]int, pinned map[string]string) rewriteBook {
	key, tokens := credentials(t)
	book := rewriteBook{KubeAPIServer: pinned}
	for _, p := range pairs {
		assetsA, assetsB, etcd := startPair(t, p)
		prefix := fmt.Sprintf("/rewrite-%d", time.Now().UnixNano())
		gates, runtime := draFlags(p[0], "on")
		objects := storedObjects(p[0])
		r := rewrite{From: fmt.Sprintf("1.%d", p[0]), To: fmt.Sprintf("1.%d", p[1])}
		run := func(assets string, flags []string, do func(*apiserver) error) {
			g, rc := gates, runtime
			if assets == assetsB {
				g, rc = flagsOf(upgraded(t, p[0], p[1]))
			}
			s, refused, err := launch(filepath.Join(assets, "kube-apiserver"), etcd.URL.String(), prefix, key, tokens, g, rc, flags...)
			if s == nil {
				t.Fatalf("%s %v: %s %v", assets, flags, refused, err)
			}
			err = do(s)
			s.stop()
			if err != nil {
				t.Fatal(err)
			}
		}
		run(assetsA, nil, func(s *apiserver) error {
			for _, obj := range objects {
				version := strings.TrimPrefix(fmt.Sprint(obj["apiVersion"]), api.UpstreamGroup+"/")
				if _, err := s.do(http.MethodPost, path(obj, version, create), obj, nil); err != nil {
					return err
				}
			}
			return nil
		})
		run(assetsB, nil, askEach(objects, p, &r.Before))
		run(assetsA, []string{fmt.Sprintf("--min-compatibility-version=1.%d", p[1])}, func(s *apiserver) error {
			for _, obj := range objects { // stored anew, as by claimbridge upgrade's empty patch
				version := strings.TrimPrefix(fmt.Sprint(obj["apiVersion"]), api.UpstreamGroup+"/")
				var live map[string]interface{}
				if _, err := s.do(http.MethodGet, path(obj, version, item), nil, &live); err != nil {
					return err
				}
				if _, err := s.do(http.MethodPut, path(obj, version, item), live, nil); err != nil {
					return err
				}
			}
			return nil
		})
		run(assetsB, nil, askEach(objects, p, &r.After))
		if err := etcd.Stop(); err != nil {
			t.Fatal(err)
		}
		book.Rollbacks = append(book.Rollbacks, r)
	}
	return book
}

// askEach asks an apiserver of each object (ask), into answers.
func askEach(objects []map[string]interface{}, p [2]int, answers *[]answer) func(*apiserver) error {
	return func(s *apiserver) error {
		for _, obj := range objects {
			*answers = append(*answers, ask(s, obj, p))
		}
		return nil
	}
}
