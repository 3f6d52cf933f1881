#!/usr/bin/env bash
# Install the npm packages the tests run (testsuite/oidcprovider/provider: the OpenID
# provider) with `npm ci` from its package-lock.json, into a cache OUTSIDE the clone keyed
# by the lock file's hash, and link the provider's git-ignored node_modules to it, so fresh
# CI clones reuse it. Prints the cached node_modules path on stdout.
# $SLIPWAY_NPM_DIR overrides the cache (default ~/.cache/slipway/npm). Without node or npm it
# says so and exits 0 (the tests skip), unless SLIPWAY_REQUIRE_OIDC=1.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cache="${SLIPWAY_NPM_DIR:-${HOME}/.cache/slipway/npm}"
src="${root}/testsuite/oidcprovider/provider"

for tool in node npm; do
	if ! command -v "$tool" >/dev/null; then
		echo "npm-deps: ${tool} not found: the OpenID provider tests will skip (install Node.js 20 or newer)" >&2
		[[ "${SLIPWAY_REQUIRE_OIDC:-}" == 1 ]] && exit 1
		exit 0
	fi
done

major="$(node -p 'process.versions.node.split(".")[0]')"
if ((major < 20)); then
	echo "npm-deps: node $(node --version) is too old for oidc-provider 9: install Node.js 20 or newer" >&2
	exit 1
fi

sum="$(sha256sum "${src}/package-lock.json" | cut -c1-16)"
dest="${cache}/oidcprovider-${sum}"
if [[ ! -f "${dest}/.complete" ]]; then
	echo "npm-deps: npm ci for testsuite/oidcprovider/provider into ${dest}" >&2
	rm -rf "${dest}.tmp"
	mkdir -p "${dest}.tmp"
	cp "${src}/package.json" "${src}/package-lock.json" "${dest}.tmp/"
	npm ci --prefix "${dest}.tmp" --no-audit --no-fund --ignore-scripts >&2
	touch "${dest}.tmp/.complete"
	rm -rf "${dest}"
	mv "${dest}.tmp" "${dest}"
fi
# A node_modules from a local `npm install` is replaced by the link to the pinned one.
if [[ -e "${src}/node_modules" && ! -L "${src}/node_modules" ]]; then
	rm -rf "${src}/node_modules"
fi
ln -sfn "${dest}/node_modules" "${src}/node_modules"
echo "${dest}/node_modules"
