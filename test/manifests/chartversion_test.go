package manifests

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"sigs.k8s.io/yaml"
)

// TestChartVersionIsAppVersion keeps the chart and the image it deploys by
// default (image.tag defaults to appVersion) released together: a chart may
// pass flags or register webhook endpoints an older image does not have
// (chart 0.4.0's --cert-inject-mutating-webhook-configuration and /default),
// so an appVersion left behind makes a plain install fail. The tags the
// operations guide pins in its install examples are the same.
func TestChartVersionIsAppVersion(t *testing.T) {
	root := repoRoot(t)
	chart := chartYAML(t)
	if chart.Version == "" || chart.AppVersion != chart.Version {
		t.Errorf("Chart.yaml: version %q, appVersion %q; want them equal", chart.Version, chart.AppVersion)
	}
	doc, err := os.ReadFile(filepath.Join(root, "docs", "operations.md"))
	if err != nil {
		t.Fatal(err)
	}
	tags := regexp.MustCompile(`(?:image\.tag=|newTag: )([0-9][0-9A-Za-z.+-]*)`).FindAllSubmatch(doc, -1)
	if len(tags) == 0 {
		t.Fatal("docs/operations.md pins no image tag in its install examples (image.tag=… or newTag: …)")
	}
	for _, m := range tags {
		if string(m[1]) != chart.AppVersion {
			t.Errorf("docs/operations.md pins %s, want the chart's appVersion %s", m[0], chart.AppVersion)
		}
	}
}

// chartMeta is what the tests read of charts/claimbridge/Chart.yaml.
type chartMeta struct {
	Version    string `json:"version"`
	AppVersion string `json:"appVersion"`
}

func chartYAML(t *testing.T) chartMeta {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repoRoot(t), "charts", "claimbridge", "Chart.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var chart chartMeta
	if err := yaml.Unmarshal(b, &chart); err != nil {
		t.Fatal(err)
	}
	return chart
}

// chartAppVersion is the image tag the chart deploys by default.
func chartAppVersion(t *testing.T) string {
	t.Helper()
	return chartYAML(t).AppVersion
}
