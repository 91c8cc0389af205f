package conversion_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/conversion"
)

// TestLossesMatchConvertWithWarnings: Losses returns exactly the warnings
// of ConvertWithWarnings (but for restore data not applied, which only
// ConvertWithWarnings reports), and leaves its input alone, for the golden inputs
// and for random claims and templates of every version — as written, and as
// shown in another version (with the restore annotations that brings) — to
// every version.
func TestLossesMatchConvertWithWarnings(t *testing.T) {
	check := func(t *testing.T, obj map[string]interface{}, to string) {
		t.Helper()
		before := conversion.DeepCopyForTest(obj)
		_, all, errWant := conversion.ConvertWithWarnings(obj, to)
		var want []conversion.Warning // but restore data not applied, which Losses does not report
		for _, w := range all {
			if !strings.HasPrefix(w.Path, "metadata.annotations[claimbridge.dev/restore-") {
				want = append(want, w)
			}
		}
		got, errGot := conversion.Losses(obj, to)
		if !reflect.DeepEqual(obj, before) {
			t.Fatalf("Losses modified its input")
		}
		switch {
		case errWant != nil && errGot == nil && strings.Contains(errWant.Error(), "annotation"):
			// The restore data Losses does not build exceeds the limit.
		case (errWant == nil) != (errGot == nil):
			t.Fatalf("→ %s: error %v, ConvertWithWarnings' %v", to, errGot, errWant)
		case !reflect.DeepEqual(got, want):
			t.Fatalf("→ %s: warnings\n%v\nConvertWithWarnings'\n%v", to, got, want)
		}
	}
	t.Run("golden", func(t *testing.T) {
		for _, in := range goldenInputs(t) {
			obj := goldenReadTree(t, in.path)
			for _, to := range api.ConversionVersions {
				if _, _, _, err := conversion.Identify(obj); err == nil {
					check(t, obj, to)
				}
			}
		}
	})
	t.Run("random", func(t *testing.T) {
		n := roundTripIterations(t) / 10
		for i, from := range api.ConversionVersions {
			t.Run(from, func(t *testing.T) {
				t.Parallel()
				f := newFiller(int64(7100 + i))
				for k := 0; k < n; k++ {
					obj := randomObject(t, f, from, k%4 == 3)
					shown := api.ConversionVersions[(i+1+k)%len(api.ConversionVersions)]
					for _, input := range []map[string]interface{}{obj, mustConvertOrNil(obj, shown)} {
						if input == nil {
							continue
						}
						for _, to := range api.ConversionVersions {
							check(t, input, to)
						}
					}
				}
			})
		}
	})
}

func mustConvertOrNil(obj map[string]interface{}, to string) map[string]interface{} {
	out, err := conversion.Convert(obj, to)
	if err != nil {
		return nil
	}
	return out
}
