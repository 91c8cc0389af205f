// Command dist writes the files of a release that hack/release.sh makes from
// the built binaries, byte for byte the same on every run and every host:
//
//	dist archive -o claimbridge_0.6.0_linux_amd64.tar.gz -mtime 1795000000 dir/claimbridge LICENSE README.md
//	dist sbom -o claimbridge_0.6.0_linux_amd64.tar.gz.sbom.json -version v0.6.0 -created 1795000000 dir/claimbridge
//	dist checksums -o checksums.txt FILE...
//
// archive writes a .tar.gz or a .zip (by the output's name) holding the
// files under their base names, sorted, with one modification time, owner
// and group root, mode 0755 for executables and 0644 for the rest.
//
// sbom writes an SPDX 2.3 JSON document of the Go modules a binary was built
// from, as its build information lists them (`go version -m`), with the
// main module at the release's version: what syft would find in it, without
// the network.
//
// checksums writes sha256sum's format ("<hex>  <name>"), sorted by name.
package main

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/flate"
	"compress/gzip"
	"crypto/sha256"
	"debug/buildinfo"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"time"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: dist archive|sbom|checksums [flags] FILE...")
		os.Exit(2)
	}
	var err error
	switch cmd, args := os.Args[1], os.Args[2:]; cmd {
	case "archive":
		err = archiveCmd(args)
	case "sbom":
		err = sbomCmd(args)
	case "checksums":
		err = checksumsCmd(args)
	default:
		err = fmt.Errorf("unknown command %q: use archive, sbom or checksums", cmd)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "dist %s: %v\n", os.Args[1], err)
		os.Exit(1)
	}
}

// epoch parses a SOURCE_DATE_EPOCH (seconds since 1970, UTC).
func epoch(s string) (time.Time, error) {
	sec, err := strconv.ParseInt(s, 10, 64)
	if err != nil || sec <= 0 {
		return time.Time{}, fmt.Errorf("time %q: want seconds since 1970 (SOURCE_DATE_EPOCH)", s)
	}
	return time.Unix(sec, 0).UTC(), nil
}

// writeFile writes data to path through a temporary file, so that a failed
// run leaves no partial artefact under the final name.
func writeFile(path string, data []byte) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

func archiveCmd(args []string) error {
	fs := flag.NewFlagSet("archive", flag.ContinueOnError)
	out := fs.String("o", "", "the archive to write: NAME.tar.gz or NAME.zip")
	mtime := fs.String("mtime", "", "modification time of every entry, in seconds since 1970 (SOURCE_DATE_EPOCH)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	t, err := epoch(*mtime)
	if err != nil {
		return err
	}
	var files []File
	for _, path := range fs.Args() {
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		st, err := os.Stat(path)
		if err != nil {
			return err
		}
		files = append(files, File{Name: filepath.Base(path), Data: data, Executable: st.Mode()&0o111 != 0})
	}
	var b []byte
	switch {
	case strings.HasSuffix(*out, ".tar.gz"):
		b, err = TarGz(files, t)
	case strings.HasSuffix(*out, ".zip"):
		b, err = Zip(files, t)
	default:
		return fmt.Errorf("-o %q: want a .tar.gz or .zip name", *out)
	}
	if err != nil {
		return err
	}
	return writeFile(*out, b)
}

// File is one entry of an archive.
type File struct {
	Name       string
	Data       []byte
	Executable bool
}

func (f File) mode() int64 {
	if f.Executable {
		return 0o755
	}
	return 0o644
}

func sorted(files []File) ([]File, error) {
	files = slices.Clone(files)
	slices.SortFunc(files, func(a, b File) int { return strings.Compare(a.Name, b.Name) })
	for i := 1; i < len(files); i++ {
		if files[i].Name == files[i-1].Name {
			return nil, fmt.Errorf("two files named %s", files[i].Name)
		}
	}
	return files, nil
}

// TarGz is a gzip-compressed ustar archive of files, sorted by name, every
// entry owned by root with modification time t; the gzip header has neither
// a name nor a time.
func TarGz(files []File, t time.Time) ([]byte, error) {
	files, err := sorted(files)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if err != nil {
		return nil, err
	}
	tw := tar.NewWriter(zw)
	for _, f := range files {
		hdr := &tar.Header{
			Typeflag: tar.TypeReg,
			Name:     f.Name,
			Size:     int64(len(f.Data)),
			Mode:     f.mode(),
			ModTime:  t,
			Uname:    "root",
			Gname:    "root",
			Format:   tar.FormatUSTAR,
		}
		if err := tw.WriteHeader(hdr); err != nil {
			return nil, err
		}
		if _, err := tw.Write(f.Data); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// Zip is a deflated zip archive of files, sorted by name, with modification
// time t (UTC) and Unix modes.
func Zip(files []File, t time.Time) ([]byte, error) {
	files, err := sorted(files)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	zw.RegisterCompressor(zip.Deflate, func(w io.Writer) (io.WriteCloser, error) {
		return flate.NewWriter(w, flate.BestCompression)
	})
	for _, f := range files {
		hdr := &zip.FileHeader{Name: f.Name, Method: zip.Deflate, Modified: t.UTC()}
		hdr.SetMode(os.FileMode(f.mode()))
		w, err := zw.CreateHeader(hdr)
		if err != nil {
			return nil, err
		}
		if _, err := w.Write(f.Data); err != nil {
			return nil, err
		}
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func checksumsCmd(args []string) error {
	fs := flag.NewFlagSet("checksums", flag.ContinueOnError)
	out := fs.String("o", "", "the file to write (checksums.txt)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	paths := slices.Clone(fs.Args())
	slices.SortFunc(paths, func(a, b string) int { return strings.Compare(filepath.Base(a), filepath.Base(b)) })
	var b strings.Builder
	for _, path := range paths {
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(data)
		fmt.Fprintf(&b, "%x  %s\n", sum, filepath.Base(path))
	}
	return writeFile(*out, []byte(b.String()))
}

func sbomCmd(args []string) error {
	fs := flag.NewFlagSet("sbom", flag.ContinueOnError)
	out := fs.String("o", "", "the SBOM to write: <archive>.sbom.json")
	version := fs.String("version", "", "the release version of the main module (v0.6.0)")
	created := fs.String("created", "", "the document's creation time, in seconds since 1970 (SOURCE_DATE_EPOCH)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return fmt.Errorf("want one binary, got %d arguments", fs.NArg())
	}
	t, err := epoch(*created)
	if err != nil {
		return err
	}
	bi, err := buildinfo.ReadFile(fs.Arg(0))
	if err != nil {
		return err
	}
	name := strings.TrimSuffix(filepath.Base(*out), ".sbom.json")
	doc, err := SPDX(bi, *version, name, t)
	if err != nil {
		return err
	}
	b, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return err
	}
	return writeFile(*out, append(b, '\n'))
}

// Document is an SPDX 2.3 document, as much of it as an SBOM of Go modules
// needs.
type Document struct {
	SPDXVersion       string         `json:"spdxVersion"`
	DataLicense       string         `json:"dataLicense"`
	SPDXID            string         `json:"SPDXID"`
	Name              string         `json:"name"`
	DocumentNamespace string         `json:"documentNamespace"`
	CreationInfo      CreationInfo   `json:"creationInfo"`
	Packages          []Package      `json:"packages"`
	Relationships     []Relationship `json:"relationships"`
}

type CreationInfo struct {
	Created  string   `json:"created"`
	Creators []string `json:"creators"`
	Comment  string   `json:"comment,omitempty"`
}

type Package struct {
	Name                  string        `json:"name"`
	SPDXID                string        `json:"SPDXID"`
	VersionInfo           string        `json:"versionInfo"`
	Supplier              string        `json:"supplier,omitempty"`
	DownloadLocation      string        `json:"downloadLocation"`
	FilesAnalyzed         bool          `json:"filesAnalyzed"`
	Checksums             []Checksum    `json:"checksums,omitempty"`
	LicenseConcluded      string        `json:"licenseConcluded"`
	LicenseDeclared       string        `json:"licenseDeclared"`
	CopyrightText         string        `json:"copyrightText"`
	ExternalRefs          []ExternalRef `json:"externalRefs,omitempty"`
	PrimaryPackagePurpose string        `json:"primaryPackagePurpose,omitempty"`
}

type Checksum struct {
	Algorithm     string `json:"algorithm"`
	ChecksumValue string `json:"checksumValue"`
}

type ExternalRef struct {
	ReferenceCategory string `json:"referenceCategory"`
	ReferenceType     string `json:"referenceType"`
	ReferenceLocator  string `json:"referenceLocator"`
}

type Relationship struct {
	SPDXElementID      string `json:"spdxElementId"`
	RelationshipType   string `json:"relationshipType"`
	RelatedSPDXElement string `json:"relatedSpdxElement"`
}

const (
	// Repository is where the releases are published.
	Repository = "https://github.com/claimbridge/claimbridge"
	// License is the main module's license (LICENSE).
	License = "Apache-2.0"
	// Creator names this program in the documents it writes.
	Creator = "Tool: claimbridge-hack-dist"
)

var notIDChars = regexp.MustCompile(`[^A-Za-z0-9.-]+`)

// SPDX describes the modules of a binary's build information: the main
// module at version (a release build has "(devel)" there), the Go standard
// library at the toolchain's version and every dependency (replacements as
// built), the main module DEPENDS_ON each. name is the artefact the
// document describes (the archive), t its creation time.
func SPDX(bi *debug.BuildInfo, version, name string, t time.Time) (*Document, error) {
	if version == "" {
		version = bi.Main.Version
	}
	if !strings.HasPrefix(version, "v") {
		return nil, fmt.Errorf("version %q: want a module version (v0.6.0)", version)
	}
	app := Package{
		Name:                  bi.Main.Path,
		SPDXID:                "SPDXRef-Package-" + notIDChars.ReplaceAllString(bi.Main.Path, "-"),
		VersionInfo:           version,
		Supplier:              "Organization: The claimbridge Authors",
		DownloadLocation:      "git+" + Repository + "@" + version,
		LicenseConcluded:      License,
		LicenseDeclared:       License,
		CopyrightText:         "NOASSERTION",
		ExternalRefs:          []ExternalRef{purl(bi.Main.Path, version)},
		PrimaryPackagePurpose: "APPLICATION",
	}
	doc := &Document{
		SPDXVersion:       "SPDX-2.3",
		DataLicense:       "CC0-1.0",
		SPDXID:            "SPDXRef-DOCUMENT",
		Name:              name,
		DocumentNamespace: Repository + "/releases/download/" + version + "/" + name + ".sbom.json",
		CreationInfo: CreationInfo{
			Created:  t.UTC().Format(time.RFC3339),
			Creators: []string{Creator},
			Comment:  "The Go modules of " + bi.Main.Path + " " + version + " as its build information lists them (go version -m), built with " + bi.GoVersion + settings(bi) + ".",
		},
		Packages:      []Package{app},
		Relationships: []Relationship{{"SPDXRef-DOCUMENT", "DESCRIBES", app.SPDXID}},
	}
	goVersion, _, _ := strings.Cut(bi.GoVersion, " ") // "go1.26.8 X:…" with GOEXPERIMENTs
	deps := []Package{{
		Name: "stdlib", VersionInfo: goVersion, DownloadLocation: "https://go.dev/dl/",
		ExternalRefs: []ExternalRef{purl("stdlib", goVersion)},
	}}
	for _, m := range bi.Deps {
		if m.Replace != nil {
			m = m.Replace
		}
		p := Package{Name: m.Path, VersionInfo: m.Version, DownloadLocation: "https://proxy.golang.org/" + m.Path + "/@v/" + m.Version + ".zip"}
		if m.Version == "" || m.Version == "(devel)" { // a replacement by a directory
			p.VersionInfo, p.DownloadLocation = "NOASSERTION", "NOASSERTION"
		} else {
			p.ExternalRefs = []ExternalRef{purl(m.Path, m.Version)}
		}
		if h, ok := strings.CutPrefix(m.Sum, "h1:"); ok {
			// go.sum's h1: is the SHA-256 of the module's file list and
			// hashes; syft writes it so too.
			if raw, err := base64.StdEncoding.DecodeString(h); err == nil && len(raw) == sha256.Size {
				p.Checksums = []Checksum{{"SHA256", hex.EncodeToString(raw)}}
			}
		}
		deps = append(deps, p)
	}
	seen := map[string]bool{app.SPDXID: true}
	for _, p := range deps {
		p.SPDXID = "SPDXRef-Package-go-module-" + notIDChars.ReplaceAllString(p.Name+"-"+p.VersionInfo, "-")
		if seen[p.SPDXID] {
			return nil, fmt.Errorf("two packages would be %s", p.SPDXID)
		}
		seen[p.SPDXID] = true
		p.LicenseConcluded, p.LicenseDeclared, p.CopyrightText = "NOASSERTION", "NOASSERTION", "NOASSERTION"
		p.PrimaryPackagePurpose = "LIBRARY"
		doc.Packages = append(doc.Packages, p)
		doc.Relationships = append(doc.Relationships, Relationship{app.SPDXID, "DEPENDS_ON", p.SPDXID})
	}
	return doc, nil
}

func purl(path, version string) ExternalRef {
	return ExternalRef{"PACKAGE-MANAGER", "purl", "pkg:golang/" + path + "@" + version}
}

// settings lists the build settings that make the binary what it is.
func settings(bi *debug.BuildInfo) string {
	var s []string
	for _, kv := range bi.Settings {
		switch kv.Key {
		case "GOOS", "GOARCH", "CGO_ENABLED", "-trimpath", "-ldflags", "-tags", "GOAMD64", "GOARM64":
			s = append(s, kv.Key+"="+kv.Value)
		}
	}
	if len(s) == 0 {
		return ""
	}
	return " (" + strings.Join(s, ", ") + ")"
}
