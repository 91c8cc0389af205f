# hack/cache.sh — sourced by the asset scripts: the one cache directory that
# every clone of claimbridge on this machine shares (control planes, tools,
# oracles, older builds). Outside the clone, so a fresh clone reuses it.
#
#   $CLAIMBRIDGE_CACHE, else $XDG_CACHE_HOME/claimbridge, else ~/.cache/claimbridge
CACHE="${CLAIMBRIDGE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/claimbridge}"
mkdir -p "$CACHE"

# The builds run the compiler with a larger heap: a tenth less CPU, the same
# output (the Makefile's lint does the same). Tests keep Go's default.
export GOGC="${GOGC:-400}"
