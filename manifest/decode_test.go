package manifest

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/yaml"
)

// decodeYAMLTwice is decodeYAML as it was before it parsed a document once:
// parsed by sigs.k8s.io/yaml (and read back from its JSON) and by checkYAML;
// with the hint decodeYAML has given since to a YAML error of a document
// holding {{ … }} (templateHint).
func decodeYAMLTwice(data []byte) (interface{}, error) {
	j, err := yaml.YAMLToJSON(data)
	if err != nil {
		return nil, templateHint(data, err)
	}
	if _, _, err := checkYAML(data); err != nil {
		return nil, err
	}
	if j = bytes.TrimSpace(j); len(j) == 0 || bytes.Equal(j, []byte("null")) {
		return nil, nil
	}
	return jsonTree(j, nil)
}

// templateHint is err, sigs.k8s.io/yaml's error for data, as decodeYAML
// gives it: for data holding {{, with the hint to render a template first.
func templateHint(data []byte, err error) error {
	if bytes.Contains(data, []byte("{{")) {
		return fmt.Errorf("%w (the document holds {{ … }}: if it is a template, render it first)", err)
	}
	return err
}

// decodeSeeds are documents for the fuzz test and the benchmark: a
// ResourceSlice and a DeviceClass as a driver publishes them, and YAML that
// decodeYAML parses once or must parse again.
var decodeSeeds = []string{
	testSlice(4),
	"apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata:\n  name: gpu.example.com\nspec:\n  selectors:\n  - cel:\n      expression: device.driver == \"gpu.example.com\"\n",
	"a: &a {b: 1, c: [x, 2.5, -0.0, 1e400, .inf, 0x1F, 0o17, 017, 1_000, 18446744073709551615]}\nd:\n  <<: *a\n  b: 2\n",
	"a: {<<: [{x: 1}, {x: 2, y: 3}], z: 4}\nb: {x: 1, <<: {x: 2}}\n",
	"{1: a, 1.5: b, true: c, on: d, ~: e, .nan: f, 2001-12-14: g}\n",
	"a: 1\n'1': 2\n",
	"a: !!binary gIGC\nb: !!binary YWJj\nc: !!timestamp 2001-12-14t21:59:43.10-05:00\nd: !!str 1\ne: !custom x\n",
	"a: \"\\x80\\u2028\\U0001F600 <&>\"\nb: |\n  line\n\n  line\n",
	"a: 1\n...\nb: 2\n",
	"- 1\n- [2, {3: 4}]\n",
	"!!merge \"\\x3c<\": {a: 1}\nb: 2\n",
	"a: {1: x, 1.0: y}\nb: {!!binary gIGC: x, !!binary gIGD: y}\n",
	"? [a]\n: b\n? {c: d}\n: e\n",
	"{}\n",
	"{\"a\": [1, 2.50, true, null, 1e400, -0]}\n",
	"a: [b\n",
	"~\n",
	"",
	// Not YAML, and holding {{: the error carries the template hint.
	"{{0",
	"0: {{",
}

// testSlice is a ResourceSlice of n devices with attributes and capacity.
func testSlice(n int) string {
	var b strings.Builder
	b.WriteString("apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata:\n  name: node-1-gpu.example.com-x7k2p\nspec:\n  driver: gpu.example.com\n  nodeName: node-1\n  pool:\n    name: node-1\n    generation: 1\n    resourceSliceCount: 1\n  devices:\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "  - name: gpu-%d\n    attributes:\n      model: {string: a100}\n      index: {int: %d}\n      driverVersion: {version: 1.2.0}\n    capacity:\n      memory: {value: 40Gi}\n", i, i)
	}
	return b.String()
}

// FuzzDecodeYAML: decodeYAML gives what it gave when it parsed each
// document twice, the same object or the same error.
func FuzzDecodeYAML(f *testing.F) {
	for _, s := range decodeSeeds {
		f.Add([]byte(s))
	}
	files, _ := filepath.Glob("../examples/*.yaml")
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		want, wantErr := decodeYAMLTwice(data)
		got, err := decodeYAML(data)
		if fmt.Sprint(err) != fmt.Sprint(wantErr) {
			t.Fatalf("error %v, want %v", err, wantErr)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("(-want +got):\n%s", diff)
		}
	})
}

// TestDecodeYAMLParsesOnce: a manifest's document is given to the YAML
// parser once, not to sigs.k8s.io/yaml too, but for a key given twice, a
// merge key, and what the parse alone cannot read as sigs.k8s.io/yaml does.
func TestDecodeYAMLParsesOnce(t *testing.T) {
	for _, c := range []struct {
		data string
		slow bool
	}{
		{data: decodeSeeds[0]},
		{data: decodeSeeds[1]},
		{data: "a: {1: b, on: c, 1.5: d}\nb: [x, 2.5, 0x1F, !!binary YWJj]\n"},
		{data: "a: {b: 1, b: 2}\n", slow: true},
		{data: "a: &a {b: 1}\nc: {<<: *a, d: 2}\n", slow: true},
		{data: "a: \"\\x3c\"\n", slow: true},
		{data: "a: {~: b}\n", slow: true},
		{data: "a: .nan\n", slow: true},
		{data: "a: !!binary gIGC\n", slow: true},
		{data: "- a\n", slow: true},
	} {
		calls := 0
		saved := yamlToJSON
		yamlToJSON = func(y []byte) ([]byte, error) { calls++; return saved(y) }
		_, _ = decodeYAML([]byte(c.data))
		yamlToJSON = saved
		if calls > 0 != c.slow {
			t.Errorf("%q: sigs.k8s.io/yaml called %d times", c.data, calls)
		}
	}
}

// BenchmarkDecodeYAML decodes a ResourceSlice of 4 devices by decodeYAML,
// by sigs.k8s.io/yaml (through JSON) and, as JSON, by decodeJSON.
func BenchmarkDecodeYAML(b *testing.B) {
	data := []byte(decodeSeeds[0])
	j, err := yaml.YAMLToJSON(data)
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name   string
		decode func() (interface{}, error)
	}{
		{"decodeYAML", func() (interface{}, error) { return decodeYAML(data) }},
		{"sigs.k8s.io-yaml", func() (interface{}, error) { return jsonTree(yaml.YAMLToJSON(data)) }},
		{"encoding-json", func() (interface{}, error) { return decodeJSON(j, "") }},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := c.decode(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
