#!/usr/bin/env bash
# hack/oracle-assets.sh — build the upstream validation oracles (one program per
# Kubernetes release: 1.26, 1.30, 1.31, and 1.38 from its pre-release) from the Go module proxy into the cache
# (hack/cache.sh), for `make record`: test/oracle keeps their answers.
#
# Each oracle is its own Go module under hack/oracle/k8s-1.<minor>/ pinning
# k8s.io/kubernetes v1.<minor>.x and the matching k8s.io staging modules (one
# module cannot require three k8s.io/kubernetes versions). It reads scenarios
# as JSON on stdin and prints that release's own verdict (decoding, defaulting,
# registry strategy, validation) as JSON; test/oracle compares it with
# claimbridge's. See docs/validation.md.
#
#   <cache>/oracle/k8s-1.<minor>-<hash>   the binary, keyed by a hash of its module's sources
#   <cache>/oracle/k8s-1.<minor>          symlink to the current one (what the tests run)
#
# Idempotent: a binary whose sources are unchanged is not rebuilt. Builds go to a
# temporary file, are smoke-tested (--version) and renamed into place. Concurrent
# runs are serialised with flock(1) when available. A cold build takes about
# 1-2 minutes per release on 2 cores (plus module downloads).
#
# Usage: hack/oracle-assets.sh [--print-dir]   (--print-dir: print <cache>/oracle as the last line)
set -euo pipefail

print_dir=false
for arg in "$@"; do
	case "$arg" in
	--print-dir) print_dir=true ;;
	-h | --help) sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"; exit 0 ;;
	*) echo "oracle-assets: unknown argument: $arg (see --help)" >&2; exit 2 ;;
	esac
done

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
source "$ROOT/hack/cache.sh"
OUT="$CACHE/oracle"
mkdir -p "$OUT"

# The main module's GOFLAGS (-race, -cover, -mod=vendor …) must not leak into
# these builds; old releases build with the local toolchain as they are, a
# pre-release with the one its go.mod's toolchain line names (Go 1.27 for 1.38).
# -gcflags matches the old kube-apiservers' (hack/envtest-assets.sh), so a cold
# build reuses their compiled packages.
export GOWORK=off GOFLAGS=-mod=readonly CGO_ENABLED=0 GOTOOLCHAIN=local
unset GOOS GOARCH

log() { echo "oracle-assets: $*" >&2; }

if command -v flock >/dev/null 2>&1; then
	exec 9>"$OUT/.lock"
	flock 9
fi

for moddir in "$ROOT"/hack/oracle/k8s-1.*/; do
	name="$(basename "$moddir")"
	hash="$(cd "$moddir" && cat go.mod go.sum $(ls *.go | sort) | sha256sum | cut -c1-12)"
	dest="$OUT/$name-$hash"
	if [[ -x "$dest" ]] && "$dest" --version >/dev/null 2>&1; then
		log "$name: up to date ($dest)"
	else
		tmp="$(mktemp "$OUT/.tmp-$name.XXXXXX")"
		log "$name: building ..."
		start=$SECONDS
		toolchain="$(sed -n 's/^toolchain //p' "$moddir/go.mod")"
		if ! (cd "$moddir" && GOTOOLCHAIN="${toolchain:-local}" go build -trimpath -buildvcs=false -gcflags "all=-N -l" -ldflags "-s -w" -o "$tmp" .); then
			rm -f "$tmp"
			log "$name: build failed"
			exit 1
		fi
		if ! "$tmp" --version >/dev/null; then
			rm -f "$tmp"
			log "$name: freshly built oracle fails: $name --version"
			exit 1
		fi
		mv -f "$tmp" "$dest"
		log "$name: built in $((SECONDS - start))s -> $dest"
	fi
	ln -sfn "$(basename "$dest")" "$OUT/.$name.tmp"
	mv -Tf "$OUT/.$name.tmp" "$OUT/$name"
done
if $print_dir; then
	echo "$OUT"
fi
