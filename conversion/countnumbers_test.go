package conversion

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/claimbridge/claimbridge/api"
)

// countValues are a request count as the trees Convert is given hold it:
// json.Number from a UseNumber decode, float64 from a plain encoding/json
// decode (docs/conversion.md §1.2), int64 and int from trees built in Go, and
// a type printsAs has no case for.
var countValues = []interface{}{
	json.Number("0"), json.Number("1"), json.Number("2"), json.Number("1.0"),
	float64(0), float64(1), float64(2), float64(1.5),
	int64(0), int64(1), int64(2), int(0), int(1), int(2),
	"0", "1", "2", uint8(0), uint8(1), uint8(2),
}

// TestPrintsAsIsFmtSprint: printsAs is fmt.Sprint without fmt for the types a
// decoded count has; for every type it must agree with fmt.Sprint, which is
// what decides whether a count is 1 (no loss, a default the way back removes)
// or not.
func TestPrintsAsIsFmtSprint(t *testing.T) {
	for _, v := range countValues {
		for _, n := range []int{0, 1} {
			want := fmt.Sprint(v) == strconv.Itoa(n)
			if got := printsAs(v, n); got != want {
				t.Errorf("printsAs(%T %v, %d) = %v, want %v", v, v, n, got, want)
			}
		}
	}
}

// TestCountLossOfEveryNumberType: a 1.27–1.30 claim allocates one device, so
// the v1alpha3→v1alpha2 step reports a request count other than 1 (or 0,
// which 1.31 defaults to 1) as lost (docs/conversion.md §2.4), whatever type
// the count's number has: a tree decoded by plain encoding/json holds float64.
func TestCountLossOfEveryNumberType(t *testing.T) {
	for _, c := range []struct {
		count interface{}
		lost  bool
	}{
		{json.Number("1"), false}, {json.Number("0"), false}, {json.Number("2"), true},
		{float64(1), false}, {float64(0), false}, {float64(2), true},
		{int64(1), false}, {int64(0), false}, {int64(2), true},
		{int(1), false}, {int(0), false}, {int(2), true},
	} {
		t.Run(fmt.Sprintf("%T-%v", c.count, c.count), func(t *testing.T) {
			in := map[string]interface{}{
				"apiVersion": api.Group + "/" + api.V1alpha3, "kind": "ResourceClaim",
				"metadata": map[string]interface{}{"name": "c", "namespace": "ns"},
				"spec": map[string]interface{}{"devices": map[string]interface{}{"requests": []interface{}{
					map[string]interface{}{"name": "r", "deviceClassName": "gpu", "allocationMode": "ExactCount", "count": c.count},
				}}},
			}
			_, warnings, err := ConvertWithWarnings(in, api.V1alpha2)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, w := range warnings {
				got = append(got, w.Path)
			}
			var want []string
			if c.lost {
				want = []string{"spec.devices.requests[0].count"}
			}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("warnings (-want +got):\n%s", d)
			}
		})
	}
}

// TestIsOneOfEveryNumberType: isOne decides whether a request's count is the
// default 1 a step writes with ExactCount (removed again on the way back to
// a build before the defaults, or from an object a 1.32+ apiserver stored),
// for every type a decoded count has; a count of another type (a string "1"
// is a malformed count) is no default.
func TestIsOneOfEveryNumberType(t *testing.T) {
	for _, v := range countValues {
		want := false
		switch v.(type) {
		case json.Number, float64, int64, int:
			want = fmt.Sprint(v) == "1"
		}
		if got := isOne(v); got != want {
			t.Errorf("isOne(%T %v) = %v, want %v", v, v, got, want)
		}
	}
}

// TestCountOneOfEveryNumberTypeNeedsNoRestore: a request count of 1, of
// whatever number type a tree holds it, is the count the way back writes
// (json.Number 1): its JSON is the same, so the restore annotation of the
// v1alpha2 view is the one of a count decoded from JSON (here it holds the
// request's name only), and back in v1alpha3 the count is 1.
func TestCountOneOfEveryNumberTypeNeedsNoRestore(t *testing.T) {
	claim := func(count interface{}) map[string]interface{} {
		return map[string]interface{}{
			"apiVersion": api.Group + "/" + api.V1alpha3, "kind": "ResourceClaim",
			"metadata": map[string]interface{}{"name": "c", "namespace": "ns"},
			"spec": map[string]interface{}{"devices": map[string]interface{}{"requests": []interface{}{
				map[string]interface{}{"name": "r", "deviceClassName": "gpu", "allocationMode": "ExactCount", "count": count},
			}}},
		}
	}
	decoded, err := Convert(claim(json.Number("1")), api.V1alpha2)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := asMap(asMap(decoded["metadata"])["annotations"])[api.RestoreAnnotation(api.V1alpha3)].(string)
	if !strings.HasSuffix(want, `"patch":[{"op":"replace","path":"/spec/devices/requests/0/name","value":"r"}]},"created":"annotations"}`) {
		t.Fatalf("restore annotation of a decoded count: %v", want)
	}
	for _, count := range []interface{}{float64(1), int64(1), int(1)} {
		t.Run(fmt.Sprintf("%T", count), func(t *testing.T) {
			v2, err := Convert(claim(count), api.V1alpha2)
			if err != nil {
				t.Fatal(err)
			}
			if got := asMap(asMap(v2["metadata"])["annotations"])[api.RestoreAnnotation(api.V1alpha3)]; got != want {
				t.Errorf("restore annotation %v, want %v", got, want)
			}
			back, err := Convert(v2, api.V1alpha3)
			if err != nil {
				t.Fatal(err)
			}
			want := claim(json.Number("1"))
			if d := cmp.Diff(want, back); d != "" {
				t.Errorf("back in v1alpha3 (-want +got):\n%s", d)
			}
		})
	}
}
