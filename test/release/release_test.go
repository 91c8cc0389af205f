// Package release checks a release as a user gets it. TestRelease runs
// hack/release.sh in a reduced form: the host's platform and linux/amd64
// and linux/arm64 (the image's two), offline (GOPROXY=off), into a
// temporary directory. It opens every artefact:
//
//   - checksums.txt lists every archive and SBOM, with their SHA-256;
//   - each archive holds exactly the binary, LICENSE and README.md, sorted,
//     owned by root, at the commit's time; the binary is for its platform,
//     static (CGO_ENABLED=0), built with -trimpath and the release's
//     version; the host's binary runs `version` and prints that version;
//   - each SBOM lists the Go modules the binary is built from, as `go list`
//     finds them, go.mod's direct requirements among them;
//   - the image index (an OCI layout) has linux/amd64 and linux/arm64, each
//     running /claimbridge as 65532:65532 with the OCI labels, its files
//     are the base's and the archive's binary, byte for byte;
//   - a second run gives the same bytes (reproducible);
//   - the README's install lines name this release's artefacts, and its
//     archive line and image line run.
//
// Warm, it takes about a minute on 2 cores; from a cold build cache the
// binaries take some minutes per platform (go test -timeout 20m).
// TestGoReleaserConfig checks that .goreleaser.yaml says what
// hack/release.sh does.
package release

import (
	"archive/tar"
	"archive/zip"
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"debug/buildinfo"
	"debug/elf"
	"debug/macho"
	"debug/pe"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/types"
	"github.com/google/go-containerregistry/pkg/v1/validate"
	"sigs.k8s.io/yaml"
)

const module = "github.com/claimbridge/claimbridge"

// release is what one run of hack/release.sh made and what it should be.
type release struct {
	root      string // the repository
	dir       string // --out
	version   string // v0.6.0
	number    string // 0.6.0
	revision  string // the image's revision label
	epoch     time.Time
	platforms []string
	config    map[string]string // hack/release.sh --print-config
	// binaries holds each platform's binary, read from its archive.
	binaries map[string][]byte
}

func TestRelease(t *testing.T) {
	r := newRelease(t, hostPlatforms())
	start := time.Now()
	r.run(t, r.dir, r.platforms)
	t.Logf("hack/release.sh for %v: %s", r.platforms, time.Since(start).Round(time.Second))

	t.Run("files", r.checkFiles)
	t.Run("checksums", r.checkChecksums)
	t.Run("archives", r.checkArchives)
	if t.Failed() {
		t.FailNow() // the rest reads the binaries
	}
	t.Run("host-binary", r.checkHostBinary)
	t.Run("sboms", r.checkSBOMs)
	t.Run("image", r.checkImage)
	t.Run("reproducible", r.checkReproducible)
	t.Run("readme", r.checkReadme)
}

// hostPlatforms is the reduced form's platforms: the host's, if it is a
// release platform, and the image's two.
func hostPlatforms() []string {
	set := map[string]bool{"linux/amd64": true, "linux/arm64": true}
	host := runtime.GOOS + "/" + runtime.GOARCH
	for _, p := range strings.Split(releaseConfig(nil)["platforms"], ",") {
		if p == host {
			set[host] = true
		}
	}
	var ps []string
	for p := range set {
		ps = append(ps, p)
	}
	sort.Strings(ps)
	return ps
}

func repoRoot() string {
	dir, err := os.Getwd()
	if err != nil {
		panic(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			panic("no go.mod above the test's directory")
		}
		dir = parent
	}
}

// releaseConfig is hack/release.sh --print-config.
func releaseConfig(t *testing.T) map[string]string {
	cmd := exec.Command("bash", filepath.Join(repoRoot(), "hack", "release.sh"), "--print-config")
	b, err := cmd.Output()
	if err != nil {
		if t == nil {
			panic(fmt.Sprintf("hack/release.sh --print-config: %v", err))
		}
		t.Fatalf("hack/release.sh --print-config: %v", err)
	}
	c := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		k, v, _ := strings.Cut(line, "=")
		c[k] = v
	}
	return c
}

func newRelease(t *testing.T, platforms []string) *release {
	root := repoRoot()
	var chart struct {
		Version    string `json:"version"`
		AppVersion string `json:"appVersion"`
	}
	b, err := os.ReadFile(filepath.Join(root, "charts", "claimbridge", "Chart.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(b, &chart); err != nil {
		t.Fatal(err)
	}
	r := &release{
		root: root, dir: filepath.Join(t.TempDir(), "dist"), version: chart.AppVersion, number: chart.Version,
		platforms: platforms, config: releaseConfig(t), binaries: map[string][]byte{},
	}
	if r.version != "v"+r.number {
		t.Fatalf("Chart.yaml: version %s, appVersion %s (TestChartVersionIsAppVersion)", r.number, r.version)
	}
	r.revision = git(t, root, "rev-parse", "HEAD")
	if git(t, root, "status", "--porcelain") != "" {
		r.revision += "-dirty"
	}
	sec, err := strconv.ParseInt(git(t, root, "log", "-1", "--format=%ct", "HEAD"), 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	r.epoch = time.Unix(sec, 0).UTC()
	return r
}

func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	b, err := exec.Command("git", append([]string{"-C", dir}, args...)...).Output()
	if err != nil {
		t.Fatalf("git %v: %v", args, err)
	}
	return strings.TrimSpace(string(b))
}

// run runs hack/release.sh offline.
func (r *release) run(t *testing.T, out string, platforms []string) {
	t.Helper()
	cmd := exec.Command("bash", filepath.Join(r.root, "hack", "release.sh"), "VERSION="+r.version,
		"--platforms", strings.Join(platforms, ","), "--out", out, "--allow-dirty")
	cmd.Dir = r.root
	cmd.Env = append(os.Environ(), "GOPROXY=off")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("hack/release.sh: %v\n%s", err, b)
	}
}

// render fills in hack/release.sh's (GoReleaser's) name templates.
func (r *release) render(tmpl, os_, arch, artifact string) string {
	return strings.NewReplacer("{{ .ProjectName }}", r.config["project"], "{{ .Version }}", r.number, "{{ .Tag }}", r.version,
		"{{ .Os }}", os_, "{{ .Arch }}", arch, "{{ .ArtifactName }}", artifact).Replace(tmpl)
}

func (r *release) archiveName(platform string) string {
	os_, arch, _ := strings.Cut(platform, "/")
	ext := ".tar.gz"
	if os_ == "windows" {
		ext = ".zip"
	}
	return r.render(r.config["archive"], os_, arch, "") + ext
}

func (r *release) sbomName(platform string) string {
	return r.render(r.config["sbom"], "", "", r.archiveName(platform))
}

func exeName(platform string) string {
	if strings.HasPrefix(platform, "windows/") {
		return "claimbridge.exe"
	}
	return "claimbridge"
}

func (r *release) checkFiles(t *testing.T) {
	want := []string{r.config["checksums"], "image"}
	for _, p := range r.platforms {
		want = append(want, r.archiveName(p), r.sbomName(p))
	}
	sort.Strings(want)
	entries, err := os.ReadDir(r.dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range entries {
		got = append(got, e.Name())
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("files of the release (-want +got):\n%s", diff)
	}
}

func (r *release) checkChecksums(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(r.dir, r.config["checksums"]))
	if err != nil {
		t.Fatal(err)
	}
	var want, got []string
	for _, p := range r.platforms {
		want = append(want, r.archiveName(p), r.sbomName(p))
	}
	sort.Strings(want)
	line := regexp.MustCompile(`^([0-9a-f]{64})  (\S+)$`)
	for _, l := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
		m := line.FindStringSubmatch(l)
		if m == nil {
			t.Errorf("checksums.txt: line %q is not sha256sum's", l)
			continue
		}
		got = append(got, m[2])
		data, err := os.ReadFile(filepath.Join(r.dir, m[2]))
		if err != nil {
			t.Error(err)
			continue
		}
		if sum := sha256.Sum256(data); hex.EncodeToString(sum[:]) != m[1] {
			t.Errorf("checksums.txt: %s has %s, the file %x", m[2], m[1], sum)
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("files in checksums.txt, in its order (-want +got):\n%s", diff)
	}
}

// entry is a file read from an archive or a layer.
type entry struct {
	name     string
	mode     int64
	uid, gid int
	mtime    time.Time
	data     []byte
	typeflag byte
	owner    string
}

func readTarGz(data []byte) ([]entry, error) {
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	return readTar(zr)
}

func readTar(rd io.Reader) ([]entry, error) {
	tr := tar.NewReader(rd)
	var es []entry
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return es, nil
		}
		if err != nil {
			return nil, err
		}
		b, err := io.ReadAll(tr)
		if err != nil {
			return nil, err
		}
		es = append(es, entry{name: h.Name, mode: h.Mode, uid: h.Uid, gid: h.Gid, mtime: h.ModTime.UTC(), data: b, typeflag: h.Typeflag, owner: h.Uname + ":" + h.Gname})
	}
}

func readZip(data []byte) ([]entry, error) {
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, err
	}
	var es []entry
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			return nil, err
		}
		b, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			return nil, err
		}
		es = append(es, entry{name: f.Name, mode: int64(f.Mode().Perm()), mtime: f.Modified.UTC(), data: b, typeflag: tar.TypeReg, owner: "root:root"})
	}
	return es, nil
}

func (r *release) checkArchives(t *testing.T) {
	license, err := os.ReadFile(filepath.Join(r.root, "LICENSE"))
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile(filepath.Join(r.root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range r.platforms {
		name := r.archiveName(p)
		data, err := os.ReadFile(filepath.Join(r.dir, name))
		if err != nil {
			t.Error(err)
			continue
		}
		var es []entry
		if strings.HasSuffix(name, ".zip") {
			es, err = readZip(data)
		} else {
			es, err = readTarGz(data)
		}
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		exe := exeName(p)
		want := map[string]int64{"LICENSE": 0o644, "README.md": 0o644, exe: 0o755}
		var names []string
		for _, e := range es {
			names = append(names, e.name)
			if m, ok := want[e.name]; !ok || e.mode != m || e.typeflag != tar.TypeReg || e.uid != 0 || e.gid != 0 || e.owner != "root:root" || !e.mtime.Equal(r.epoch) {
				t.Errorf("%s: %s: mode %o, type %c, owner %d:%d (%s), time %s; want mode %o, a file of root:root at the commit's time %s",
					name, e.name, e.mode, e.typeflag, e.uid, e.gid, e.owner, e.mtime, m, r.epoch)
			}
			switch e.name {
			case "LICENSE":
				if !bytes.Equal(e.data, license) {
					t.Errorf("%s: LICENSE differs from the repository's", name)
				}
			case "README.md":
				if !bytes.Equal(e.data, readme) {
					t.Errorf("%s: README.md differs from the repository's", name)
				}
			case exe:
				r.binaries[p] = e.data
				r.checkBinary(t, name, p, e.data)
			}
		}
		if diff := cmp.Diff([]string{"LICENSE", "README.md", exe}, names); diff != "" {
			t.Errorf("%s: entries (-want +got):\n%s", name, diff)
		}
	}
}

// checkBinary checks a binary's format, architecture, static linking and
// build settings.
func (r *release) checkBinary(t *testing.T, archive, platform string, bin []byte) {
	os_, arch, _ := strings.Cut(platform, "/")
	rd := bytes.NewReader(bin)
	switch os_ {
	case "linux":
		f, err := elf.NewFile(rd)
		if err != nil {
			t.Errorf("%s: not ELF: %v", archive, err)
			return
		}
		if want := map[string]elf.Machine{"amd64": elf.EM_X86_64, "arm64": elf.EM_AARCH64}[arch]; f.Machine != want {
			t.Errorf("%s: ELF machine %v, want %v", archive, f.Machine, want)
		}
		// Static: what the image's base (no libc) needs.
		for _, prog := range f.Progs {
			if prog.Type == elf.PT_INTERP || prog.Type == elf.PT_DYNAMIC {
				t.Errorf("%s: the binary has a %v program header: not static", archive, prog.Type)
			}
		}
	case "darwin":
		f, err := macho.NewFile(rd)
		if err != nil {
			t.Errorf("%s: not Mach-O: %v", archive, err)
			return
		}
		if want := map[string]macho.Cpu{"amd64": macho.CpuAmd64, "arm64": macho.CpuArm64}[arch]; f.Cpu != want {
			t.Errorf("%s: Mach-O CPU %v, want %v", archive, f.Cpu, want)
		}
	case "windows":
		f, err := pe.NewFile(rd)
		if err != nil {
			t.Errorf("%s: not PE: %v", archive, err)
			return
		}
		if want := map[string]uint16{"amd64": pe.IMAGE_FILE_MACHINE_AMD64, "arm64": pe.IMAGE_FILE_MACHINE_ARM64}[arch]; f.Machine != want {
			t.Errorf("%s: PE machine %#x, want %#x", archive, f.Machine, want)
		}
	}
	bi, err := buildinfo.Read(bytes.NewReader(bin))
	if err != nil {
		t.Errorf("%s: build information: %v", archive, err)
		return
	}
	settings := map[string]string{}
	for _, s := range bi.Settings {
		settings[s.Key] = s.Value
	}
	// -trimpath leaves -ldflags out; the version it set is in the data (the
	// host's binary prints it, checkHostBinary).
	want := map[string]string{"GOOS": os_, "GOARCH": arch, "CGO_ENABLED": "0", "-trimpath": "true", "-buildmode": "exe", "-compiler": "gc"}
	if !bytes.Contains(bin, []byte(r.version)) {
		t.Errorf("%s: the binary does not hold the version %s", archive, r.version)
	}
	if arch == "amd64" {
		want["GOAMD64"] = "v1"
	} else {
		want["GOARM64"] = "v8.0"
	}
	if diff := cmp.Diff(want, settings); diff != "" {
		t.Errorf("%s: build settings (-want +got; no vcs.* with -buildvcs=false):\n%s", archive, diff)
	}
	if bi.Path != module+"/cmd/claimbridge" || bi.Main.Path != module {
		t.Errorf("%s: built from %s of %s", archive, bi.Path, bi.Main.Path)
	}
}

// hostBinary writes the host's binary to a file and returns its path.
func (r *release) hostBinary(t *testing.T) string {
	host := runtime.GOOS + "/" + runtime.GOARCH
	bin, ok := r.binaries[host]
	if !ok {
		t.Fatalf("the release has no binary for the host, %s: it always builds the host's platform", host)
	}
	path := filepath.Join(t.TempDir(), exeName(host))
	if err := os.WriteFile(path, bin, 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

func (r *release) versionLine(t *testing.T, platform string) string {
	bi, err := buildinfo.Read(bytes.NewReader(r.binaries[platform]))
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("claimbridge %s (%s %s)\n", r.version, bi.GoVersion, platform)
}

func (r *release) checkHostBinary(t *testing.T) {
	path := r.hostBinary(t)
	host := runtime.GOOS + "/" + runtime.GOARCH
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"version"}, r.versionLine(t, host)},
		{[]string{"--version"}, r.version + "\n"},
	} {
		cmd := exec.Command(path, c.args...)
		cmd.Env = []string{} // nothing from the build environment
		if b, err := cmd.Output(); err != nil || string(b) != c.want {
			t.Errorf("claimbridge %v: %v, %q; want %q", c.args, err, b, c.want)
		}
	}
	cmd := exec.Command(path, "serve", "--help")
	cmd.Env = []string{}
	if b, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(b), "--cert-mode") {
		t.Errorf("claimbridge serve --help: %v\n%s", err, b)
	}
}

// spdx is what the test reads of an SPDX document.
type spdx struct {
	SPDXVersion       string `json:"spdxVersion"`
	DataLicense       string `json:"dataLicense"`
	SPDXID            string `json:"SPDXID"`
	Name              string `json:"name"`
	DocumentNamespace string `json:"documentNamespace"`
	CreationInfo      struct {
		Created  string   `json:"created"`
		Creators []string `json:"creators"`
	} `json:"creationInfo"`
	Packages []struct {
		Name             string `json:"name"`
		SPDXID           string `json:"SPDXID"`
		VersionInfo      string `json:"versionInfo"`
		DownloadLocation string `json:"downloadLocation"`
		LicenseDeclared  string `json:"licenseDeclared"`
		ExternalRefs     []struct {
			ReferenceType    string `json:"referenceType"`
			ReferenceLocator string `json:"referenceLocator"`
		} `json:"externalRefs"`
	} `json:"packages"`
	Relationships []struct {
		SPDXElementID      string `json:"spdxElementId"`
		RelationshipType   string `json:"relationshipType"`
		RelatedSPDXElement string `json:"relatedSpdxElement"`
	} `json:"relationships"`
}

// directRequirements are go.mod's requirements without "// indirect".
func directRequirements(t *testing.T, root string) map[string]string {
	f, err := os.Open(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	reqs := map[string]string{}
	inRequire := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "require (":
			inRequire = true
		case line == ")":
			inRequire = false
		case inRequire || strings.HasPrefix(line, "require "):
			fields := strings.Fields(strings.TrimPrefix(line, "require "))
			if len(fields) >= 2 && !strings.Contains(line, "// indirect") {
				reqs[fields[0]] = fields[1]
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return reqs
}

// linkedModules are the modules (path@version, replacements as built) of
// the packages cmd/claimbridge is built from on platform, as go list says.
func (r *release) linkedModules(t *testing.T, platform string) map[string]bool {
	os_, arch, _ := strings.Cut(platform, "/")
	cmd := exec.Command("go", "list", "-deps", "-f",
		`{{with .Module}}{{if not .Main}}{{with .Replace}}{{.Path}}@{{.Version}}{{else}}{{.Path}}@{{.Version}}{{end}}{{end}}{{end}}`, "./cmd/claimbridge")
	cmd.Dir = r.root
	cmd.Env = append(os.Environ(), "GOOS="+os_, "GOARCH="+arch, "CGO_ENABLED=0", "GOFLAGS=-mod=readonly", "GOWORK=off", "GOPROXY=off")
	b, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -deps ./cmd/claimbridge for %s: %v", platform, err)
	}
	mods := map[string]bool{}
	for _, l := range strings.Fields(string(b)) {
		mods[l] = true
	}
	return mods
}

func (r *release) checkSBOMs(t *testing.T) {
	direct := directRequirements(t, r.root)
	for _, p := range r.platforms {
		name := r.sbomName(p)
		b, err := os.ReadFile(filepath.Join(r.dir, name))
		if err != nil {
			t.Error(err)
			continue
		}
		var doc spdx
		if err := json.Unmarshal(b, &doc); err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		archive := r.archiveName(p)
		if doc.SPDXVersion != "SPDX-2.3" || doc.DataLicense != "CC0-1.0" || doc.SPDXID != "SPDXRef-DOCUMENT" || doc.Name != archive ||
			doc.DocumentNamespace != "https://github.com/claimbridge/claimbridge/releases/download/"+r.version+"/"+name ||
			doc.CreationInfo.Created != r.epoch.Format(time.RFC3339) || len(doc.CreationInfo.Creators) == 0 {
			t.Errorf("%s: document %s %s %s, name %s, namespace %s, created %s by %v", name, doc.SPDXVersion, doc.DataLicense, doc.SPDXID,
				doc.Name, doc.DocumentNamespace, doc.CreationInfo.Created, doc.CreationInfo.Creators)
		}
		if len(doc.Packages) == 0 {
			t.Errorf("%s: no packages", name)
			continue
		}
		app := doc.Packages[0]
		if app.Name != module || app.VersionInfo != r.version || app.LicenseDeclared != "Apache-2.0" {
			t.Errorf("%s: the first package is %s %s (%s), want %s %s (Apache-2.0)", name, app.Name, app.VersionInfo, app.LicenseDeclared, module, r.version)
		}
		depends := map[string]bool{}
		describes := false
		for _, rel := range doc.Relationships {
			switch {
			case rel.SPDXElementID == "SPDXRef-DOCUMENT" && rel.RelationshipType == "DESCRIBES" && rel.RelatedSPDXElement == app.SPDXID:
				describes = true
			case rel.SPDXElementID == app.SPDXID && rel.RelationshipType == "DEPENDS_ON":
				depends[rel.RelatedSPDXElement] = true
			}
		}
		if !describes {
			t.Errorf("%s: the document does not DESCRIBE %s", name, app.SPDXID)
		}
		listed := map[string]bool{}
		stdlib := false
		for _, pkg := range doc.Packages[1:] {
			if !depends[pkg.SPDXID] {
				t.Errorf("%s: %s is no DEPENDS_ON of %s", name, pkg.SPDXID, app.SPDXID)
			}
			if pkg.Name == "stdlib" {
				stdlib = true
				continue
			}
			listed[pkg.Name+"@"+pkg.VersionInfo] = true
			if len(pkg.ExternalRefs) != 1 || pkg.ExternalRefs[0].ReferenceType != "purl" ||
				pkg.ExternalRefs[0].ReferenceLocator != "pkg:golang/"+pkg.Name+"@"+pkg.VersionInfo {
				t.Errorf("%s: %s has external references %+v, want its purl", name, pkg.Name, pkg.ExternalRefs)
			}
		}
		if !stdlib {
			t.Errorf("%s: no stdlib package", name)
		}
		linked := r.linkedModules(t, p)
		if diff := cmp.Diff(linked, listed); diff != "" {
			t.Errorf("%s: modules (-go list -deps +SBOM):\n%s", name, diff)
		}
		var in []string
		for path, v := range direct {
			if listed[path+"@"+v] {
				in = append(in, path)
				continue
			}
			for m := range linked {
				if strings.HasPrefix(m, path+"@") {
					t.Errorf("%s: go.mod requires %s %s, the binary links %s", name, path, v, m)
				}
			}
		}
		// The server's and the CLI's own requirements are there.
		for _, must := range []string{"k8s.io/api", "k8s.io/apimachinery", "sigs.k8s.io/controller-runtime", "github.com/spf13/cobra", "github.com/prometheus/client_golang"} {
			if !slices.Contains(in, must) {
				t.Errorf("%s: go.mod's direct requirement %s is not listed", name, must)
			}
		}
		if p == r.platforms[0] {
			sort.Strings(in)
			t.Logf("%s lists %d modules, %d of go.mod's %d direct requirements (the rest are the tests' and hack/'s)", name, len(listed), len(in), len(direct))
		}
	}
}

// labels are the image's OCI labels.
func (r *release) labels() map[string]string {
	return map[string]string{
		"org.opencontainers.image.source":   "https://github.com/claimbridge/claimbridge",
		"org.opencontainers.image.version":  r.version,
		"org.opencontainers.image.licenses": "Apache-2.0",
		"org.opencontainers.image.revision": r.revision,
		"org.opencontainers.image.created":  r.epoch.Format(time.RFC3339),
	}
}

// imageIndex opens the OCI layout's one entry, the image index.
func imageIndex(t *testing.T, dir string) (v1.ImageIndex, v1.Descriptor) {
	t.Helper()
	p, err := layout.FromPath(filepath.Join(dir, "image"))
	if err != nil {
		t.Fatal(err)
	}
	top, err := p.ImageIndex()
	if err != nil {
		t.Fatal(err)
	}
	m, err := top.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Manifests) != 1 {
		t.Fatalf("the layout's index.json has %d entries, want the image index alone (crane push dist/image)", len(m.Manifests))
	}
	idx, err := top.ImageIndex(m.Manifests[0].Digest)
	if err != nil {
		t.Fatal(err)
	}
	return idx, m.Manifests[0]
}

// files are the image's files, layer by layer, without their data; the
// binary's data is returned.
func imageFiles(t *testing.T, img v1.Image) ([][]entry, []byte) {
	t.Helper()
	layers, err := img.Layers()
	if err != nil {
		t.Fatal(err)
	}
	var all [][]entry
	var bin []byte
	for _, l := range layers {
		if mt, err := l.MediaType(); err != nil || mt != types.OCILayer {
			t.Errorf("layer media type %s (%v), want %s", mt, err, types.OCILayer)
		}
		rc, err := l.Uncompressed()
		if err != nil {
			t.Fatal(err)
		}
		es, err := readTar(rc)
		rc.Close()
		if err != nil {
			t.Fatal(err)
		}
		for i := range es {
			if es[i].name == "claimbridge" {
				bin = es[i].data
			}
			if es[i].name != "etc/passwd" && es[i].name != "etc/group" {
				es[i].data = nil
			}
		}
		all = append(all, es)
	}
	return all, bin
}

func (r *release) checkImage(t *testing.T) {
	idx, top := imageIndex(t, r.dir)
	if top.MediaType != types.OCIImageIndex || top.Annotations["org.opencontainers.image.ref.name"] != r.version {
		t.Errorf("index.json's entry: %s, annotations %v; want an OCI image index named %s", top.MediaType, top.Annotations, r.version)
	}
	if err := validate.Index(idx); err != nil {
		t.Errorf("the image index does not validate: %v", err)
	}
	m, err := idx.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	labels := r.labels()
	if diff := cmp.Diff(labels, m.Annotations); diff != "" {
		t.Errorf("the index's annotations (-want +got):\n%s", diff)
	}
	var platforms []string
	var baseLayers []v1.Hash
	for _, desc := range m.Manifests {
		if desc.Platform == nil {
			t.Errorf("manifest %s has no platform", desc.Digest)
			continue
		}
		platform := desc.Platform.OS + "/" + desc.Platform.Architecture
		platforms = append(platforms, platform)
		img, err := idx.Image(desc.Digest)
		if err != nil {
			t.Fatal(err)
		}
		if mt, err := img.MediaType(); err != nil || mt != types.OCIManifestSchema1 {
			t.Errorf("%s: media type %s (%v), want %s", platform, mt, err, types.OCIManifestSchema1)
		}
		cf, err := img.ConfigFile()
		if err != nil {
			t.Fatal(err)
		}
		if cf.OS != "linux" || platform != "linux/"+cf.Architecture || cf.Variant != desc.Platform.Variant {
			t.Errorf("%s: config says %s/%s/%s", platform, cf.OS, cf.Architecture, cf.Variant)
		}
		want := v1.Config{User: "65532:65532", Entrypoint: []string{"/claimbridge"}, Labels: labels}
		if diff := cmp.Diff(want, cf.Config); diff != "" {
			t.Errorf("%s: config (-want +got):\n%s", platform, diff)
		}
		if !cf.Created.Time.Equal(r.epoch) {
			t.Errorf("%s: created %s, want the commit's time %s", platform, cf.Created.Time, r.epoch)
		}
		for _, h := range cf.History {
			if !h.Created.Time.Equal(r.epoch) {
				t.Errorf("%s: history %q created %s, want %s", platform, h.CreatedBy, h.Created.Time, r.epoch)
			}
		}
		mf, err := img.Manifest()
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(labels, mf.Annotations); diff != "" {
			t.Errorf("%s: the manifest's annotations (-want +got):\n%s", platform, diff)
		}
		if len(mf.Layers) > 0 {
			baseLayers = append(baseLayers, mf.Layers[0].Digest)
		}
		files, bin := imageFiles(t, img)
		wantFiles := [][]entry{
			{
				{name: "etc/", mode: 0o755, typeflag: tar.TypeDir},
				{name: "etc/group", mode: 0o644, typeflag: tar.TypeReg, data: []byte("root:x:0:\nnonroot:x:65532:\n")},
				{name: "etc/passwd", mode: 0o644, typeflag: tar.TypeReg, data: []byte("root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin\n")},
				{name: "home/", mode: 0o755, typeflag: tar.TypeDir},
				{name: "home/nonroot/", mode: 0o700, uid: 65532, gid: 65532, typeflag: tar.TypeDir},
				{name: "tmp/", mode: 0o1777, typeflag: tar.TypeDir},
			},
			{{name: "claimbridge", mode: 0o755, typeflag: tar.TypeReg}},
		}
		for i := range wantFiles {
			for j := range wantFiles[i] {
				wantFiles[i][j].mtime, wantFiles[i][j].owner = r.epoch, ":"
			}
		}
		if diff := cmp.Diff(wantFiles, files, cmp.AllowUnexported(entry{})); diff != "" {
			t.Errorf("%s: the layers' files (-want +got):\n%s", platform, diff)
		}
		if archived, ok := r.binaries[platform]; !ok {
			t.Errorf("%s: an image for a platform the release has no archive of", platform)
		} else if !bytes.Equal(bin, archived) {
			t.Errorf("%s: /claimbridge (%d bytes) is not the binary of %s (%d bytes)", platform, len(bin), r.archiveName(platform), len(archived))
		}
	}
	if diff := cmp.Diff([]string{"linux/amd64", "linux/arm64"}, platforms); diff != "" {
		t.Errorf("the index's platforms (-want +got):\n%s", diff)
	}
	if len(baseLayers) == 2 && baseLayers[0] != baseLayers[1] {
		t.Errorf("the base layers differ between platforms: %v", baseLayers)
	}
}

// checkReproducible builds linux/amd64 again: the same archive, SBOM and
// image manifest.
func (r *release) checkReproducible(t *testing.T) {
	const p = "linux/amd64"
	again := filepath.Join(t.TempDir(), "dist")
	r.run(t, again, []string{p})
	for _, name := range []string{r.archiveName(p), r.sbomName(p)} {
		a, errA := os.ReadFile(filepath.Join(r.dir, name))
		b, errB := os.ReadFile(filepath.Join(again, name))
		if errA != nil || errB != nil || !bytes.Equal(a, b) {
			t.Errorf("%s differs between two runs (%v, %v)", name, errA, errB)
		}
	}
	manifest := func(dir string) v1.Hash {
		idx, _ := imageIndex(t, dir)
		m, err := idx.IndexManifest()
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range m.Manifests {
			if d.Platform != nil && d.Platform.OS+"/"+d.Platform.Architecture == p {
				return d.Digest
			}
		}
		t.Fatalf("no %s image in %s", p, dir)
		return v1.Hash{}
	}
	if a, b := manifest(r.dir), manifest(again); a != b {
		t.Errorf("the %s image differs between two runs: %s, %s", p, a, b)
	}
}

// checkReadme runs the README's install lines against this release: the
// archive's curl … | tar line on the archive, the image's docker run line
// on the image's binary; go install and helm install name this version.
func (r *release) checkReadme(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join(r.root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	r.checkInstallLines(t, readme)
}

func (r *release) checkInstallLines(t *testing.T, readme []byte) {
	find := func(prefix string) []string {
		for _, l := range strings.Split(string(readme), "\n") {
			if strings.HasPrefix(l, prefix) {
				fields := strings.Fields(l)
				if i := slices.Index(fields, "#"); i >= 0 {
					fields = fields[:i]
				}
				return fields
			}
		}
		t.Errorf("README.md has no line starting %q", prefix)
		return nil
	}
	if f := find("go install " + module + "/cmd/claimbridge@v"); f != nil && f[2] != module+"/cmd/claimbridge@"+r.version {
		t.Errorf("README.md: %v, want @%s", f, r.version)
	}
	if f := find("helm install claimbridge oci://"); f != nil {
		if f[3] != "oci://ghcr.io/claimbridge/charts/claimbridge" || !slices.Contains(f, "--version") || f[slices.Index(f, "--version")+1] != r.number {
			t.Errorf("README.md: %v, want oci://ghcr.io/claimbridge/charts/claimbridge --version %s", f, r.number)
		}
	}
	if f := find("curl -sSfL https://github.com/claimbridge/claimbridge/releases/"); f != nil {
		// curl -sSfL URL | tar -xz claimbridge
		bar := slices.Index(f, "|")
		url := ""
		if bar > 1 {
			url = f[bar-1]
		}
		const linux = "linux/amd64"
		if want := "https://github.com/claimbridge/claimbridge/releases/download/" + r.version + "/" + r.archiveName(linux); url != want || bar < 0 || f[bar+1] != "tar" {
			t.Errorf("README.md: %v, want curl … %s | tar …", f, want)
		} else {
			dir := t.TempDir()
			archive, err := os.Open(filepath.Join(r.dir, r.archiveName(linux)))
			if err != nil {
				t.Fatal(err)
			}
			defer archive.Close()
			tarCmd := exec.Command(f[bar+1], f[bar+2:]...)
			tarCmd.Dir, tarCmd.Stdin = dir, archive
			if b, err := tarCmd.CombinedOutput(); err != nil {
				t.Errorf("README.md's %v on %s: %v\n%s", f[bar+1:], r.archiveName(linux), err, b)
			} else if got, err := os.ReadFile(filepath.Join(dir, "claimbridge")); err != nil || !bytes.Equal(got, r.binaries[linux]) {
				t.Errorf("README.md's %v extracts no claimbridge binary of %s (%v)", f[bar+1:], linux, err)
			}
		}
	}
	if f := find("docker run "); f != nil {
		ref := "ghcr.io/claimbridge/claimbridge:" + r.version
		i := slices.Index(f, ref)
		if i < 0 {
			t.Errorf("README.md: %v, want the image %s", f, ref)
		} else if host := runtime.GOOS + "/" + runtime.GOARCH; host == "linux/amd64" || host == "linux/arm64" {
			// The image's entrypoint with the line's arguments, as the
			// container would run: the image's binary is the archive's.
			cmd := exec.Command(r.hostBinary(t), f[i+1:]...)
			cmd.Env = []string{}
			if b, err := cmd.Output(); err != nil || !strings.HasPrefix(string(b), "claimbridge "+r.version+" ") {
				t.Errorf("README.md's %v: %v, %q", f, err, b)
			}
		}
	}
}
