package conversion_test

import (
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

// corpusObject is a claim, template or list of them from the repository's
// files, or generated.
type corpusObject struct {
	name string
	obj  map[string]interface{}
}

// fileCorpus returns the convertible objects of the files matching the
// patterns (relative to the package), in the order of the patterns and
// file names, with their positions as names.
func fileCorpus(t testing.TB, patterns ...string) []corpusObject {
	t.Helper()
	var out []corpusObject
	for _, pattern := range patterns {
		files, err := filepath.Glob(pattern)
		if err != nil || len(files) == 0 {
			t.Fatalf("no files match %s (%v)", pattern, err)
		}
		for _, file := range files {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			docs, err := manifest.Parse(file, data)
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range docs {
				if _, _, _, err := conversion.Identify(d.Object); err != nil {
					continue // not a claim or template (migrate's parameters)
				}
				out = append(out, corpusObject{fmt.Sprintf("%s#%d.%d", file, d.Index, d.Item), d.Object})
			}
		}
	}
	return out
}

// servedCorpus: every claim and template of conversion/testdata (the
// fixtures and what this build converts them to, restore annotations
// included) and examples/, in one of the versions the CRD serves.
func servedCorpus(t testing.TB) []corpusObject {
	t.Helper()
	var out []corpusObject
	for _, o := range fileCorpus(t, "testdata/*.yaml", "testdata/golden/*.yaml", "../examples/*.yaml", "../examples/migrate/*.yaml") {
		if _, version, _, _ := conversion.Identify(o.obj); isServed(version) {
			out = append(out, o)
		}
	}
	return out
}

func isServed(version string) bool {
	for _, v := range api.ServedVersions {
		if v == version {
			return true
		}
	}
	return false
}

// manyKeysCorpus returns n random claims and templates of every served
// version (seeded: the same objects in every process) with many keys in
// every map conversion reads or keeps: annotations and labels, fields no
// version knows in spec, status and the allocation (they travel in restore
// annotations), so that an order taken from a map would show in the
// output.
func manyKeysCorpus(t testing.TB, n int) []corpusObject {
	t.Helper()
	var out []corpusObject
	for vi, version := range api.ServedVersions {
		f := newFiller(int64(9100 + vi))
		for i := 0; i < n; i++ {
			obj := randomObject(t, f, version, i%4 == 3)
			addManyKeys(obj)
			out = append(out, corpusObject{fmt.Sprintf("random %s #%d", version, i), obj})
		}
	}
	return out
}

// manyKeys returns a map of n keys prefix000…, inserted out of order, with
// value(i) at key i.
func manyKeys(prefix string, n int, value func(i int) interface{}) map[string]interface{} {
	m := make(map[string]interface{}, n)
	for i := 0; i < n; i++ {
		k := (i * 37) % n
		m[fmt.Sprintf("%s%03d", prefix, k)] = value(k)
	}
	return m
}

// addManyKeys gives obj the many keys manyKeysCorpus describes.
func addManyKeys(obj map[string]interface{}) {
	meta, _ := obj["metadata"].(map[string]interface{})
	if meta == nil {
		meta = map[string]interface{}{}
		obj["metadata"] = meta
	}
	meta["annotations"] = manyKeys("example.com/note-", 50, func(i int) interface{} { return fmt.Sprint(i) })
	meta["labels"] = manyKeys("label-", 30, func(i int) interface{} { return fmt.Sprint(i) })
	add := func(m map[string]interface{}, prefix string, n int, value func(i int) interface{}) {
		if m == nil {
			return
		}
		for k, v := range manyKeys(prefix, n, value) {
			m[k] = v
		}
	}
	spec, _ := obj["spec"].(map[string]interface{})
	add(spec, "unknownSpec", 30, func(i int) interface{} {
		return map[string]interface{}{"n": i, "inner": manyKeys("k", 8, func(j int) interface{} { return fmt.Sprint(j) })}
	})
	status, _ := obj["status"].(map[string]interface{})
	add(status, "unknownStatus", 30, func(i int) interface{} { return fmt.Sprint(i) })
	alloc, _ := status["allocation"].(map[string]interface{})
	add(alloc, "unknownAllocation", 20, func(i int) interface{} { return []interface{}{i, "x"} })
	addManyParameters(obj, "")
}

// addManyParameters gives every opaque parameters object below v many keys,
// and every handle's data JSON text with many keys, out of order and with
// spaces (its exact text travels in a restore annotation).
func addManyParameters(v interface{}, key string) {
	switch v := v.(type) {
	case map[string]interface{}:
		switch key {
		case "parameters", "vendorClassParameters", "vendorClaimParameters", "vendorRequestParameters":
			for k, e := range manyKeys("p", 20, func(i int) interface{} { return json.Number(fmt.Sprint(i)) }) {
				v[k] = e
			}
		}
		for k, e := range v {
			if k == "data" {
				if _, ok := e.(string); ok {
					var b strings.Builder
					b.WriteString("{")
					for i := 19; i >= 0; i-- {
						fmt.Fprintf(&b, "%q: %d.0", fmt.Sprintf("d%02d", i), i)
						if i > 0 {
							b.WriteString(", ")
						}
					}
					b.WriteString("}")
					v[k] = b.String()
				}
				continue
			}
			addManyParameters(e, k)
		}
	case []interface{}:
		for _, e := range v {
			addManyParameters(e, key)
		}
	}
}
