package webhook

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/conversion"
)

// TestObjectCacheBareMetadata: what conversion makes of metadata with
// nothing but annotations depends on members the object cache's key leaves
// out (a restore annotation that "created" the metadata removes it, and the
// next step's restore data creates it again), so such an object is neither
// answered from the cache nor stored in it: the cached handler answers
// byte for byte as one without a cache, in either order of a bare object
// and the same object with a name (found by fuzzing and a review).
func TestObjectCacheBareMetadata(t *testing.T) {
	var obj map[string]interface{}
	d := json.NewDecoder(bytes.NewReader(fixture(t, "v1alpha3")))
	d.UseNumber()
	if err := d.Decode(&obj); err != nil {
		t.Fatal(err)
	}
	delete(obj, "metadata")
	for _, c := range []struct {
		via   string
		extra bool // a spec field of no version: the step back records it again
	}{{"v1alpha1", false}, {"v1alpha2", true}} {
		converted, err := conversion.Convert(obj, c.via)
		if err != nil {
			t.Fatal(err)
		}
		if c.extra {
			converted["spec"].(map[string]interface{})["zzz"] = "x"
		}
		bare, _ := json.Marshal(converted)
		named := withMetadata(t, bare, func(m map[string]interface{}) { m["name"] = "x" })
		desired := api.Group + "/v1alpha3"
		for _, order := range [][][]byte{{named, bare}, {bare, named}} {
			cached := newObjectCachingHandler(defaultConverter)
			plain := newTestConvertHandler(defaultConverter)
			for i, o := range order {
				body := conversionReview("apiextensions.k8s.io/v1", "u"+string(rune('a'+i)), desired, o)
				got, want := post(cached, body), post(plain, body)
				if !bytes.Equal(got.Body.Bytes(), want.Body.Bytes()) {
					t.Errorf("via %s, object %d: cached answer differs:\n got %.400s\nwant %.400s", c.via, i, got.Body, want.Body)
				}
			}
		}
	}
}
