package main

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"io"
	"runtime/debug"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

var files = []File{
	{Name: "claimbridge.exe", Data: []byte("MZ binary"), Executable: true},
	{Name: "README.md", Data: []byte("# claimbridge\n")},
	{Name: "LICENSE", Data: []byte("Apache License\n")},
}

type got struct {
	Name string
	Mode int64
	Time time.Time
	Data string
}

// TestArchives: both formats hold the files sorted, with their modes and
// the one time, and the same input gives the same bytes (test/release
// builds no windows archive, so the zip is checked here).
func TestArchives(t *testing.T) {
	mtime := time.Unix(1795666599, 0).UTC()
	want := []got{
		{"LICENSE", 0o644, mtime, "Apache License\n"},
		{"README.md", 0o644, mtime, "# claimbridge\n"},
		{"claimbridge.exe", 0o755, mtime, "MZ binary"},
	}
	for _, format := range []struct {
		name  string
		write func([]File, time.Time) ([]byte, error)
		read  func(*testing.T, []byte) []got
	}{
		{"tar.gz", TarGz, readTarGz},
		{"zip", Zip, readZip},
	} {
		t.Run(format.name, func(t *testing.T) {
			a, err := format.write(files, mtime)
			if err != nil {
				t.Fatal(err)
			}
			b, err := format.write([]File{files[2], files[0], files[1]}, mtime)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(a, b) {
				t.Error("the same files in another order give other bytes")
			}
			if diff := cmp.Diff(want, format.read(t, a)); diff != "" {
				t.Errorf("entries (-want +got):\n%s", diff)
			}
			if _, err := format.write(append(files, File{Name: "LICENSE"}), mtime); err == nil {
				t.Error("two files of one name: no error")
			}
		})
	}
}

func readTarGz(t *testing.T, b []byte) []got {
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	if zr.Name != "" || !zr.ModTime.IsZero() {
		t.Errorf("gzip header: name %q, time %s; want neither", zr.Name, zr.ModTime)
	}
	tr := tar.NewReader(zr)
	var es []got
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return es
		}
		if err != nil {
			t.Fatal(err)
		}
		if h.Uid != 0 || h.Gid != 0 || h.Uname != "root" || h.Gname != "root" {
			t.Errorf("%s: owner %d:%d (%s:%s), want root", h.Name, h.Uid, h.Gid, h.Uname, h.Gname)
		}
		data, _ := io.ReadAll(tr)
		es = append(es, got{h.Name, h.Mode, h.ModTime.UTC(), string(data)})
	}
}

func readZip(t *testing.T, b []byte) []got {
	zr, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	var es []got
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		data, _ := io.ReadAll(rc)
		rc.Close()
		es = append(es, got{f.Name, int64(f.Mode().Perm()), f.Modified.UTC(), string(data)})
	}
	return es
}

// TestSPDX: the main module at the release's version, stdlib, each
// dependency as built (a replacement in its place), go.sum's hash as
// SHA-256, every one a DEPENDS_ON of the main module.
func TestSPDX(t *testing.T) {
	bi := &debug.BuildInfo{
		GoVersion: "go1.26.8",
		Path:      "github.com/claimbridge/claimbridge/cmd/claimbridge",
		Main:      debug.Module{Path: "github.com/claimbridge/claimbridge", Version: "(devel)"},
		Deps: []*debug.Module{
			{Path: "github.com/spf13/cobra", Version: "v1.10.2", Sum: "h1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="},
			{Path: "example.com/old", Version: "v1.0.0", Replace: &debug.Module{Path: "example.com/new", Version: "v1.1.0"}},
			{Path: "example.com/local", Version: "v0.0.0", Replace: &debug.Module{Path: "../local"}},
		},
		Settings: []debug.BuildSetting{{Key: "GOOS", Value: "linux"}, {Key: "GOARCH", Value: "arm64"}, {Key: "vcs", Value: "git"}},
	}
	doc, err := SPDX(bi, "v0.6.0", "claimbridge_0.6.0_linux_arm64.tar.gz", time.Unix(1795666599, 0))
	if err != nil {
		t.Fatal(err)
	}
	type pkg struct{ ID, Name, Version, Download, Purl, Checksum string }
	var pkgs []pkg
	for _, p := range doc.Packages {
		q := pkg{ID: p.SPDXID, Name: p.Name, Version: p.VersionInfo, Download: p.DownloadLocation}
		if len(p.ExternalRefs) == 1 {
			q.Purl = p.ExternalRefs[0].ReferenceLocator
		}
		if len(p.Checksums) == 1 {
			q.Checksum = p.Checksums[0].Algorithm + ":" + p.Checksums[0].ChecksumValue
		}
		pkgs = append(pkgs, q)
	}
	want := []pkg{
		{"SPDXRef-Package-github.com-claimbridge-claimbridge", "github.com/claimbridge/claimbridge", "v0.6.0", "git+https://github.com/claimbridge/claimbridge@v0.6.0", "pkg:golang/github.com/claimbridge/claimbridge@v0.6.0", ""},
		{"SPDXRef-Package-go-module-stdlib-go1.26.8", "stdlib", "go1.26.8", "https://go.dev/dl/", "pkg:golang/stdlib@go1.26.8", ""},
		{"SPDXRef-Package-go-module-github.com-spf13-cobra-v1.10.2", "github.com/spf13/cobra", "v1.10.2", "https://proxy.golang.org/github.com/spf13/cobra/@v/v1.10.2.zip", "pkg:golang/github.com/spf13/cobra@v1.10.2",
			"SHA256:0000000000000000000000000000000000000000000000000000000000000000"},
		{"SPDXRef-Package-go-module-example.com-new-v1.1.0", "example.com/new", "v1.1.0", "https://proxy.golang.org/example.com/new/@v/v1.1.0.zip", "pkg:golang/example.com/new@v1.1.0", ""},
		{"SPDXRef-Package-go-module-..-local-NOASSERTION", "../local", "NOASSERTION", "NOASSERTION", "", ""},
	}
	if diff := cmp.Diff(want, pkgs); diff != "" {
		t.Errorf("packages (-want +got):\n%s", diff)
	}
	if len(doc.Relationships) != len(want) || doc.Relationships[0] != (Relationship{"SPDXRef-DOCUMENT", "DESCRIBES", want[0].ID}) {
		t.Errorf("relationships %v", doc.Relationships)
	}
	for i, r := range doc.Relationships[1:] {
		if r != (Relationship{want[0].ID, "DEPENDS_ON", want[i+1].ID}) {
			t.Errorf("relationship %d: %v", i+1, r)
		}
	}
	if doc.CreationInfo.Created != "2026-11-26T04:16:39Z" || doc.DocumentNamespace != "https://github.com/claimbridge/claimbridge/releases/download/v0.6.0/claimbridge_0.6.0_linux_arm64.tar.gz.sbom.json" {
		t.Errorf("created %s, namespace %s", doc.CreationInfo.Created, doc.DocumentNamespace)
	}
	if _, err := SPDX(bi, "", "x", time.Now()); err == nil {
		t.Error("no version and (devel) in the build information: no error")
	}
}
