package conversion_test

import (
	"bytes"
	"encoding/json"
	"os"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/conversion"
)

// roundTripIterations is how many random objects each direction and each
// cycle converts in `go test` (CLAIMBRIDGE_ROUNDTRIP_ITERATIONS overrides).
func roundTripIterations(t *testing.T) int {
	if s := os.Getenv("CLAIMBRIDGE_ROUNDTRIP_ITERATIONS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil {
			t.Fatalf("CLAIMBRIDGE_ROUNDTRIP_ITERATIONS=%q: %v", s, err)
		}
		return n
	}
	return 10000
}

// TestRoundTripDirections converts random objects A→B→A in all six
// directions and requires A back exactly, and B to hold only B's fields.
func TestRoundTripDirections(t *testing.T) {
	n := roundTripIterations(t)
	for fi, from := range api.ServedVersions {
		for ti, to := range api.ServedVersions {
			if from == to {
				continue
			}
			t.Run(from+"-to-"+to, func(t *testing.T) {
				t.Parallel()
				f := newFiller(int64(100*fi + ti))
				for i := 0; i < n; i++ {
					obj := randomObject(t, f, from, i%4 == 3)
					if !roundTrip(t, obj, from, to) {
						t.Fatalf("iteration %d failed", i)
					}
				}
			})
		}
	}
}

// TestRoundTripCycles converts random objects around both three-version
// cycles (A→B→C→A, both orders, from every start) and requires A back.
func TestRoundTripCycles(t *testing.T) {
	n := roundTripIterations(t)
	for si, start := range api.ServedVersions {
		for _, order := range []int{1, 2} {
			path := []string{start, api.ServedVersions[(si+order)%3], api.ServedVersions[(si+2*order)%3], start}
			t.Run(path[0]+"-"+path[1]+"-"+path[2], func(t *testing.T) {
				t.Parallel()
				f := newFiller(int64(1000 + 10*si + order))
				for i := 0; i < n; i++ {
					obj := randomObject(t, f, start, i%4 == 3)
					cur := obj
					for hop := 1; hop < len(path); hop++ {
						next, err := conversion.Convert(cur, path[hop])
						if err != nil {
							t.Fatalf("iteration %d: %s→%s: %v\n%s", i, path[hop-1], path[hop], err, mustJSON(cur))
						}
						checkOwnFields(t, next, path[hop])
						cur = next
					}
					if !api.DeepEqualJSON(obj, cur) {
						t.Fatalf("iteration %d: %v did not give the object back (-want +got):\n%s", i, path, cmp.Diff(obj, cur, treeComparer))
					}
				}
			})
		}
	}
}

// roundTrip checks A→B→A for one object and reports success.
func roundTrip(t *testing.T, obj map[string]interface{}, from, to string) bool {
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
	if !checkOwnFields(t, converted, to) || !checkMetadata(t, obj, converted) {
		return false
	}
	back, err := conversion.Convert(converted, from)
	if err != nil {
		t.Errorf("%s→%s: %v\n%s", to, from, err, mustJSON(converted))
		return false
	}
	if !api.DeepEqualJSON(obj, back) {
		t.Errorf("%s→%s→%s changed the object (-want +got):\n%s\nintermediate: %s", from, to, from, cmp.Diff(obj, back, treeComparer), mustJSON(converted))
		return false
	}
	return true
}

// checkOwnFields decodes obj strictly into the Go type of version: a field of
// another version would be an unknown field.
func checkOwnFields(t *testing.T, obj map[string]interface{}, version string) bool {
	t.Helper()
	if got, want := obj["apiVersion"], api.Group+"/"+version; got != want {
		t.Errorf("apiVersion = %v, want %s", got, want)
		return false
	}
	dec := json.NewDecoder(bytes.NewReader([]byte(mustJSON(obj))))
	dec.DisallowUnknownFields()
	if err := dec.Decode(typedFor(version, obj["kind"].(string))); err != nil {
		t.Errorf("converted object does not fit %s: %v\n%s", version, err, mustJSON(obj))
		return false
	}
	return true
}

// checkMetadata requires metadata to be unchanged but for annotations.
func checkMetadata(t *testing.T, in, out map[string]interface{}) bool {
	t.Helper()
	strip := func(obj map[string]interface{}) map[string]interface{} {
		meta := map[string]interface{}{}
		for k, v := range asObject(obj["metadata"]) {
			if k != "annotations" {
				meta[k] = v
			}
		}
		return meta
	}
	if !api.DeepEqualJSON(strip(in), strip(out)) {
		t.Errorf("metadata beyond annotations changed (-in +out):\n%s", cmp.Diff(strip(in), strip(out), treeComparer))
		return false
	}
	return true
}

func asObject(v interface{}) map[string]interface{} {
	m, _ := v.(map[string]interface{})
	return m
}

// treeComparer compares JSON numbers by their text.
var treeComparer = cmp.Comparer(func(a, b json.Number) bool { return a.String() == b.String() })

func mustJSON(v interface{}) string {
	data, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(data)
}
