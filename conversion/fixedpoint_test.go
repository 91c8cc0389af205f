package conversion_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/conversion"
)

// storageVersion is the version the CRD stores.
const storageVersion = api.V1alpha3

// storedAs returns obj converted to version as kube-apiserver keeps it
// (apiserverStore: number text as the apiserver writes it).
func storedAs(t *testing.T, obj map[string]interface{}, version string) map[string]interface{} {
	t.Helper()
	out, err := conversion.Convert(obj, version)
	if err != nil {
		t.Fatalf("converting to %s: %v", version, err)
	}
	return apiserverStore(t, out)
}

// TestServedViewWrittenBackIsStored: a stored claim or template, served
// through any version and written back unchanged, converts to the stored
// object exactly, restore annotations included; so kube-apiserver finds the
// update a no-op (it compares the bytes with etcd's) and stores nothing,
// and the view served afterwards is the same. Stored objects: every
// fixture, example and golden output (restore annotations of every kind)
// and random objects with many map keys, each converted to the storage
// version and stored, and the served views and their numbers as the
// apiserver rewrites them (apiserverStore). The round trips A→B→A are
// exact for every object (TestGolden, TestRoundTrip*); this is the same
// property for the objects kube-apiserver actually holds: the storage
// version's, with the restore data of the version they were written in.
// test/envtest's TestUnchangedWritesAreNoOps checks it through a real
// kube-apiserver.
func TestServedViewWrittenBackIsStored(t *testing.T) {
	for _, c := range append(servedCorpus(t), manyKeysCorpus(t, 100)...) {
		stored := storedAs(t, c.obj, storageVersion)
		for _, version := range api.ServedVersions {
			view := storedAs(t, stored, version)
			again := storedAs(t, view, storageVersion)
			if diff := cmp.Diff(mustJSON(stored), mustJSON(again)); diff != "" {
				t.Errorf("%s: the %s view written back is another object (-stored +written):\n%s", c.name, version, diff)
				continue
			}
			if diff := cmp.Diff(mustJSON(view), mustJSON(storedAs(t, again, version))); diff != "" {
				t.Errorf("%s: the %s view changed (-before +after):\n%s", c.name, version, diff)
			}
		}
	}
}

// TestRestoreDataOfOlderBuildsIsRewrittenOnce: a claim stored with the
// restore data of a build before the defaults (hack/older-builds.sh), served through an
// older version and written back unchanged, is stored once with this
// build's restore data (docs/conversion.md §2.11); the view does not
// change, and the next unchanged write is a no-op. Likewise a claim whose
// status restore data a write in the storage version made stale (the
// allocation replaced; docs/conversion.md §3.2): the first write through an
// older version drops the stale data, the next stores nothing. Either way
// an unchanged write stores at most once.
func TestRestoreDataOfOlderBuildsIsRewrittenOnce(t *testing.T) {
	type storedCase struct {
		corpusObject
		// rewritten: the first unchanged write stores another object.
		rewritten bool
	}
	var cases []storedCase
	for _, c := range fileCorpus(t, "testdata/before-defaults/golden/*-to-v1alpha3.yaml") {
		// Objects without requests or restore data of the spec are
		// stored as this build stores them.
		cases = append(cases, storedCase{c, !strings.Contains(c.name, "json-data") && !strings.Contains(c.name, "no-handles") && !strings.Contains(c.name, "partial-apply") && !strings.Contains(c.name, "partial-status")})
	}
	for _, c := range fileCorpus(t, "testdata/deallocating.v1alpha1.yaml", "testdata/json-data.v1alpha2.yaml", "testdata/multi-driver.v1alpha2.yaml") {
		stored := storedAs(t, c.obj, storageVersion)
		if !strings.Contains(mustJSON(stored), `\"status\":{\"base\"`) {
			t.Fatalf("%s: stored without status restore data: the case proves nothing", c.name)
		}
		// A 1.31 scheduler allocates the claim again, on another node.
		alloc := stored["status"].(map[string]interface{})["allocation"].(map[string]interface{})
		alloc["nodeSelector"] = map[string]interface{}{"nodeSelectorTerms": []interface{}{map[string]interface{}{
			"matchFields": []interface{}{map[string]interface{}{"key": "metadata.name", "operator": "In", "values": []interface{}{"another-node"}}},
		}}}
		cases = append(cases, storedCase{corpusObject{c.name + " allocated again", stored}, true})
	}
	for _, c := range cases {
		for _, version := range []string{api.V1alpha1, api.V1alpha2} {
			stored := apiserverStore(t, c.obj)
			view := storedAs(t, stored, version)
			once := storedAs(t, view, storageVersion)
			if rewritten := mustJSON(once) != mustJSON(stored); rewritten != c.rewritten {
				t.Errorf("%s: the %s view written back stores another object: %v, want %v\nstored  %s\nwritten %s", c.name, version, rewritten, c.rewritten, mustJSON(stored), mustJSON(once))
			}
			if diff := cmp.Diff(mustJSON(view), mustJSON(storedAs(t, once, version))); diff != "" {
				t.Errorf("%s: the %s view changed when written back (-before +after):\n%s", c.name, version, diff)
			}
			for _, other := range api.ServedVersions {
				again := storedAs(t, storedAs(t, once, other), storageVersion)
				if diff := cmp.Diff(mustJSON(once), mustJSON(again)); diff != "" {
					t.Errorf("%s: written back through %s, then through %s, stored again (-first +second):\n%s", c.name, version, other, diff)
				}
			}
		}
	}
}
