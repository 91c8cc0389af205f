package webhook

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/conversion"
)

// TestObjectCacheBareMetadata: an object whose metadata holds only a restore annotation that "created"
// the metadata, converted back to that version, loses its metadata; the
// same object with a name keeps {name}. Both have the same object key.
func TestObjectCacheBareMetadata(t *testing.T) {
	var obj map[string]interface{}
	d := json.NewDecoder(bytes.NewReader(fixture(t, "v1alpha3")))
	d.UseNumber()
	if err := d.Decode(&obj); err != nil {
		t.Fatal(err)
	}
	delete(obj, "metadata")
	v1, err := conversion.Convert(obj, "v1alpha1")
	if err != nil {
		t.Fatal(err)
	}
	bare, _ := json.Marshal(v1)
	named := withMetadata(t, bare, func(m map[string]interface{}) { m["name"] = "x" })
	cached := newObjectCachingHandler(defaultConverter)
	plain := newTestConvertHandler(defaultConverter)
	desired := api.Group + "/v1alpha3"
	for i, o := range [][]byte{named, bare} {
		body := conversionReview("apiextensions.k8s.io/v1", "u"+string(rune('a'+i)), desired, o)
		got, want := post(cached, body), post(plain, body)
		if !bytes.Equal(got.Body.Bytes(), want.Body.Bytes()) {
			t.Errorf("object %d: cached answer differs:\n got %.400s\nwant %.400s", i, got.Body, want.Body)
		}
	}
}
