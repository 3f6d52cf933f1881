#!/usr/bin/env bash
# Run one phase of a build and print its wall time:
#
#   scripts/phase.sh NAME cmd [args...]   →   "== NAME: 12.3s" (or "FAILED … after")
#
# The command's exit status is passed through. Sourcing this file defines the
# same thing as a `phase` function, so scripts can time their own functions.

phase() {
	if (($# < 2)); then
		echo "usage: phase NAME cmd [args...]" >&2
		return 2
	fi
	local name="$1" start_us elapsed_us took status=0
	shift
	# EPOCHREALTIME (bash 5) gives microseconds without forking date.
	start_us="${EPOCHREALTIME/[.,]/}"
	echo "== ${name}…" >&2
	"$@" || status=$?
	elapsed_us=$((${EPOCHREALTIME/[.,]/} - start_us))
	took="$((elapsed_us / 1000000)).$(((elapsed_us / 100000) % 10))s"
	if ((status == 0)); then
		echo "== ${name}: ${took}" >&2
	else
		echo "== ${name}: FAILED (exit ${status}) after ${took}" >&2
	fi
	return "$status"
}

if [[ "${BASH_SOURCE[0]}" == "$0" ]]; then
	set -euo pipefail
	phase "$@"
fi
