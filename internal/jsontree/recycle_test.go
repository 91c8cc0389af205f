package jsontree

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRecyclerReusesMaps(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "webhook", "testdata", "claim-v1alpha3.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rc Recycler
	decodeAndRelease := func() {
		if _, err := rc.UnmarshalOwned(data, 100); err != nil {
			t.Fatal(err)
		}
		rc.Release()
	}
	decodeAndRelease()
	kept := len(rc.free)
	if kept == 0 || kept > recycleMaxMaps || len(rc.taken) != 0 {
		t.Fatalf("recycler kept %d maps, %d still taken", kept, len(rc.taken))
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
	v, err := rc.UnmarshalOwned([]byte(`{"big":{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8,"i":9},"list":[{"x":"y"},{}],"s":"t"}`), 10)
	if err != nil {
		t.Fatal(err)
	}
	tree := v.(map[string]interface{})
	big := tree["big"].(map[string]interface{})
	inner := tree["list"].([]interface{})[0].(map[string]interface{})
	rc.Release()
	// The root, {"x":"y"} and {} are taken back and cleared; the map of
	// nine members is left to the collector.
	if len(rc.free) != 3 || len(rc.taken) != 0 || len(tree) != 0 || len(inner) != 0 || len(big) != 9 {
		t.Errorf("kept %d maps, %d taken; tree %v, inner %v, big has %d members", len(rc.free), len(rc.taken), tree, inner, len(big))
	}
	rc.Release() // nothing handed out since: nothing changes
	if len(rc.free) != 3 {
		t.Errorf("a second Release changed the free maps to %d", len(rc.free))
	}
	many := []byte("[" + strings.Repeat(`{"k":"v"},`, recycleMaxMaps+10) + `{}]`)
	if _, err := rc.UnmarshalOwned(many, 10); err != nil {
		t.Fatal(err)
	}
	rc.Release()
	if len(rc.free) != recycleMaxMaps {
		t.Errorf("kept %d maps, want the bound %d", len(rc.free), recycleMaxMaps)
	}
	var none *Recycler
	none.Release() // a nil recycler takes nothing
	if v, err := none.UnmarshalOwned([]byte(`{"a":{}}`), 10); err != nil || len(v.(map[string]interface{})) != 1 {
		t.Errorf("nil recycler: %v, %v", v, err)
	}
}
