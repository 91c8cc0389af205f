package webhook

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/claimbridge/claimbridge/api"
)

// TestConvertVersions converts each testdata claim to each served version
// with the real converter, through both review versions.
func TestConvertVersions(t *testing.T) {
	h := newServer(t, nil).Handler()
	for _, reviewVersion := range []string{"apiextensions.k8s.io/v1", "apiextensions.k8s.io/v1beta1"} {
		for _, from := range api.ServedVersions {
			for _, to := range api.ServedVersions {
				t.Run(reviewVersion+"/"+from+"-to-"+to, func(t *testing.T) {
					body := bytes.Replace(conversionReview("uid-1", api.Group+"/"+to, fixture(t, from)),
						[]byte(`"apiextensions.k8s.io/v1"`), []byte(`"`+reviewVersion+`"`), 1)
					rec := serve(h, "/convert", body)
					var review struct {
						APIVersion string `json:"apiVersion"`
						Response   struct {
							UID              string
							Result           metav1.Status
							ConvertedObjects []map[string]any
						}
					}
					if err := json.Unmarshal(rec.Body.Bytes(), &review); rec.Code != http.StatusOK || err != nil {
						t.Fatalf("got %d %s", rec.Code, rec.Body)
					}
					r := review.Response
					if review.APIVersion != reviewVersion || r.UID != "uid-1" || r.Result.Status != metav1.StatusSuccess || len(r.ConvertedObjects) != 1 {
						t.Fatalf("got %s", rec.Body)
					}
					obj := r.ConvertedObjects[0]
					if obj["apiVersion"] != api.Group+"/"+to || obj["kind"] != api.KindClaim {
						t.Errorf("converted to %v %v", obj["apiVersion"], obj["kind"])
					}
				})
			}
		}
	}
}

// TestConvertDeterministic: an answer from the cache is byte for byte the
// answer of a conversion, with or without the cache.
func TestConvertDeterministic(t *testing.T) {
	cached := newServer(t, nil)
	uncached := newServer(t, func(c *Config) { c.ConversionCacheBytes = 0 })
	for _, from := range api.ServedVersions {
		for _, to := range api.ServedVersions {
			body := conversionReview("uid-1", api.Group+"/"+to, fixture(t, from), fixture(t, from))
			hits, _ := metricValue(t, cached, "claimbridge_conversion_cache_lookups_total", "result", "hit")
			first := serve(cached.Handler(), "/convert", body)
			again := serve(cached.Handler(), "/convert", body)
			fresh := serve(uncached.Handler(), "/convert", body)
			if first.Code != http.StatusOK || !bytes.Equal(first.Body.Bytes(), again.Body.Bytes()) || !bytes.Equal(first.Body.Bytes(), fresh.Body.Bytes()) {
				t.Errorf("%s to %s: answers differ:\n%s\n%s\n%s", from, to, first.Body, again.Body, fresh.Body)
			}
			// The second object of the first review and both of the second.
			if got, _ := metricValue(t, cached, "claimbridge_conversion_cache_lookups_total", "result", "hit"); got != hits+3 {
				t.Errorf("%s to %s: %v cache hits, want %v", from, to, got-hits, 3)
			}
		}
	}
}

// TestConvertFailures: every conversion problem is a 200 whose result is a
// Failure naming the object, and nothing converted.
func TestConvertFailures(t *testing.T) {
	claim := fixture(t, api.V1alpha3)
	desired := api.Group + "/" + api.V1alpha2
	change := func(f func(out map[string]any)) ConvertFunc {
		return func(obj map[string]any, to string) (map[string]any, error) {
			out, _ := fakeConvert(obj, to)
			out["metadata"] = maps.Clone(out["metadata"].(map[string]any))
			f(out)
			return out, nil
		}
	}
	meta := func(out map[string]any) map[string]any { return out["metadata"].(map[string]any) }
	deep := `{"a":` + strings.Repeat(`[`, 97) + strings.Repeat(`]`, 97) + `}`
	tests := map[string]struct {
		converter ConvertFunc
		desired   string
		objects   [][]byte
		want      string
		panics    float64
	}{
		"unsupported-desired-version": {desired: "resource.k8s.io/v1alpha3", want: `desiredAPIVersion "resource.k8s.io/v1alpha3" is not served: want resource.claimbridge.dev/v1alpha1, v1alpha2 or v1alpha3`},
		"unserved-desired-version":    {desired: api.Group + "/v1", want: "is not served"},
		"unsupported-api-version": {objects: [][]byte{[]byte(`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"ns"}}`)},
			want: `objects[0] Pod ns/p: unsupported apiVersion "v1" or kind "Pod"`},
		"unsupported-kind": {objects: [][]byte{claim, []byte(`{"apiVersion":"` + api.Group + `/v1alpha3","kind":"DeviceClass","metadata":{"name":"d"}}`)},
			want: `objects[1] DeviceClass d: unsupported apiVersion`},
		"malformed-object":  {objects: [][]byte{claim, []byte(`[1]`)}, want: "objects[1] is not a JSON object"},
		"null-object":       {objects: [][]byte{claim, claim, []byte(`null`)}, want: "objects[2] is empty"},
		"converter-error":   {converter: func(map[string]any, string) (map[string]any, error) { return nil, errors.New("no way") }, want: "objects[0] ResourceClaim team-c/multi-claim (uid 9c8b7a6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d): no way"},
		"converter-panic":   {converter: func(map[string]any, string) (map[string]any, error) { panic("kaboom") }, want: "converter panicked: kaboom", panics: 1},
		"no-object":         {converter: func(map[string]any, string) (map[string]any, error) { return nil, nil }, want: "converter returned no object"},
		"wrong-api-version": {converter: change(func(o map[string]any) { o["apiVersion"] = api.Group + "/v1alpha1" }), want: `converter returned apiVersion "resource.claimbridge.dev/v1alpha1"`},
		"changed-name":      {converter: change(func(o map[string]any) { meta(o)["name"] = "other" }), want: "converter changed the identity to ResourceClaim team-c/other"},
		"changed-uid":       {converter: change(func(o map[string]any) { meta(o)["uid"] = "u2" }), want: "converter changed the identity"},
		"changed-kind":      {converter: change(func(o map[string]any) { o["kind"] = api.KindTemplate }), want: "converter changed the identity"},
		"non-string-label":  {converter: change(func(o map[string]any) { meta(o)["labels"] = map[string]any{"app": json.Number("1")} }), want: `metadata.labels that has a non-string value at "app"`},
		"annotations-list":  {converter: change(func(o map[string]any) { meta(o)["annotations"] = []any{"a"} }), want: "metadata.annotations that is not an object"},
		"metadata-string":   {converter: change(func(o map[string]any) { o["metadata"] = "m" }), want: "converter changed the identity"},
		"changed-finalizer": {converter: change(func(o map[string]any) { meta(o)["finalizers"] = []any{} }), want: "converter changed metadata other than labels and annotations"},
		"too-deep-result": {converter: change(func(o map[string]any) { o["spec"] = json.RawMessage(deep) }),
			want: "converted to resource.claimbridge.dev/v1alpha2: the result nests deeper than a review may carry (--max-json-depth 100)"},
	}
	for name, tc := range tests {
		for _, cache := range []int64{16 << 20, 0} { // with the cache and without
			t.Run(fmt.Sprintf("%s/cache-%d", name, cache), func(t *testing.T) {
				s := newServer(t, func(c *Config) { c.Converter = tc.converter; c.ConversionCacheBytes = cache })
				if tc.desired == "" {
					tc.desired = desired
				}
				if tc.objects == nil {
					tc.objects = [][]byte{claim}
				}
				rec := serve(s.Handler(), "/convert", conversionReview("uid-1", tc.desired, tc.objects...))
				r := decodeConversion(t, rec.Code, rec.Body.Bytes())
				if r.UID != "uid-1" || r.Result.Status != metav1.StatusFailure || !strings.Contains(r.Result.Message, tc.want) || len(r.ConvertedObjects) != 0 {
					t.Errorf("got %s, want a Failure containing %q", rec.Body, tc.want)
				}
				if got, _ := metricValue(t, s, "claimbridge_webhook_panics_total", "endpoint", "/convert"); got != tc.panics {
					t.Errorf("%v panics counted, want %v", got, tc.panics)
				}
			})
		}
	}
}

// TestConvertAddsMissingMetadata: kube-apiserver refuses a converted
// object without metadata.
func TestConvertAddsMissingMetadata(t *testing.T) {
	s := newServer(t, func(c *Config) { c.Converter = fakeConvert })
	obj := []byte(`{"apiVersion":"` + api.Group + `/v1alpha3","kind":"ResourceClaim","spec":{}}`)
	rec := serve(s.Handler(), "/convert", conversionReview("uid-1", api.Group+"/v1alpha1", obj))
	r := decodeConversion(t, rec.Code, rec.Body.Bytes())
	want := `{"apiVersion":"resource.claimbridge.dev/v1alpha1","kind":"ResourceClaim","metadata":{},"spec":{}}`
	if r.Result.Status != metav1.StatusSuccess || len(r.ConvertedObjects) != 1 || string(r.ConvertedObjects[0].Raw) != want {
		t.Errorf("got %s, want %s", rec.Body, want)
	}
}

// TestConvertHTTPErrors: a review that cannot be read is an HTTP error.
func TestConvertHTTPErrors(t *testing.T) {
	h := newServer(t, func(c *Config) { c.MaxConvertBodyBytes = 4096; c.MaxJSONDepth = 10 }).Handler()
	review := conversionReview("uid-1", api.Group+"/v1alpha1")
	tests := map[string]struct {
		method, contentType, encoding string
		body                          string
		chunked                       bool
		code                          int
		want                          string
	}{
		"get":               {method: http.MethodGet, code: http.StatusMethodNotAllowed, want: "method GET not allowed, use POST"},
		"text":              {contentType: "text/plain", body: string(review), code: http.StatusUnsupportedMediaType, want: `content type "text/plain" not supported`},
		"gzip":              {encoding: "gzip", body: string(review), code: http.StatusUnsupportedMediaType, want: `content encoding "gzip" not supported`},
		"too-large":         {body: string(review) + strings.Repeat(" ", 4096), code: http.StatusRequestEntityTooLarge, want: "bytes exceeds the limit of 4096 bytes"},
		"too-large-chunked": {body: string(review) + strings.Repeat(" ", 4096), chunked: true, code: http.StatusRequestEntityTooLarge, want: "request body exceeds the limit of 4096 bytes"},
		"empty":             {code: http.StatusBadRequest, want: "request body is empty"},
		"malformed":         {body: `{"kind":`, code: http.StatusBadRequest, want: "decoding ConversionReview"},
		"no-request":        {body: `{"kind":"ConversionReview","apiVersion":"apiextensions.k8s.io/v1"}`, code: http.StatusBadRequest, want: "ConversionReview has no request with a uid"},
		"no-uid":            {body: `{"kind":"ConversionReview","apiVersion":"apiextensions.k8s.io/v1","request":{"desiredAPIVersion":"x"}}`, code: http.StatusBadRequest, want: "ConversionReview has no request with a uid"},
		"wrong-kind":        {body: strings.Replace(string(review), "ConversionReview", "AdmissionReview", 1), code: http.StatusBadRequest, want: `unsupported review AdmissionReview "apiextensions.k8s.io/v1"`},
		"wrong-version":     {body: strings.Replace(string(review), "apiextensions.k8s.io/v1", "apiextensions.k8s.io/v2", 1), code: http.StatusBadRequest, want: "unsupported review ConversionReview"},
		"too-deep":          {body: `{"kind":"ConversionReview","request":{"objects":[` + strings.Repeat("[", 8) + strings.Repeat("]", 8) + `]}}`, code: http.StatusBadRequest, want: "JSON nesting exceeds the maximum depth of 10"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if tc.method == "" {
				tc.method = http.MethodPost
			}
			req := request(tc.method, "/convert", strings.NewReader(tc.body))
			if tc.chunked {
				req.ContentLength = -1
			}
			if tc.contentType == "" {
				tc.contentType = "application/json; charset=utf-8"
			}
			req.Header.Set("Content-Type", tc.contentType)
			req.Header.Set("Content-Encoding", tc.encoding)
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if rec.Code != tc.code || !strings.Contains(rec.Body.String(), tc.want) {
				t.Errorf("got %d %q, want %d containing %q", rec.Code, rec.Body, tc.code, tc.want)
			}
			if allow := rec.Header().Get("Allow"); (tc.code == http.StatusMethodNotAllowed) != (allow == http.MethodPost) {
				t.Errorf("Allow: %q", allow)
			}
		})
	}
}

// TestConvertHonoursTimeout: the apiserver's ?timeout= fails the objects
// not converted in time.
func TestConvertHonoursTimeout(t *testing.T) {
	calls := 0
	h := newServer(t, func(c *Config) {
		c.Converter = func(obj map[string]any, to string) (map[string]any, error) {
			if calls++; calls == 1 {
				time.Sleep(100 * time.Millisecond) // past the deadline, which runs from the request's arrival
			}
			return fakeConvert(obj, to)
		}
	}).Handler()
	claim := fixture(t, api.V1alpha3)
	rec := serve(h, "/convert?timeout=50ms", conversionReview("uid-1", api.Group+"/v1alpha1", claim, claim))
	r := decodeConversion(t, rec.Code, rec.Body.Bytes())
	want := "objects[1] and later not converted to resource.claimbridge.dev/v1alpha1: context deadline exceeded"
	if r.Result.Status != metav1.StatusFailure || r.Result.Message != want || calls != 1 {
		t.Errorf("got %s after %d calls, want %q", rec.Body, calls, want)
	}
}

// BenchmarkConvertReview converts a review of the three testdata claims
// to v1alpha3: without the cache, with one too small to keep any answer
// (a miss), and from it.
func BenchmarkConvertReview(b *testing.B) {
	body := benchmarkReview(b)
	for name, cacheBytes := range map[string]int64{"cache-miss": 0, "cache-on-miss": 1, "cache-hit": 64 << 20} {
		b.Run(name, func(b *testing.B) {
			h := newServer(b, func(c *Config) { c.ConversionCacheBytes = cacheBytes }).Handler()
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			for b.Loop() {
				if rec := serve(h, "/convert", body); rec.Code != http.StatusOK {
					b.Fatal(rec.Body)
				}
			}
		})
	}
}

// BenchmarkEncodingJSONBaseline decodes and encodes the review of
// BenchmarkConvertReview with encoding/json: the floor of any handler.
func BenchmarkEncodingJSONBaseline(b *testing.B) {
	body := benchmarkReview(b)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		var review map[string]any
		if err := json.Unmarshal(body, &review); err != nil {
			b.Fatal(err)
		}
		if _, err := json.Marshal(review); err != nil {
			b.Fatal(err)
		}
	}
}

func benchmarkReview(b *testing.B) []byte {
	var objects [][]byte
	for _, v := range api.ServedVersions {
		objects = append(objects, fixture(b, v))
	}
	return conversionReview("uid-1", api.Group+"/v1alpha3", objects...)
}

// FuzzConvertHandler: whatever the body, /convert answers 200 or 4xx, and
// never panics (a recovered panic is a 500).
//
// Each run reads the panic counter by itself: the registry's Gather also
// reads /proc and the Go runtime's metrics, a millisecond a run.
func FuzzConvertHandler(f *testing.F) {
	for _, v := range api.ServedVersions {
		f.Add(conversionReview("uid-1", api.Group+"/v1alpha2", fixture(f, v)))
	}
	f.Add([]byte(`{"kind":"ConversionReview","apiVersion":"apiextensions.k8s.io/v1","request":{"uid":"u","desiredAPIVersion":"resource.claimbridge.dev/v1alpha1","objects":[{}]}}`))
	s := newServer(f, func(c *Config) { c.MaxConvertBodyBytes = 1 << 20 })
	h := s.Handler()
	panics := s.metrics.panics.WithLabelValues("/convert")
	if got, ok := metricValue(f, s, "claimbridge_webhook_panics_total", "endpoint", "/convert"); !ok || got != 0 {
		f.Fatalf("the registry has %v panics of /convert (series present: %v), want a series at 0", got, ok)
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		rec := serve(h, "/convert", body)
		if rec.Code != http.StatusOK && (rec.Code < 400 || rec.Code > 499) {
			t.Fatalf("got %d %s", rec.Code, rec.Body)
		}
		var m dto.Metric
		if err := panics.Write(&m); err != nil {
			t.Fatal(err)
		}
		if m.GetCounter().GetValue() != 0 {
			t.Fatalf("a panic was recovered: %s", rec.Body)
		}
	})
}
