#!/usr/bin/env bash
# hack/test-tiers.sh — `make test`: run each tier (a make target) in order,
# all of them even when one fails, then print how long each took and
# whether it passed. Exit 1 when a tier failed. The corpus tier runs only
# with CLAIMBRIDGE_CORPUS set; without it the summary says it did not run.
set -uo pipefail

make="${MAKE:-make}"
declare -a results
failed=0
for tier in "$@"; do
	start=$SECONDS
	if [[ "$tier" == test-corpus && -z "${CLAIMBRIDGE_CORPUS:-}" ]]; then
		code=skip
	else
		"$make" --no-print-directory "$tier"
		code=$?
	fi
	secs=$((SECONDS - start))
	case $code in
	0) result="passed" ;;
	skip) result="DID NOT RUN: CLAIMBRIDGE_CORPUS is not set (CI sets it to ../shared/corpus/realworld)" ;;
	*) result="FAILED (exit $code)"; failed=1 ;;
	esac
	results+=("$(printf '%-14s %5ss  %s' "$tier" "$secs" "$result")")
done
echo
echo "make test: tiers"
for r in "${results[@]}"; do echo "  $r"; done
exit $failed
