package jsontree

import "unsafe"

// A Recycler keeps the small maps of decoded trees that are no longer used,
// cleared, so that the next decoding fills them instead of allocating new
// ones. The conversion webhook decodes one object per review and drops the
// tree once the answer is encoded: its objects (a map of up to eight
// members costs one ~300-byte allocation in Go's maps) were a quarter of
// the garbage of a review, and the collector's work grows with the garbage
// (docs/performance.md, "Recycled maps").
//
// A Recycler is not safe for concurrent use: each request takes its own
// (from a sync.Pool, say). The zero value is ready to use; a nil *Recycler
// recycles nothing.
type Recycler struct {
	maps []map[string]interface{}
}

const (
	// recycleMaxMembers bounds the maps kept: the decoder makes a map of up
	// to eight members with one group of eight slots, which a cleared map
	// of that size still has.
	recycleMaxMembers = 8
	// recycleMaxMaps bounds the memory one Recycler keeps (~75 KiB): a
	// claim decodes into about fifty maps.
	recycleMaxMaps = 256
)

// UnmarshalOwned is the package's UnmarshalOwned taking the maps of up to
// eight members from rc when it has them.
func (rc *Recycler) UnmarshalOwned(data []byte, maxDepth int) (interface{}, error) {
	return unmarshal(data, unsafe.String(unsafe.SliceData(data), len(data)), maxDepth, rc)
}

// newMap returns an empty map for n members.
func (rc *Recycler) newMap(n int) map[string]interface{} {
	if rc == nil || n > recycleMaxMembers {
		return make(map[string]interface{}, n)
	}
	if k := len(rc.maps); k > 0 {
		m := rc.maps[k-1]
		rc.maps[k-1] = nil
		rc.maps = rc.maps[:k-1]
		return m
	}
	return make(map[string]interface{}, recycleMaxMembers)
}

// Release takes back the maps of v, a tree rc's UnmarshalOwned decoded (or
// a part of one), clearing them: the caller must hold no reference to v or
// to any map in it afterwards, and nothing may have added members to them
// (a map grown past eight members keeps its larger tables). Strings, numbers
// and slices are left alone. An empty map is not taken, so a map reached
// twice (already cleared) is taken once.
func (rc *Recycler) Release(v interface{}) {
	if rc == nil {
		return
	}
	switch v := v.(type) {
	case map[string]interface{}:
		if len(v) == 0 {
			return
		}
		for _, e := range v {
			rc.Release(e)
		}
		if len(v) <= recycleMaxMembers && len(rc.maps) < recycleMaxMaps {
			clear(v)
			rc.maps = append(rc.maps, v)
		}
	case []interface{}:
		for _, e := range v {
			rc.Release(e)
		}
	}
}
