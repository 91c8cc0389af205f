package conversion_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/claimbridge/claimbridge/conversion"
)

// olderBuildDir holds what the build of commit a47459f, the last before
// steps wrote their target's defaults (allocationMode and count of a
// v1alpha3 request built from a resource class, allocationMode of a claim
// shown in v1alpha1/v1alpha2), wrote: its golden outputs, and the inputs
// they were converted from where the inputs have changed since.
const olderBuildDir = "testdata/a47459f"

// TestRestoreDataOfOlderBuilds converts every output of that build back to
// its source version, directly and through the third version: its restore
// patches, whose fingerprints are of sections without the defaults, still
// apply, and the result is its input exactly but for the defaults. Where a
// spec patch applied, the defaults the input lacked are added (that build's
// CRD defaulted nothing, so their absence was not the writer's choice).
// Where the older build neither wrote a default nor recorded its absence
// (its output of that spec carries no restore patch), the spec shows the
// default, and its restore annotation of the output's version records that
// the output had none — converting the result forward again gives the older
// output exactly.
func TestRestoreDataOfOlderBuilds(t *testing.T) {
	outputs, err := filepath.Glob(filepath.Join(olderBuildDir, "golden", "*.yaml"))
	if err != nil || len(outputs) == 0 {
		t.Fatalf("no outputs of the older build in %s: %v", olderBuildDir, err)
	}
	for _, path := range outputs {
		name := strings.TrimSuffix(filepath.Base(path), ".yaml") // <case>.<from>-to-<to>
		dot := strings.Index(name, ".")
		from, to, ok := strings.Cut(name[dot+1:], "-to-")
		if dot < 0 || !ok {
			t.Fatalf("%s: not <case>.<from>-to-<to>.yaml", path)
		}
		input := filepath.Join(olderBuildDir, name[:dot]+"."+from+".yaml")
		if _, err := os.Stat(input); err != nil {
			input = filepath.Join(goldenInputDir, name[:dot]+"."+from+".yaml")
		}
		t.Run(name, func(t *testing.T) {
			want := goldenReadTree(t, input)
			out := goldenReadTree(t, path)
			check := func(how string, back map[string]interface{}) {
				t.Helper()
				if diff := cmp.Diff(want, back); diff == "" {
					return
				}
				if _, list := want["items"]; list {
					if d := cmp.Diff(withoutItems(want), withoutItems(back)); d != "" {
						t.Errorf("%s: the list is not the older build's input (-want +got):\n%s", how, d)
					}
				}
				for i, o := range objects(out) {
					w, b := objects(want)[i], objects(back)[i]
					diff := cmp.Diff(w, b)
					if diff == "" {
						continue
					}
					if specPatched(o) {
						// The patch applied, and the defaults were added
						// where the result lacks them.
						if cmp.Diff(w, conversion.WithoutStepDefaults(b, from)) != "" {
							t.Errorf("%s: object %d is not the older build's input, other than in defaults (-want +got):\n%s", how, i, diff)
						}
						continue
					}
					if again := goldenConvert(t, b, to); cmp.Diff(o, again) != "" {
						t.Errorf("%s: object %d converted forward again is not the older output (-want +got):\n%s", how, i, cmp.Diff(o, again))
					}
					allowed := conversion.WithoutStepDefaults(withoutAnnotation(b, conversion.RestoreAnnotation(to)), from)
					if cmp.Diff(w, allowed) != "" {
						t.Errorf("%s: object %d is not the older build's input, other than in defaults (-want +got):\n%s", how, i, diff)
					}
				}
			}
			check(to+"→"+from, goldenConvert(t, out, from))
			for _, via := range conversion.Versions {
				if via != from && via != to {
					check(to+"→"+via+"→"+from, goldenConvert(t, goldenConvert(t, out, via), from))
				}
			}
		})
	}
}

// objects returns obj, or the items of a list.
func objects(obj map[string]interface{}) []map[string]interface{} {
	items, ok := obj["items"].([]interface{})
	if !ok {
		return []map[string]interface{}{obj}
	}
	out := make([]map[string]interface{}, len(items))
	for i, item := range items {
		out[i], _ = item.(map[string]interface{})
	}
	return out
}

// withoutItems returns obj without its items (a copy).
func withoutItems(obj map[string]interface{}) map[string]interface{} {
	out := map[string]interface{}{}
	for k, v := range obj {
		if k != "items" {
			out[k] = v
		}
	}
	return out
}

// specPatched reports whether a restore annotation of obj holds a spec patch
// (which the conversion back applies on its way).
func specPatched(obj map[string]interface{}) bool {
	annotations, _ := obj["metadata"].(map[string]interface{})["annotations"].(map[string]interface{})
	for _, v := range conversion.Versions {
		raw, _ := annotations[conversion.RestoreAnnotation(v)].(string)
		var restore struct {
			Spec json.RawMessage `json:"spec"`
		}
		if raw != "" && (json.Unmarshal([]byte(raw), &restore) != nil || restore.Spec != nil) {
			return true
		}
	}
	return false
}

// withoutAnnotation returns obj without annotation key (and without
// annotations, if that was the only one); obj is not modified.
func withoutAnnotation(obj map[string]interface{}, key string) map[string]interface{} {
	meta, _ := obj["metadata"].(map[string]interface{})
	annotations, _ := meta["annotations"].(map[string]interface{})
	if _, ok := annotations[key]; !ok {
		return obj
	}
	kept := map[string]interface{}{}
	for k, v := range annotations {
		if k != key {
			kept[k] = v
		}
	}
	m := map[string]interface{}{}
	for k, v := range meta {
		m[k] = v
	}
	delete(m, "annotations")
	if len(kept) > 0 {
		m["annotations"] = kept
	}
	copied := map[string]interface{}{}
	for k, v := range obj {
		copied[k] = v
	}
	copied["metadata"] = m
	return copied
}
