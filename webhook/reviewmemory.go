package webhook

import "math"

// Decoded memory of large reviews. A review body costs far more once
// decoded than its bytes: every JSON value becomes an interface in a map or
// a slice, and conversion and the cross-version checks copy the trees.
// Measured, a body dense in small values (numbers in opaque parameters,
// empty objects) costs 40–50 times its size at its peak, so that one review
// within the body caps could exhaust the pod's memory limit. The slot gate
// therefore gives every body above costScanMin an estimate of what it costs
// decoded (decodedCost) and runs it only within Config.MaxReviewMemory of
// such estimates at once (docs/server.md, "Sizing the body caps").

// bytesPerToken and bytesPerByte make the estimate: what one JSON token
// (below) and one byte of the body cost decoded. Measured in-process
// (TotalAlloc, all a review allocates from its arrival to its answer,
// garbage included) on bodies dense in numbers, empty objects, short and
// long strings and object keys, for /convert, /validate (creates, and updates
// of the main resource and of the status, which carry two objects) and
// /default: up to 142 bytes a token for numbers, 114 for empty objects, 146
// for short strings and 268 for short keys (each a string of its own), and
// 10 a byte for long strings. String-heavy creates and conversions to an
// older version allocate more, up to about twice the estimate, re-encoding
// the strings into the older versions' restore annotations, but most of it
// is garbage at once: the peak RSS the real binary adds stays a tenth to a
// third of the estimate (docs/performance-log.md). So the estimate bounds
// what a review holds, not all it allocates;
// TestDecodedCostBoundsAllocations keeps the allocations within
// maxAllocationsPerEstimate times it.
const (
	bytesPerToken = 256
	bytesPerByte  = 10
)

// costScanMin is the smallest body decodedCost scans. A smaller body cannot
// cost more than costScanMin × (bytesPerToken + bytesPerByte), about 4.2
// MiB (at most one token a byte), so that the slots (Config.MaxInFlight)
// bound what the small reviews hold; and the reviews of ordinary claims, a
// few KiB, pay no scan.
const costScanMin = 16 << 10

// decodedCost estimates the memory body costs decoded: 0 for a body
// smaller than costScanMin, else bytesPerByte for every byte plus
// bytesPerToken for every token: '{', '[', ':' and ',' outside strings, a
// count of at least one per value (members count twice; scanStructure). It
// scans the bytes once and decodes nothing; a body that is not JSON is
// estimated as well, and refused later.
func decodedCost(body []byte) int64 {
	if len(body) < costScanMin {
		return 0
	}
	tokens, _ := scanStructure(body, math.MaxInt)
	return int64(len(body))*bytesPerByte + tokens*bytesPerToken
}
