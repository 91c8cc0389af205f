package webhook

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/claimbridge/claimbridge/api"
)

// withMetadata returns the fixture with its metadata changed by edit.
func withMetadata(tb testing.TB, data []byte, edit func(meta map[string]interface{})) []byte {
	tb.Helper()
	var obj map[string]interface{}
	if err := json.Unmarshal(data, &obj); err != nil {
		tb.Fatal(err)
	}
	edit(obj["metadata"].(map[string]interface{}))
	out, err := json.Marshal(obj)
	if err != nil {
		tb.Fatal(err)
	}
	return out
}

// stored is what the apiserver makes of an object: another name, uid,
// resourceVersion, creationTimestamp, generation and managedFields.
func stored(i int) func(meta map[string]interface{}) {
	return func(meta map[string]interface{}) {
		meta["name"] = fmt.Sprintf("claim-%d", i)
		meta["uid"] = fmt.Sprintf("00000000-0000-0000-0000-%012d", i)
		meta["resourceVersion"] = fmt.Sprint(1000 + i)
		meta["creationTimestamp"] = "2026-11-22T10:00:00Z"
		meta["generation"] = json.Number(fmt.Sprint(i))
		meta["managedFields"] = []interface{}{map[string]interface{}{
			"manager": "kubectl", "operation": "Update", "apiVersion": api.Group + "/v1alpha1",
			"fieldsType": "FieldsV1", "fieldsV1": map[string]interface{}{"f:spec": map[string]interface{}{}},
		}}
	}
}

func newObjectCachingHandler(convert ConvertFunc) *convertHandler {
	h := newCachingConvertHandler(convert, 1<<20)
	h.cacheObjects = true
	return h
}

// TestObjectEntriesAnswerAsConverting: objects that differ from one
// converted before only in metadata other than the annotations are answered
// with the bytes converting them gives, without converting, in every
// direction; other annotations, another spec or another target convert.
func TestObjectEntriesAnswerAsConverting(t *testing.T) {
	var calls atomic.Int64
	counting := func(obj map[string]interface{}, to string) (map[string]interface{}, error) {
		calls.Add(1)
		return defaultConverter(obj, to)
	}
	cached := newObjectCachingHandler(counting)
	plain := newTestConvertHandler(defaultConverter)
	for _, from := range versions {
		for _, to := range versions {
			desired := api.Group + "/" + to
			base := fixture(t, from)
			before := calls.Load()
			for i := 0; i < 3; i++ {
				body := conversionReview("apiextensions.k8s.io/v1", fmt.Sprintf("u%d", i), desired, withMetadata(t, base, stored(i)))
				got, want := post(cached, body), post(plain, body)
				if got.Code != 200 || !bytes.Equal(got.Body.Bytes(), want.Body.Bytes()) {
					t.Fatalf("%s→%s object %d: answer differs from converting:\n got %s\nwant %s", from, to, i, got.Body, want.Body)
				}
			}
			if n := calls.Load() - before; n != 1 {
				t.Errorf("%s→%s: the converter ran %d times for objects differing in name, uid and managedFields, want 1", from, to, n)
			}
			for _, other := range []struct {
				name string
				obj  []byte
			}{
				{"another annotation", withMetadata(t, base, func(m map[string]interface{}) {
					stored(0)(m)
					ann, _ := m["annotations"].(map[string]interface{})
					if ann == nil {
						ann = map[string]interface{}{}
						m["annotations"] = ann
					}
					ann["example.com/note"] = "x"
				})},
				{"no annotations", withMetadata(t, base, func(m map[string]interface{}) { stored(0)(m); delete(m, "annotations") })},
				{"another spec", withMetadata(t, bytes.Replace(base, []byte(`"gpu.example.com"`), []byte(`"fpga.example.com"`), 1), stored(0))},
			} {
				if bytes.Equal(other.obj, withMetadata(t, base, stored(0))) {
					continue // the fixture has no such field to change
				}
				body := conversionReview("apiextensions.k8s.io/v1", "o", desired, other.obj)
				before := calls.Load()
				got, want := post(cached, body), post(plain, body)
				if !bytes.Equal(got.Body.Bytes(), want.Body.Bytes()) {
					t.Errorf("%s→%s %s: answer differs from converting:\n got %s\nwant %s", from, to, other.name, got.Body, want.Body)
				}
				if calls.Load() == before {
					t.Errorf("%s→%s %s: answered from the entry of another object", from, to, other.name)
				}
			}
		}
	}
	if hits := value(t, cached.cache.objectLookups.WithLabelValues("hit")); hits != float64(2*len(versions)*len(versions)) {
		t.Errorf("object hits = %v, want %v", hits, 2*len(versions)*len(versions))
	}
}

// TestObjectEntryRefusesMalformedMetadata: an object whose name, labels or
// finalizers have the wrong type is converted (and refused) even when its
// entry exists.
func TestObjectEntryRefusesMalformedMetadata(t *testing.T) {
	cached := newObjectCachingHandler(defaultConverter)
	plain := newTestConvertHandler(defaultConverter)
	base := withMetadata(t, fixture(t, "v1alpha3"), func(map[string]interface{}) {}) // as edited below: the same bytes but the metadata
	desired := api.Group + "/v1alpha1"
	post(cached, conversionReview("apiextensions.k8s.io/v1", "first", desired, base))
	for _, edit := range []func(map[string]interface{}){
		func(m map[string]interface{}) { m["name"] = json.Number("5") },
		func(m map[string]interface{}) { m["namespace"] = true },
		func(m map[string]interface{}) { m["labels"] = []interface{}{"x"} },
		func(m map[string]interface{}) { m["labels"] = map[string]interface{}{"a": json.Number("1")} },
		func(m map[string]interface{}) { m["finalizers"] = "x" },
		func(m map[string]interface{}) { m["finalizers"] = []interface{}{json.Number("1")} },
	} {
		body := conversionReview("apiextensions.k8s.io/v1", "u", desired, withMetadata(t, base, edit))
		got, want := post(cached, body), post(plain, body)
		if !strings.Contains(want.Body.String(), `"status":"Failure"`) {
			t.Fatalf("plain conversion of malformed metadata succeeded: %s", want.Body)
		}
		if !bytes.Equal(got.Body.Bytes(), want.Body.Bytes()) {
			t.Errorf("got %s\nwant %s", got.Body, want.Body)
		}
	}
	if hits, misses := value(t, cached.cache.objectLookups.WithLabelValues("hit")), value(t, cached.cache.objectLookups.WithLabelValues("miss")); hits != 0 || misses != 7 {
		t.Errorf("object lookups: %v hits, %v misses; want 0 and 7 (the entry found but not used for malformed metadata)", hits, misses)
	}
}

func TestObjectKey(t *testing.T) {
	const to = api.Group + "/v1alpha1"
	base := `{"apiVersion":"x/v1","kind":"K","metadata":{"annotations":{"a":"1"},"name":"n","uid":"u"},"spec":{"s":1}}`
	key, ok := objectKey([]byte(base), to)
	if !ok {
		t.Fatal("base not keyed")
	}
	for _, tc := range []struct {
		name, obj, to string
		ok, same      bool
	}{
		{name: "other name, uid, fields", obj: `{"apiVersion":"x/v1","kind":"K","metadata":{"annotations":{"a":"1"},"name":"m","uid":"v","managedFields":[{"a":"b"}]},"spec":{"s":1}}`, ok: true, same: true},
		{name: "annotations elsewhere in metadata", obj: `{"apiVersion":"x/v1","kind":"K","metadata":{"name":"n","annotations":{"a":"1"}},"spec":{"s":1}}`, ok: true, same: true},
		{name: "other annotations", obj: `{"apiVersion":"x/v1","kind":"K","metadata":{"annotations":{"a":"2"},"name":"n","uid":"u"},"spec":{"s":1}}`, ok: true},
		{name: "no annotations", obj: `{"apiVersion":"x/v1","kind":"K","metadata":{"name":"n","uid":"u"},"spec":{"s":1}}`, ok: true},
		{name: "other spec", obj: `{"apiVersion":"x/v1","kind":"K","metadata":{"annotations":{"a":"1"},"name":"n","uid":"u"},"spec":{"s":2}}`, ok: true},
		{name: "other version", obj: `{"apiVersion":"x/v2","kind":"K","metadata":{"annotations":{"a":"1"},"name":"n","uid":"u"},"spec":{"s":1}}`, ok: true},
		{name: "other target", obj: base, to: api.Group + "/v1alpha2", ok: true},
		{name: "no metadata", obj: `{"apiVersion":"x/v1","kind":"K","spec":{"s":1}}`},
		{name: "metadata not an object", obj: `{"apiVersion":"x/v1","kind":"K","metadata":[],"spec":{"s":1}}`},
		{name: "metadata twice", obj: `{"metadata":{},"apiVersion":"x/v1","kind":"K","metadata":{"annotations":{"a":"1"}},"spec":{"s":1}}`},
		{name: "annotations twice", obj: `{"apiVersion":"x/v1","kind":"K","metadata":{"annotations":{},"annotations":{"a":"1"}},"spec":{"s":1}}`},
		{name: "escaped key", obj: `{"apiVersion":"x/v1","kind":"K","m\u0065tadata":{},"metadata":{"annotations":{"a":"1"}},"spec":{"s":1}}`},
		{name: "escaped metadata key", obj: `{"apiVersion":"x/v1","kind":"K","metadata":{"\u0061nnotations":{"a":"2"},"annotations":{"a":"1"}},"spec":{"s":1}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			target := to
			if tc.to != "" {
				target = tc.to
			}
			got, ok := objectKey([]byte(tc.obj), target)
			if ok != tc.ok || ok && (got == key) != tc.same {
				t.Errorf("objectKey: ok %v, same key %v; want %v, %v", ok, got == key, tc.ok, tc.same)
			}
		})
	}
}

func TestReviewObjectSpans(t *testing.T) {
	a, b := fixture(t, "v1alpha1"), fixture(t, "v1alpha2")
	body := conversionReview("apiextensions.k8s.io/v1", "u", api.Group+"/v1alpha3", a, b)
	spans := reviewObjectSpans(body)
	if len(spans) != 2 {
		t.Fatalf("%d spans, want 2", len(spans))
	}
	for i, want := range [][]byte{a, b} {
		var compact bytes.Buffer
		if err := json.Compact(&compact, want); err != nil {
			t.Fatal(err)
		}
		if got := body[spans[i][0]:spans[i][1]]; !bytes.Equal(got, compact.Bytes()) {
			t.Errorf("span %d = %s, want %s", i, got, compact.Bytes())
		}
	}
	for _, bad := range []string{
		`{"kind":"ConversionReview","request":{"objects":[]},"request":{"objects":[{}]}}`,
		`{"kind":"ConversionReview","request":{"objects":[],"objects":[{}]}}`,
		`{"kind":"ConversionReview","requ\u0065st":{"objects":[]},"request":{"objects":[{}]}}`,
		`{"kind":"ConversionReview","request":{"obj\u0065cts":[],"objects":[{}]}}`,
		`{"kind":"ConversionReview"}`,
	} {
		if spans := reviewObjectSpans([]byte(bad)); spans != nil {
			t.Errorf("reviewObjectSpans(%s) = %v, want nil", bad, spans)
		}
	}
}

// TestObjectEntriesOnlyForTheDefaultConverter: a configured converter may
// read any metadata, so the server keeps no object entries for it.
func TestObjectEntriesOnlyForTheDefaultConverter(t *testing.T) {
	for _, tc := range []struct {
		converter ConvertFunc
		want      bool
	}{{nil, true}, {fakeConvert, false}} {
		cfg := testConfig(t.TempDir())
		cfg.Converter = tc.converter
		s, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		if s.cacheObjects != tc.want {
			t.Errorf("converter %v: cacheObjects %v, want %v", tc.converter != nil, s.cacheObjects, tc.want)
		}
	}
}

// TestObjectEntryAnswersAreCounted: an object answered from its entry is
// counted as a conversion like a converted one, and a review answered from
// the review cache as a successful request.
func TestObjectEntryAnswersAreCounted(t *testing.T) {
	var calls atomic.Int64
	h := newObjectCachingHandler(func(obj map[string]interface{}, to string) (map[string]interface{}, error) {
		calls.Add(1)
		return defaultConverter(obj, to)
	})
	base := fixture(t, "v1alpha1")
	for i := range 2 { // the second object is answered from the first's entry
		body := conversionReview("apiextensions.k8s.io/v1", fmt.Sprintf("u%d", i), api.Group+"/v1alpha3", withMetadata(t, base, stored(i)))
		if rec := post(h, body); rec.Code != 200 || !strings.Contains(rec.Body.String(), `"status":"Success"`) {
			t.Fatalf("object %d: %d %s", i, rec.Code, rec.Body)
		}
	}
	// Equal but for the uid to the second: answered from the review cache.
	post(h, conversionReview("apiextensions.k8s.io/v1", "u2", api.Group+"/v1alpha3", withMetadata(t, base, stored(1))))
	if n := calls.Load(); n != 1 {
		t.Fatalf("the converter ran %d times, want 1", n)
	}
	if got := value(t, h.metrics.conversions.WithLabelValues("v1alpha1", "v1alpha3", "success")); got != 3 {
		t.Errorf("conversions v1alpha1→v1alpha3 counted %v times, want 3 (converted, from the object entry, from the review cache)", got)
	}
	if got := value(t, h.metrics.requests.WithLabelValues("/convert", "", "success")); got != 3 {
		t.Errorf("successful /convert requests counted %v times, want 3", got)
	}
}

// TestNoObjectEntriesForAConfiguredConverter: without cacheObjects (a
// Config.Converter, which may read any metadata), an object that differs
// from one converted before only in its name is converted, not answered from
// the other's entry.
func TestNoObjectEntriesForAConfiguredConverter(t *testing.T) {
	byName := func(obj map[string]interface{}, to string) (map[string]interface{}, error) {
		out, err := defaultConverter(obj, to)
		if err != nil {
			return nil, err
		}
		out = maps.Clone(out)
		md := maps.Clone(out["metadata"].(map[string]interface{}))
		ann := maps.Clone(md["annotations"].(map[string]interface{}))
		ann["example.com/converted-name"] = md["name"]
		md["annotations"] = ann
		out["metadata"] = md
		return out, nil
	}
	h := newCachingConvertHandler(byName, 1<<20)
	base := fixture(t, "v1alpha1")
	for i := range 2 {
		rec := post(h, conversionReview("apiextensions.k8s.io/v1", fmt.Sprintf("u%d", i), api.Group+"/v1alpha3", withMetadata(t, base, stored(i))))
		want := fmt.Sprintf(`"example.com/converted-name":"claim-%d"`, i)
		if !strings.Contains(rec.Body.String(), want) {
			t.Errorf("object %d: answer without %s: %s", i, want, rec.Body)
		}
	}
	if got := value(t, h.cache.objectLookups.WithLabelValues("hit")) + value(t, h.cache.objectLookups.WithLabelValues("miss")); got != 0 {
		t.Errorf("%v object lookups, want none", got)
	}
}
