#!/usr/bin/env bash
# hack/older-builds.sh — build older claimbridge builds, pinned by commit, from
# this clone's own git history into the cache (hack/cache.sh), for the rollback and
# mixed-rollout suite (test/envtest/builds): an operator rolls the webhook back
# to one of them, or runs it beside this build during a roll.
#
#   <cache>/older-builds/<commit>/claimbridge   `go build ./cmd/claimbridge` of that commit
#   <cache>/older-builds/<commit>/crds.yaml     `kustomize build config/crd` of that commit
#                                           (rolling back across defaulting rolls the CRDs back too)
#
# The pinned commits (why each):
#   a47459f  the last build before the defaults in conversion (867d02e; chart 0.3.0): its
#            restore data is made against sections without defaults, and it has no /default
#   0e199e8  the last build of chart 0.4.0 (the defaults, /default), the release before this one
#   bd67635  a recent build, before the restore diff's sort (7613a88)
#
# Idempotent: a commit whose binary and CRDs are there and whose binary runs is
# not rebuilt. A shallow clone fetches its history first (git fetch --unshallow);
# a commit still missing is an error saying so, never a skip. Concurrent runs are serialised with
# flock(1) when available. A cold build takes about a minute per commit on 2 cores.
#
# Usage: hack/older-builds.sh [--print-dir]   (--print-dir: print the directory as the last line)
# OLDER_BUILDS_OUT overrides the directory (default <cache>/older-builds);
# KUSTOMIZE names kustomize (hack/envtest-assets.sh --env prints it).
set -euo pipefail

COMMITS=(
	a47459fa4543f63d16954082c78a5ab985f52136
	0e199e8508ffd39501dc37269a2efc60edbd60a6
	bd676352552df868a6b0d316d68be55502de6a55
)

print_dir=false
for arg in "$@"; do
	case "$arg" in
	--print-dir) print_dir=true ;;
	-h | --help) sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"; exit 0 ;;
	*) echo "older-builds: unknown argument: $arg (see --help)" >&2; exit 2 ;;
	esac
done

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
source "$ROOT/hack/cache.sh"
OUT="${OLDER_BUILDS_OUT:-$CACHE/older-builds}"
KUSTOMIZE="${KUSTOMIZE:-}"
mkdir -p "$OUT"

# The main module's GOFLAGS (-race, -cover …) must not leak into these builds.
# Otherwise they build as `make test` builds the tests (cgo as the environment
# says, -trimpath), so they reuse the packages those compiled.
export GOWORK=off GOFLAGS=-mod=readonly GOTOOLCHAIN=local
unset GOOS GOARCH

log() { echo "older-builds: $*" >&2; }

if [[ ! -x "$KUSTOMIZE" ]]; then
	log "no kustomize at '$KUSTOMIZE': set KUSTOMIZE (hack/envtest-assets.sh --env prints it)"
	exit 1
fi
if command -v flock >/dev/null 2>&1; then
	exec 9>"$OUT/.lock"
	flock 9
fi

for commit in "${COMMITS[@]}"; do
	short="${commit:0:7}"
	dest="$OUT/$short"
	if [[ -x "$dest/claimbridge" && -s "$dest/crds.yaml" ]] && "$dest/claimbridge" serve --help >/dev/null 2>&1; then
		log "$short: up to date ($dest)"
		continue
	fi
	if ! git -C "$ROOT" cat-file -e "$commit^{commit}" 2>/dev/null &&
		[[ "$(git -C "$ROOT" rev-parse --is-shallow-repository 2>/dev/null)" == true ]]; then
		# A shallow clone: its origin has the history.
		log "$short: not in this shallow clone; fetching the history (git fetch --unshallow) ..."
		git -C "$ROOT" fetch --quiet --unshallow >&2 || log "git fetch --unshallow failed"
	fi
	if ! git -C "$ROOT" cat-file -e "$commit^{commit}" 2>/dev/null; then
		log "$short: commit $commit is not in this clone's history: fetch it (git fetch --unshallow, or clone without --depth)"
		exit 1
	fi
	src="$(mktemp -d "${TMPDIR:-/tmp}/claimbridge-$short.XXXXXX")"
	trap 'rm -rf "$src"' EXIT
	log "$short: building ..."
	start=$SECONDS
	git -C "$ROOT" archive "$commit" | tar -x -C "$src"
	tmp="$(mktemp -d "$OUT/.tmp-$short.XXXXXX")"
	if ! (cd "$src" && go build -trimpath -buildvcs=false -o "$tmp/claimbridge" ./cmd/claimbridge); then
		rm -rf "$tmp"
		log "$short: build failed"
		exit 1
	fi
	if ! "$KUSTOMIZE" build "$src/config/crd" >"$tmp/crds.yaml"; then
		rm -rf "$tmp"
		log "$short: kustomize build config/crd failed"
		exit 1
	fi
	if ! "$tmp/claimbridge" serve --help >/dev/null; then
		rm -rf "$tmp"
		log "$short: freshly built claimbridge fails: serve --help"
		exit 1
	fi
	rm -rf "$dest"
	mv -T "$tmp" "$dest"
	rm -rf "$src"
	trap - EXIT
	log "$short: built in $((SECONDS - start))s -> $dest"
done
if $print_dir; then
	echo "$OUT"
fi
