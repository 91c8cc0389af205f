package release

import (
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/yaml"
)

// goreleaser is .goreleaser.yaml as far as claimbridge uses it; a key it
// does not list (kos, dockers …) fails the strict decoding.
type goreleaser struct {
	Version     int    `json:"version"`
	ProjectName string `json:"project_name"`
	Builds      []struct {
		ID           string   `json:"id"`
		Main         string   `json:"main"`
		Binary       string   `json:"binary"`
		Env          []string `json:"env"`
		Flags        []string `json:"flags"`
		Ldflags      []string `json:"ldflags"`
		ModTimestamp string   `json:"mod_timestamp"`
		Goos         []string `json:"goos"`
		Goarch       []string `json:"goarch"`
	} `json:"builds"`
	Archives []struct {
		ID              string   `json:"id"`
		IDs             []string `json:"ids"`
		NameTemplate    string   `json:"name_template"`
		Formats         []string `json:"formats"`
		FormatOverrides []struct {
			Goos    string   `json:"goos"`
			Formats []string `json:"formats"`
		} `json:"format_overrides"`
		WrapInDirectory bool     `json:"wrap_in_directory"`
		BuildsInfo      fileInfo `json:"builds_info"`
		Files           []struct {
			Src  string   `json:"src"`
			Info fileInfo `json:"info"`
		} `json:"files"`
	} `json:"archives"`
	Checksum struct {
		NameTemplate string `json:"name_template"`
		Algorithm    string `json:"algorithm"`
	} `json:"checksum"`
	SBOMs []struct {
		ID        string   `json:"id"`
		Artifacts string   `json:"artifacts"`
		Documents []string `json:"documents"`
		Cmd       string   `json:"cmd"`
		Args      []string `json:"args"`
	} `json:"sboms"`
	Signs []struct {
		ID        string   `json:"id"`
		Cmd       string   `json:"cmd"`
		Artifacts string   `json:"artifacts"`
		Signature string   `json:"signature"`
		Args      []string `json:"args"`
		Output    bool     `json:"output"`
	} `json:"signs"`
	Release   map[string]any `json:"release"`
	Changelog map[string]any `json:"changelog"`
}

type fileInfo struct {
	Owner string `json:"owner"`
	Group string `json:"group"`
	Mode  int    `json:"mode"`
	Mtime string `json:"mtime"`
}

// TestGoReleaserConfig: .goreleaser.yaml builds, names, checksums and
// describes what hack/release.sh does (GoReleaser itself is too large to
// build here for `goreleaser check`), signs with cosign keyless, and defines
// no second image (hack/image is the image).
func TestGoReleaserConfig(t *testing.T) {
	root := repoRoot()
	b, err := os.ReadFile(filepath.Join(root, ".goreleaser.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var g goreleaser
	if err := yaml.UnmarshalStrict(b, &g); err != nil {
		t.Fatalf(".goreleaser.yaml: %v (a section test/release does not know, such as kos or dockers, is a second image definition)", err)
	}
	c := releaseConfig(t)
	if g.Version != 2 || g.ProjectName != c["project"] {
		t.Errorf("version %d, project_name %q; want 2, %q", g.Version, g.ProjectName, c["project"])
	}
	const commitDate = "{{ .CommitDate }}"
	if len(g.Builds) != 1 {
		t.Fatalf("%d builds, want 1", len(g.Builds))
	}
	build := g.Builds[0]
	for _, d := range []struct {
		what      string
		want, got any
	}{
		{"builds[0].main", c["main"], build.Main},
		{"builds[0].binary", c["project"], build.Binary},
		{"builds[0].env", []string{c["env"]}, build.Env},
		{"builds[0].flags", strings.Fields(c["flags"]), build.Flags},
		{"builds[0].ldflags", []string{c["ldflags"]}, build.Ldflags},
		{"builds[0].mod_timestamp", "{{ .CommitTimestamp }}", build.ModTimestamp},
	} {
		if diff := cmp.Diff(d.want, d.got); diff != "" {
			t.Errorf("%s (-hack/release.sh +.goreleaser.yaml):\n%s", d.what, diff)
		}
	}
	var platforms []string
	for _, os_ := range build.Goos {
		for _, arch := range build.Goarch {
			platforms = append(platforms, os_+"/"+arch)
		}
	}
	want := strings.Split(c["platforms"], ",")
	sort.Strings(platforms)
	sort.Strings(want)
	if diff := cmp.Diff(want, platforms); diff != "" {
		t.Errorf("platforms (-hack/release.sh +.goreleaser.yaml):\n%s", diff)
	}

	if len(g.Archives) != 1 {
		t.Fatalf("%d archives, want 1", len(g.Archives))
	}
	a := g.Archives[0]
	if a.NameTemplate != c["archive"] || !slices.Equal(a.IDs, []string{build.ID}) || !slices.Equal(a.Formats, []string{"tar.gz"}) || a.WrapInDirectory {
		t.Errorf("archives[0]: name_template %q, ids %v, formats %v, wrap_in_directory %v; want %q, [%s], [tar.gz], false",
			a.NameTemplate, a.IDs, a.Formats, a.WrapInDirectory, c["archive"], build.ID)
	}
	if len(a.FormatOverrides) != 1 || a.FormatOverrides[0].Goos != "windows" || !slices.Equal(a.FormatOverrides[0].Formats, []string{"zip"}) {
		t.Errorf("archives[0].format_overrides %+v, want zip for windows alone", a.FormatOverrides)
	}
	if want := (fileInfo{"root", "root", 0o755, commitDate}); a.BuildsInfo != want {
		t.Errorf("archives[0].builds_info %+v, want %+v", a.BuildsInfo, want)
	}
	var srcs []string
	for _, f := range a.Files {
		srcs = append(srcs, f.Src)
		if want := (fileInfo{"root", "root", 0o644, commitDate}); f.Info != want {
			t.Errorf("archives[0].files %s: info %+v, want %+v", f.Src, f.Info, want)
		}
	}
	if diff := cmp.Diff(strings.Fields(c["files"]), srcs); diff != "" {
		t.Errorf("archives[0].files (-hack/release.sh +.goreleaser.yaml):\n%s", diff)
	}

	if g.Checksum.NameTemplate != c["checksums"] || g.Checksum.Algorithm != "sha256" {
		t.Errorf("checksum %+v, want %s, sha256", g.Checksum, c["checksums"])
	}
	if len(g.SBOMs) != 1 || g.SBOMs[0].Artifacts != "archive" || !slices.Equal(g.SBOMs[0].Documents, []string{c["sbom"]}) ||
		!slices.ContainsFunc(g.SBOMs[0].Args, func(s string) bool { return strings.HasPrefix(s, "spdx-json=") }) {
		t.Errorf("sboms %+v, want one SPDX JSON document %s per archive", g.SBOMs, c["sbom"])
	}
	if len(g.Signs) != 1 || g.Signs[0].Cmd != "cosign" || g.Signs[0].Artifacts != "checksum" || !slices.Contains(g.Signs[0].Args, "sign-blob") ||
		slices.ContainsFunc(g.Signs[0].Args, func(s string) bool { return strings.HasPrefix(s, "--key") }) {
		t.Errorf("signs %+v, want cosign sign-blob of the checksums, keyless", g.Signs)
	}
}
