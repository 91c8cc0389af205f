package conversion_test

import (
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/conversion"
)

// TestInvertiblePredicates checks the sections a step skips mapping back
// (conversion/invertible.go): over the golden inputs converted to every
// version and back, and over random claims and templates of every
// neighbouring direction converted there and back, each step is run on the
// full path and on the skipping path. Whenever the predicate calls a section
// invertible, the full path must record no restore patch for it, and both
// paths must give the same object and the same losses (the warnings). Every
// predicate must have answered true at least once.
func TestInvertiblePredicates(t *testing.T) {
	var mu sync.Mutex
	total := conversion.InvertibleCounts{}
	merge := func(c conversion.InvertibleCounts) {
		mu.Lock()
		defer mu.Unlock()
		for k, v := range c {
			total[k] += v
		}
	}
	there := func(t *testing.T, obj map[string]interface{}, from, to string, counts conversion.InvertibleCounts) bool {
		t.Helper()
		out, err := conversion.CheckInvertibleSteps(obj, from, to, counts)
		if err != nil {
			t.Errorf("%s → %s: %v", from, to, err)
			return false
		}
		if _, err := conversion.CheckInvertibleSteps(out, to, from, counts); err != nil {
			t.Errorf("%s → %s → %s: %v", from, to, from, err)
			return false
		}
		return true
	}

	t.Run("golden", func(t *testing.T) {
		counts := conversion.InvertibleCounts{}
		for _, in := range goldenInputs(t) {
			input := goldenReadTree(t, in.path)
			objects := []map[string]interface{}{input}
			if kind, _ := input["kind"].(string); strings.HasSuffix(kind, "List") {
				objects = nil
				for _, it := range input["items"].([]interface{}) {
					item := it.(map[string]interface{})
					item["kind"] = strings.TrimSuffix(kind, "List")
					objects = append(objects, item)
				}
			}
			for _, obj := range objects {
				for _, to := range api.ConversionVersions {
					if to != in.version {
						there(t, obj, in.version, to, counts)
					}
				}
			}
		}
		merge(counts)
	})

	t.Run("random", func(t *testing.T) {
		n := roundTripIterations(t)
		chain := api.ConversionVersions
		for i := range chain {
			for _, j := range []int{i - 1, i + 1} {
				if j < 0 || j >= len(chain) {
					continue
				}
				from, to := chain[i], chain[j]
				t.Run(from+"-to-"+to, func(t *testing.T) {
					t.Parallel()
					f := newFiller(int64(9000 + 10*i + j))
					counts := conversion.InvertibleCounts{}
					for k := 0; k < n; k++ {
						obj := randomObject(t, f, from, k%4 == 3)
						if !there(t, obj, from, to, counts) {
							t.Fatalf("iteration %d failed", k)
						}
					}
					merge(counts)
				})
			}
		}
	})

	var keys []string
	for k := range total {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		t.Logf("%s: %d sections skipped", k, total[k])
	}
	for _, k := range conversion.InvertibleDirections() {
		if total[k] == 0 {
			t.Errorf("the predicate of %s never answered true: it is not tested", k)
		}
	}
}
