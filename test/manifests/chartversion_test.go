//go:build envtest

package manifests

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"sigs.k8s.io/yaml"
)

// TestChartVersionIsAppVersion keeps one version for the binary, the image
// and the chart: appVersion (the image tag the chart deploys by default) is
// "v" and the chart's version, and CHANGELOG.md's newest release is that
// version. A chart may pass flags or register webhook endpoints an older
// image does not have (chart 0.4.0's
// --cert-inject-mutating-webhook-configuration and /default), so an
// appVersion left behind makes a plain install fail. The tag
// config/manager pins and the tags and refs the operations guide pins in
// its install examples are the same.
func TestChartVersionIsAppVersion(t *testing.T) {
	root := repoRoot(t)
	chart := chartYAML(t)
	if !regexp.MustCompile(`^[0-9]+\.[0-9]+\.[0-9]+$`).MatchString(chart.Version) || chart.AppVersion != "v"+chart.Version {
		t.Errorf("Chart.yaml: version %q, appVersion %q; want X.Y.Z and vX.Y.Z", chart.Version, chart.AppVersion)
	}
	changelog, err := os.ReadFile(filepath.Join(root, "CHANGELOG.md"))
	if err != nil {
		t.Fatal(err)
	}
	if m := regexp.MustCompile(`(?m)^## \[([0-9][^\]]*)\] - [0-9]{4}-[0-9]{2}-[0-9]{2}$`).FindSubmatch(changelog); m == nil {
		t.Error("CHANGELOG.md has no release entry (## [X.Y.Z] - YYYY-MM-DD)")
	} else if string(m[1]) != chart.Version {
		t.Errorf("CHANGELOG.md's newest release is %s, the chart's version %s", m[1], chart.Version)
	}
	link := "[" + chart.Version + "]: https://github.com/claimbridge/claimbridge/releases/tag/" + chart.AppVersion
	if !regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(link) + `$`).Match(changelog) {
		t.Errorf("CHANGELOG.md lacks the link %q", link)
	}
	kustomization, err := os.ReadFile(filepath.Join(root, "config", "manager", "kustomization.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if m := regexp.MustCompile(`(?m)^\s+newTag: (\S+)`).FindSubmatch(kustomization); m == nil || string(m[1]) != chart.AppVersion {
		t.Errorf("config/manager/kustomization.yaml pins the image's tag %q, want the chart's appVersion %s", m, chart.AppVersion)
	}
	doc, err := os.ReadFile(filepath.Join(root, "docs", "operations.md"))
	if err != nil {
		t.Fatal(err)
	}
	tags := regexp.MustCompile(`(?:image\.tag=|newTag: |\?ref=)(v?[0-9][0-9A-Za-z.+-]*)`).FindAllSubmatch(doc, -1)
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
