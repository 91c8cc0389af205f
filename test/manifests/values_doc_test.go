//go:build envtest

package manifests

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// freeForm values are passed through as they are (Kubernetes objects or
// label maps): they are documented as one value, not key by key.
var freeForm = []string{
	"resources", "podSecurityContext", "securityContext", "nodeSelector", "affinity",
	"serviceMonitor.labels", "prometheusRule.labels", "grafanaDashboard.labels",
	"networkPolicy.metricsNamespaceSelector",
}

// TestChartValuesDocumented: every value of charts/claimbridge/values.yaml is
// in docs/operations.md's table of values, by its full name (`a.b`) or, in a
// row that names its parent (`a.x`), as `.b`.
func TestChartValuesDocumented(t *testing.T) {
	root := repoRoot(t)
	data, err := os.ReadFile(filepath.Join(root, "charts", "claimbridge", "values.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var values map[string]interface{}
	if err := yaml.Unmarshal(data, &values); err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile(filepath.Join(root, "docs", "operations.md"))
	if err != nil {
		t.Fatal(err)
	}
	var rows []string
	for _, line := range strings.Split(string(doc), "\n") {
		if strings.HasPrefix(line, "| `") {
			rows = append(rows, line)
		}
	}
	var leaves []string
	var walk func(prefix string, m map[string]interface{})
	walk = func(prefix string, m map[string]interface{}) {
		for k, v := range m {
			path := prefix + k
			if sub, ok := v.(map[string]interface{}); ok && !slices.Contains(freeForm, path) {
				walk(path+".", sub)
				continue
			}
			leaves = append(leaves, path)
		}
	}
	walk("", values)
	slices.Sort(leaves)
	for _, leaf := range leaves {
		documented := false
		parent, last := "", leaf
		if i := strings.LastIndex(leaf, "."); i >= 0 {
			parent, last = leaf[:i], leaf[i+1:]
		}
		for _, row := range rows {
			cell, _, _ := strings.Cut(row[1:], " | ")
			if strings.Contains(cell, "`"+leaf+"`") ||
				(parent != "" && strings.Contains(cell, "`"+parent+".") && strings.Contains(cell, "`."+last+"`")) {
				documented = true
				break
			}
		}
		if !documented {
			t.Errorf("value %s is not in docs/operations.md's table of chart values", leaf)
		}
	}
}
