package webhook

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"strings"

	"github.com/claimbridge/claimbridge/internal/jsontree"
)

// Object entries of the conversion cache.
//
// claimbridge's conversion reads an object's metadata only for its
// annotations (the restore annotations) and the types of name, namespace,
// labels and finalizers (a malformed object is refused); it copies the rest
// of the metadata unchanged and changes only the annotations
// (conversion.ConvertShared, tested by conversion's
// TestConversionIgnoresMetadataButAnnotations). So two objects that differ
// only in metadata other than the annotations — claims created from one
// template, or the same claim before and after the apiserver stored it
// (uid, resourceVersion, creationTimestamp, managedFields) — convert to
// objects that differ in that metadata only. An object entry holds the
// encoding of a converted object around its metadata, and the converted
// annotations: a review the review cache does not hold (a create, a claim
// not converted before) is answered by decoding it, as always, and encoding
// only its metadata between the two stored parts — the bytes converting it
// would give — instead of converting it.
//
// The key is the SHA-256 of the desired version and the object's bytes as
// the review carries them, with the metadata replaced by its annotations
// member alone. Only objects the scanner can locate unambiguously are looked
// up (one metadata object, at most one annotations member, no escaped keys
// at those levels); only the default converter's results are kept (a
// Config.Converter may read any metadata).
type cachedObject struct {
	// The entry's blocks hold the converted object's encoding before
	// (prefixLen bytes) and after (suffixLen bytes) the value of its
	// metadata member.
	prefixLen, suffixLen int
	// annotations is the converted metadata's annotations member, if it
	// has one (hasAnnotations). It holds no substring of a request.
	annotations    interface{}
	hasAnnotations bool
}

// objectKeyDomain starts the hash of every object key, so that no object
// key equals a review key (whose hash starts with a review's first bytes).
const objectKeyDomain = "claimbridge conversion object\x00"

// reviewObjectSpans returns the spans of the objects in the body of a
// review decodeCanonicalConversionReview accepted (so valid JSON), in
// order, or nil when the body's request or objects member is repeated or
// any key at those levels is escaped (then the spans might not be the
// objects the decoder kept).
func reviewObjectSpans(body []byte) [][2]int {
	reqStart, reqEnd, ok := uniqueMember(body, 0, len(body), "request")
	if !ok {
		return nil
	}
	objStart, _, ok := uniqueMember(body, reqStart, reqEnd, "objects")
	if !ok {
		return nil
	}
	var spans [][2]int
	if jsontree.ScanArray(body, objStart, func(s, e int) { spans = append(spans, [2]int{s, e}) }) < 0 {
		return nil
	}
	return spans
}

// uniqueMember returns the span of the value of member name of the object
// at data[start:end]; ok is false when the object has not exactly one such
// member, has an escaped key, or cannot be followed.
func uniqueMember(data []byte, start, end int, name string) (s, e int, ok bool) {
	n, escaped := 0, false
	if jsontree.ScanObject(data[:end], start, func(key []byte, vs, ve int) {
		escaped = escaped || bytes.IndexByte(key, '\\') >= 0
		if string(key) == name {
			n++
			s, e = vs, ve
		}
	}) < 0 || escaped || n != 1 {
		return 0, 0, false
	}
	return s, e, true
}

// objectKey returns the object key of obj (an object's bytes in a review)
// converted to desiredAPIVersion, or ok=false when obj is not looked up:
// its metadata is missing, repeated or not an object, it has more than one
// annotations member, or a key of the object or its metadata is escaped.
func objectKey(obj []byte, desiredAPIVersion string) (sum [sha256.Size]byte, ok bool) {
	metaStart, metaEnd, ok := uniqueMember(obj, 0, len(obj), "metadata")
	if !ok || obj[metaStart] != '{' {
		return sum, false
	}
	annStart, annEnd, annotations := -1, -1, 0
	escaped := false
	if jsontree.ScanObject(obj[:metaEnd], metaStart, func(key []byte, s, e int) {
		escaped = escaped || bytes.IndexByte(key, '\\') >= 0
		if string(key) == "annotations" {
			annotations++
			annStart, annEnd = s, e
		}
	}) < 0 || escaped || annotations > 1 {
		return sum, false
	}
	h := sha256.New()
	var n [8]byte
	binary.BigEndian.PutUint64(n[:], uint64(len(desiredAPIVersion)))
	h.Write([]byte(objectKeyDomain))
	h.Write(n[:])
	h.Write([]byte(desiredAPIVersion))
	h.Write(obj[:metaStart])
	if annotations == 1 {
		h.Write([]byte(`{"annotations":`))
		h.Write(obj[annStart:annEnd])
		h.Write([]byte(`}`))
	} else {
		h.Write([]byte(`{}`))
	}
	h.Write(obj[metaEnd:])
	h.Sum(sum[:0])
	return sum, true
}

// newCachedObject returns the entry for an object converted from in to out
// and encoded as data, with the parts of data to store (prefix and suffix,
// which putObject copies), or nil when the conversion changed metadata
// besides the annotations (then the entry's assumption does not hold for
// it).
func newCachedObject(in, out map[string]interface{}, data []byte) (e *cachedObject, prefix, suffix []byte) {
	inMeta, ok1 := in["metadata"].(map[string]interface{})
	outMeta, ok2 := out["metadata"].(map[string]interface{})
	if !ok1 || !ok2 || bareMetadata(inMeta) || !equalExcept(inMeta, outMeta, true) {
		return nil, nil, nil
	}
	start, end, ok := uniqueMember(data, 0, len(data), "metadata")
	if !ok {
		return nil, nil, nil
	}
	prefix, suffix = data[:start], data[end:]
	e = &cachedObject{prefixLen: len(prefix), suffixLen: len(suffix)}
	e.annotations, e.hasAnnotations = outMeta["annotations"]
	if ann, ok := e.annotations.(map[string]interface{}); ok {
		// The converted annotations share strings with the request's
		// text; copies keep the cache from holding whole requests.
		copied := make(map[string]interface{}, len(ann))
		for k, v := range ann {
			s, ok := v.(string)
			if !ok {
				return nil, nil, nil
			}
			copied[strings.Clone(k)] = strings.Clone(s)
		}
		e.annotations = copied
	} else if e.annotations != nil {
		return nil, nil, nil
	}
	return e, prefix, suffix
}

// bareMetadata reports whether meta has no member but annotations. What
// conversion makes of such metadata depends on members the key leaves out
// (a restore annotation's "created": the metadata is removed once the
// annotations are gone, and created again by the next step's), so objects
// with it are neither answered from the cache nor stored in it; no
// apiserver object has metadata this bare.
func bareMetadata(meta map[string]interface{}) bool {
	_, ann := meta["annotations"]
	return len(meta) == 0 || len(meta) == 1 && ann
}

// size approximates the memory of the entry: its blocks and annotations.
func (e *cachedObject) size() int64 {
	n := int64(cacheEntryOverhead + blocksFor(e.prefixLen+e.suffixLen)*(cacheBlockSize+cacheBlockIndexSize))
	if ann, ok := e.annotations.(map[string]interface{}); ok {
		for k, v := range ann {
			n += int64(len(k) + len(v.(string)) + 48)
		}
	}
	return n
}

// appendTo appends to buf the encoding of the object converted from one
// whose metadata is meta: meta with the converted annotations, between the
// prefix and the suffix held in blocks of a. ok is false (and buf returned
// as it was) when meta's fields that conversion checks (name, namespace,
// labels, finalizers) do not have the types it requires: such an object is
// converted, and refused, as usual.
func (e *cachedObject) appendTo(buf []byte, meta map[string]interface{}, a *blockArena, blocks []int32) (_ []byte, ok bool) {
	if !conversionAcceptsMetadata(meta) {
		return buf, false
	}
	if bareMetadata(meta) {
		return buf, false
	}
	m := make(map[string]interface{}, len(meta)+1)
	for k, v := range meta {
		if k != "annotations" {
			m[k] = v
		}
	}
	if e.hasAnnotations {
		m["annotations"] = e.annotations
	}
	start := len(buf)
	buf = a.appendRange(buf, blocks, 0, e.prefixLen)
	buf, err := jsontree.Append(buf, m, true)
	if err != nil {
		return buf[:start], false
	}
	return a.appendRange(buf, blocks, e.prefixLen, e.suffixLen), true
}

// conversionAcceptsMetadata reports whether the metadata fields whose types
// conversion checks have them: name and namespace strings, labels a map of
// strings, finalizers an array of strings (absent is fine; null is left to
// conversion to judge).
func conversionAcceptsMetadata(meta map[string]interface{}) bool {
	for _, k := range []string{"name", "namespace"} {
		if v, ok := meta[k]; ok {
			if _, isString := v.(string); !isString {
				return false
			}
		}
	}
	if v, ok := meta["labels"]; ok {
		labels, isMap := v.(map[string]interface{})
		if !isMap {
			return false
		}
		for _, l := range labels {
			if _, isString := l.(string); !isString {
				return false
			}
		}
	}
	if v, ok := meta["finalizers"]; ok {
		finalizers, isArray := v.([]interface{})
		if !isArray {
			return false
		}
		for _, f := range finalizers {
			if _, isString := f.(string); !isString {
				return false
			}
		}
	}
	return true
}

// appendObject appends to buf the converted encoding of the object whose
// metadata is meta from key's object entry (cachedObject.appendTo) and
// counts the lookup; ok is false, and buf returned as it was, when the
// cache has no entry for key or the entry does not answer.
func (c *conversionCache) appendObject(key [sha256.Size]byte, buf []byte, meta map[string]interface{}) (_ []byte, ok bool) {
	buf, ok = c.appendLocked(key, buf, meta)
	c.countObjectLookup(ok)
	return buf, ok
}

// appendLocked is appendObject's work under the lock, released also when
// it panics (see lookup).
func (c *conversionCache) appendLocked(key [sha256.Size]byte, buf []byte, meta map[string]interface{}) (_ []byte, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e := c.entries[key]; e != nil && e.object != nil {
		return e.object.appendTo(buf, meta, &c.arena, e.blocks)
	}
	return buf, false
}

// countObjectLookup counts an object lookup: a hit only if the entry
// answered.
func (c *conversionCache) countObjectLookup(hit bool) {
	if hit {
		c.objectLookups.WithLabelValues("hit").Inc()
	} else {
		c.objectLookups.WithLabelValues("miss").Inc()
	}
}

// putObject stores an object entry with a copy of prefix and suffix.
func (c *conversionCache) putObject(key [sha256.Size]byte, o *cachedObject, prefix, suffix []byte) {
	size := o.size()
	if size > maxCachedReview || size > c.maxBytes {
		return
	}
	c.store(key, &cachedConversion{object: o, size: size}, prefix, suffix)
}
