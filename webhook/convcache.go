package webhook

import (
	"bytes"
	"crypto/sha256"
	"math/rand/v2"
	"strings"
	"sync"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/claimbridge/claimbridge/internal/jsontree"
)

// conversionCache remembers the converted objects of recent
// ConversionReviews, keyed by the SHA-256 of the review without its uid.
//
// kube-apiserver converts the same stored object again and again: on every
// GET (the kubelet GETs a pod's claims), on every LIST that reaches etcd, for
// the watch cache of each served version on every apiserver replica, and for
// every object after a CRD update or an apiserver restart. Conversion is a
// pure function of the review (the objects and desiredAPIVersion), so a
// review that differs from an earlier one only in its uid gets the earlier
// answer, byte for byte, without being decoded.
//
// Only reviews in the shape kube-apiserver writes are looked up: the body
// starts with one of reviewPrefixes, followed by the uid (no escapes) and
// the rest of the review. Everything else is converted as usual. The key
// covers every byte but the uid's, so two reviews share an entry only if
// they are equal but for the uid.
//
// The cache holds at most maxBytes of entries (keys, converted objects and
// a fixed overhead each). When a new entry does not fit, random entries are
// evicted, each entry as likely as any other (all is the list they are
// drawn from): a LIST of more objects than fit (read again and again in the
// same order) still finds part of them, where least-recently-used eviction
// would find none.
//
// A full cache replaces entries forever, and a Go map whose keys keep
// changing can grow though its length does not: evicting the first entry
// of a map iteration, as the cache did before, grew the heap by 0.6 MB
// over 250,000 replacements of 5,000 entries (TestConversionCacheChurn),
// and a map of 5,470 entries replaced 2 million times that way held 3 MiB
// instead of 0.9. Drawing victims from all leaves no such trail; the map
// is also rebuilt, at the cost of copying it, each time more entries have
// been deleted from it since it was made than it holds (rebuildMap), so
// that what it keeps of deleted keys stays bounded whatever the map's
// implementation does.
type conversionCache struct {
	maxBytes int64

	mu      sync.Mutex
	entries map[[sha256.Size]byte]*cachedConversion // reviews' and objects' (objcache.go)
	all     []*cachedConversion                     // the entries, in no order; entry.index is its place
	deleted int                                     // deletions from entries since it was made
	bytes   int64
	arena   blockArena // the entries' bytes (cacheblocks.go)

	lookups       *prometheus.CounterVec
	objectLookups *prometheus.CounterVec
	size          prometheus.Gauge
	count         prometheus.Gauge
}

// cachedConversion is the answer to one review: the encoded converted
// objects (in blocks, lens[i] bytes each, one after the other) and, for the
// metrics, the version each was converted from and the version they were
// converted to.
type cachedConversion struct {
	key   [sha256.Size]byte
	index int // in conversionCache.all

	blocks []int32 // in conversionCache.arena
	lens   []int32
	from   []string
	to     string
	size   int64
	// object, in an object entry (objcache.go), is all the entry holds
	// besides its blocks.
	object *cachedObject
}

// cacheEntryOverhead approximates the memory of an entry besides its
// objects: the key, the map slot, the entry, its place in all and its
// slices.
const cacheEntryOverhead = 200

// cacheObjectOverhead is the memory each object of a review entry adds
// besides its bytes: its length and the version it was converted from.
const cacheObjectOverhead = 24

// maxCachedReview bounds the converted objects of one cached review: larger
// answers are not kept, so that one review cannot evict many.
const maxCachedReview = 256 << 10

// maxEntryShare and minLargeReview bound the reviews that are cached at all:
// one whose body is larger than the cache's size / maxEntryShare (64 KiB at
// the default 16 MiB; at least minLargeReview) is neither looked up nor
// kept, nor are its objects. Such a review and its object entry, each about
// the object's size, take a large share of the cache, so a LIST of such
// objects (kube-apiserver converts one object per review) cycles them
// through it without a hit, while every review paid for the key's hash, the
// scans for the object spans and keys, the copies, and the collections a
// full cache brings under the soft memory limit: measured with 200 KB
// claims, 3.6–4.4 ms of CPU per review with the cache against 1.9–2.0 ms
// without, and no hit (docs/performance-log.md, "Large claims and the
// conversion cache").
const (
	maxEntryShare  = 256
	minLargeReview = 64 << 10
)

// reviewPrefixes are the beginnings, up to the uid's value, of the
// ConversionReviews kube-apiserver sends (encoding/json of the typed
// review: kind, apiVersion, then the request with uid first), by the
// review's apiVersion.
var reviewPrefixes = []struct {
	apiVersion string
	prefix     []byte
}{
	{"apiextensions.k8s.io/v1", []byte(`{"kind":"ConversionReview","apiVersion":"apiextensions.k8s.io/v1","request":{"uid":"`)},
	{"apiextensions.k8s.io/v1beta1", []byte(`{"kind":"ConversionReview","apiVersion":"apiextensions.k8s.io/v1beta1","request":{"uid":"`)},
}

func newConversionCache(maxBytes int64, m *metrics) *conversionCache {
	c := &conversionCache{
		maxBytes: maxBytes,
		entries:  map[[sha256.Size]byte]*cachedConversion{},
		lookups: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "claimbridge_conversion_cache_lookups_total",
			Help: "ConversionReviews looked up in the conversion cache, by result (hit, miss). Reviews not in kube-apiserver's shape are not looked up.",
		}, []string{"result"}),
		objectLookups: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "claimbridge_conversion_cache_object_lookups_total",
			Help: "Objects of ConversionReviews the review cache did not answer, looked up in the conversion cache by their content without the metadata other than the annotations, by result (hit, miss).",
		}, []string{"result"}),
		size: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "claimbridge_conversion_cache_bytes",
			Help: "Bytes held by the conversion cache (converted objects and a fixed overhead per entry), at most --conversion-cache-bytes.",
		}),
		count: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "claimbridge_conversion_cache_entries",
			Help: "Entries the conversion cache holds: answers to reviews and converted objects.",
		}),
	}
	c.lookups.WithLabelValues("hit")
	c.lookups.WithLabelValues("miss")
	c.objectLookups.WithLabelValues("hit")
	c.objectLookups.WithLabelValues("miss")
	if m != nil {
		m.registry.MustRegister(c.lookups, c.objectLookups, c.size, c.count)
	}
	return c
}

// cacheKey is a review's key in the cache, with what the answer needs of
// the review besides the cached objects: its uid and apiVersion.
type cacheKey struct {
	sum        [sha256.Size]byte
	uid        string
	apiVersion string
}

// key returns the cache key of a review body, or ok=false when the body is
// not in kube-apiserver's shape, too large to cache (maxEntryShare), or the
// cache is off.
func (c *conversionCache) key(body []byte) (k cacheKey, ok bool) {
	if c == nil || c.maxBytes <= 0 {
		return k, false
	}
	if n := int64(len(body)); n > max(c.maxBytes/maxEntryShare, minLargeReview) || n > maxCachedReview {
		return k, false // too large to be worth a place (see maxEntryShare)
	}
	for _, p := range reviewPrefixes {
		if !bytes.HasPrefix(body, p.prefix) {
			continue
		}
		rest := body[len(p.prefix):]
		end := bytes.IndexByte(rest, '"')
		if end <= 0 || bytes.IndexByte(rest[:end], '\\') >= 0 || hasControlByte(rest[:end]) {
			// An escape, or a raw control character (invalid JSON,
			// which the decoder refuses with 400): not the plain uid a
			// cache hit may echo.
			return k, false
		}
		h := sha256.New()
		h.Write(p.prefix)
		h.Write(rest[end:])
		h.Sum(k.sum[:0])
		k.uid, k.apiVersion = string(rest[:end]), p.apiVersion
		return k, true
	}
	return k, false
}

func hasControlByte(b []byte) bool {
	for _, c := range b {
		if c < 0x20 {
			return true
		}
	}
	return false
}

// reviewKeysUnique reports whether no member of the review body or of its
// request is written twice, as encoding/json matches keys: in any letter
// case, or with escapes or non-ASCII letters (refused whatever they spell).
// Only then are the uid and apiVersion at the start of the body (key) the
// ones decoding keeps, so that an answer put under key is right for every
// body with that key: encoding/json keeps the last of repeated members, and
// a review equal but for its first uid would otherwise get the cached
// answer with that uid instead of the one decoding gives.
func reviewKeysUnique(body []byte) bool {
	ok := true
	var requestAt []int // where each member named request (in any case) starts
	if !membersUnique(body, 0, &ok, &requestAt) {
		return false
	}
	for _, s := range requestAt {
		if !membersUnique(body, s, &ok, nil) {
			return false
		}
	}
	return ok
}

// membersUnique scans the object at body[start] for reviewKeysUnique,
// clearing ok at a repeated, escaped or non-ASCII key, and appends to
// requestAt (if not nil) where the values of members named request start. A
// review has a handful of members: one with more than fit in seen is not
// checked further and not stored either.
func membersUnique(body []byte, start int, ok *bool, requestAt *[]int) bool {
	var seen [8][]byte
	n := 0
	return jsontree.ScanObject(body, start, func(key []byte, s, _ int) {
		for _, c := range key {
			if c == '\\' || c >= 0x80 {
				*ok = false
			}
		}
		for _, k := range seen[:n] {
			if bytes.EqualFold(k, key) {
				*ok = false
			}
		}
		if n == len(seen) {
			*ok = false
		} else {
			seen[n] = key
			n++
		}
		if requestAt != nil && bytes.EqualFold(key, []byte("request")) {
			*requestAt = append(*requestAt, s)
		}
	}) >= 0
}

// get returns the converted objects of key's entry, separated by commas,
// appended to the buffer that head returns for them (head(n) starts the
// answer with room for n more bytes, so it is called only on a hit), and
// the versions they were converted from and to; ok is false when the cache
// has no answer for key. It counts the lookup.
func (c *conversionCache) get(key cacheKey, head func(n int) []byte) (buf []byte, from []string, to string, ok bool) {
	buf, from, to, ok = c.lookup(key, head)
	if ok {
		c.lookups.WithLabelValues("hit").Inc()
	} else {
		c.lookups.WithLabelValues("miss").Inc()
	}
	return buf, from, to, ok
}

// lookup is get's work under the lock, which a panic (recovered by the
// handler) must not leave taken: every later cached conversion would wait
// for it, holding its slot.
func (c *conversionCache) lookup(key cacheKey, head func(n int) []byte) (buf []byte, from []string, to string, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e := c.entries[key.sum]
	if e == nil || e.object != nil { // an object entry: never, short of a SHA-256 collision
		return nil, nil, "", false
	}
	n := len(e.lens)
	for _, l := range e.lens {
		n += int(l)
	}
	buf = head(n + conversionReviewTailRoom)
	pos := 0
	for i, l := range e.lens {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = c.arena.appendRange(buf, e.blocks, pos, int(l))
		pos += int(l)
	}
	return buf, e.from, e.to, true
}

// conversionReviewTailRoom is the room get asks for after the objects, for
// the end of the review (appendConversionReviewTail), so that finishing
// the answer does not copy it again.
const conversionReviewTailRoom = 64

// put stores a copy of the answer of a review (objects, converted from the
// versions from to desiredAPIVersion) in the cache's blocks; it keeps none
// of the slices it is given.
func (c *conversionCache) put(key [sha256.Size]byte, objects [][]byte, from []string, desiredAPIVersion string) {
	n := 0
	lens := make([]int32, len(objects))
	for i, o := range objects {
		n += len(o)
		lens[i] = int32(len(o))
	}
	size := int64(cacheEntryOverhead + cacheObjectOverhead*len(objects) + blocksFor(n)*(cacheBlockSize+cacheBlockIndexSize))
	if size > maxCachedReview || size > c.maxBytes {
		return
	}
	_, to, _ := strings.Cut(desiredAPIVersion, "/")
	c.store(key, &cachedConversion{lens: lens, from: from, to: to, size: size}, objects...)
}

// store adds e under key, with parts, one after the other, as its bytes,
// evicting random entries to make room.
func (c *conversionCache) store(key [sha256.Size]byte, e *cachedConversion, parts ...[]byte) {
	e.key = key
	c.mu.Lock()
	defer c.mu.Unlock()
	if old := c.entries[key]; old != nil { // converted twice at once
		c.remove(old)
	}
	for c.bytes+e.size > c.maxBytes && len(c.all) > 0 {
		c.remove(c.all[rand.IntN(len(c.all))])
	}
	if c.deleted > len(c.all)+rebuildSlack {
		c.rebuildMap()
	}
	e.blocks = c.arena.store(parts...)
	e.index = len(c.all)
	c.all = append(c.all, e)
	c.entries[key] = e
	c.bytes += e.size
	c.size.Set(float64(c.bytes))
	c.count.Set(float64(len(c.all)))
}

// remove takes e out of the cache: out of the map, out of all by moving
// the last entry to its place, and its blocks back to the arena.
func (c *conversionCache) remove(e *cachedConversion) {
	delete(c.entries, e.key)
	c.arena.release(e.blocks)
	e.blocks = nil
	c.deleted++
	c.bytes -= e.size
	last := c.all[len(c.all)-1]
	c.all[e.index], last.index = last, e.index
	c.all[len(c.all)-1] = nil
	c.all = c.all[:len(c.all)-1]
}

// rebuildSlack is how many deletions a map of few entries takes before it
// is rebuilt, so that a small cache is not rebuilt at every eviction.
const rebuildSlack = 1024

// rebuildMap replaces the map by a new one with the same entries, which
// holds no memory of the deleted ones.
func (c *conversionCache) rebuildMap() {
	m := make(map[[sha256.Size]byte]*cachedConversion, len(c.all))
	for _, e := range c.all {
		m[e.key] = e
	}
	c.entries, c.deleted = m, 0
}
