#!/usr/bin/env bash
# Install the Debian packages slipway's embedded default and tests use, when missing:
# git (GitOps repos), PostgreSQL 15 (terraform pg backend tests), etcd-server and
# redis-server (the local kube-apiserver and ArgoCD), docker-compose (compose-check),
# chromium (the Temporal UI checked in a real browser, testsuite/browser), bubblewrap (the sandbox
# exec hooks, and terraform when asked, run in), prometheus (the metrics e2e scrapes a worker with it).
# Reruns with everything present touch no network.
set -euo pipefail

packages=(git postgresql docker-compose ca-certificates etcd-server redis-server chromium bubblewrap prometheus)

sudo=()
if [[ "$(id -u)" != 0 ]]; then
	sudo=(sudo -n)
fi

missing=()
for p in "${packages[@]}"; do
	if [[ "$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null)" != "install ok installed" ]]; then
		missing+=("$p")
	fi
done
if ((${#missing[@]} == 0)); then
	echo "apt: ${packages[*]} already installed" >&2
	exit 0
fi
echo "apt: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -q
"${sudo[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}" </dev/null
