#!/usr/bin/env bash
# hack/envtest-assets.sh — build envtest's control-plane binaries (kube-apiserver,
# etcd) and kustomize from source via the Go module proxy, cached under bin/.
#
# The usual prebuilt envtest download bucket is unreachable here, so each tool
# is pinned in its own Go module under hack/tools/<tool>/ (go.mod + go.sum +
# tools.go) and compiled with `go build -trimpath` and CGO_ENABLED=0:
#
#   bin/k8s/<k8s-version>-<GOOS>-<GOARCH>/kube-apiserver   hack/tools/kube-apiserver
#   bin/k8s/<k8s-version>-<GOOS>-<GOARCH>/etcd             hack/tools/etcd
#   bin/kustomize-<version>  (+ symlink bin/kustomize)     hack/tools/kustomize
#   bin/helm-<version>       (+ symlink bin/helm)          hack/tools/helm
#   bin/promtool-<version>   (+ symlink bin/promtool)      hack/tools/promtool
#
# and the control planes of five old releases: 1.31, 1.30 and 1.26 for the
# suite that creates `claimbridge migrate` output in that release's own
# apiserver (test/envtest/release), 1.32 and 1.33 for the suite that checks
# gacheck's v1beta1 and v1beta2 rules against them (test/envtest/ga):
#
#   bin/k8s/1.33.<patch>-<GOOS>-<GOARCH>/kube-apiserver     hack/tools/kube-apiserver-1.33
#   bin/k8s/1.32.<patch>-<GOOS>-<GOARCH>/kube-apiserver     hack/tools/kube-apiserver-1.32
#   bin/k8s/1.31.<patch>-<GOOS>-<GOARCH>/kube-apiserver     hack/tools/kube-apiserver-1.31
#   bin/k8s/1.30.<patch>-<GOOS>-<GOARCH>/kube-apiserver     hack/tools/kube-apiserver-1.30
#   bin/k8s/1.26.<patch>-<GOOS>-<GOARCH>/kube-apiserver     hack/tools/kube-apiserver-1.26
#   bin/k8s/1.{33,32,31,30,26}.<patch>-<GOOS>-<GOARCH>/etcd hack/tools/etcd-3.5 (all five)
#
# The versioned directory is what KUBEBUILDER_ASSETS must point to
# (e.g. bin/k8s/1.36.3-linux-amd64; ENVTEST_ASSETS_1_33, ENVTEST_ASSETS_1_32,
# ENVTEST_ASSETS_1_31, ENVTEST_ASSETS_1_30 and ENVTEST_ASSETS_1_26 for the
# old ones). Versions come from the tools modules'
# go.mod files; to bump one, edit that go.mod (for kube-apiserver also every
# k8s.io staging replace line) and run `go mod tidy` there.
#
# Idempotent: a binary that already exists and runs (`--version`, or
# `kustomize version`) is not rebuilt. Each binary is built into a temporary
# directory next to its destination, smoke-tested, then renamed into place, so
# an interrupted build never leaves a broken cached binary. Concurrent runs are
# serialised with flock(1) when available.
#
# Cost of a cold build on 2 cores: kube-apiserver ~8 min, etcd ~1 min,
# kustomize <1 min, helm ~4 min, promtool ~6 min, each old kube-apiserver
# (1.33, 1.32, 1.31, 1.30, 1.26) ~6 min, etcd 3.5 ~1 min (plus module
# downloads on an empty module cache).
#
# Usage:
#   hack/envtest-assets.sh                     build what is missing
#   hack/envtest-assets.sh --print-assets-dir  same, then print the absolute
#                                              KUBEBUILDER_ASSETS directory as the
#                                              last line of stdout
#   hack/envtest-assets.sh --print-assets-dir=1.33 (or =1.32, =1.31, =1.30,
#                                              =1.26) same, but print that
#                                              release's assets directory
#                                              (ENVTEST_ASSETS_1_33, _1_32,
#                                              _1_31, _1_30, _1_26)
#   hack/envtest-assets.sh --help
#
# All progress output goes to stderr; stdout carries only the assets dir.
#
# Environment:
#   GOFLAGS is ignored (replaced by -mod=readonly) so that flags such as
#   -buildvcs=false, -mod=vendor, -race or -cover set for the main module
#   cannot change or break these builds; GOWORK is forced off. GOOS/GOARCH are
#   honoured (via `go env`); when they differ from the host the binaries are
#   only checked for existence, not executed.
set -euo pipefail

usage() { sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"; }

print_assets_dir=false
print_release=""
for arg in "$@"; do
	case "$arg" in
	--print-assets-dir) print_assets_dir=true ;;
	--print-assets-dir=1.3[0-3] | --print-assets-dir=1.26) print_release="${arg#*=}" ;;
	-h | --help) usage; exit 0 ;;
	*) echo "envtest-assets: unknown argument: $arg (see --help)" >&2; exit 2 ;;
	esac
done

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
TOOLS="$ROOT/hack/tools"
BIN="$ROOT/bin"

export GOWORK=off
export GOFLAGS=-mod=readonly
export CGO_ENABLED=0

log() { echo "envtest-assets: $*" >&2; }

# modversion <tools-module-dir> <module-path>: the version <module-path> is
# required at in that go.mod (offline: parses the file, no module loading).
modversion() {
	local v
	v="$(awk -v m="$2" '
		$1 == "require" && $2 == m { print $3; exit }
		$1 == m && $2 ~ /^v/ { print $2; exit }
	' "$1/go.mod")"
	[[ -n "$v" ]] || { log "cannot find $2 in $1/go.mod"; exit 1; }
	echo "$v"
}

GOOS="$(go env GOOS)"
GOARCH="$(go env GOARCH)"
native=false
[[ "$GOOS" == "$(go env GOHOSTOS)" && "$GOARCH" == "$(go env GOHOSTARCH)" ]] && native=true

K8S_VERSION="$(modversion "$TOOLS/kube-apiserver" k8s.io/kubernetes)"                # v1.36.3
ETCD_VERSION="$(modversion "$TOOLS/etcd" go.etcd.io/etcd/server/v3)"                 # v3.6.16
KUSTOMIZE_VERSION="$(modversion "$TOOLS/kustomize" sigs.k8s.io/kustomize/kustomize/v5)" # v5.8.2
HELM_VERSION="$(modversion "$TOOLS/helm" helm.sh/helm/v4)"                            # v4.3.1
PROMTOOL_VERSION="$(modversion "$TOOLS/promtool" github.com/prometheus/prometheus)"   # v0.316.0 (Prometheus 3.16)
K8S133_VERSION="$(modversion "$TOOLS/kube-apiserver-1.33" k8s.io/kubernetes)"         # v1.33.13
K8S132_VERSION="$(modversion "$TOOLS/kube-apiserver-1.32" k8s.io/kubernetes)"         # v1.32.13
K8S131_VERSION="$(modversion "$TOOLS/kube-apiserver-1.31" k8s.io/kubernetes)"         # v1.31.14
K8S130_VERSION="$(modversion "$TOOLS/kube-apiserver-1.30" k8s.io/kubernetes)"         # v1.30.14
K8S126_VERSION="$(modversion "$TOOLS/kube-apiserver-1.26" k8s.io/kubernetes)"         # v1.26.15
ETCD35_VERSION="$(modversion "$TOOLS/etcd-3.5" go.etcd.io/etcd/server/v3)"            # v3.5.13

ASSETS_DIR="$BIN/k8s/${K8S_VERSION#v}-$GOOS-$GOARCH"
ASSETS_133_DIR="$BIN/k8s/${K8S133_VERSION#v}-$GOOS-$GOARCH"
ASSETS_132_DIR="$BIN/k8s/${K8S132_VERSION#v}-$GOOS-$GOARCH"
ASSETS_131_DIR="$BIN/k8s/${K8S131_VERSION#v}-$GOOS-$GOARCH"
ASSETS_130_DIR="$BIN/k8s/${K8S130_VERSION#v}-$GOOS-$GOARCH"
ASSETS_126_DIR="$BIN/k8s/${K8S126_VERSION#v}-$GOOS-$GOARCH"
mkdir -p "$ASSETS_DIR" "$ASSETS_133_DIR" "$ASSETS_132_DIR" "$ASSETS_131_DIR" "$ASSETS_130_DIR" "$ASSETS_126_DIR"

if command -v flock >/dev/null 2>&1; then
	exec 9>"$BIN/.envtest-assets.lock"
	flock 9
fi

tmpdirs=()
cleanup() { local d; for d in "${tmpdirs[@]}"; do rm -rf "$d"; done; }
trap cleanup EXIT

# runs <binary> <args...>: true if the binary exists and (natively) runs.
runs() {
	[[ -x "$1" && -f "$1" ]] || return 1
	$native || return 0
	"$@" >/dev/null 2>&1
}

# Compiler flags of the builds below; empty: optimised, as released.
GCFLAGS=""

# build <tools-module-dir> <main-package> <dest> <ldflags> <check-args...>
build() {
	local moddir="$1" pkg="$2" dest="$3" ldflags="$4"
	shift 4
	local name
	name="$(basename "$dest")"
	if runs "$dest" "$@"; then
		log "$name: up to date ($dest)"
		return 0
	fi
	local tmp start secs
	tmp="$(mktemp -d "$(dirname "$dest")/.tmp-$name.XXXXXX")"
	tmpdirs+=("$tmp")
	log "$name: building $pkg ..."
	start=$SECONDS
	(cd "$moddir" && go build -trimpath -buildvcs=false -gcflags "$GCFLAGS" -ldflags "$ldflags" -o "$tmp/$name" "$pkg")
	secs=$((SECONDS - start))
	if ! runs "$tmp/$name" "$@"; then
		log "$name: freshly built binary fails: $name $*"
		"$tmp/$name" "$@" >&2 || true
		exit 1
	fi
	mv -f "$tmp/$name" "$dest"
	rm -rf "$tmp"
	log "$name: built in ${secs}s -> $dest ($(du -h "$dest" | cut -f1))"
}

# kube-apiserver: stamp the version the way kubernetes' hack/lib/version.sh
# does, otherwise it reports v0.0.0-master. buildDate is the tag's commit time
# (from the module proxy), keeping the binary reproducible.
# k8s_ldflags <tools-module-dir> <k8s-version>
k8s_ldflags() {
	local moddir="$1" version="$2" date minor major
	date="$(cd "$moddir" &&
		go list -m -f '{{.Time.UTC.Format "2006-01-02T15:04:05Z"}}' "k8s.io/kubernetes@$version")"
	minor="${version#v*.}"
	minor="${minor%%.*}"
	major="${version#v}"
	major="${major%%.*}"
	local f="-s -w" pkg
	for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
		f+=" -X $pkg.gitVersion=$version -X $pkg.gitMajor=$major -X $pkg.gitMinor=$minor"
		f+=" -X $pkg.gitTreeState=clean -X $pkg.gitCommit= -X $pkg.buildDate=$date"
	done
	echo "$f"
}

# build_apiserver <tools-module-dir> <k8s-version> <assets-dir>
build_apiserver() {
	if runs "$3/kube-apiserver" --version; then
		log "kube-apiserver: up to date ($3/kube-apiserver)"
	else
		build "$1" k8s.io/kubernetes/cmd/kube-apiserver "$3/kube-apiserver" "$(k8s_ldflags "$1" "$2")" --version
	fi
}

build_apiserver "$TOOLS/kube-apiserver" "$K8S_VERSION" "$ASSETS_DIR"
build "$TOOLS/etcd" go.etcd.io/etcd/server/v3 "$ASSETS_DIR/etcd" "-s -w" --version

build "$TOOLS/kustomize" sigs.k8s.io/kustomize/kustomize/v5 \
	"$BIN/kustomize-$KUSTOMIZE_VERSION" "-s -w" version
# Stable name; replaced atomically (rename of a fresh symlink).
if [[ "$(readlink "$BIN/kustomize" 2>/dev/null || true)" != "kustomize-$KUSTOMIZE_VERSION" ]]; then
	ln -sfn "kustomize-$KUSTOMIZE_VERSION" "$BIN/.kustomize.tmp"
	mv -Tf "$BIN/.kustomize.tmp" "$BIN/kustomize"
fi

# helm, stamped with its version as helm's Makefile does (`helm version`).
build "$TOOLS/helm" helm.sh/helm/v4/cmd/helm "$BIN/helm-$HELM_VERSION" \
	"-s -w -X helm.sh/helm/v4/internal/version.version=$HELM_VERSION" version
if [[ "$(readlink "$BIN/helm" 2>/dev/null || true)" != "helm-$HELM_VERSION" ]]; then
	ln -sfn "helm-$HELM_VERSION" "$BIN/.helm.tmp"
	mv -Tf "$BIN/.helm.tmp" "$BIN/helm"
fi

# promtool, for the alert rules' checks and unit tests (test/monitoring),
# stamped with its module's version (`promtool --version`).
build "$TOOLS/promtool" github.com/prometheus/prometheus/cmd/promtool "$BIN/promtool-$PROMTOOL_VERSION" \
	"-s -w -X github.com/prometheus/common/version.Version=$PROMTOOL_VERSION" --version
if [[ "$(readlink "$BIN/promtool" 2>/dev/null || true)" != "promtool-$PROMTOOL_VERSION" ]]; then
	ln -sfn "promtool-$PROMTOOL_VERSION" "$BIN/.promtool.tmp"
	mv -Tf "$BIN/.promtool.tmp" "$BIN/promtool"
fi

# The old releases: kube-apiserver 1.31, 1.30 and 1.26 for
# test/envtest/release, 1.33 and 1.32 for test/envtest/ga, each with etcd
# 3.5 (the etcd they ship with). One etcd build, copied.
# They serve only test requests, so they are built without optimisation or
# inlining, which compiles about a fifth faster. The oracles
# (hack/oracle-assets.sh) use the same flags and so reuse their packages.
GCFLAGS="all=-N -l"
build_apiserver "$TOOLS/kube-apiserver-1.31" "$K8S131_VERSION" "$ASSETS_131_DIR"
build "$TOOLS/etcd-3.5" go.etcd.io/etcd/server/v3 "$ASSETS_131_DIR/etcd" "-s -w" --version
build_apiserver "$TOOLS/kube-apiserver-1.30" "$K8S130_VERSION" "$ASSETS_130_DIR"
build_apiserver "$TOOLS/kube-apiserver-1.26" "$K8S126_VERSION" "$ASSETS_126_DIR"
build_apiserver "$TOOLS/kube-apiserver-1.33" "$K8S133_VERSION" "$ASSETS_133_DIR"
build_apiserver "$TOOLS/kube-apiserver-1.32" "$K8S132_VERSION" "$ASSETS_132_DIR"
for dir in "$ASSETS_133_DIR" "$ASSETS_132_DIR" "$ASSETS_130_DIR" "$ASSETS_126_DIR"; do
	if ! cmp -s "$ASSETS_131_DIR/etcd" "$dir/etcd"; then
		cp "$ASSETS_131_DIR/etcd" "$dir/.etcd.tmp"
		mv -f "$dir/.etcd.tmp" "$dir/etcd"
	fi
done

log "kube-apiserver $K8S133_VERSION, etcd $ETCD35_VERSION ($GOOS/$GOARCH): ENVTEST_ASSETS_1_33=$ASSETS_133_DIR"
log "kube-apiserver $K8S132_VERSION, etcd $ETCD35_VERSION ($GOOS/$GOARCH): ENVTEST_ASSETS_1_32=$ASSETS_132_DIR"
log "kube-apiserver $K8S131_VERSION, etcd $ETCD35_VERSION ($GOOS/$GOARCH): ENVTEST_ASSETS_1_31=$ASSETS_131_DIR"
log "kube-apiserver $K8S130_VERSION, etcd $ETCD35_VERSION ($GOOS/$GOARCH): ENVTEST_ASSETS_1_30=$ASSETS_130_DIR"
log "kube-apiserver $K8S126_VERSION, etcd $ETCD35_VERSION ($GOOS/$GOARCH): ENVTEST_ASSETS_1_26=$ASSETS_126_DIR"
log "kube-apiserver $K8S_VERSION, etcd $ETCD_VERSION, kustomize $KUSTOMIZE_VERSION, helm $HELM_VERSION, promtool $PROMTOOL_VERSION ($GOOS/$GOARCH)"
log "KUBEBUILDER_ASSETS=$ASSETS_DIR"
if $print_assets_dir; then
	echo "$ASSETS_DIR"
elif [[ "$print_release" == 1.33 ]]; then
	echo "$ASSETS_133_DIR"
elif [[ "$print_release" == 1.32 ]]; then
	echo "$ASSETS_132_DIR"
elif [[ "$print_release" == 1.31 ]]; then
	echo "$ASSETS_131_DIR"
elif [[ "$print_release" == 1.30 ]]; then
	echo "$ASSETS_130_DIR"
elif [[ "$print_release" == 1.26 ]]; then
	echo "$ASSETS_126_DIR"
fi
