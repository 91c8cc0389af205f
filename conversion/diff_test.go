package conversion

import (
	"encoding/json"
	"math"
	"math/rand"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/claimbridge/claimbridge/api"
)

// referenceDiff is diff as it was written first (equal at every level,
// paths built on the way down): the single-pass diff must give the same
// operations in the same order, since they are stored in restore
// annotations.
func referenceDiff(path string, base, target interface{}, ops []operation) []operation {
	switch b := base.(type) {
	case map[string]interface{}:
		t, ok := target.(map[string]interface{})
		if !ok {
			break
		}
		for _, k := range sortedKeys(t) {
			if bv, ok := b[k]; !ok {
				ops = append(ops, operation{Op: "add", Path: path + "/" + escapePointer(k), Value: t[k]})
			} else if !api.EqualJSON(bv, t[k]) {
				ops = referenceDiff(path+"/"+escapePointer(k), bv, t[k], ops)
			}
		}
		for _, k := range sortedKeys(b) {
			if _, ok := t[k]; !ok {
				ops = append(ops, operation{Op: "remove", Path: path + "/" + escapePointer(k)})
			}
		}
		return ops
	case []interface{}:
		t, ok := target.([]interface{})
		if !ok || len(t) != len(b) {
			break
		}
		for i := range t {
			if !api.EqualJSON(b[i], t[i]) {
				ops = referenceDiff(path+"/"+strconv.Itoa(i), b[i], t[i], ops)
			}
		}
		return ops
	default:
		if api.EqualJSON(base, target) {
			return ops
		}
	}
	return append(ops, operation{Op: "replace", Path: path, Value: target})
}

func TestDiffMatchesReference(t *testing.T) {
	tree := func(s string) interface{} {
		var v interface{}
		if err := json.Unmarshal([]byte(s), &v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	for _, tc := range []struct{ name, base, target string }{
		{"equal", `{"a":{"b":[1,2,{"c":"d"}]}}`, `{"a":{"b":[1,2,{"c":"d"}]}}`},
		{"many keys differ", `{"z":1,"y":2,"x":3,"w":{"v":4,"u":5},"t":6,"s":[1],"r":"q"}`, `{"z":2,"y":3,"x":4,"w":{"v":5,"u":6},"t":7,"s":[2],"r":"p","a":0}`},
		{"empty and escaped keys", `{"":1,"a/b":{"":2,"~":3},"~1":4}`, `{"":5,"a/b":{"":6,"~":7,"n":8},"~1":4,"/":9}`},
		{"removals", `{"a":1,"b":2,"c":{"d":3,"e":4},"f":5}`, `{"c":{"e":4}}`},
		{"type changes", `{"a":{"b":1},"c":[1,2],"d":"x","e":null}`, `{"a":[1],"c":{"0":1},"d":{"x":1},"e":false}`},
		{"arrays", `{"a":[1,2,3],"b":[{"c":1},{"c":2}]}`, `{"a":[1,2],"b":[{"c":1},{"c":3,"d":4}]}`},
		{"scalar roots", `"a"`, `"b"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base, target := tree(tc.base), tree(tc.target)
			want := referenceDiff("/spec", base, target, nil)
			got := diff("/spec", base, target, nil)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("diff (-reference +got):\n%s", diff)
			}
		})
	}
	// Random trees with many keys at every level, so that several differing
	// keys of one map come out of map iteration in every order.
	rng := rand.New(rand.NewSource(1))
	var gen func(depth int) interface{}
	gen = func(depth int) interface{} {
		switch n := rng.Intn(6); {
		case depth > 3 || n == 0:
			return strconv.Itoa(rng.Intn(3))
		case n == 1:
			s := make([]interface{}, rng.Intn(3))
			for i := range s {
				s[i] = gen(depth + 1)
			}
			return s
		default:
			m := map[string]interface{}{}
			for i := rng.Intn(12); i > 0; i-- {
				m[[]string{"", "a", "b/c", "~d", "e", "f", "g", "h", "i", "j", "k", "l"}[rng.Intn(12)]] = gen(depth + 1)
			}
			return m
		}
	}
	for i := 0; i < 3000; i++ {
		base, target := gen(0), gen(0)
		want := referenceDiff("/status", base, target, nil)
		got := diff("/status", base, target, nil)
		if d := cmp.Diff(want, got); d != "" {
			t.Fatalf("random trees %d: diff (-reference +got):\n%s", i, d)
		}
	}
}

// TestSameContainer: shared maps and slices are recognised, equal copies
// and different slices of one array are not.
func TestSameContainer(t *testing.T) {
	m := map[string]interface{}{"a": "b"}
	s := []interface{}{"x", "y"}
	for _, tc := range []struct {
		name string
		a, b interface{}
		want bool
	}{
		{"same map", m, m, true},
		{"equal map", m, map[string]interface{}{"a": "b"}, false},
		{"nil maps", map[string]interface{}(nil), map[string]interface{}(nil), false},
		{"same slice", s, s, true},
		{"same one-element slice", s[:1], s[:1], true},
		{"equal slice", s, []interface{}{"x", "y"}, false},
		{"shorter slice of one array", s, s[:1], false},
		{"later slice of one array", s[1:], s[:1], false},
		{"empty slices", []interface{}{}, []interface{}{}, false},
		{"map and slice", m, s, false},
		{"strings", "a", "a", false},
	} {
		if got := sameContainer(tc.a, tc.b); got != tc.want {
			t.Errorf("%s: sameContainer = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestEqual: api.EqualJSON compares JSON trees member by member and element by
// element, numbers by their JSON text, and a value without a JSON encoding
// as unequal to everything.
func TestEqual(t *testing.T) {
	m := map[string]interface{}{"a": json.Number("1")}
	s := []interface{}{"x"}
	for _, tc := range []struct {
		name string
		a, b interface{}
		want bool
	}{
		{"same map", m, m, true},
		{"equal maps", map[string]interface{}{"a": json.Number("1"), "b": []interface{}{"x"}}, map[string]interface{}{"a": int64(1), "b": []interface{}{"x"}}, true},
		{"empty maps", map[string]interface{}{}, map[string]interface{}{}, true},
		{"map and a map with a further member", map[string]interface{}{"a": "x"}, map[string]interface{}{"a": "x", "b": "y"}, false},
		{"map and a map without a member", map[string]interface{}{"a": "x", "b": "y"}, map[string]interface{}{"a": "x"}, false},
		{"maps with other keys", map[string]interface{}{"a": "x"}, map[string]interface{}{"b": "x"}, false},
		{"maps with other values", map[string]interface{}{"a": "x"}, map[string]interface{}{"a": "y"}, false},
		{"map and array", map[string]interface{}{}, []interface{}{}, false},
		{"same array", s, s, true},
		{"equal arrays", []interface{}{"x", json.Number("2")}, []interface{}{"x", float64(2)}, true},
		{"empty arrays", []interface{}{}, []interface{}{}, true},
		{"array and a longer one", []interface{}{"x"}, []interface{}{"x", "y"}, false},
		{"array and a shorter one", []interface{}{"x", "y"}, []interface{}{"x"}, false},
		{"arrays with another last element", []interface{}{"x", "y"}, []interface{}{"x", "z"}, false},
		{"array and map", []interface{}{}, map[string]interface{}{}, false},
		{"equal strings", "a", "a", true},
		{"strings", "a", "b", false},
		{"string and number", "1", json.Number("1"), false},
		{"booleans", true, false, false},
		{"nulls", nil, nil, true},
		{"null and false", nil, false, false},
		{"equal numbers", json.Number("1"), json.Number("1"), true},
		{"numbers", json.Number("1"), json.Number("2"), false},
		{"numbers written differently", json.Number("1"), json.Number("1.0"), false},
		{"number and int64", json.Number("1"), int64(1), true},
		{"int64 and float64", int64(1), float64(1), true},
		{"int64 and another float64", int64(1), float64(1.5), false},
		{"NaNs", math.NaN(), math.NaN(), false},
	} {
		if got := api.EqualJSON(tc.a, tc.b); got != tc.want {
			t.Errorf("%s: api.EqualJSON = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestDiffOfManyDifferingKeysIsNotQuadratic pins the cost of putting a
// map's operations in key order: a stored v1alpha3 claim whose
// restore-v1alpha2 annotation adds n unknown spec fields (what an update
// through v1alpha3 may carry) is diffed with n differing keys in one map on
// every read through v1alpha1. The insertion sort made that n²/4
// comparisons (5,500 fields, the annotation limit: 32 ms per read, 6.5 ms
// now); the comparisons for 8n must stay near 8 × those for n.
func TestDiffOfManyDifferingKeysIsNotQuadratic(t *testing.T) {
	stored := func(n int) map[string]interface{} {
		v3 := map[string]interface{}{
			"apiVersion": "resource.claimbridge.dev/v1alpha3",
			"kind":       api.KindClaim,
			"metadata":   map[string]interface{}{"name": "wide", "namespace": "default"},
			"spec": map[string]interface{}{"devices": map[string]interface{}{"requests": []interface{}{
				map[string]interface{}{"name": "request", "deviceClassName": "gpu.example.com", "allocationMode": "ExactCount", "count": json.Number("1")},
			}}},
		}
		v2, err := Convert(v3, api.V1alpha2)
		if err != nil {
			t.Fatal(err)
		}
		spec := v2["spec"].(map[string]interface{})
		for i := 0; i < n; i++ {
			spec["x"+strconv.Itoa(i)] = json.Number("1")
		}
		obj, err := Convert(v2, api.V1alpha3)
		if err != nil {
			t.Fatal(err)
		}
		return obj
	}
	compares := func(n int) int {
		obj := stored(n)
		count := 0
		saved := compareSegments
		compareSegments = func(a, b segment) int { count++; return saved(a, b) }
		defer func() { compareSegments = saved }()
		v1, err := Convert(obj, api.V1alpha1)
		if err != nil {
			t.Fatal(err)
		}
		if r := decodeRestore(v1, api.V1alpha2); r == nil || r.Spec == nil || len(r.Spec.Patch) != n {
			t.Fatalf("n=%d: the v1alpha1 view's restore-v1alpha2 annotation does not hold the %d fields", n, n)
		}
		return count
	}
	const n = 500
	small, large := compares(n), compares(8*n)
	if small < n/2 {
		t.Fatalf("%d comparisons for %d differing keys: the keys were not sorted", small, n)
	}
	t.Logf("%d comparisons for %d differing keys, %d for %d", small, n, large, 8*n)
	if ratio := float64(large) / float64(small); ratio > 16 {
		t.Errorf("%d comparisons for %d differing keys, %d for %d: %.1f times (quadratic: 64)", small, n, large, 8*n, ratio)
	}
}
