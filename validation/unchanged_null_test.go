package validation

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/claimbridge/claimbridge/conversion"
)

// bigClaimV3 is a v1alpha3 claim without annotations whose spec, which
// v1alpha2 cannot hold, needs a restore annotation of about pad bytes there.
func bigClaimV3(t testing.TB, pad int) map[string]interface{} {
	return obj(t, `{"apiVersion":"resource.claimbridge.dev/v1alpha3","kind":"ResourceClaim","metadata":{"name":"c","namespace":"ns","resourceVersion":"1"},`+
		`"spec":{"devices":{"requests":[{"name":"gpu","deviceClassName":"gpu.example.com"}],`+
		`"config":[{"requests":["gpu"],"opaque":{"driver":"gpu.example.com","parameters":{"pad":"`+strings.Repeat("a", pad)+`"}}}]}}}`)
}

// metadata.annotations null is not metadata.annotations absent to
// conversion: the restore annotation it adds records which one it created
// ("annotations=null" or "annotations"), and so needs 5 bytes more. A main
// update that only turns absent annotations into null ones (and changes a
// label) can therefore make the object unreadable through another version
// (rule "a create or main update that makes the object so is refused").
func TestNullAnnotationsAreNotAbsent(t *testing.T) {
	requireConversion(t)
	lo, hi := 200000, 300000
	for lo < hi { // the largest padding that still converts to v1alpha2
		mid := (lo + hi + 1) / 2
		if _, err := conversion.Convert(bigClaimV3(t, mid), "v1alpha2"); err == nil {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	old := bigClaimV3(t, lo)
	cur := bigClaimV3(t, lo)
	meta(cur)["annotations"] = nil
	meta(cur)["labels"] = map[string]interface{}{"app": "x"}
	var want field.ErrorList
	for _, version := range []string{"v1alpha1", "v1alpha2"} {
		_, errOld := conversion.Convert(old, version)
		_, errNew := conversion.Convert(cur, version)
		if errOld != nil && version == "v1alpha2" || errNew == nil {
			t.Fatalf("%s: old converts: %v, new fails: %v; want the old one to convert and the new one not", version, errOld, errNew)
		}
		if errOld == nil {
			want = append(want, field.Forbidden(field.NewPath("metadata", "annotations"),
				fmt.Sprintf("the object could not be read through %s, nor listed or watched with other claims through it: %v", version, errNew)))
		}
	}
	got, err := Validate(Request{Operation: Update, Object: cur, OldObject: old})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got.Errors); diff != "" {
		t.Errorf("findings (-want +got):\n%s", diff)
	}
}
