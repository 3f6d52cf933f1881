#!/usr/bin/env bash
# Retire the old branches of a workflow.GetVersion change (docs/versions.md):
#   scripts/retire-version.sh CHANGE-ID [VERSION]
# lists the running workflows that may still take them (through the TemporalChangeVersion search
# attribute, with the temporal CLI and its TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, ... settings),
# then prints the steps that remain. VERSION is the newest branch to retire (default -1, the
# DefaultVersion branch). It changes nothing.
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ $# -lt 1 || $# -gt 2 ]]; then
	echo "usage: scripts/retire-version.sh CHANGE-ID [VERSION]" >&2
	exit 2
fi
temporal=${SLIPWAY_TEMPORAL:-$(scripts/tools.sh temporal)}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/retire-version" ./scripts/retire-version
# Bad input (an unknown change or version) exits 2 with the reason.
query=$("$tmp/retire-version" query "$@")
echo "== running workflows that may still take these branches: $query"
"$temporal" workflow list --query "$query"
echo "== count: $("$temporal" workflow count --query "$query")"
echo
"$tmp/retire-version" steps "$@"
