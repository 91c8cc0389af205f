#!/usr/bin/env bash
# hack/test-tiers.sh — `make test`: run each tier (a make target) in order,
# all of them even when one fails, then print how long each took and
# whether it passed, and for a failed tier the tests that failed with the
# last lines each printed. Exit 1 when a tier failed. The corpus tier runs
# only with CLAIMBRIDGE_CORPUS set; without it the summary says it did not run.
set -uo pipefail

make="${MAKE:-make}"
logs="$(mktemp -d)"
trap 'rm -rf "$logs"' EXIT
declare -a results failures
failed=0
for tier in "$@"; do
	start=$SECONDS
	if [[ "$tier" == test-corpus && -z "${CLAIMBRIDGE_CORPUS:-}" ]]; then
		code=skip
	else
		"$make" --no-print-directory "$tier" 2>&1 | tee "$logs/$tier"
		code=${PIPESTATUS[0]}
	fi
	secs=$((SECONDS - start))
	case $code in
	0) result="passed" ;;
	skip) result="DID NOT RUN: CLAIMBRIDGE_CORPUS is not set (CI sets it to ../shared/corpus/realworld)" ;;
	*)
		result="FAILED (exit $code)"
		failed=1
		# The failing tests, each with the lines its output ended on.
		failures+=("$tier:" "$(grep -B12 -E -- '^\s*--- FAIL|^FAIL|^panic:|cannot|build failed' "$logs/$tier" | grep -v '^I[0-9]\{4\} ' | tail -60)")
		;;
	esac
	results+=("$(printf '%-14s %5ss  %s' "$tier" "$secs" "$result")")
done
if ((failed)); then
	echo
	echo "make test: what failed"
	printf '%s\n' "${failures[@]}"
fi
echo
echo "make test: tiers"
for r in "${results[@]}"; do echo "  $r"; done
exit $failed
