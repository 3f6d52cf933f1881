#!/usr/bin/env bash
# Build and cache pinned tools OUTSIDE the clone, so fresh CI clones reuse them.
#
#   scripts/tools.sh temporal [workflowcheck ...]
#
# Prints one cached path per tool on stdout (progress goes to stderr) and links
# each into the repo's git-ignored bin/. $SLIPWAY_TOOLS_DIR overrides the cache
# (default ~/.cache/slipway/tools); internal/devenv.ToolsDir uses the same rule.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
tools_dir="${SLIPWAY_TOOLS_DIR:-${HOME}/.cache/slipway/tools}"

# tool_spec NAME sets pkg, version and eta for a known tool.
tool_spec() {
	case "$1" in
	temporal)
		# Keep in step with internal/devenv.TemporalVersion.
		pkg=github.com/temporalio/cli/cmd/temporal
		version=v1.5.1
		eta="about 9 minutes once"
		;;
	workflowcheck)
		# v0.6.0 is the newest release; it builds with go1.26 and checks code on go.temporal.io/sdk v1.50.0.
		pkg=go.temporal.io/sdk/contrib/tools/workflowcheck
		version=v0.6.0
		eta="under a minute once"
		;;
	*)
		echo "tools.sh: unknown tool '$1' (known: temporal, workflowcheck)" >&2
		return 2
		;;
	esac
}

build_pid=""
build_tmp=""
cleanup() {
	if [[ -n "$build_pid" ]]; then kill "$build_pid" 2>/dev/null || true; fi
	if [[ -n "$build_tmp" ]]; then rm -rf "$build_tmp"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# build NAME DEST: go install into a temp dir beside DEST, then rename, so a
# killed build never leaves a half-written binary at DEST.
build() {
	local name="$1" dest="$2" start next_beat=60
	build_tmp="$(mktemp -d "${tools_dir}/.build-${name}.XXXXXX")"
	echo "building ${name} ${version} (${eta})… from ${pkg}@${version}" >&2
	start=$SECONDS
	GOBIN="$build_tmp" go install "${pkg}@${version}" &
	build_pid=$!
	while kill -0 "$build_pid" 2>/dev/null; do
		sleep 1
		# A heartbeat keeps CI from thinking a silent 9-minute build hung.
		if ((SECONDS - start >= next_beat)); then
			echo "  still building ${name} ${version}… $((SECONDS - start))s" >&2
			next_beat=$((next_beat + 60))
		fi
	done
	if ! wait "$build_pid"; then
		build_pid=""
		echo "tools.sh: building ${name} ${version} failed" >&2
		return 1
	fi
	build_pid=""
	mkdir -p "$(dirname "$dest")"
	mv -f "${build_tmp}/${name}" "$dest"
	rm -rf "$build_tmp"
	build_tmp=""
	echo "built ${name} ${version} in $((SECONDS - start))s: ${dest}" >&2
}

main() {
	if (($# == 0)); then
		echo "usage: scripts/tools.sh temporal|workflowcheck ..." >&2
		return 2
	fi
	mkdir -p "$tools_dir" "${root}/bin"
	local name pkg version eta dest
	for name in "$@"; do
		tool_spec "$name"
		dest="${tools_dir}/${name}-${version}/${name}"
		if [[ ! -x "$dest" ]]; then
			build "$name" "$dest"
		fi
		ln -sfn "$dest" "${root}/bin/${name}"
		echo "$dest"
	done
}

main "$@"
