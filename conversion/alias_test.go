package conversion_test

import (
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/conversion"
)

// TestConvertSharesNothing converts random objects between every pair of
// versions (and to their own version) and requires that the result shares
// no map or slice with the input: Convert does not deep-copy the sections it
// maps, so this holds only because every step builds its sections anew.
func TestConvertSharesNothing(t *testing.T) {
	n := max(1, roundTripIterations(t)/50)
	for fi, from := range api.ConversionVersions {
		for ti, to := range api.ConversionVersions {
			t.Run(from+"-to-"+to, func(t *testing.T) {
				t.Parallel()
				f := newFiller(int64(9000 + 100*fi + ti))
				for i := 0; i < n; i++ {
					obj := randomObject(t, f, from, i%4 == 3)
					obj["apiVersion"] = api.UpstreamGroup + "/" + from
					out, err := conversion.Convert(obj, to)
					if err != nil {
						t.Fatalf("iteration %d: %v\n%s", i, err, mustJSON(obj))
					}
					in := containers(obj, map[uintptr]string{}, "")
					for p, path := range containers(out, map[uintptr]string{}, "") {
						if inPath, shared := in[p]; shared {
							t.Fatalf("iteration %d: %s of the result is %s of the input\n%s", i, path, inPath, mustJSON(obj))
						}
					}
				}
			})
		}
	}
}

// containers records the address of every non-empty map and slice in v.
func containers(v interface{}, seen map[uintptr]string, path string) map[uintptr]string {
	switch v := v.(type) {
	case map[string]interface{}:
		seen[reflect.ValueOf(v).Pointer()] = path
		for k, e := range v {
			containers(e, seen, path+"."+k)
		}
	case []interface{}:
		if len(v) > 0 {
			seen[reflect.ValueOf(v).Pointer()] = path
		}
		for _, e := range v {
			containers(e, seen, path+"[]")
		}
	}
	return seen
}

// TestConvertSharedMatchesConvert converts random objects between every pair
// of versions and back with ConvertShared and with Convert, and requires the
// same results, with the inputs unchanged.
func TestConvertSharedMatchesConvert(t *testing.T) {
	n := max(1, roundTripIterations(t)/50)
	for fi, from := range api.ConversionVersions {
		for ti, to := range api.ConversionVersions {
			t.Run(from+"-to-"+to, func(t *testing.T) {
				t.Parallel()
				f := newFiller(int64(11000 + 100*fi + ti))
				for i := 0; i < n; i++ {
					obj := randomObject(t, f, from, i%4 == 3)
					obj["apiVersion"] = api.UpstreamGroup + "/" + from
					cur, want := obj, obj
					for _, v := range []string{to, from} {
						before := decodeTree(t, []byte(mustJSON(cur)))
						got, err := conversion.ConvertShared(cur, v)
						if err != nil {
							t.Fatalf("iteration %d: ConvertShared to %s: %v\n%s", i, v, err, mustJSON(cur))
						}
						if diff := cmp.Diff(before, cur, treeComparer); diff != "" {
							t.Fatalf("iteration %d: ConvertShared to %s modified its input (-before +after):\n%s", i, v, diff)
						}
						if want, err = conversion.Convert(want, v); err != nil {
							t.Fatalf("iteration %d: Convert to %s: %v", i, v, err)
						}
						if diff := cmp.Diff(want, got, treeComparer); diff != "" {
							t.Fatalf("iteration %d: ConvertShared to %s differs from Convert (-Convert +ConvertShared):\n%s", i, v, diff)
						}
						cur = got
					}
				}
			})
		}
	}
}
