// Package oracle compares claimbridge with upstream's own code: each shape's
// scenarios (testdata/<version>.yaml) go through claimbridge's validation and
// through the oracle of the release that served the shape (hack/oracle:
// upstream's decoding, defaulting, registry strategy and validation; its
// answers recorded by `make record` in testdata/oracle-<release>.jsonl.gz).
// The (type, path) lists must be identical except
// for the deliberate differences listed below.
package oracle

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/claimbridge/claimbridge/validation"
)

// difference is a deliberate difference for one scenario: the findings only
// one side reports, as "Type path".
type difference struct {
	reason          string
	onlyClaimbridge []string
	onlyUpstream    []string
}

// deliberate lists every known difference (docs/validation.md, "Where
// claimbridge differs from upstream"), keyed by "<version>/<scenario>".
var deliberate = map[string]difference{
	"v1alpha1/change-allocation": {
		reason:          "claimbridge keeps a v1alpha1 allocation immutable once set, as 1.27+ do; 1.26 allowed changing it",
		onlyClaimbridge: []string{"FieldValueInvalid status.allocation"},
	},
	"v1alpha2/update-class-empty-to-absent": {
		reason: "resourceClassName \"\" and none are one v1alpha2 spec but two v1alpha3 specs (a request with an empty class, " +
			"or none): claimbridge's cross-version spec immutability sees the change (both specs are invalid anyway)",
		onlyClaimbridge: []string{"FieldValueInvalid metadata.annotations"},
	},
	"v1alpha3/cel-stored-newer-library": {
		reason: "an update compiles the immutable spec's CEL in today's stored-expressions environment, where 1.31 " +
			"re-ran its create rules: a claim an earlier claimbridge build stored with a function newer than 1.31 " +
			"(here the lists extension's sortBy) stays writable",
		onlyUpstream: []string{"FieldValueInvalid spec.devices.requests[0].selectors[0].cel.expression"},
	},
	"v1alpha2/update-with-invalid-spec": {
		reason: "same findings, other order: upstream's update path runs the create rules before ValidateClaimUpdate " +
			"(and so may report a spec error twice); claimbridge reports each once, in ValidateClaimUpdate's order",
	},
}

func TestUpstreamParity(t *testing.T) {
	used := map[string]bool{}
	for _, version := range []string{"v1alpha1", "v1alpha2", "v1alpha3"} {
		t.Run(version, func(t *testing.T) { parity(t, version, used) })
	}
	for key := range deliberate {
		if !used[key] {
			t.Errorf("deliberate difference %q names no scenario of the corpus", key)
		}
	}
}

// parity runs the corpus of one version through claimbridge and its oracle.
func parity(t *testing.T, version string, used map[string]bool) {
	scenarios := loadCorpus(t, version)
	answers := runOracle(t, releaseOf[version], scenarios)
	valid, invalid := 0, 0
	for i, s := range scenarios {
		key := version + "/" + s.Name
		t.Run(s.Name, func(t *testing.T) {
			a := answers[i]
			if a.Error != "" {
				t.Fatalf("the %s oracle cannot use the scenario: %s", releaseOf[version], a.Error)
			}
			upstream := dedupe(a.Errors)
			ours := claimbridgeErrors(t, s)
			diff, known := deliberate[key]
			used[key] = known
			gotOnlyOurs, gotOnlyUpstream := minus(ours, upstream), minus(upstream, ours)
			if d := cmp.Diff(diff.onlyClaimbridge, gotOnlyOurs); d != "" {
				t.Errorf("findings only claimbridge reports (-listed +got):\n%s\nclaimbridge: %q\nupstream %s: %q", d, ours, releaseOf[version], upstream)
			}
			if d := cmp.Diff(diff.onlyUpstream, gotOnlyUpstream); d != "" {
				t.Errorf("findings only upstream %s reports (-listed +got):\n%s\nclaimbridge: %q\nupstream: %q", releaseOf[version], d, ours, upstream)
			}
			switch d := cmp.Diff(upstream, ours); {
			case !known && d != "":
				t.Errorf("order of findings differs (-upstream %s +claimbridge):\n%s", releaseOf[version], d)
			case known && d == "":
				t.Errorf("listed as a deliberate difference (%s), but claimbridge and upstream agree: remove it", diff.reason)
			}
		})
		if len(answers[i].Errors) == 0 {
			valid++
		} else {
			invalid++
		}
	}
	if valid < 3 || invalid < 10 {
		t.Errorf("%s corpus: %d valid and %d invalid scenarios; want both kinds", version, valid, invalid)
	}
}

// claimbridgeErrors runs claimbridge's validation on the scenario and
// returns its findings as deduplicated "Type path" strings.
func claimbridgeErrors(t *testing.T, s scenario) []string {
	t.Helper()
	req := validation.Request{Operation: validation.Create, Object: deepCopy(s.Object).(map[string]interface{})}
	switch s.Op {
	case "create":
	case "update", "status":
		req.Operation, req.OldObject = validation.Update, deepCopy(s.Old).(map[string]interface{})
		if s.Op == "status" {
			req.SubResource = "status"
		}
	default:
		t.Fatalf("unknown op %q", s.Op)
	}
	resp, err := validation.Validate(req)
	if err != nil {
		t.Fatalf("claimbridge cannot validate the scenario: %v", err)
	}
	var errs []fieldError
	for _, e := range resp.Errors {
		errs = append(errs, fieldError{Type: string(e.Type), Field: e.Field})
	}
	return dedupe(errs)
}

// dedupe renders findings as "Type path", each once, in order of first
// appearance: upstream's update path runs the create rules as well and may
// report a finding twice; claimbridge reports it once (docs/validation.md).
func dedupe(errs []fieldError) []string {
	seen := map[string]bool{}
	out := []string{}
	for _, e := range errs {
		k := fmt.Sprintf("%s %s", e.Type, e.Field)
		if !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	return out
}

// minus returns the elements of a that b lacks, in a's order (nil if none).
func minus(a, b []string) []string {
	in := map[string]bool{}
	for _, e := range b {
		in[e] = true
	}
	var out []string
	for _, e := range a {
		if !in[e] {
			out = append(out, e)
		}
	}
	return out
}
