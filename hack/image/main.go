// Command image writes claimbridge's container image, an OCI image index of
// one image per Linux platform, into an OCI image layout directory, without
// a container engine and without the network:
//
//	image -out dist/image -version v0.6.0 -revision <commit> -created <SOURCE_DATE_EPOCH> \
//	  -binary linux/amd64=build/linux_amd64/claimbridge -binary linux/arm64=build/linux_arm64/claimbridge
//
// This is the one definition of the image (hack/release.sh builds it,
// test/release checks it, docs/releasing.md pushes it with crane). Each image
// is two layers on nothing (scratch):
//
//  1. what distroless/static gives a static Go server and claimbridge needs:
//     /etc/passwd and /etc/group with root and nonroot (65532),
//     /home/nonroot and /tmp. No CA certificates: the server makes no TLS
//     connection but to the API server, whose CA its ServiceAccount mounts.
//     No shell, no libc. The same bytes for every platform, so one blob.
//  2. the static binary as /claimbridge.
//
// The config runs /claimbridge as 65532:65532 and carries the OCI labels
// source, version, licenses, revision and created, which the index and the
// manifests repeat as annotations. Every timestamp is -created, so the
// same binaries give the same digests.
package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// The image's settings, which .goreleaser.yaml and test/release state too.
const (
	Source     = "https://github.com/claimbridge/claimbridge"
	Licenses   = "Apache-2.0"
	User       = "65532:65532"
	Entrypoint = "/claimbridge"
)

// Passwd and Group are distroless/static's entries for root and nonroot.
const (
	Passwd = "root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin\n"
	Group  = "root:x:0:\nnonroot:x:65532:\n"
)

type binaries map[string]string

func (b binaries) String() string { return fmt.Sprint(map[string]string(b)) }

func (b binaries) Set(s string) error {
	platform, path, ok := strings.Cut(s, "=")
	if !ok || !strings.HasPrefix(platform, "linux/") {
		return fmt.Errorf("%q: want linux/ARCH=PATH", s)
	}
	b[platform] = path
	return nil
}

func main() {
	bins := binaries{}
	out := flag.String("out", "", "the OCI image layout directory to write (must not exist)")
	version := flag.String("version", "", "the release version (v0.6.0): label, annotation and the layout's ref.name")
	revision := flag.String("revision", "", "the commit the binaries were built from")
	created := flag.String("created", "", "the creation time of everything, in seconds since 1970 (SOURCE_DATE_EPOCH)")
	flag.Var(bins, "binary", "linux/ARCH=PATH of a static claimbridge binary; once per platform")
	flag.Parse()
	if err := run(*out, *version, *revision, *created, bins); err != nil {
		fmt.Fprintf(os.Stderr, "image: %v\n", err)
		os.Exit(1)
	}
}

func run(out, version, revision, created string, bins binaries) error {
	if out == "" || version == "" || revision == "" || len(bins) == 0 {
		return fmt.Errorf("-out, -version, -revision and at least one -binary are required")
	}
	sec, err := strconv.ParseInt(created, 10, 64)
	if err != nil || sec <= 0 {
		return fmt.Errorf("-created %q: want seconds since 1970", created)
	}
	t := time.Unix(sec, 0).UTC()
	if _, err := os.Stat(out); err == nil {
		return fmt.Errorf("%s exists; remove it first", out)
	}
	idx, err := Index(bins, Labels(version, revision, t), t)
	if err != nil {
		return err
	}
	p, err := layout.Write(out, empty.Index)
	if err != nil {
		return err
	}
	if err := p.AppendIndex(idx, layout.WithAnnotations(map[string]string{"org.opencontainers.image.ref.name": version})); err != nil {
		return err
	}
	d, err := idx.Digest()
	if err != nil {
		return err
	}
	fmt.Printf("%s %s\n", out, d)
	return nil
}

// Labels are the image's OCI labels (and annotations).
func Labels(version, revision string, created time.Time) map[string]string {
	return map[string]string{
		"org.opencontainers.image.source":   Source,
		"org.opencontainers.image.version":  version,
		"org.opencontainers.image.licenses": Licenses,
		"org.opencontainers.image.revision": revision,
		"org.opencontainers.image.created":  created.UTC().Format(time.RFC3339),
	}
}

// Index is the image index of one image per platform of bins, in the order
// of their names.
func Index(bins map[string]string, labels map[string]string, t time.Time) (v1.ImageIndex, error) {
	base, err := NewLayer([]Entry{
		{Name: "etc/", Mode: 0o755},
		{Name: "etc/group", Mode: 0o644, Data: []byte(Group)},
		{Name: "etc/passwd", Mode: 0o644, Data: []byte(Passwd)},
		{Name: "home/", Mode: 0o755},
		{Name: "home/nonroot/", Mode: 0o700, UID: 65532, GID: 65532},
		{Name: "tmp/", Mode: 0o1777},
	}, t)
	if err != nil {
		return nil, err
	}
	platforms := make([]string, 0, len(bins))
	for p := range bins {
		platforms = append(platforms, p)
	}
	sort.Strings(platforms)
	var idx v1.ImageIndex = mutate.IndexMediaType(empty.Index, types.OCIImageIndex)
	for _, platform := range platforms {
		bin, err := os.ReadFile(bins[platform])
		if err != nil {
			return nil, err
		}
		app, err := NewLayer([]Entry{{Name: strings.TrimPrefix(Entrypoint, "/"), Mode: 0o755, Data: bin}}, t)
		if err != nil {
			return nil, err
		}
		_, arch, _ := strings.Cut(platform, "/")
		pf := v1.Platform{OS: "linux", Architecture: arch}
		if arch == "arm64" {
			pf.Variant = "v8" // as distroless and the Go images say
		}
		img, err := Image(pf, base, app, labels, t)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", platform, err)
		}
		idx = mutate.AppendManifests(idx, mutate.IndexAddendum{Add: img, Descriptor: v1.Descriptor{Platform: &pf}})
	}
	return mutate.Annotations(idx, labels).(v1.ImageIndex), nil
}

// Image is one platform's image: the base layer, the binary's layer and
// the config.
func Image(pf v1.Platform, base, app v1.Layer, labels map[string]string, t time.Time) (v1.Image, error) {
	img := mutate.MediaType(empty.Image, types.OCIManifestSchema1)
	img = mutate.ConfigMediaType(img, types.OCIConfigJSON)
	img, err := mutate.ConfigFile(img, &v1.ConfigFile{
		Architecture: pf.Architecture,
		OS:           pf.OS,
		Variant:      pf.Variant,
		Config: v1.Config{
			User:       User,
			Entrypoint: []string{Entrypoint},
			Labels:     labels,
		},
		RootFS: v1.RootFS{Type: "layers"},
	})
	if err != nil {
		return nil, err
	}
	img, err = mutate.Append(img,
		mutate.Addendum{Layer: base, MediaType: types.OCILayer, History: v1.History{
			Created: v1.Time{Time: t}, CreatedBy: "hack/image: /etc/passwd, /etc/group, /home/nonroot, /tmp", Comment: "distroless/static's files that claimbridge needs"}},
		mutate.Addendum{Layer: app, MediaType: types.OCILayer, History: v1.History{
			Created: v1.Time{Time: t}, CreatedBy: "hack/image: " + Entrypoint}},
	)
	if err != nil {
		return nil, err
	}
	img, err = mutate.CreatedAt(img, v1.Time{Time: t})
	if err != nil {
		return nil, err
	}
	return mutate.Annotations(img, labels).(v1.Image), nil
}

// Entry is a file or (a Name ending in /) a directory of a layer.
type Entry struct {
	Name     string
	Mode     int64
	UID, GID int
	Data     []byte
}

// NewLayer is a gzip-compressed tar layer of entries in the given order,
// every time t.
func NewLayer(entries []Entry, t time.Time) (v1.Layer, error) {
	var tarball bytes.Buffer
	tw := tar.NewWriter(&tarball)
	for _, e := range entries {
		hdr := &tar.Header{Name: e.Name, Mode: e.Mode, Uid: e.UID, Gid: e.GID, ModTime: t, Format: tar.FormatPAX}
		if strings.HasSuffix(e.Name, "/") {
			hdr.Typeflag = tar.TypeDir
		} else {
			hdr.Typeflag, hdr.Size = tar.TypeReg, int64(len(e.Data))
		}
		if err := tw.WriteHeader(hdr); err != nil {
			return nil, err
		}
		if _, err := tw.Write(e.Data); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	var compressed bytes.Buffer
	zw, err := gzip.NewWriterLevel(&compressed, gzip.BestCompression)
	if err != nil {
		return nil, err
	}
	if _, err := zw.Write(tarball.Bytes()); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	l := &layer{compressed: compressed.Bytes(), uncompressed: tarball.Bytes()}
	if l.digest, _, err = v1.SHA256(bytes.NewReader(l.compressed)); err != nil {
		return nil, err
	}
	if l.diffID, _, err = v1.SHA256(bytes.NewReader(l.uncompressed)); err != nil {
		return nil, err
	}
	return l, nil
}

// layer is a layer held in memory, compressed here (go-containerregistry's
// static layer has no separate diff ID, its tarball layers compress on
// their own terms).
type layer struct {
	compressed, uncompressed []byte
	digest, diffID           v1.Hash
}

func (l *layer) Digest() (v1.Hash, error) { return l.digest, nil }
func (l *layer) DiffID() (v1.Hash, error) { return l.diffID, nil }
func (l *layer) Compressed() (io.ReadCloser, error) {
	return io.NopCloser(bytes.NewReader(l.compressed)), nil
}
func (l *layer) Uncompressed() (io.ReadCloser, error) {
	return io.NopCloser(bytes.NewReader(l.uncompressed)), nil
}
func (l *layer) Size() (int64, error)                { return int64(len(l.compressed)), nil }
func (l *layer) MediaType() (types.MediaType, error) { return types.OCILayer, nil }
