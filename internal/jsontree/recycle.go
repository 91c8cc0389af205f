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
	// free holds cleared maps for the next decodings.
	free []map[string]interface{}
	// taken holds the maps handed out since the last Release, so that
	// Release needs no walk over the trees.
	taken []map[string]interface{}
}

const (
	// recycleMaxMembers bounds the maps recycled: the decoder makes a map
	// of up to eight members with one group of eight slots, which a
	// cleared map of that size still has.
	recycleMaxMembers = 8
	// recycleMaxMaps bounds the maps one Recycler keeps (~75 KiB): a claim
	// decodes into about fifty.
	recycleMaxMaps = 256
	// recycleMaxTaken bounds the list of maps handed out that a Recycler
	// keeps between uses (a review of many objects grows it).
	recycleMaxTaken = 4096
)

// UnmarshalOwned is the package's UnmarshalOwned taking the maps of up to
// eight members from rc when it has them. Every such map of the result is
// rc's until Release.
func (rc *Recycler) UnmarshalOwned(data []byte, maxDepth int) (interface{}, error) {
	return unmarshal(data, unsafe.String(unsafe.SliceData(data), len(data)), maxDepth, rc)
}

// newMap returns an empty map for n members.
func (rc *Recycler) newMap(n int) map[string]interface{} {
	if rc == nil || n > recycleMaxMembers {
		return make(map[string]interface{}, n)
	}
	var m map[string]interface{}
	if k := len(rc.free); k > 0 {
		m = rc.free[k-1]
		rc.free[k-1] = nil
		rc.free = rc.free[:k-1]
	} else {
		m = make(map[string]interface{}, recycleMaxMembers)
	}
	rc.taken = append(rc.taken, m)
	return m
}

// Release takes back every map of up to eight members that rc's
// decodings handed out since the last Release, clearing them: the caller
// must hold no reference to any tree rc decoded (nor to a map in one)
// afterwards, and must not have added members to those maps (a map grown
// past eight members keeps its larger tables). Strings, numbers, slices and
// larger maps are left to the collector.
func (rc *Recycler) Release() {
	if rc == nil {
		return
	}
	for i, m := range rc.taken {
		clear(m)
		if len(rc.free) < recycleMaxMaps {
			rc.free = append(rc.free, m)
		}
		rc.taken[i] = nil
	}
	rc.taken = rc.taken[:0]
	if cap(rc.taken) > recycleMaxTaken {
		rc.taken = nil
	}
}
