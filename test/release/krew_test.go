package release

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"text/template"

	"sigs.k8s.io/yaml"
)

// TestKrewManifest: .krew.yaml, rendered as krew-release-bot renders it for
// a tag, names one archive of the release per platform hack/release.sh
// builds, each with the binary inside it as the plugin's bin.
func TestKrewManifest(t *testing.T) {
	root := repoRoot()
	text, err := os.ReadFile(filepath.Join(root, ".krew.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	const tag, sha = "v0.6.0", "abababababababababababababababababababababababababababababababab"
	// addURIAndSha renders its URL for the tag, downloads it and adds its
	// sha256; here the sum is a stand-in.
	addURIAndSha := func(url, tagName string) (string, error) {
		u, err := template.New("url").Parse(url)
		if err != nil {
			return "", err
		}
		var b bytes.Buffer
		if err := u.Execute(&b, map[string]string{"TagName": tagName}); err != nil {
			return "", err
		}
		return "uri: " + b.String() + "\n    sha256: " + sha, nil
	}
	tmpl, err := template.New(".krew.yaml").Funcs(template.FuncMap{"addURIAndSha": addURIAndSha}).Parse(string(text))
	if err != nil {
		t.Fatal(err)
	}
	var rendered bytes.Buffer
	if err := tmpl.Execute(&rendered, map[string]string{"TagName": tag}); err != nil {
		t.Fatal(err)
	}
	var plugin struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
		Metadata   struct {
			Name string `json:"name"`
		} `json:"metadata"`
		Spec struct {
			Version          string `json:"version"`
			Homepage         string `json:"homepage"`
			ShortDescription string `json:"shortDescription"`
			Description      string `json:"description"`
			Platforms        []struct {
				Selector struct {
					MatchLabels map[string]string `json:"matchLabels"`
				} `json:"selector"`
				URI    string `json:"uri"`
				SHA256 string `json:"sha256"`
				Bin    string `json:"bin"`
			} `json:"platforms"`
		} `json:"spec"`
	}
	if err := yaml.UnmarshalStrict(rendered.Bytes(), &plugin); err != nil {
		t.Fatalf("rendered .krew.yaml: %v\n%s", err, rendered.String())
	}
	if plugin.APIVersion != "krew.googlecontainertools.github.com/v1alpha2" || plugin.Kind != "Plugin" ||
		plugin.Metadata.Name != "claimbridge" || plugin.Spec.Version != tag || plugin.Spec.ShortDescription == "" {
		t.Errorf("plugin %s %s %q version %q", plugin.APIVersion, plugin.Kind, plugin.Metadata.Name, plugin.Spec.Version)
	}
	c := releaseConfig(t)
	var want, got []string
	for _, p := range strings.Split(c["platforms"], ",") {
		goos, arch, _ := strings.Cut(p, "/")
		archive := strings.NewReplacer("{{ .ProjectName }}", c["project"], "{{ .Version }}", strings.TrimPrefix(tag, "v"),
			"{{ .Os }}", goos, "{{ .Arch }}", arch).Replace(c["archive"])
		ext, bin := ".tar.gz", "claimbridge"
		if goos == "windows" {
			ext, bin = ".zip", "claimbridge.exe"
		}
		want = append(want, p+" https://github.com/claimbridge/claimbridge/releases/download/"+tag+"/"+archive+ext+" "+bin)
	}
	for _, p := range plugin.Spec.Platforms {
		if p.SHA256 != sha {
			t.Errorf("%v: sha256 %q is not the one addURIAndSha gives", p.Selector.MatchLabels, p.SHA256)
		}
		got = append(got, p.Selector.MatchLabels["os"]+"/"+p.Selector.MatchLabels["arch"]+" "+p.URI+" "+p.Bin)
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("platforms:\n%s\nwant (hack/release.sh):\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestHelmPluginVersion: the Helm post-renderer plugin has the chart's
// version, the release's.
func TestHelmPluginVersion(t *testing.T) {
	var chart, plugin struct {
		Version string `json:"version"`
	}
	for path, out := range map[string]any{"charts/claimbridge/Chart.yaml": &chart, "plugins/helm/plugin.yaml": &plugin} {
		b, err := os.ReadFile(filepath.Join(repoRoot(), path))
		if err != nil {
			t.Fatal(err)
		}
		if err := yaml.Unmarshal(b, out); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
	}
	if plugin.Version == "" || plugin.Version != chart.Version {
		t.Errorf("plugins/helm/plugin.yaml has version %q, the chart %q", plugin.Version, chart.Version)
	}
}
