package webhook

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/conversion"
	"github.com/claimbridge/claimbridge/manifest"
)

// determinismCorpus returns every claim and template of conversion/testdata
// (the fixtures and their golden conversions, which carry restore
// annotations of every kind) as the apiserver sends them (group
// resource.claimbridge.dev, compact JSON with sorted keys), each also with
// many annotations and labels.
func determinismCorpus(t *testing.T) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	for _, d := range testdataObjects(t, "*.yaml", "golden/*.yaml") {
		if !api.IsServed(d.version) {
			continue
		}
		d.object["apiVersion"] = api.Group + "/" + d.version
		raw, err := json.Marshal(d.object)
		if err != nil {
			t.Fatal(err)
		}
		out[d.name] = raw
		if _, ok := d.object["metadata"].(map[string]interface{}); ok {
			out[d.name+" with many annotations and labels"] = withMetadata(t, raw, func(meta map[string]interface{}) {
				ann, _ := meta["annotations"].(map[string]interface{})
				if ann == nil {
					ann = map[string]interface{}{}
				}
				labels := map[string]interface{}{}
				for i := 0; i < 40; i++ {
					ann[fmt.Sprintf("example.com/note-%02d", (i*7)%40)] = fmt.Sprint(i)
					labels[fmt.Sprintf("label-%02d", (i*11)%40)] = fmt.Sprint(i)
				}
				meta["annotations"], meta["labels"] = ann, labels
			})
		}
	}
	if len(out) < 100 {
		t.Fatalf("only %d objects in conversion/testdata", len(out))
	}
	return out
}

// TestConversionAnswersAreDeterministic: /convert answers the same review
// with the same bytes whether it converts the object, answers from the
// review cache or from an object entry (convcache.go, objcache.go), for
// every claim and template of conversion/testdata to every version.
// kube-apiserver sends a stored object again on every read, and a watch
// cache, an informer or kube-apiserver's no-op detection for updates
// compares what it gets: another answer for the same object would be a
// change nobody made.
func TestConversionAnswersAreDeterministic(t *testing.T) {
	plain := newTestConvertHandler(defaultConverter)
	reviews := newCachingConvertHandler(defaultConverter, 64<<20)
	objects := newCachingConvertHandler(defaultConverter, 64<<20)
	objects.cacheObjects = true
	answered, withMeta := 0, 0
	for name, raw := range determinismCorpus(t) {
		var probe map[string]interface{}
		if err := json.Unmarshal(raw, &probe); err != nil {
			t.Fatal(err)
		}
		_, hasMeta := probe["metadata"].(map[string]interface{})
		for _, to := range versions {
			desired := api.Group + "/" + to
			answer := func(h *convertHandler, uid string, obj []byte) []byte {
				rec := post(h, conversionReview("apiextensions.k8s.io/v1", uid, desired, obj))
				if rec.Code != 200 {
					t.Fatalf("%s to %s: HTTP %d: %s", name, to, rec.Code, rec.Body)
				}
				return rec.Body.Bytes()
			}
			want := answer(plain, "uid-1", raw)
			if !bytes.Contains(want, []byte(`"status":"Success"`)) {
				t.Fatalf("%s to %s: %s", name, to, want)
			}
			for i := 0; i < 3; i++ {
				if again := answer(plain, "uid-1", raw); !bytes.Equal(again, want) {
					t.Fatalf("%s to %s: converted again, another answer:\n%s\n%s", name, to, want, again)
				}
			}
			// The review cache: converted (miss), then answered (hit).
			for _, uid := range []string{"uid-1", "uid-2", "uid-3"} {
				if got := answer(reviews, uid, raw); !bytes.Equal(got, answer(plain, uid, raw)) {
					t.Errorf("%s to %s: review cache (uid %s) answers otherwise:\n got %s\nwant %s", name, to, uid, got, want)
				}
			}
			answered++
			if !hasMeta {
				continue // no entries for objects without metadata (objcache.go)
			}
			withMeta++
			// Object entries: the object as stored under other names,
			// resourceVersions and managedFields (miss, then hits).
			for i := 0; i < 3; i++ {
				obj := withMetadata(t, raw, stored(i))
				if got, want := answer(objects, "uid-o", obj), answer(plain, "uid-o", obj); !bytes.Equal(got, want) {
					t.Errorf("%s to %s: object entry %d answers otherwise:\n got %s\nwant %s", name, to, i, got, want)
				}
			}
		}
	}
	if hits, want := value(t, reviews.cache.lookups.WithLabelValues("hit")), float64(2*answered); hits != want {
		t.Errorf("review cache hits %v, want %v: not every answer came from it", hits, want)
	}
	if hits, want := value(t, objects.cache.objectLookups.WithLabelValues("hit")), float64(2*withMeta); hits != want {
		t.Errorf("object entry hits %v, want %v: not every answer came from one", hits, want)
	}
}

// testdataObject is a claim or template of conversion/testdata.
type testdataObject struct {
	name    string // file#document
	version string
	object  map[string]interface{}
}

// testdataObjects returns the claims and templates (no lists) of the files
// of conversion/testdata that match patterns, in order.
func testdataObjects(t *testing.T, patterns ...string) []testdataObject {
	t.Helper()
	var out []testdataObject
	for _, pattern := range patterns {
		files, err := filepath.Glob(filepath.Join("..", "conversion", "testdata", pattern))
		if err != nil || len(files) == 0 {
			t.Fatalf("no files match %s (%v)", pattern, err)
		}
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			docs, err := manifest.Parse(f, data)
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range docs {
				_, version, kind, err := conversion.Identify(d.Object)
				if err != nil || strings.HasSuffix(kind, "List") {
					continue
				}
				out = append(out, testdataObject{name: fmt.Sprintf("%s#%d", filepath.Base(f), d.Index), version: version, object: d.Object})
			}
		}
	}
	return out
}
