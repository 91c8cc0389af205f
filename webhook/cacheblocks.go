package webhook

// The conversion cache keeps the bytes of its entries in fixed-size blocks
// carved from chunks it allocates once and never frees; an evicted entry's
// blocks go to a free list and hold the next entry's bytes.
//
// When each entry had an allocation of its own, in the allocator's size
// class of its length, a full cache that kept replacing entries left the
// heap's spans ever more sparsely used: evicted entries freed slots across
// spans of many size classes, and a span returns to the heap only once all
// its slots are free. Under `make bench`'s 10-minute soak the heap in use
// grew from 24.6 to 28.3 MiB (0.4 MiB a minute) while the heap allocated
// stayed at 19.4–19.9 MiB. With blocks, the cache's memory is a fixed set of
// 64 KiB chunks, filled once; replacing entries changes no allocation. The
// chunks hold no pointers, so the collector does not scan them either.
//
// Blocks are reused as soon as an entry is evicted, so entries are read
// only under the cache's lock (conversionCache.get, appendObject).

const (
	// cacheBlockSize is the size of a block: an entry wastes half of one
	// on average (4 % of an example claim's 2.9 KiB).
	cacheBlockSize = 256
	// cacheChunkBlocks is the number of blocks of a chunk (64 KiB).
	cacheChunkBlocks = 256
	// cacheBlockIndexSize is the memory an entry's index of one block takes.
	cacheBlockIndexSize = 4
)

// blockArena hands out blocks. Its methods are called under the cache's
// lock.
type blockArena struct {
	chunks [][]byte
	free   []int32 // blocks given back, reused first
	carved int32   // blocks handed out of the chunks so far
}

// blocksFor returns how many blocks n bytes take.
func blocksFor(n int) int {
	return (n + cacheBlockSize - 1) / cacheBlockSize
}

// block returns block b's bytes.
func (a *blockArena) block(b int32) []byte {
	off := int(b%cacheChunkBlocks) * cacheBlockSize
	return a.chunks[b/cacheChunkBlocks][off : off+cacheBlockSize : off+cacheBlockSize]
}

// store copies the parts, one after the other, into new blocks and returns
// them.
func (a *blockArena) store(parts ...[]byte) []int32 {
	n := 0
	for _, p := range parts {
		n += len(p)
	}
	blocks := make([]int32, blocksFor(n))
	for i := range blocks {
		if k := len(a.free); k > 0 {
			blocks[i], a.free = a.free[k-1], a.free[:k-1]
			continue
		}
		if int(a.carved) == len(a.chunks)*cacheChunkBlocks {
			a.chunks = append(a.chunks, make([]byte, cacheChunkBlocks*cacheBlockSize))
		}
		blocks[i] = a.carved
		a.carved++
	}
	i, off := 0, 0
	for _, p := range parts {
		for len(p) > 0 {
			c := copy(a.block(blocks[i])[off:], p)
			p, off = p[c:], off+c
			if off == cacheBlockSize {
				i, off = i+1, 0
			}
		}
	}
	return blocks
}

// release gives blocks back for the next entries.
func (a *blockArena) release(blocks []int32) {
	a.free = append(a.free, blocks...)
}

// appendRange appends bytes [from, from+n) of the data held in blocks to
// dst.
func (a *blockArena) appendRange(dst []byte, blocks []int32, from, n int) []byte {
	i, off := from/cacheBlockSize, from%cacheBlockSize
	for n > 0 {
		b := a.block(blocks[i])[off:]
		if len(b) > n {
			b = b[:n]
		}
		dst = append(dst, b...)
		n -= len(b)
		i, off = i+1, 0
	}
	return dst
}
