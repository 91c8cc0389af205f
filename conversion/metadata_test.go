package conversion_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/conversion"
)

// TestConversionIgnoresMetadataButAnnotations: what conversion makes of an
// object depends on its metadata only through the annotations (the
// webhook's object cache entries rely on it, webhook/objcache.go). Random
// objects are converted in every direction with their own metadata and with
// another random object's metadata carrying the same annotations: the
// results differ only in the metadata other than the annotations, which each
// copies from its input.
func TestConversionIgnoresMetadataButAnnotations(t *testing.T) {
	n := roundTripIterations(t) / 5
	for fi, from := range api.ServedVersions {
		for ti, to := range api.ServedVersions {
			t.Run(from+"-to-"+to, func(t *testing.T) {
				t.Parallel()
				f := newFiller(int64(5000 + 10*fi + ti))
				for i := 0; i < n; i++ {
					template := i%4 == 3
					obj := randomObject(t, f, from, template)
					other := randomObject(t, f, from, template)
					meta := map[string]interface{}{}
					for k, v := range asObject(other["metadata"]) {
						meta[k] = v
					}
					delete(meta, "annotations")
					if ann, ok := asObject(obj["metadata"])["annotations"]; ok {
						meta["annotations"] = ann
					}
					twin := map[string]interface{}{}
					for k, v := range obj {
						twin[k] = v
					}
					twin["metadata"] = meta
					out, err1 := conversion.ConvertShared(obj, to)
					outTwin, err2 := conversion.ConvertShared(twin, to)
					if err1 != nil || err2 != nil {
						t.Fatalf("iteration %d: %v, %v", i, err1, err2)
					}
					if !checkMetadata(t, twin, outTwin) {
						t.Fatalf("iteration %d", i)
					}
					annotations := func(o map[string]interface{}) (interface{}, bool) {
						v, ok := asObject(o["metadata"])["annotations"]
						return v, ok
					}
					a1, ok1 := annotations(out)
					a2, ok2 := annotations(outTwin)
					if ok1 != ok2 || !cmp.Equal(a1, a2, treeComparer) {
						t.Fatalf("iteration %d: annotations differ with other metadata:\n%s\n%s", i, mustJSON(out), mustJSON(outTwin))
					}
					withoutMeta := func(o map[string]interface{}) map[string]interface{} {
						c := map[string]interface{}{}
						for k, v := range o {
							if k != "metadata" {
								c[k] = v
							}
						}
						return c
					}
					if diff := cmp.Diff(withoutMeta(out), withoutMeta(outTwin), treeComparer); diff != "" {
						t.Fatalf("iteration %d: the converted object depends on metadata besides the annotations:\n%s", i, diff)
					}
				}
			})
		}
	}
}
