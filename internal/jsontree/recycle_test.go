package jsontree

import (
	"os"
	"path/filepath"
	"testing"
)

func TestRecyclerReusesMaps(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "webhook", "testdata", "claim-v1alpha3.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rc Recycler
	decodeAndRelease := func() {
		v, err := rc.UnmarshalOwned(data, 100)
		if err != nil {
			t.Fatal(err)
		}
		rc.Release(v)
	}
	decodeAndRelease()
	kept := len(rc.maps)
	if kept == 0 || kept > recycleMaxMaps {
		t.Fatalf("recycler kept %d maps", kept)
	}
	recycled := testing.AllocsPerRun(100, decodeAndRelease)
	fresh := testing.AllocsPerRun(100, func() {
		if _, err := UnmarshalOwned(data, 100); err != nil {
			t.Fatal(err)
		}
	})
	// Every map of the claim has at most eight members: a decoding into
	// recycled maps allocates none of them.
	if recycled > fresh-float64(kept) {
		t.Errorf("decoding into recycled maps: %v allocations; without a recycler %v, of which %d maps", recycled, fresh, kept)
	}
}

func TestRecyclerRelease(t *testing.T) {
	var rc Recycler
	big := map[string]interface{}{}
	for _, k := range []string{"a", "b", "c", "d", "e", "f", "g", "h", "i"} {
		big[k] = k
	}
	inner := map[string]interface{}{"x": "y"}
	empty := map[string]interface{}{}
	tree := map[string]interface{}{"big": big, "list": []interface{}{inner, inner, empty, "s"}}
	rc.Release(tree)
	// tree and inner (reached twice, taken once) are taken and cleared; the
	// map of nine members and the empty one are left to the collector.
	if len(rc.maps) != 2 || len(tree) != 0 || len(inner) != 0 || len(big) != 9 {
		t.Errorf("kept %d maps; tree %v, inner %v, big has %d members", len(rc.maps), tree, inner, len(big))
	}
	for range recycleMaxMaps + 10 {
		rc.Release(map[string]interface{}{"k": "v"})
	}
	if len(rc.maps) != recycleMaxMaps {
		t.Errorf("kept %d maps, want the bound %d", len(rc.maps), recycleMaxMaps)
	}
	var none *Recycler
	none.Release(map[string]interface{}{"k": "v"}) // a nil recycler takes nothing
	if v, err := none.UnmarshalOwned([]byte(`{"a":{}}`), 10); err != nil || len(v.(map[string]interface{})) != 1 {
		t.Errorf("nil recycler: %v, %v", v, err)
	}
}
