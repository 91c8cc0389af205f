#!/usr/bin/env bash
# hack/release.sh — build a release of claimbridge, offline and reproducibly.
#
#   hack/release.sh VERSION=v0.6.0 [--platforms linux/amd64,darwin/arm64,…] [--out dist] [--allow-dirty]
#   hack/release.sh --print-config   the settings .goreleaser.yaml must repeat (test/release compares them)
#
# It writes into --out (default dist/, which must be absent or empty):
#
#   claimbridge_0.6.0_<os>_<arch>.tar.gz   (.zip for windows) claimbridge[.exe], LICENSE, README.md
#   claimbridge_0.6.0_<os>_<arch>.tar.gz.sbom.json           SPDX 2.3 JSON: the Go modules of that binary
#   checksums.txt                                            sha256sum's format, of the archives and SBOMs
#   image/                                                   OCI image layout: one index of the linux
#                                                            platforms' images (hack/image), ref.name VERSION
#
# Platforms default to linux, darwin and windows on amd64 and arm64; the image is made of the linux ones.
#
# Before building it checks that VERSION is vX.Y.Z[-pre], that charts/claimbridge/Chart.yaml says
# version X.Y.Z[-pre] and appVersion VERSION, that CHANGELOG.md's newest release is X.Y.Z[-pre], and
# that the tree is clean (--allow-dirty builds anyway and labels the image's revision <commit>-dirty).
#
# Reproducible: the binaries are built with CGO_ENABLED=0 -trimpath -buildvcs=false and the version
# through -ldflags -X, so they depend only on the source and the Go toolchain; every time (archive
# entries, SBOMs, image) is SOURCE_DATE_EPOCH, by default the commit time of HEAD; archive entries are
# sorted and owned by root. The same commit and Go version give the same bytes and image digests.
# Offline: it needs only the module cache (GOPROXY=off hack/release.sh … works after `go mod download`).
# Cost on 2 cores: about 3 minutes per platform from a cold build cache, seconds per platform warm.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

# The settings, in GoReleaser's template words; .goreleaser.yaml says the same (TestGoReleaserConfig).
PROJECT=claimbridge
MAIN=./cmd/claimbridge
PLATFORMS_ALL=linux/amd64,linux/arm64,darwin/amd64,darwin/arm64,windows/amd64,windows/arm64
BUILD_ENV=CGO_ENABLED=0
BUILD_FLAGS="-trimpath -buildvcs=false"
LDFLAGS='-s -w -X github.com/claimbridge/claimbridge/internal/version.version={{ .Tag }}'
ARCHIVE_NAME='{{ .ProjectName }}_{{ .Version }}_{{ .Os }}_{{ .Arch }}'
ARCHIVE_FILES="LICENSE README.md"
CHECKSUMS=checksums.txt
SBOM_NAME='{{ .ArtifactName }}.sbom.json'

log() { echo "release: $*" >&2; }
die() { log "$*"; exit 1; }

version="" platforms="$PLATFORMS_ALL" out="$ROOT/dist" allow_dirty=false
while (($#)); do
	case "$1" in
	VERSION=*) version="${1#VERSION=}" ;;
	--platforms) platforms="${2:?--platforms needs a list}"; shift ;;
	--platforms=*) platforms="${1#--platforms=}" ;;
	--out) out="${2:?--out needs a directory}"; shift ;;
	--out=*) out="${1#--out=}" ;;
	--allow-dirty) allow_dirty=true ;;
	--print-config)
		printf '%s\n' "project=$PROJECT" "main=$MAIN" "platforms=$PLATFORMS_ALL" "env=$BUILD_ENV" \
			"flags=$BUILD_FLAGS" "ldflags=$LDFLAGS" "archive=$ARCHIVE_NAME" "files=$ARCHIVE_FILES" \
			"checksums=$CHECKSUMS" "sbom=$SBOM_NAME"
		exit 0 ;;
	-h | --help) sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"; exit 0 ;;
	*) die "unknown argument: $1 (see --help)" ;;
	esac
	shift
done

# --- checks -----------------------------------------------------------------
[[ "$version" =~ ^v(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)(-[0-9A-Za-z.-]+)?$ ]] ||
	die "VERSION=vX.Y.Z[-pre] is required (got '${version}')"
number="${version#v}"
chart_version="$(sed -n 's/^version: *"\{0,1\}\([^"]*\)"\{0,1\} *$/\1/p' charts/claimbridge/Chart.yaml)"
chart_app="$(sed -n 's/^appVersion: *"\{0,1\}\([^"]*\)"\{0,1\} *$/\1/p' charts/claimbridge/Chart.yaml)"
[[ "$chart_version" == "$number" && "$chart_app" == "$version" ]] ||
	die "charts/claimbridge/Chart.yaml says version $chart_version, appVersion $chart_app; want $number and $version"
newest="$(sed -n 's/^## \[\([0-9][^]]*\)\].*/\1/p' CHANGELOG.md | head -n 1)"
[[ "$newest" == "$number" ]] || die "CHANGELOG.md's newest release is '$newest', want $number"

revision="${REVISION:-$(git rev-parse HEAD)}"
if [[ -z "${REVISION:-}" && -n "$(git status --porcelain)" ]]; then
	$allow_dirty || die "the tree has changes (git status); commit them, or pass --allow-dirty for a trial"
	revision="$revision-dirty"
fi
export SOURCE_DATE_EPOCH="${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct HEAD)}"

IFS=, read -r -a plats <<<"$platforms"
for p in "${plats[@]}"; do
	[[ ",$PLATFORMS_ALL," == *",$p,"* ]] || die "platform $p: want one of $PLATFORMS_ALL"
done
if [[ -e "$out" && -n "$(ls -A "$out")" ]]; then
	die "$out is not empty; remove it first"
fi
mkdir -p "$out"
out="$(cd "$out" && pwd)"

render() { # render TEMPLATE OS ARCH [ARTIFACT]
	local s="$1"
	s="${s//'{{ .ProjectName }}'/$PROJECT}"
	s="${s//'{{ .Version }}'/$number}"
	s="${s//'{{ .Tag }}'/$version}"
	s="${s//'{{ .Os }}'/${2:-}}"
	s="${s//'{{ .Arch }}'/${3:-}}"
	s="${s//'{{ .ArtifactName }}'/${4:-}}"
	printf '%s' "$s"
}

# The main module's GOFLAGS (-race, -cover …) and the host's GOAMD64 and the like must not leak in.
export GOWORK=off GOFLAGS=-mod=readonly
unset GOOS GOARCH GOAMD64 GOARM64 GOEXPERIMENT CGO_CFLAGS CGO_LDFLAGS

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
start=$SECONDS
log "$version ($revision, SOURCE_DATE_EPOCH=$SOURCE_DATE_EPOCH) for ${plats[*]} into $out"
go build -o "$work/tools/" ./hack/dist ./hack/image

# --- binaries, archives, SBOMs ----------------------------------------------------
image_args=() artefacts=()
ldflags="$(render "$LDFLAGS")"
for p in "${plats[@]}"; do
	os="${p%/*}" arch="${p#*/}" exe=claimbridge ext=tar.gz
	[[ "$os" == windows ]] && exe=claimbridge.exe ext=zip
	mkdir -p "$work/$os-$arch"
	# shellcheck disable=SC2086 # BUILD_FLAGS is a list of words
	env $BUILD_ENV GOOS="$os" GOARCH="$arch" go build $BUILD_FLAGS -ldflags "$ldflags" -o "$work/$os-$arch/$exe" "$MAIN"
	archive="$(render "$ARCHIVE_NAME" "$os" "$arch").$ext"
	# shellcheck disable=SC2086 # ARCHIVE_FILES is a list of words
	"$work/tools/dist" archive -o "$out/$archive" -mtime "$SOURCE_DATE_EPOCH" "$work/$os-$arch/$exe" $ARCHIVE_FILES
	sbom="$(render "$SBOM_NAME" "$os" "$arch" "$archive")"
	"$work/tools/dist" sbom -o "$out/$sbom" -version "$version" -created "$SOURCE_DATE_EPOCH" "$work/$os-$arch/$exe"
	artefacts+=("$out/$archive" "$out/$sbom")
	[[ "$os" == linux ]] && image_args+=(-binary "$p=$work/$os-$arch/$exe")
	log "$archive ($((SECONDS - start)) s)"
done
"$work/tools/dist" checksums -o "$out/$CHECKSUMS" "${artefacts[@]}"

# --- image --------------------------------------------------------------------------
if [[ "$platforms," == *linux/* ]]; then
	"$work/tools/image" -out "$out/image" -version "$version" -revision "$revision" -created "$SOURCE_DATE_EPOCH" "${image_args[@]}" >&2
else
	log "no linux platform: no image"
fi
log "done in $((SECONDS - start)) s"
