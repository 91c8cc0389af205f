package webhook

import (
	"crypto/sha256"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/utils/lru"
)

// conversionCache keeps recent conversions: kube-apiserver converts a
// stored object again on every read, list, watch-cache rebuild and replica.
// The key is the desired version and the object's bytes, all a conversion
// depends on. A nil cache keeps nothing.
type conversionCache struct {
	mu         sync.Mutex
	entries    *lru.Cache
	bytes, max int64

	lookups *prometheus.CounterVec
	size    prometheus.Gauge
	count   prometheus.Gauge
}

type cacheKey [sha256.Size]byte

type cachedConversion struct {
	data []byte
	from string // the version converted from, for the metrics
}

// entryOverhead is what an entry costs beside its data.
const entryOverhead = 128

// key is the key of raw converted to version; none, unhashed, when c is nil.
func (c *conversionCache) key(version string, raw []byte) (k cacheKey) {
	if c == nil {
		return k
	}
	h := sha256.New()
	h.Write([]byte(version))
	h.Write([]byte{0})
	h.Write(raw)
	h.Sum(k[:0])
	return k
}

func newConversionCache(maxBytes int64, m *metrics) *conversionCache {
	c := &conversionCache{
		max: maxBytes,
		lookups: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "claimbridge_conversion_cache_lookups_total",
			Help: "Objects looked up in the conversion cache, by result (hit, miss).",
		}, []string{"result"}),
		size:  prometheus.NewGauge(prometheus.GaugeOpts{Name: "claimbridge_conversion_cache_bytes", Help: "Bytes held by the conversion cache, at most --conversion-cache-bytes."}),
		count: prometheus.NewGauge(prometheus.GaugeOpts{Name: "claimbridge_conversion_cache_entries", Help: "Converted objects the conversion cache holds."}),
	}
	c.entries = lru.NewWithEvictionFunc(0, func(_ lru.Key, v interface{}) {
		c.bytes -= int64(len(v.(cachedConversion).data)) + entryOverhead // under c.mu: only put evicts
	})
	c.lookups.WithLabelValues("hit")
	c.lookups.WithLabelValues("miss")
	m.registry.MustRegister(c.lookups, c.size, c.count)
	return c
}

func (c *conversionCache) get(k cacheKey) ([]byte, string, bool) {
	if c == nil {
		return nil, "", false
	}
	v, ok := c.entries.Get(k)
	if !ok {
		c.lookups.WithLabelValues("miss").Inc()
		return nil, "", false
	}
	c.lookups.WithLabelValues("hit").Inc()
	e := v.(cachedConversion)
	return e.data, e.from, true
}

// put keeps data, unless it would take more than a 64th of the cache,
// evicting the least recently used entries to make room.
func (c *conversionCache) put(k cacheKey, data []byte, from string) {
	cost := int64(len(data)) + entryOverhead
	if c == nil || cost > c.max/64 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.entries.Get(k); ok {
		return
	}
	c.entries.Add(k, cachedConversion{data: data, from: from})
	c.bytes += cost
	for c.bytes > c.max {
		c.entries.RemoveOldest()
	}
	c.size.Set(float64(c.bytes))
	c.count.Set(float64(c.entries.Len()))
}
