package conversion_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/conversion"
)

// gaIterations is how many random objects each pair with a GA version
// converts: a 25th of the alpha directions' count, because each conversion
// takes up to five steps and there are 24 such directions.
func gaIterations(t *testing.T) int { return max(1, roundTripIterations(t)/25) }

// TestRoundTripGA converts random resource.k8s.io objects A→B→A for every
// ordered pair of the six shapes that involves v1beta1, v1beta2 or v1, and
// requires A back exactly and B to decode strictly into the type of B
// (k8s.io/api v0.36 for the GA versions). The pairs of alpha versions are
// TestRoundTripDirections.
func TestRoundTripGA(t *testing.T) {
	n := gaIterations(t)
	for fi, from := range api.ConversionVersions {
		for ti, to := range api.ConversionVersions {
			if from == to || (!isGA(from) && !isGA(to)) {
				continue
			}
			t.Run(from+"-to-"+to, func(t *testing.T) {
				t.Parallel()
				f := newFiller(int64(5000 + 100*fi + ti))
				for i := 0; i < n; i++ {
					obj := randomObject(t, f, from, i%4 == 3)
					obj["apiVersion"] = api.UpstreamGroup + "/" + from
					if !roundTripUpstream(t, obj, from, to) {
						t.Fatalf("iteration %d failed", i)
					}
				}
			})
		}
	}
}

// TestRoundTripGACycle converts random objects along the whole chain and
// back (v1alpha1 → … → v1 → … → v1alpha1, and from v1 the other way).
func TestRoundTripGACycle(t *testing.T) {
	n := gaIterations(t)
	chain := api.ConversionVersions
	for _, start := range []int{0, len(chain) - 1} {
		t.Run(chain[start], func(t *testing.T) {
			t.Parallel()
			f := newFiller(int64(7000 + start))
			for i := 0; i < n; i++ {
				obj := randomObject(t, f, chain[start], i%4 == 3)
				obj["apiVersion"] = api.UpstreamGroup + "/" + chain[start]
				cur := obj
				path := append(append([]int{}, start), walk(start, len(chain)-1-start)...)
				for _, hop := range path[1:] {
					next, err := conversion.Convert(cur, chain[hop])
					if err != nil {
						t.Fatalf("iteration %d: to %s: %v\n%s", i, chain[hop], err, mustJSON(cur))
					}
					if !checkUpstreamShape(t, next, chain[hop]) {
						t.Fatalf("iteration %d", i)
					}
					cur = next
				}
				if diff := cmp.Diff(obj, cur, treeComparer); diff != "" {
					t.Fatalf("iteration %d: the chain did not give the object back (-want +got):\n%s", i, diff)
				}
			}
		})
	}
}

// walk lists the chain indexes from start to end and back to start.
func walk(start, end int) []int {
	var out []int
	step := 1
	if end < start {
		step = -1
	}
	for i := start + step; i != end+step; i += step {
		out = append(out, i)
	}
	for i := end - step; i != start-step; i -= step {
		out = append(out, i)
	}
	return out
}

func roundTripUpstream(t *testing.T, obj map[string]interface{}, from, to string) bool {
	t.Helper()
	before := mustJSON(obj)
	converted, err := conversion.Convert(obj, to)
	if err != nil {
		t.Errorf("%s→%s: %v\n%s", from, to, err, before)
		return false
	}
	if got := mustJSON(obj); got != before {
		t.Errorf("Convert modified its input:\nbefore %s\nafter  %s", before, got)
		return false
	}
	if !checkUpstreamShape(t, converted, to) || !checkMetadata(t, obj, converted) {
		return false
	}
	back, err := conversion.Convert(converted, from)
	if err != nil {
		t.Errorf("%s→%s: %v\n%s", to, from, err, mustJSON(converted))
		return false
	}
	if diff := cmp.Diff(obj, back, treeComparer); diff != "" {
		t.Errorf("%s→%s→%s changed the object (-want +got):\n%s\nintermediate: %s", from, to, from, diff, mustJSON(converted))
		return false
	}
	return true
}

// checkUpstreamShape decodes a resource.k8s.io object strictly into the type
// of its version.
func checkUpstreamShape(t *testing.T, obj map[string]interface{}, version string) bool {
	t.Helper()
	if got, want := obj["apiVersion"], api.UpstreamGroup+"/"+version; got != want {
		t.Errorf("apiVersion = %v, want %s", got, want)
		return false
	}
	if err := decodeStrict(obj, version); err != nil {
		t.Errorf("converted object does not fit %s: %v\n%s", version, err, mustJSON(obj))
		return false
	}
	return true
}

func decodeStrict(obj map[string]interface{}, version string) error {
	dec := json.NewDecoder(bytes.NewReader([]byte(mustJSON(obj))))
	dec.DisallowUnknownFields()
	return dec.Decode(typedFor(version, obj["kind"].(string)))
}
