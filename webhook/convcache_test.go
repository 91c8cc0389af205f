package webhook

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/claimbridge/claimbridge/api"
)

func newCachingConvertHandler(convert ConvertFunc, maxBytes int64) *convertHandler {
	h := newTestConvertHandler(convert)
	h.cache = newConversionCache(maxBytes, h.metrics)
	return h
}

func TestConversionCacheKey(t *testing.T) {
	obj := fixture(t, "v1alpha3")
	c := newConversionCache(1<<20, nil)
	apiserver := conversionReview("apiextensions.k8s.io/v1", "uid-1", Group+"/v1alpha1", obj)
	for _, tc := range []struct {
		name    string
		cache   *conversionCache
		body    string
		uid     string
		keyLike string // another body that must have the same key ("" none)
	}{
		{name: "apiserver shape v1", cache: c, body: string(apiserver), uid: "uid-1",
			keyLike: string(conversionReview("apiextensions.k8s.io/v1", "another-uid", Group+"/v1alpha1", obj))},
		{name: "apiserver shape v1beta1", cache: c, body: string(conversionReview("apiextensions.k8s.io/v1beta1", "u", Group+"/v1alpha2", obj)), uid: "u"},
		{name: "other key order", cache: c, body: `{"apiVersion":"apiextensions.k8s.io/v1","kind":"ConversionReview","request":{"uid":"u","desiredAPIVersion":"x","objects":[]}}`},
		{name: "whitespace", cache: c, body: `{ "kind":"ConversionReview","apiVersion":"apiextensions.k8s.io/v1","request":{"uid":"u","desiredAPIVersion":"x","objects":[]}}`},
		{name: "escaped uid", cache: c, body: `{"kind":"ConversionReview","apiVersion":"apiextensions.k8s.io/v1","request":{"uid":"u\"v","desiredAPIVersion":"x","objects":[]}}`},
		{name: "raw control character in the uid (invalid JSON)", cache: c, body: "{\"kind\":\"ConversionReview\",\"apiVersion\":\"apiextensions.k8s.io/v1\",\"request\":{\"uid\":\"a\nb\",\"desiredAPIVersion\":\"x\",\"objects\":[]}}"},
		{name: "empty uid", cache: c, body: `{"kind":"ConversionReview","apiVersion":"apiextensions.k8s.io/v1","request":{"uid":"","desiredAPIVersion":"x","objects":[]}}`},
		{name: "unterminated uid", cache: c, body: `{"kind":"ConversionReview","apiVersion":"apiextensions.k8s.io/v1","request":{"uid":"u`},
		{name: "cache off", cache: nil, body: string(apiserver)},
		{name: "cache of size 0", cache: newConversionCache(0, nil), body: string(apiserver)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			key, ok := tc.cache.key([]byte(tc.body))
			if ok != (tc.uid != "") || key.uid != tc.uid {
				t.Fatalf("key() = uid %q, ok %v; want uid %q", key.uid, ok, tc.uid)
			}
			if tc.keyLike != "" {
				if other, _ := tc.cache.key([]byte(tc.keyLike)); other.sum != key.sum {
					t.Errorf("a review equal but for the uid has another key")
				}
			}
		})
	}
	// Every other byte is part of the key.
	key, _ := c.key(apiserver)
	for _, changed := range [][]byte{
		conversionReview("apiextensions.k8s.io/v1", "uid-1", Group+"/v1alpha2", obj),
		conversionReview("apiextensions.k8s.io/v1", "uid-1", Group+"/v1alpha1", bytes.Replace(obj, []byte(`"gpu-0"`), []byte(`"gpu-9"`), 1)),
		append(bytes.Clone(apiserver), ' '),
	} {
		if other, ok := c.key(changed); !ok || other.sum == key.sum {
			t.Errorf("a changed review (ok %v) has the same key", ok)
		}
	}
}

// TestConversionCacheAnswersAsConverting: a review equal but for its uid to
// an earlier one gets the bytes converting would give, with its own uid,
// without calling the converter; the metrics count it as converted.
func TestConversionCacheAnswersAsConverting(t *testing.T) {
	var calls atomic.Int64
	counting := func(obj map[string]interface{}, to string) (map[string]interface{}, error) {
		calls.Add(1)
		return defaultConverter(obj, to)
	}
	cached := newCachingConvertHandler(counting, 1<<20)
	plain := newTestConvertHandler(defaultConverter)
	for _, from := range versions {
		for _, to := range versions {
			obj := fixture(t, from)
			first := conversionReview("apiextensions.k8s.io/v1", "first-"+from+to, api.Group+"/"+to, obj)
			second := conversionReview("apiextensions.k8s.io/v1", "second-"+from+to, api.Group+"/"+to, obj)
			before := calls.Load()
			r1, r2 := post(cached, first), post(cached, second)
			if got := calls.Load() - before; got != 1 {
				t.Errorf("%s→%s: the converter ran %d times for two reviews equal but for the uid, want 1", from, to, got)
			}
			want := post(plain, second)
			if r2.Code != 200 || !bytes.Equal(r2.Body.Bytes(), want.Body.Bytes()) {
				t.Errorf("%s→%s: cached answer differs from converting:\n got %s\nwant %s", from, to, r2.Body, want.Body)
			}
			if !bytes.Equal(r1.Body.Bytes(), bytes.Replace(want.Body.Bytes(), []byte("second-"), []byte("first-"), 1)) {
				t.Errorf("%s→%s: first answer differs from converting", from, to)
			}
			if ct := r2.Header().Get("Content-Type"); ct != "application/json" {
				t.Errorf("Content-Type %q", ct)
			}
		}
	}
	n := float64(len(versions) * len(versions))
	if hits := value(t, cached.cache.lookups.WithLabelValues("hit")); hits != n {
		t.Errorf("hits = %v, want %v", hits, n)
	}
	if misses := value(t, cached.cache.lookups.WithLabelValues("miss")); misses != n {
		t.Errorf("misses = %v, want %v", misses, n)
	}
	if got := value(t, cached.metrics.conversions.WithLabelValues("v1alpha3", "v1alpha1", "success")); got != 2 {
		t.Errorf("conversions v1alpha3→v1alpha1 counted %v times, want 2 (one converted, one from the cache)", got)
	}
}

// TestConversionCacheKeepsNoFailure: failed conversions are converted (and
// fail) again.
func TestConversionCacheKeepsNoFailure(t *testing.T) {
	var calls atomic.Int64
	failing := func(obj map[string]interface{}, to string) (map[string]interface{}, error) {
		calls.Add(1)
		return nil, fmt.Errorf("no")
	}
	h := newCachingConvertHandler(failing, 1<<20)
	body := conversionReview("apiextensions.k8s.io/v1", "u", api.Group+"/v1alpha1", fixture(t, "v1alpha3"))
	for i := 0; i < 2; i++ {
		if rec := post(h, body); !strings.Contains(rec.Body.String(), `"status":"Failure"`) {
			t.Fatalf("review %d: %s", i, rec.Body)
		}
	}
	if calls.Load() != 2 || len(h.cache.entries) != 0 {
		t.Errorf("converter ran %d times, cache holds %d entries; want 2 and 0", calls.Load(), len(h.cache.entries))
	}
}

// TestConversionCacheBounded: the cache never holds more than its size;
// it evicts to make room and keeps nothing larger than maxCachedReview.
func TestConversionCacheBounded(t *testing.T) {
	c := newConversionCache(10_000, newMetrics())
	object := bytes.Repeat([]byte("x"), 1000)
	for i := 0; i < 100; i++ {
		var key [32]byte
		key[0], key[1] = byte(i), byte(i>>8)
		c.put(key, [][]byte{object}, []string{"v1alpha3"}, api.Group+"/v1alpha1")
		if c.bytes > c.maxBytes {
			t.Fatalf("after %d entries the cache holds %d bytes, above %d", i+1, c.bytes, c.maxBytes)
		}
	}
	if n := len(c.entries); n < 5 || n > 9 {
		t.Errorf("%d entries of %d bytes in a cache of %d bytes", n, 1024+cacheObjectOverhead+cacheEntryOverhead, c.maxBytes)
	}
	if got := value(t, c.size); got != float64(c.bytes) {
		t.Errorf("bytes gauge %v, want %d", got, c.bytes)
	}
	big := newConversionCache(1<<30, nil)
	big.put([32]byte{1}, [][]byte{make([]byte, maxCachedReview)}, []string{"v1alpha3"}, api.Group+"/v1alpha1")
	if len(big.entries) != 0 {
		t.Error("a review larger than maxCachedReview was kept")
	}
}

// TestConversionCacheChurn: a full cache that keeps replacing its entries
// keeps its map, its list and its byte count consistent, evicts every
// entry alike (the survivors of the first half are about as many as
// chance leaves), and holds no more heap after 300,000 replacements than
// after 50,000: a Go map whose keys keep changing grows though its length
// does not, so the cache rebuilds it.
func TestConversionCacheChurn(t *testing.T) {
	const objectBytes = 2900 // about an example claim
	perEntry := int64(cacheEntryOverhead + cacheObjectOverhead + blocksFor(objectBytes)*(cacheBlockSize+cacheBlockIndexSize))
	c := newConversionCache(5000*perEntry, nil)
	object := bytes.Repeat([]byte("x"), objectBytes)
	key := func(i int) [32]byte {
		var n [8]byte
		binary.BigEndian.PutUint64(n[:], uint64(i))
		return sha256.Sum256(n[:]) // keys are SHA-256 sums
	}
	put := func(i int) {
		c.put(key(i), [][]byte{object}, []string{"v1alpha3"}, api.Group+"/v1alpha1")
	}
	heap := func() uint64 {
		var ms runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&ms)
		return ms.HeapAlloc
	}
	for i := 0; i < 5000; i++ {
		put(i)
	}
	for i := 5000; i < 7500; i++ { // 2,500 evictions of 5,000 entries
		put(i)
	}
	survivors := 0
	for i := 0; i < 5000; i++ {
		if c.entries[key(i)] != nil {
			survivors++
		}
	}
	// Uniform eviction leaves 5,000 × (1 − 1/5,000)^2,500 ≈ 3,033 (σ ≈ 35).
	if survivors < 2850 || survivors > 3200 {
		t.Errorf("%d of the first 5,000 entries survived 2,500 evictions, want about 3,033", survivors)
	}
	for i := 7500; i < 50_000; i++ {
		put(i)
	}
	n := len(c.all)
	put(49_999) // converted twice at once: replaced, counted once
	if len(c.all) != n || c.bytes != int64(n)*perEntry {
		t.Fatalf("after storing an entry again: %d entries (want %d), %d bytes (want %d)", len(c.all), n, c.bytes, int64(n)*perEntry)
	}
	before := heap()
	for i := 50_000; i < 300_000; i++ {
		put(i)
	}
	after := heap()
	if len(c.entries) != len(c.all) || c.bytes != int64(len(c.all))*perEntry || c.deleted > len(c.all)+rebuildSlack {
		t.Fatalf("map %d entries, list %d, %d bytes, %d deleted since the map was made", len(c.entries), len(c.all), c.bytes, c.deleted)
	}
	for i, e := range c.all {
		if e.index != i || c.entries[e.key] != e {
			t.Fatalf("entry %d of the list is not in its place in the list or the map", i)
		}
	}
	if after > before+256<<10 {
		t.Errorf("the heap grew from %d to %d bytes over 250,000 replacements in a full cache", before, after)
	}
	t.Logf("heap %d → %d bytes over 250,000 replacements", before, after)
	runtime.KeepAlive(c)
}

// TestConversionCacheKeepsItsSpans: a full cache whose entries change size
// (answers in one version, then objects and answers of other sizes) keeps
// the same heap: its bytes live in blocks it reuses. When each entry was an
// allocation of its own size class, the heap in use after a collection grew
// from 33.5 to 44.6 MiB in this pattern, with 18.4–18.6 MiB allocated:
// evicted entries left holes in spans of classes the new entries did not
// use.
func TestConversionCacheKeepsItsSpans(t *testing.T) {
	c := newConversionCache(16<<20, nil)
	key := func(i int) [32]byte {
		var n [8]byte
		binary.BigEndian.PutUint64(n[:], uint64(i))
		return sha256.Sum256(n[:])
	}
	inUse := func() uint64 {
		var ms runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&ms)
		return ms.HeapInuse
	}
	var garbage [][]byte // a request's worth of other allocations between puts
	i := 0
	for ; i < 8000; i++ {
		c.put(key(i), [][]byte{make([]byte, 2900)}, []string{"v1alpha3"}, api.Group+"/v1alpha1")
		garbage = append(garbage[:0], make([]byte, 20000), make([]byte, 3000))
	}
	base := inUse()
	most := base
	for step := 0; step < 6; step++ {
		for j := 0; j < 3000; j++ {
			i++
			if j%2 == 0 {
				c.putObject(key(i), &cachedObject{prefixLen: 2000, suffixLen: 700}, make([]byte, 2000), make([]byte, 700))
			} else {
				c.put(key(i), [][]byte{make([]byte, 4500)}, []string{"v1alpha3"}, api.Group+"/v1alpha2")
			}
			garbage = append(garbage[:0], make([]byte, 20000), make([]byte, 3000), make([]byte, 1500))
		}
		most = max(most, inUse())
	}
	if most > base+2<<20 {
		t.Errorf("heap in use grew from %d to %d bytes as the entries' sizes changed", base, most)
	}
	t.Logf("heap in use %d, at most %d bytes as the entries' sizes changed", base, most)
	runtime.KeepAlive(garbage)
}

// TestConversionCacheConcurrent converts and looks up reviews and objects
// (under four names) from many goroutines (run with -race to check the
// locking).
func TestConversionCacheConcurrent(t *testing.T) {
	h := newCachingConvertHandler(defaultConverter, 20_000)
	h.cacheObjects = true
	want := map[string][]byte{}
	bodies := map[string][]byte{}
	for _, to := range versions {
		for n := 0; n < 4; n++ {
			k := fmt.Sprint(to, n)
			bodies[k] = conversionReview("apiextensions.k8s.io/v1", "u", api.Group+"/"+to, withName(t, fixture(t, "v1alpha3"), fmt.Sprint("claim-", n)))
			want[k] = post(newTestConvertHandler(defaultConverter), bodies[k]).Body.Bytes()
		}
	}
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 50; i++ {
				k := fmt.Sprint(versions[(g+i)%len(versions)], (g*i)%4)
				if got := post(h, bodies[k]).Body.Bytes(); !bytes.Equal(got, want[k]) {
					t.Errorf("%s: %s", k, got)
					return
				}
			}
		}()
	}
	wg.Wait()
	if value(t, h.cache.objectLookups.WithLabelValues("hit")) == 0 {
		t.Error("no object entry answered")
	}
}

// TestConversionCacheKeepsWhatItCounts: the heap the entries keep alive,
// once the requests are gone, is about what the cache counts (its bytes
// gauge, which --conversion-cache-bytes bounds). An entry that kept a
// substring of its request (a string the decoder did not intern, say)
// would keep the whole request body alive, uncounted.
func TestConversionCacheKeepsWhatItCounts(t *testing.T) {
	const reviews = 600
	fixtures := map[string][]byte{}
	for _, v := range versions {
		fixtures[v] = fixture(t, v)
	}
	h := newCachingConvertHandler(defaultConverter, 1<<30)
	h.cacheObjects = true
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for i := range reviews { // each body is garbage once answered
		from, to := versions[i%len(versions)], versions[(i/len(versions))%len(versions)]
		obj := bytes.ReplaceAll(fixtures[from], []byte(`"gpu-0"`), []byte(fmt.Sprintf(`"gpu-%d"`, 1000+i)))
		body := conversionReview("apiextensions.k8s.io/v1", fmt.Sprintf("uid-%d", i), api.Group+"/"+to, obj)
		if rec := post(h, body); rec.Code != http.StatusOK {
			t.Fatalf("review %d: status %d: %s", i, rec.Code, rec.Body)
		}
	}
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&after)
	kept := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	counted := h.cache.bytes
	if len(h.cache.entries) < reviews {
		t.Fatalf("%d entries after %d distinct reviews", len(h.cache.entries), reviews)
	}
	// The map's slots and the small structs are approximated; keeping
	// each request as well (two thirds of an entry here) or the response
	// buffer (about 40 % more than the objects) would add much more.
	if limit := counted*23/20 + 64<<10; kept > limit {
		t.Errorf("the cache's %d entries keep %d bytes of heap, counted %d (limit %d)", len(h.cache.entries), kept, counted, limit)
	}
	t.Logf("%d entries: %d bytes of heap kept, %d counted", len(h.cache.entries), kept, counted)
	runtime.KeepAlive(h)
}

// TestConversionCacheRepeatedKeys: a review whose apiVersion or uid is
// written again further on (encoding/json keeps the last one, here in any
// letter case) gets the answer that decoding it gives, also when it or a
// review equal but for the first uid was answered before: the cache must not
// answer with the values at the start of the body.
func TestConversionCacheRepeatedKeys(t *testing.T) {
	obj := fixture(t, "v1alpha1")
	review := func(uid, extraRequest, extraTop string) []byte {
		b := conversionReview("apiextensions.k8s.io/v1", uid, Group+"/v1alpha2", obj)
		i := bytes.LastIndex(b, []byte(`]},"response"`))
		out := append(bytes.Clone(b[:i+1]), extraRequest...)
		out = append(out, b[i+1:len(b)-1]...)
		return append(append(out, extraTop...), '}')
	}
	for _, tc := range []struct {
		name        string
		first, then []byte
	}{
		{name: "apiVersion", first: review("u1", "", `,"apiVersion":"apiextensions.k8s.io/v1beta1"`), then: review("u1", "", `,"apiVersion":"apiextensions.k8s.io/v1beta1"`)},
		{name: "APIVersion", first: review("u1", "", `,"APIVersion":"apiextensions.k8s.io/v1beta1"`), then: review("u1", "", `,"APIVersion":"apiextensions.k8s.io/v1beta1"`)},
		{name: "uid", first: review("u1", `,"uid":"u1"`, ""), then: review("u2", `,"uid":"u1"`, "")},
		{name: "UID", first: review("u1", `,"UID":"u1"`, ""), then: review("u2", `,"UID":"u1"`, "")},
		{name: "escaped uid", first: review("u1", `,"\u0075id":"u1"`, ""), then: review("u2", `,"\u0075id":"u1"`, "")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want := post(newTestConvertHandler(defaultConverter), tc.then).Body.String()
			h := newCachingConvertHandler(defaultConverter, 1<<20)
			post(h, tc.first)
			if got := post(h, tc.then).Body.String(); got != want {
				t.Errorf("after %s, answered\n%.200s\nwant (as decoding)\n%.200s", tc.first[:120], got, want)
			}
		})
	}
}

// TestConversionCacheSkipsLargeReviews: a review larger than the cache's
// size / maxEntryShare (at least minLargeReview, at most maxCachedReview) gets
// no key, so neither it nor its objects are looked up or kept: a LIST of such
// objects would cycle them through the cache without a hit.
func TestConversionCacheSkipsLargeReviews(t *testing.T) {
	obj := fixture(t, "v1alpha3")
	sized := func(n int) []byte { // a review of about n bytes
		big := bytes.Replace(obj, []byte(`"metadata":{`), []byte(`"metadata":{"annotations":{"pad":"`+strings.Repeat("x", n)+`"},`), 1)
		return conversionReview("apiextensions.k8s.io/v1", "u", Group+"/v1alpha1", big)
	}
	for _, tc := range []struct {
		name      string
		cacheSize int64
		body      []byte
		want      bool
	}{
		{"small, default cache", 16 << 20, sized(1 << 10), true},
		{"40 KiB, default cache", 16 << 20, sized(40 << 10), true},
		{"70 KiB, default cache (over 16 MiB / 256)", 16 << 20, sized(70 << 10), false},
		{"70 KiB, 64 MiB cache", 64 << 20, sized(70 << 10), true},
		{"60 KiB, 1 MiB cache (the 64 KiB floor)", 1 << 20, sized(60 << 10), true},
		{"300 KiB, 1 GiB cache (over maxCachedReview)", 1 << 30, sized(300 << 10), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, ok := newConversionCache(tc.cacheSize, nil).key(tc.body); ok != tc.want {
				t.Errorf("key() of %d bytes with a %d-byte cache: ok %v, want %v", len(tc.body), tc.cacheSize, ok, tc.want)
			}
		})
	}
}

// TestConversionCacheUnlocksOnPanic: a panic while the cache's lock is held
// (recovered by the handler, which answers 500) leaves the lock free, so
// that later cached conversions do not wait for it forever, slots held.
func TestConversionCacheUnlocksOnPanic(t *testing.T) {
	c := newConversionCache(1<<20, newMetrics())
	key := cacheKey{sum: [32]byte{7}}
	c.put(key.sum, [][]byte{[]byte(`{"a":1}`)}, []string{"v1alpha3"}, api.Group+"/v1alpha1")
	func() {
		defer func() {
			if recover() == nil {
				t.Fatal("get did not panic")
			}
		}()
		c.get(key, func(int) []byte { panic("head panics") })
	}()
	done := make(chan bool, 1)
	go func() {
		_, _, _, ok := c.get(key, func(n int) []byte { return make([]byte, 0, n) })
		done <- ok
	}()
	select {
	case ok := <-done:
		if !ok {
			t.Error("the entry is gone after the panic")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("get after a panic under the lock blocks: the lock stayed taken")
	}
}
