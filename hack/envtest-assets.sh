#!/usr/bin/env bash
# hack/envtest-assets.sh — the control planes (kube-apiserver, etcd) and the
# tools (kustomize, helm, promtool) the tests run, cached outside the clone
# (hack/cache.sh: $CLAIMBRIDGE_CACHE, default ~/.cache/claimbridge).
#
# The control planes use setup-envtest's layout, <cache>/k8s/<version>-<os>-<arch>/:
#
#   current release (KUBEBUILDER_ASSETS)            hack/tools/kube-apiserver (and kubectl), hack/tools/etcd
#   the same, optimised, for `make bench`           <cache>/k8s/<version>-<os>-<arch>-optimised/
#   (--bench: KUBEBUILDER_ASSETS names it)
#   1.30, the oldest the server supports            hack/tools/kube-apiserver-1.30, hack/tools/etcd-3.5
#   (ENVTEST_ASSETS_1_30)
#   1.36 and 1.33, for upgrade's rewrite in         hack/tools/kube-apiserver-1.<minor>, with their
#   place (ENVTEST_ASSETS_1_36, _1_33)              kube-scheduler and kube-controller-manager
#                                                   (1.36: hack/tools/etcd; 1.33: etcd 3.5)
#   1.31, 1.32 and 1.35, for upgrade's save and     hack/tools/kube-apiserver-1.<minor>, etcd 3.5
#   re-create (ENVTEST_ASSETS_1_31, _1_32, _1_35)   (1.35: hack/tools/etcd), and the kube-scheduler
#                                                   and kube-controller-manager of 1.30–1.32
#   1.26 and 1.34: only for `make record`           hack/tools/kube-apiserver-1.<minor>, etcd 3.5
#   (--releases, ENVTEST_ASSETS_1_<minor>)          (1.34: hack/tools/etcd)
#   kube-scheduler and kube-controller-manager      the same module as that release's
#   of 1.34, 1.35 and 1.37: only for `make record`  kube-apiserver, into its assets directory
#   (--releases)
#   1.32.0's kube-apiserver, kube-scheduler and     hack/tools/kube-apiserver-1.32.0, etcd 3.5
#   kube-controller-manager: only for `make record`
#   (--releases, ENVTEST_ASSETS_1_32_0)
#
# Each comes from `setup-envtest use` when setup-envtest is on PATH and its
# download works; else it is built from the Go module proxy, pinned in its own
# module under hack/tools/ (go.mod + tools.go). Tools live in <cache>/tools/.
#
# A binary that exists and runs (--version) is not rebuilt. Builds go to a
# temporary directory, are smoke-tested, then renamed into place; concurrent
# runs wait on flock(1). A cold build on 2 cores: kube-apiserver ~3.5 min (~7
# optimised), etcd and kubectl ~20 s, Helm 4 ~1.5 min (Helm 3 then seconds: its
# go.mod requires Helm 4's versions, so it reuses Helm 4's packages), promtool
# ~1 min, kustomize ~10 s, each old kube-apiserver ~2.5 min, each record-only
# scheduler or controller-manager ~2-3 min.
#
# Usage:
#   hack/envtest-assets.sh                  build what is missing
#   hack/envtest-assets.sh --env            same, then print KUBEBUILDER_ASSETS=…,
#                                           ENVTEST_ASSETS_1_30=…, KUBECTL=…, KUSTOMIZE=…,
#                                           HELM=…, HELM3=…, PROMTOOL=… on stdout, one a line
#   hack/envtest-assets.sh --releases       also the record-only releases (and
#                                           print their ENVTEST_ASSETS_1_<minor>)
#   hack/envtest-assets.sh --bench          the current release's control plane
#                                           optimised, as it ships (`make bench`)
#   hack/envtest-assets.sh --print-assets-dir[=1.<minor>]
#                                           print one assets directory (the
#                                           current release's, or that release's)
#
# GOFLAGS is replaced by -mod=readonly and GOWORK is off, so the main
# module's flags cannot change these builds.
set -euo pipefail

usage() { sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"; }

print_env=false releases=false bench=false print_release=""
for arg in "$@"; do
	case "$arg" in
	--env) print_env=true ;;
	--releases) releases=true ;;
	--bench) bench=true ;;
	--print-assets-dir) print_release=current ;;
	--print-assets-dir=1.*) print_release="${arg#*=}" ;;
	-h | --help) usage; exit 0 ;;
	*) echo "envtest-assets: unknown argument: $arg (see --help)" >&2; exit 2 ;;
	esac
done

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
TOOLS="$ROOT/hack/tools"
source "$ROOT/hack/cache.sh"
mkdir -p "$CACHE/k8s" "$CACHE/tools"

export GOWORK=off GOFLAGS=-mod=readonly CGO_ENABLED=0

log() { echo "envtest-assets: $*" >&2; }

# modversion <tools-module-dir> <module-path>: the version <module-path> is
# required at in that go.mod (parsed, offline).
modversion() {
	local v
	v="$(awk -v m="$2" '
		$1 == "require" && $2 == m { print $3; exit }
		$1 == m && $2 ~ /^v/ { print $2; exit }
	' "$1/go.mod")"
	[[ -n "$v" ]] || { log "cannot find $2 in $1/go.mod"; exit 1; }
	echo "$v"
}

GOOS="$(go env GOOS)" GOARCH="$(go env GOARCH)"
native=false
[[ "$GOOS" == "$(go env GOHOSTOS)" && "$GOARCH" == "$(go env GOHOSTARCH)" ]] && native=true

if command -v flock >/dev/null 2>&1; then
	exec 9>"$CACHE/.envtest-assets.lock"
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

# build <tools-module-dir> <main-package> <dest> <gcflags> <ldflags> <tags> <check-args...>
build() {
	local moddir="$1" pkg="$2" dest="$3" gcflags="$4" ldflags="$5" tags="$6"
	shift 6
	local name tmp start
	name="$(basename "$dest")"
	if runs "$dest" "$@"; then
		log "$name: up to date ($dest)"
		return 0
	fi
	mkdir -p "$(dirname "$dest")"
	tmp="$(mktemp -d "$(dirname "$dest")/.tmp-$name.XXXXXX")"
	tmpdirs+=("$tmp")
	log "$name: building $pkg ..."
	start=$SECONDS
	(cd "$moddir" && go build -trimpath -buildvcs=false -tags "$tags" -gcflags "$gcflags" -ldflags "$ldflags" -o "$tmp/$name" "$pkg")
	if ! runs "$tmp/$name" "$@"; then
		log "$name: freshly built binary fails: $name $*"
		"$tmp/$name" "$@" >&2 || true
		exit 1
	fi
	mv -f "$tmp/$name" "$dest"
	log "$name: built in $((SECONDS - start))s -> $dest ($(du -h "$dest" | cut -f1))"
}

# k8s_ldflags <tools-module-dir> <k8s-version>: stamp the version as
# kubernetes' hack/lib/version.sh does; buildDate is the tag's commit time.
k8s_ldflags() {
	local moddir="$1" version="$2" date minor major f="-s -w" pkg
	date="$(cd "$moddir" && go list -m -f '{{.Time.UTC.Format "2006-01-02T15:04:05Z"}}' "k8s.io/kubernetes@$version")"
	minor="${version#v*.}" minor="${minor%%.*}" major="${version#v}" major="${major%%.*}"
	for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
		f+=" -X $pkg.gitVersion=$version -X $pkg.gitMajor=$major -X $pkg.gitMinor=$minor"
		f+=" -X $pkg.gitTreeState=clean -X $pkg.gitCommit= -X $pkg.buildDate=$date"
	done
	echo "$f"
}

# control_plane <kube-apiserver-module> <etcd-module> <gcflags> [<suffix>]: the
# assets directory of that release, downloaded or built; prints it.
control_plane() {
	local version dir etcd_version
	version="$(modversion "$1" k8s.io/kubernetes)"
	dir="$CACHE/k8s/${version#v}-$GOOS-$GOARCH${4:-}"
	if [[ -z "${4:-}" ]] && ! runs "$dir/kube-apiserver" --version && command -v setup-envtest >/dev/null 2>&1; then
		setup-envtest use "${version#v}" --bin-dir "$CACHE" -p path >/dev/null 2>&1 ||
			log "setup-envtest has no ${version#v} here; building it"
	fi
	build "$1" k8s.io/kubernetes/cmd/kube-apiserver "$dir/kube-apiserver" "$3" "$(k8s_ldflags "$1" "$version")" "" --version
	etcd_version="$(modversion "$2" go.etcd.io/etcd/server/v3)"
	build "$2" go.etcd.io/etcd/server/v3 "$CACHE/etcd/$etcd_version-$GOOS-$GOARCH${4:-}/etcd" "$3" "-s -w" "" --version
	[[ -x "$dir/etcd" ]] || ln -sfn "../../etcd/$etcd_version-$GOOS-$GOARCH${4:-}/etcd" "$dir/etcd"
	echo "$dir"
}

# The control planes and the tools the tests run build without optimisation
# or inlining: they compile in half the time, and the oracles reuse their
# packages. `make bench` measures the current release optimised, as it ships
# (--bench), in directories of its own.
unopt="all=-N -l"
current="$(control_plane "$TOOLS/kube-apiserver" "$TOOLS/etcd" "$unopt")"
# kubectl of the current release, as setup-envtest ships it: the kubectl
# plugin test runs `kubectl claimbridge` through it.
v="$(modversion "$TOOLS/kube-apiserver" k8s.io/kubernetes)"
kubectl="$current/kubectl"
build "$TOOLS/kube-apiserver" k8s.io/kubernetes/cmd/kubectl "$kubectl" "$unopt" "$(k8s_ldflags "$TOOLS/kube-apiserver" "$v")" "" version --client
$bench && current="$(control_plane "$TOOLS/kube-apiserver" "$TOOLS/etcd" "" -optimised)"
r130="$(control_plane "$TOOLS/kube-apiserver-1.30" "$TOOLS/etcd-3.5" "$unopt")"
declare -A old=([1.36]="$(control_plane "$TOOLS/kube-apiserver-1.36" "$TOOLS/etcd" "$unopt")"
	[1.31]="$(control_plane "$TOOLS/kube-apiserver-1.31" "$TOOLS/etcd-3.5" "$unopt")"
	[1.32]="$(control_plane "$TOOLS/kube-apiserver-1.32" "$TOOLS/etcd-3.5" "$unopt")"
	[1.33]="$(control_plane "$TOOLS/kube-apiserver-1.33" "$TOOLS/etcd-3.5" "$unopt")"
	[1.35]="$(control_plane "$TOOLS/kube-apiserver-1.35" "$TOOLS/etcd" "$unopt")")

v="$(modversion "$TOOLS/kustomize" sigs.k8s.io/kustomize/kustomize/v5)"
kustomize="$CACHE/tools/kustomize-$v"
build "$TOOLS/kustomize" sigs.k8s.io/kustomize/kustomize/v5 "$kustomize" "$unopt" "-s -w" "" version
v="$(modversion "$TOOLS/helm" helm.sh/helm/v4)"
helm="$CACHE/tools/helm-$v"
build "$TOOLS/helm" helm.sh/helm/v4/cmd/helm "$helm" "$unopt" "-s -w -X helm.sh/helm/v4/internal/version.version=$v" "" version
# Helm 3: the executable post-renderer form (--post-renderer PATH).
v="$(modversion "$TOOLS/helm3" helm.sh/helm/v3)"
helm3="$CACHE/tools/helm-$v"
build "$TOOLS/helm3" helm.sh/helm/v3/cmd/helm "$helm3" "$unopt" "-s -w -X helm.sh/helm/v3/internal/version.version=$v" "" version
# promtool checks and unit-tests rules only: no service discovery (remove_all_sd).
v="$(modversion "$TOOLS/promtool" github.com/prometheus/prometheus)"
promtool="$CACHE/tools/promtool-$v"
build "$TOOLS/promtool" github.com/prometheus/prometheus/cmd/promtool "$promtool" "$unopt" \
	"-s -w -X github.com/prometheus/common/version.Version=$v" remove_all_sd --version

if $releases || [[ "$print_release" =~ ^1\.(26|34|32\.0)$ ]]; then
	for minor in 26 34; do
		etcd="$TOOLS/etcd-3.5"
		((minor < 34)) || etcd="$TOOLS/etcd"
		old[1.$minor]="$(control_plane "$TOOLS/kube-apiserver-1.$minor" "$etcd" "$unopt")"
	done
	old[1.32.0]="$(control_plane "$TOOLS/kube-apiserver-1.32.0" "$TOOLS/etcd-3.5" "$unopt")"
fi

# components <tools-module-dir> <assets-dir>: that release's kube-scheduler
# and kube-controller-manager, beside its kube-apiserver.
components() {
	local v c
	v="$(modversion "$1" k8s.io/kubernetes)"
	for c in kube-scheduler kube-controller-manager; do
		build "$1" "k8s.io/kubernetes/cmd/$c" "$2/$c" "$unopt" "$(k8s_ldflags "$1" "$v")" "" --version
	done
}
# 1.30's, 1.31's and 1.32's, for upgrade's save and re-create through the whole control plane.
components "$TOOLS/kube-apiserver-1.30" "$r130"
components "$TOOLS/kube-apiserver-1.31" "${old[1.31]}"
components "$TOOLS/kube-apiserver-1.32" "${old[1.32]}"
# 1.36's and 1.33's, for upgrade's rollback of 1.36 in place (1.36's
# kube-controller-manager also runs the storage version migrator).
components "$TOOLS/kube-apiserver-1.36" "${old[1.36]}"
components "$TOOLS/kube-apiserver-1.33" "${old[1.33]}"
if $releases; then
	components "$TOOLS/kube-apiserver" "$current"
	for minor in 35 34; do components "$TOOLS/kube-apiserver-1.$minor" "${old[1.$minor]}"; done
	components "$TOOLS/kube-apiserver-1.32.0" "${old[1.32.0]}"
fi

if $print_env; then
	echo "KUBEBUILDER_ASSETS=$current"
	echo "ENVTEST_ASSETS_1_30=$r130"
	for r in "${!old[@]}"; do echo "ENVTEST_ASSETS_${r//./_}=${old[$r]}"; done
	echo "KUBECTL=$kubectl"
	echo "KUSTOMIZE=$kustomize"
	echo "HELM=$helm"
	echo "HELM3=$helm3"
	echo "PROMTOOL=$promtool"
fi
case "$print_release" in
"") ;;
current) echo "$current" ;;
1.30) echo "$r130" ;;
*) [[ -n "${old[$print_release]:-}" ]] || { log "no control plane for $print_release"; exit 2; }; echo "${old[$print_release]}" ;;
esac
