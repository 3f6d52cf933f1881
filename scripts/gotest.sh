#!/usr/bin/env bash
# go test over every package, with the e2e package (the suite's long pole) split into
# SLIPWAY_E2E_SHARDS processes (default 2) that start first, each with its own dev server,
# beside one `go test` of every other package. Extra arguments go to every `go test`.
#
#   scripts/gotest.sh -count=1 -timeout 60m
#
# Its tests go to the shards round-robin in name order, so neighbours (often one feature's
# slow tests) land apart. Exits non-zero when any `go test` failed.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
go=${GO:-go}
shards=${SLIPWAY_E2E_SHARDS:-2}
if ! [[ "$shards" =~ ^[1-9][0-9]*$ ]]; then
	echo "gotest.sh: SLIPWAY_E2E_SHARDS=$shards: must be a whole number of at least 1" >&2
	exit 2
fi

e2e=./testsuite/e2e
mapfile -t tests < <(sed -n 's/^func \(Test[A-Za-z0-9_]*\)([A-Za-z_][A-Za-z0-9_]* \*testing\.T).*/\1/p' "$e2e"/*_test.go | sort)
if ((${#tests[@]} == 0)); then
	echo "gotest.sh: no tests found in $e2e" >&2
	exit 1
fi
mapfile -t others < <("$go" list ./... | grep -v '/testsuite/e2e$')

pids=() names=()
for ((i = 0; i < shards; i++)); do
	picked=()
	for ((j = i; j < ${#tests[@]}; j += shards)); do picked+=("${tests[j]}"); done
	((${#picked[@]})) || continue
	run="^($(
		IFS='|'
		echo "${picked[*]}"
	))\$"
	SLIPWAY_SHARD="$((i + 1))-of-${shards}" "$go" test "$@" -run "$run" "$e2e" &
	pids+=($!) names+=("e2e shard $((i + 1)) of ${shards} (${#picked[@]} tests)")
done
"$go" test "$@" "${others[@]}" &
pids+=($!) names+=("every other package")

status=0
for k in "${!pids[@]}"; do
	if ! wait "${pids[k]}"; then
		echo "gotest.sh: ${names[k]} failed" >&2
		status=1
	fi
done
exit "$status"
