package webhook

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/go-logr/logr"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/conversion"
	"github.com/claimbridge/claimbridge/internal/jsontree"
)

// maxTreeDepth is encoding/json's nesting limit; readReview has already
// enforced the (smaller) configured depth on the whole review.
const maxTreeDepth = 10000

// ConvertFunc converts one ResourceClaim or ResourceClaimTemplate JSON tree
// to toVersion ("v1alpha1", "v1alpha2" or "v1alpha3"), keeping its group.
// The handler never modifies obj or the result while it checks and encodes
// the result, so the result may share values with obj; once the answer is
// written, the handler reuses obj's maps (jsontree.Recycler), so a
// ConvertFunc keeps no reference to obj, to the result or to any map in
// them after it returns.
type ConvertFunc func(obj map[string]interface{}, toVersion string) (map[string]interface{}, error)

// defaultConverter is conversion.ConvertShared: the handler modifies neither
// the decoded object nor the converted one, which it only checks and encodes
// (and then drops).
var defaultConverter ConvertFunc = conversion.ConvertShared

// Group is the API group served by claimbridge (package api's).
const Group = api.Group

// convertHandler serves /convert: ConversionReview apiextensions.k8s.io/v1
// and v1beta1 (same shape). Only an unreadable review gets an HTTP error;
// every conversion problem is a 200 with result.status Failure.
type convertHandler struct {
	convert  ConvertFunc
	maxBytes int64
	maxDepth int
	timeout  time.Duration
	metrics  *metrics
	// cache, if not nil, answers a review equal but for its uid to one
	// converted before (convcache.go).
	cache *conversionCache
	// cacheObjects also keeps and looks up converted objects in cache
	// (objcache.go): only for the default converter.
	cacheObjects bool
}

var _ http.Handler = (*convertHandler)(nil)

func (h *convertHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := arrival(r)
	log := klog.FromContext(r.Context()).WithValues("endpoint", "/convert")
	body, herr := readReview(w, r, h.maxBytes, 0)
	if herr != nil {
		h.metrics.request("/convert", "", unreadResult(herr), start)
		writeHTTPError(w, log, herr)
		return
	}
	key, cacheable := h.cache.key(body)
	if cacheable {
		head := func(n int) []byte {
			tm := metav1.TypeMeta{Kind: "ConversionReview", APIVersion: key.apiVersion}
			return appendConversionReviewHead(make([]byte, 0, 256+len(key.uid)+n), tm, types.UID(key.uid), true)
		}
		if buf, from, to, ok := h.cache.get(key, head); ok {
			h.serveCached(w, log, buf, from, to, start)
			return
		}
	}
	// The decoded maps serve the next reviews once this answer is written
	// (the answer, the cache and the logs keep no map of them).
	rc := recyclers.Get().(*jsontree.Recycler)
	defer func() {
		rc.Release()
		recyclers.Put(rc)
	}()
	review, decoded, ok := decodeCanonicalConversionReview(body, h.maxDepth, rc)
	var spans [][2]int // the objects' bytes in body, for object entries
	if ok && cacheable && h.cacheObjects {
		if spans = reviewObjectSpans(body); len(spans) != len(decoded) {
			spans = nil
		}
	}
	if !ok {
		review, decoded = apiextensionsv1.ConversionReview{}, nil
		if herr := decodeChecked(body, h.maxDepth, func(b []byte) *httpError { return decodeConversionReview(b, &review) }); herr != nil {
			h.metrics.request("/convert", "", "bad_request", start)
			writeHTTPError(w, log, herr)
			return
		}
	}
	req := review.Request
	log = log.WithValues("uid", logString(string(req.UID)), "desiredAPIVersion", logString(req.DesiredAPIVersion), "objects", len(req.Objects))
	// Objects are converted one after another; between two, the review
	// stops once its client has gone or the timeout has passed (checked
	// there: a timer per review would cost more than the check).
	deadline := start.Add(h.timeout)

	// A successful response is written as the objects are converted: each
	// is encoded straight into it.
	buf := appendConversionReviewHead(make([]byte, 0, responseCapacity(body)), review.TypeMeta, req.UID, true)
	buf, ends, from, status := h.convertAll(r.Context(), deadline, req, decoded, body, spans, buf)
	result := "success"
	if status.Status != metav1.StatusSuccess {
		result = "failure"
		log.Info("Conversion failed", "message", logString(status.Message))
	} else {
		log.V(4).Info("Converted objects", "duration", time.Since(start))
	}
	h.metrics.request("/convert", "", result, start)
	if result == "success" {
		buf = appendConversionReviewTail(buf, true)
		if cacheable && string(req.UID) == key.uid && review.APIVersion == key.apiVersion && reviewKeysUnique(body) {
			// The cache copies the objects out of the response (put).
			objects := make([][]byte, len(ends))
			for i, e := range ends {
				objects[i] = buf[e[0]:e[1]]
			}
			h.cache.put(key.sum, objects, from, req.DesiredAPIVersion)
		}
		writeRaw(w, log, buf)
		return
	}
	writeJSON(w, log, &apiextensionsv1.ConversionReview{TypeMeta: review.TypeMeta, Response: &apiextensionsv1.ConversionResponse{UID: req.UID, Result: status}})
}

// responseCapacity is the capacity that holds the successful response to
// the review body in most cases: a converted object is about as large as the
// original, and up to half again with restore annotations.
func responseCapacity(body []byte) int {
	return len(body) + len(body)/2 + 256
}

// decodeConversionReview accepts only a ConversionReview of a known version
// with a request and a uid.
func decodeConversionReview(body []byte, review *apiextensionsv1.ConversionReview) *httpError {
	return decodeReview(body, review, &review.TypeMeta, "ConversionReview", "apiextensions.k8s.io", func() (bool, types.UID) {
		if review.Request == nil {
			return false, ""
		}
		return true, review.Request.UID
	})
}

// convertAll converts every object in order, appending each to buf (after
// a comma from the second on), or fails the whole review (also when ctx is
// done or deadline has passed before an object); it returns buf
// and where each object is in it. decoded, when not nil, holds the objects
// already decoded from the review; spans, when not nil, where each is in
// body. It also returns the version each object was converted from.
func (h *convertHandler) convertAll(ctx context.Context, deadline time.Time, req *apiextensionsv1.ConversionRequest, decoded []map[string]interface{}, body []byte, spans [][2]int, buf []byte) ([]byte, [][2]int, []string, metav1.Status) {
	gv, err := schema.ParseGroupVersion(req.DesiredAPIVersion)
	if err != nil || gv.Group != api.Group || !api.IsServed(gv.Version) {
		return nil, nil, nil, failure("desiredAPIVersion %q is not served: want %s/%s", req.DesiredAPIVersion, api.Group, servedList())
	}
	ends := make([][2]int, len(req.Objects))
	from := make([]string, len(req.Objects))
	for i := range req.Objects {
		err := ctx.Err()
		if err == nil && !time.Now().Before(deadline) {
			err = context.DeadlineExceeded
		}
		if err != nil {
			return nil, nil, nil, failure("objects[%d] and later not converted to %s: %v", i, req.DesiredAPIVersion, err)
		}
		var obj map[string]interface{}
		if decoded != nil {
			obj = decoded[i]
		}
		deepen := mayNestDeeper(req.Objects[i].Raw, obj, h.maxDepth)
		var key objectCacheKey
		if spans != nil {
			key.sum, key.ok = objectKey(body[spans[i][0]:spans[i][1]], req.DesiredAPIVersion)
		}
		if i > 0 {
			buf = append(buf, ',')
		}
		ends[i][0] = len(buf)
		buf, from[i], err = h.convertOne(req.Objects[i].Raw, obj, gv, key, buf)
		if err != nil {
			return nil, nil, nil, failure("objects[%d] %v", i, err)
		}
		if deepen { // else it nests at most as deep as the review allowed
			if err := checkConvertedDepth(buf[ends[i][0]:], h.maxDepth); err != nil {
				return nil, nil, nil, failure("objects[%d] converted to %s: %v", i, req.DesiredAPIVersion, err)
			}
		}
		ends[i][1] = len(buf)
	}
	return buf, ends, from, metav1.Status{Status: metav1.StatusSuccess}
}

// objectCacheKey is an object's key in the conversion cache, if ok.
type objectCacheKey struct {
	sum [sha256.Size]byte
	ok  bool
}

// convertOne converts one object, decoded from raw unless obj is given, and
// checks the apiserver's contract on the result; with a key, it answers from
// the object's cache entry or stores one. Errors name the object. It also
// returns the version the object was converted from. The converted object
// is appended to buf (which it returns).
func (h *convertHandler) convertOne(raw []byte, obj map[string]interface{}, to schema.GroupVersion, key objectCacheKey, buf []byte) ([]byte, string, error) {
	if obj == nil {
		var err error
		if obj, err = decodeObject(raw); err != nil {
			return nil, "", err
		}
	}
	id := identify(obj)
	from, _ := obj["apiVersion"].(string)
	gv, err := schema.ParseGroupVersion(from)
	if err != nil || gv.Group != api.Group || !api.IsServed(gv.Version) || !api.IsKind(id.kind) {
		version := "" // counted as from="unknown"
		if err == nil && gv.Group == api.Group {
			version = gv.Version
		}
		h.metrics.conversion(version, to.Version, "unsupported")
		return nil, "", fmt.Errorf("%s: unsupported apiVersion %q or kind %q: want %s %s or %s", id, from, id.kind, api.Group, api.KindClaim, api.KindTemplate)
	}
	if key.ok {
		var ok bool
		if buf, ok = h.fromObjectEntry(key.sum, obj, buf); ok {
			h.metrics.conversion(gv.Version, to.Version, "success")
			return buf, gv.Version, nil
		}
	}
	// The converter's errors already say "converting <kind> <name> from
	// <version> to <version>"; only what the webhook checks is worded here.
	out, err := h.safeConvert(obj, to.Version)
	if err == nil {
		if err = checkConverted(obj, out, id, to); err != nil {
			err = fmt.Errorf("converted from %s to %s: %w", from, to, err)
		}
	}
	if err != nil {
		h.metrics.conversion(gv.Version, to.Version, "failure")
		return nil, "", fmt.Errorf("%s: %w", id, err)
	}
	out = ensureMetadata(out)
	start := len(buf)
	buf, err = jsontree.Append(buf, out, true)
	if err != nil {
		h.metrics.conversion(gv.Version, to.Version, "failure")
		return nil, "", fmt.Errorf("%s: encoding converted object: %w", id, err)
	}
	if key.ok {
		if e, prefix, suffix := newCachedObject(obj, out, buf[start:]); e != nil {
			h.cache.putObject(key.sum, e, prefix, suffix)
		}
	}
	h.metrics.conversion(gv.Version, to.Version, "success")
	return buf, gv.Version, nil
}

// fromObjectEntry appends to buf the converted encoding of obj from its
// object entry, if the cache has one that answers it (objcache.go), and
// counts the lookup; otherwise it returns buf as it was and false.
func (h *convertHandler) fromObjectEntry(key [sha256.Size]byte, obj map[string]interface{}, buf []byte) ([]byte, bool) {
	meta, _ := obj["metadata"].(map[string]interface{})
	return h.cache.appendObject(key, buf, meta)
}

// serveCached answers a review from the conversion cache: the same bytes as
// converting its objects again, with the review's uid, and the same
// metrics. buf holds the response up to the last converted object
// (conversionCache.get).
func (h *convertHandler) serveCached(w http.ResponseWriter, log logr.Logger, buf []byte, from []string, to string, start time.Time) {
	for _, f := range from {
		h.metrics.conversion(f, to, "success")
	}
	h.metrics.request("/convert", "", "success", start)
	writeRaw(w, log, appendConversionReviewTail(buf, true))
}

// recyclers hold the maps of decoded reviews for the next ones
// (jsontree.Recycler): a review takes one and gives its maps back once its
// answer is written.
var recyclers = sync.Pool{New: func() any { return new(jsontree.Recycler) }}

// safeConvert turns a converter panic into an error for this object.
func (h *convertHandler) safeConvert(obj map[string]interface{}, to string) (out map[string]interface{}, err error) {
	defer func() {
		if p := recover(); p != nil {
			h.metrics.recordPanic("/convert")
			out, err = nil, fmt.Errorf("converter panicked: %v", p)
		}
	}()
	return h.convert(obj, to)
}

// decodeObject decodes one JSON object with numbers kept as json.Number.
// jsontree decodes exactly as encoding/json does, without reflection; input
// it rejects is decoded again by encoding/json for the error message.
func decodeObject(raw []byte) (map[string]interface{}, error) {
	if v, err := jsontree.Unmarshal(raw, maxTreeDepth); err == nil {
		if obj, ok := v.(map[string]interface{}); ok && obj != nil {
			return obj, nil
		}
	}
	if len(bytes.TrimSpace(raw)) == 0 || bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		return nil, errors.New("is empty")
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var obj map[string]interface{}
	if err := dec.Decode(&obj); err != nil {
		return nil, fmt.Errorf("is not a JSON object: %v", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("has data after the JSON object")
	}
	if obj == nil {
		return nil, errors.New("is not a JSON object")
	}
	return obj, nil
}

// objectID names an object in messages and logs without its contents.
type objectID struct {
	kind, namespace, name, uid string
}

func identify(obj map[string]interface{}) objectID {
	id := objectID{}
	id.kind, _ = obj["kind"].(string)
	id.namespace, id.name, id.uid = api.Meta(obj)
	return id
}

func (id objectID) String() string {
	obj := map[string]interface{}{"kind": id.kind, "metadata": map[string]interface{}{"namespace": id.namespace, "name": id.name}}
	s := api.Describe(obj)
	if id.uid != "" {
		s += " (uid " + id.uid + ")"
	}
	return s
}

// servedList spells the served versions for messages: "a, b or c".
func servedList() string {
	v := api.ServedVersions
	if len(v) == 1 {
		return v[0]
	}
	return strings.Join(v[:len(v)-1], ", ") + " or " + v[len(v)-1]
}

// checkConverted enforces what the apiserver requires of a converted object:
// apiVersion is the desired one; kind, name, namespace and uid are unchanged;
// metadata changes at most in labels and annotations, which stay string maps.
func checkConverted(in, out map[string]interface{}, id objectID, to schema.GroupVersion) error {
	if out == nil {
		return errors.New("converter returned no object")
	}
	if v, _ := out["apiVersion"].(string); v != to.String() {
		return fmt.Errorf("converter returned apiVersion %q", v)
	}
	if got := identify(out); got != id {
		return fmt.Errorf("converter changed the identity to %s", got)
	}
	inMeta, _ := in["metadata"].(map[string]interface{})
	outMeta, ok := out["metadata"].(map[string]interface{})
	if !ok && out["metadata"] != nil {
		return errors.New("converter returned metadata that is not an object")
	}
	for _, k := range []string{"labels", "annotations"} {
		if err := checkStringMap(outMeta[k]); err != nil {
			return fmt.Errorf("converter returned metadata.%s that %v", k, err)
		}
	}
	if !equalExcept(inMeta, outMeta, false) {
		return errors.New("converter changed metadata other than labels and annotations")
	}
	return nil
}

// ensureMetadata returns out, or a shallow copy of it with an empty metadata
// object when out has none (absent or null). kube-apiserver refuses a
// converted object without a metadata object ("returned invalid metadata:
// missing metadata in converted object"), also when the object it sent had
// none, which it does: server-side apply, when a manager applies through
// another version than its last apply, prunes that manager's former fields
// from the object with the whole metadata and spec (structured-merge-diff
// removes the named fields above an owned field) and converts what remains
// to the versions of the other managers. Conversion keeps an absent
// metadata absent (a partial object converts exactly); the apiserver puts
// the object's own metadata back over the answer's, keeping only its labels
// and annotations, so an empty one adds nothing. out is not modified (it
// may share with the request).
func ensureMetadata(out map[string]interface{}) map[string]interface{} {
	if _, ok := out["metadata"].(map[string]interface{}); ok {
		return out
	}
	copied := make(map[string]interface{}, len(out)+1)
	for k, v := range out {
		copied[k] = v
	}
	copied["metadata"] = map[string]interface{}{}
	return copied
}

func checkStringMap(v interface{}) error {
	if v == nil {
		return nil
	}
	m, ok := v.(map[string]interface{})
	if !ok {
		return errors.New("is not an object")
	}
	for k, s := range m {
		if _, ok := s.(string); !ok {
			return fmt.Errorf("has a non-string value at %q", k)
		}
	}
	return nil
}

// equalExcept reports whether two metadata objects are reflect.DeepEqual
// but for the annotations and, unless withLabels, the labels, without
// copying them.
func equalExcept(a, b map[string]interface{}, withLabels bool) bool {
	skip := func(k string) bool { return k == "annotations" || k == "labels" && !withLabels }
	n := 0
	for k, va := range a {
		if skip(k) {
			continue
		}
		vb, ok := b[k]
		if !ok || !api.DeepEqualJSON(va, vb) {
			return false
		}
		n++
	}
	for k := range b {
		if !skip(k) {
			n--
		}
	}
	return n == 0
}

func failure(format string, args ...any) metav1.Status {
	return metav1.Status{Status: metav1.StatusFailure, Message: fmt.Sprintf(format, args...)}
}
