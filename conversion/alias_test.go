package conversion_test

import (
	"reflect"
	"testing"

	"github.com/claimbridge/claimbridge/conversion"
)

// TestConvertSharesNothing converts random objects between every pair of
// versions (and to their own version) and requires that the result shares
// no map or slice with the input: Convert does not deep-copy the sections it
// maps, so this holds only because every step builds its sections anew.
func TestConvertSharesNothing(t *testing.T) {
	n := max(1, roundTripIterations(t)/50)
	for fi, from := range conversion.ChainVersions {
		for ti, to := range conversion.ChainVersions {
			t.Run(from+"-to-"+to, func(t *testing.T) {
				t.Parallel()
				f := newFiller(int64(9000 + 100*fi + ti))
				for i := 0; i < n; i++ {
					obj := randomObject(t, f, from, i%4 == 3)
					obj["apiVersion"] = conversion.UpstreamGroup + "/" + from
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
