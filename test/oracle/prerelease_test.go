package oracle

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/claimbridge/claimbridge/api"
	claimbridgejudge "github.com/claimbridge/claimbridge/judge"
	"github.com/claimbridge/claimbridge/test/recorded"
)

// TestPrereleaseParity: `--to 1.38` judges every kind of resource.k8s.io as
// the sources of 1.38's pre-release do (hack/oracle/k8s-1.38, no 1.38
// apiserver can be built): for each scenario of testdata/1.38.yaml, the
// errors claimbridge reports are the lines kube-apiserver would print, in
// any order. A create is validate's verdict; an update of a template 1.37
// stored is check's (the errors that say its next update fails). The
// oracle is of the pre-release api.Releases names.
func TestPrereleaseParity(t *testing.T) {
	r, ok := api.ParseRelease("1.38")
	if !ok || r.Pre == "" {
		t.Fatalf("1.38 is not a pre-release of api.Releases (%v): judge it by its own apiserver, and remove this oracle", r)
	}
	pinned, err := recorded.Pinned(filepath.Join("..", "..", "hack", "oracle", "k8s-1.38", "go.mod"))
	if err != nil || pinned != r.Pre {
		t.Fatalf("hack/oracle/k8s-1.38 pins k8s.io/kubernetes %s (%v), api.Releases names %s", pinned, err, r.Pre)
	}
	scenarios := loadCorpus(t, "1.38")
	answers := runOracle(t, "1.38", scenarios)
	valid, invalid := 0, 0
	for i, s := range scenarios {
		t.Run(s.Name, func(t *testing.T) {
			a := answers[i]
			if a.Error != "" || s.Op == "status" || s.Op == "update" && s.Object["kind"] != api.KindTemplate {
				t.Fatalf("the 1.38 oracle cannot use the scenario (%s): %s", s.Op, a.Error)
			}
			upstream := []string{}
			for _, e := range a.Errors {
				upstream = append(upstream, e.Message)
			}
			c := api.Defaults(r.Minor)
			if err := c.SetFeatureGates(s.Gates); err != nil {
				t.Fatal(err)
			}
			if _, _, version, kind, _ := api.TypeOf(s.Object); !c.Serves(version, kind) { // a beta, told to serve it
				if err := c.Set("", api.UpstreamGroup+"/"+version+"=true"); err != nil {
					t.Fatal(err)
				}
			}
			ours, _ := claimbridgejudge.CheckKind(s.Object, c, s.Object["kind"].(string))
			if version, _ := claimbridgejudge.Version(s.Object); version != "" {
				ours, _ = claimbridgejudge.Check(s.Object, c, s.Object["kind"].(string))
			}
			if s.Op == "update" {
				ours = nil
				for _, e := range claimbridgejudge.Stored(s.Old, c, api.KindTemplate, r.Minor-1, r.Minor).Errors {
					if line, ok := strings.CutSuffix(e, " (Kubernetes 1.38 keeps the template, but refuses each claim made from it: its Pods stay pending, "+
						"and its next update of the template fails)"); ok {
						ours = append(ours, line)
					}
				}
			}
			slices.Sort(upstream)
			ours = slices.Sorted(slices.Values(ours))
			if d := cmp.Diff(upstream, append([]string{}, ours...)); d != "" {
				t.Errorf("errors of Kubernetes %s (-upstream +claimbridge):\n%s", r.Named(), d)
			}
		})
		if len(answers[i].Errors) == 0 {
			valid++
		} else {
			invalid++
		}
	}
	if valid < 8 || invalid < 25 {
		t.Errorf("1.38 corpus: %d valid and %d invalid scenarios; want both kinds", valid, invalid)
	}
}
