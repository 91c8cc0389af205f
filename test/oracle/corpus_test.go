package oracle

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// corpus is one testdata/<version>.yaml file: named base objects and
// scenarios whose objects are a base with a JSON merge patch applied.
type corpus struct {
	Version   string                            `json:"version"`
	Bases     map[string]map[string]interface{} `json:"bases"`
	Scenarios []corpusScenario                  `json:"scenarios"`
}

type corpusScenario struct {
	Name   string      `json:"name"`
	Op     string      `json:"op"`
	Gates  string      `json:"gates,omitempty"`
	Object objectSpec  `json:"object"`
	Old    *objectSpec `json:"old,omitempty"`
}

type objectSpec struct {
	Base  string                 `json:"base"`
	Patch map[string]interface{} `json:"patch,omitempty"`
}

// loadCorpus reads testdata/<version>.yaml and expands every scenario.
func loadCorpus(t *testing.T, version string) []scenario {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", version+".yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var c corpus
	if err := yaml.UnmarshalStrict(data, &c); err != nil {
		t.Fatalf("testdata/%s.yaml: %v", version, err)
	}
	if c.Version != version {
		t.Fatalf("testdata/%s.yaml: version %q", version, c.Version)
	}
	var out []scenario
	for _, s := range c.Scenarios {
		obj, err := c.build(s.Object)
		if err != nil {
			t.Fatalf("%s: object: %v", s.Name, err)
		}
		sc := scenario{Name: s.Name, Op: s.Op, Object: obj, Gates: s.Gates}
		if s.Old != nil {
			if sc.Old, err = c.build(*s.Old); err != nil {
				t.Fatalf("%s: old: %v", s.Name, err)
			}
			// An update carries the stored object's resourceVersion
			// (upstream requires one); scenarios may set their own.
			setDefaultResourceVersion(sc.Object)
			setDefaultResourceVersion(sc.Old)
		}
		out = append(out, sc)
	}
	return out
}

func setDefaultResourceVersion(obj map[string]interface{}) {
	if meta, ok := obj["metadata"].(map[string]interface{}); ok {
		if _, set := meta["resourceVersion"]; !set {
			meta["resourceVersion"] = "1"
		}
	}
}

func (c corpus) build(spec objectSpec) (map[string]interface{}, error) {
	base, ok := c.Bases[spec.Base]
	if !ok {
		return nil, fmt.Errorf("no base %q", spec.Base)
	}
	merged := mergePatch(deepCopy(base), spec.Patch).(map[string]interface{})
	return expand(merged).(map[string]interface{}), nil
}

// mergePatch applies a JSON merge patch (RFC 7386): null deletes, objects
// merge, everything else replaces.
func mergePatch(target interface{}, patch interface{}) interface{} {
	p, ok := patch.(map[string]interface{})
	if !ok {
		return patch
	}
	t, ok := target.(map[string]interface{})
	if !ok {
		t = map[string]interface{}{}
	}
	for k, v := range p {
		if v == nil {
			delete(t, k)
			continue
		}
		t[k] = mergePatch(t[k], v)
	}
	return t
}

// expand replaces the corpus generators, which keep big objects readable:
//
//	{repeat: S, times: N}  a string of N copies of S
//	{reservations: N}      N distinct reservedFor entries
//	{handles: N}           N distinct v1alpha2 resource handles
//	{keys: N, value: V}    a map of N names (k0, k1, …), each V
func expand(v interface{}) interface{} {
	switch x := v.(type) {
	case map[string]interface{}:
		if s, ok := x["repeat"].(string); ok && len(x) == 2 {
			return strings.Repeat(s, int(x["times"].(float64)))
		}
		if n, ok := x["reservations"].(float64); ok && len(x) == 1 {
			return generate(int(n), func(i int) interface{} {
				return map[string]interface{}{"resource": "pods", "name": fmt.Sprintf("p%d", i), "uid": fmt.Sprintf("u%d", i)}
			})
		}
		if n, ok := x["handles"].(float64); ok && len(x) == 1 {
			return generate(int(n), func(i int) interface{} {
				return map[string]interface{}{"driverName": "gpu.example.com", "data": fmt.Sprintf("h%d", i)}
			})
		}
		if n, ok := x["keys"].(float64); ok && len(x) == 2 {
			m := map[string]interface{}{}
			for i := range int(n) {
				m[fmt.Sprintf("k%d", i)] = x["value"]
			}
			return m
		}
		for k, e := range x {
			x[k] = expand(e)
		}
	case []interface{}:
		for i, e := range x {
			x[i] = expand(e)
		}
	}
	return v
}

func generate(n int, f func(int) interface{}) []interface{} {
	out := make([]interface{}, n)
	for i := range out {
		out[i] = f(i)
	}
	return out
}

func deepCopy(v interface{}) interface{} {
	switch x := v.(type) {
	case map[string]interface{}:
		m := make(map[string]interface{}, len(x))
		for k, e := range x {
			m[k] = deepCopy(e)
		}
		return m
	case []interface{}:
		l := make([]interface{}, len(x))
		for i, e := range x {
			l[i] = deepCopy(e)
		}
		return l
	}
	return v
}
