#!/usr/bin/env bash
# Build and cache pinned tools OUTSIDE the clone, so fresh CI clones reuse them.
#
#   scripts/tools.sh temporal [workflowcheck kubernetes argocd ...]
#
# Prints the cached binaries' paths on stdout (progress goes to stderr) and links
# them into the repo's git-ignored bin/. `kubernetes` (kube-apiserver,
# kube-controller-manager) and `argocd` (one multi-call binary, linked under its
# role names, plus its CRDs) feed testsuite/cluster; `gitea` (plus its static
# files) feeds testsuite/giteaserver; `helm` feeds testsuite/packaging's chart tests; keep their versions in step
# with testsuite/cluster.KubernetesVersion and ArgoCDVersion. $SLIPWAY_TOOLS_DIR overrides the cache
# (default ~/.cache/slipway/tools); internal/devstack/devenv.ToolsDir uses the same rule.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
tools_dir="${SLIPWAY_TOOLS_DIR:-${HOME}/.cache/slipway/tools}"

# tool_spec NAME sets pkg, version and eta for a known tool.
tool_spec() {
	case "$1" in
	temporal)
		# Keep in step with internal/devstack/devenv.TemporalVersion.
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
	kubernetes)
		# Staging modules k8s.io/* are pinned to the matching v0.x tag in a wrapper module.
		pkg=k8s.io/kubernetes
		version=v1.36.3
		staging=v0.36.3
		eta="about 8 minutes once"
		;;
	argocd)
		# v3.2.12 does not compile; v3.4+ needs a gitops-engine the module proxy refuses.
		pkg=github.com/argoproj/argo-cd/v3
		version=v3.2.11
		eta="about 11 minutes once"
		;;
	gitea)
		# Keep in step with testsuite/giteastack.Version; needs cgo for SQLite.
		pkg=code.gitea.io/gitea
		version=v1.26.4
		eta="about 6 minutes once"
		;;
	temporal-server)
		# The real server (and its sql schema tool) for the production topology on PostgreSQL;
		# keep in step with testsuite/temporalcluster.ServerVersion and docker-compose.yml.
		pkg=go.temporal.io/server
		version=v1.29.1
		eta="about 3 minutes once"
		;;
	helm)
		# Renders and lints deploy/helm/slipway in the chart tests; keep in step with
		# testsuite/packaging.HelmVersion.
		pkg=helm.sh/helm/v3/cmd/helm
		version=v3.22.0
		eta="about 4 minutes once"
		;;
	terraform-provider-time)
		# hashicorp/time, whose time_sleep makes an apply take seconds; offered to terraform
		# through a filesystem mirror (testsuite/tfmirror).
		pkg=github.com/hashicorp/terraform-provider-time
		version=v0.14.2
		eta="about a minute once"
		;;
	tofu)
		# OpenTofu, the second engine a stack may name (engine: opentofu); workers find it under
		# SLIPWAY_ENGINES_DIR as tofu-<version>/tofu. Built in a wrapper module: its go.mod replaces hcl.
		pkg=github.com/opentofu/opentofu/cmd/tofu
		module=github.com/opentofu/opentofu
		version=v1.10.10
		eta="about 3 minutes once"
		;;
	*)
		echo "tools.sh: unknown tool '$1' (known: temporal, workflowcheck, kubernetes, argocd, gitea, temporal-server, helm, terraform-provider-time, tofu)" >&2
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

# with_heartbeat NAME CMD...: run CMD in the background, printing a line every
# minute, because CI must not think a silent 10-minute build hung.
with_heartbeat() {
	local name="$1" start=$SECONDS next_beat=60
	shift
	"$@" &
	build_pid=$!
	while kill -0 "$build_pid" 2>/dev/null; do
		sleep 1
		if ((SECONDS - start >= next_beat)); then
			echo "  still building ${name} ${version}… $((SECONDS - start))s" >&2
			next_beat=$((next_beat + 60))
		fi
	done
	local status=0
	wait "$build_pid" || status=$?
	build_pid=""
	return "$status"
}

# build NAME DEST: go install into a temp dir beside DEST, then rename, so a
# killed build never leaves a half-written binary at DEST.
build() {
	local name="$1" dest="$2" start
	build_tmp="$(mktemp -d "${tools_dir}/.build-${name}.XXXXXX")"
	echo "building ${name} ${version} (${eta})… from ${pkg}@${version}" >&2
	start=$SECONDS
	if ! with_heartbeat "$name" env GOBIN="$build_tmp" go install "${pkg}@${version}"; then
		echo "tools.sh: building ${name} ${version} failed" >&2
		return 1
	fi
	mkdir -p "$(dirname "$dest")"
	mv -f "${build_tmp}/${name}" "$dest"
	rm -rf "$build_tmp"
	build_tmp=""
	echo "built ${name} ${version} in $((SECONDS - start))s: ${dest}" >&2
}

# mod_field MODULE@VERSION FIELD: one string field of `go mod download -json`.
mod_field() {
	(cd "$build_tmp" && go mod download -json "$1") | sed -n "s/.*\"$2\": \"\(.*\)\".*/\1/p"
}

# wrapper_build OUT: build $pkg's commands in a generated wrapper module whose
# replace block comes from $pkg's own go.mod (go install ignores replaces).
# Runs inside with_heartbeat; go's chatter goes to build.log.
wrapper_build() {
	local out="$1" gomod wrap="${build_tmp}/wrap" log="${build_tmp}/build.log"
	mkdir -p "$wrap" "$out"
	gomod="$(mod_field "${module:-$pkg}@${version}" GoMod)" || return
	[[ -n "$gomod" ]] || { echo "tools.sh: no go.mod for ${module:-$pkg}@${version}" >&2; return 1; }
	{
		echo "module wrap"
		echo
		echo "go $(awk '/^go /{print $2}' "$gomod")"
		echo
		echo "require ${module:-$pkg} ${version}"
		echo
		if [[ -n "${staging:-}" ]]; then
			# kubernetes replaces staging modules with ./staging paths: use their tags instead.
			echo "replace ("
			sed -n '/^replace (/,/^)/p' "$gomod" | awk -v v="$staging" '/=>/{print "\t"$1" => "$1" "v}'
			echo ")"
		else
			sed -n '/^replace (/,/^)/p' "$gomod"
		fi
		if [[ "$pkg" == code.gitea.io/gitea || "$pkg" == github.com/opentofu/opentofu/cmd/tofu ]]; then
			# gitea and tofu also need their one-line replaces (tofu's fork of hcl), gitea its excludes.
			grep -E '^replace [^(]' "$gomod" || true
			sed -n '/^exclude (/,/^)/p' "$gomod"
			grep -E '^exclude [^(]' "$gomod" || true
		fi
	} >"${wrap}/go.mod"
	(
		cd "$wrap"
		export GOFLAGS=-buildvcs=false GOTOOLCHAIN=local
		case "$pkg" in
		k8s.io/kubernetes)
			local minor
			minor="$(echo "$version" | cut -d. -f2)"
			go get "${pkg}/cmd/kube-apiserver@${version}" "${pkg}/cmd/kube-controller-manager@${version}" &&
				go build -ldflags "-s -w -X k8s.io/component-base/version.gitVersion=${version} \
-X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=${minor} \
-X k8s.io/component-base/version.gitTreeState=clean" \
					-o "${out}/" "${pkg}/cmd/kube-apiserver" "${pkg}/cmd/kube-controller-manager"
			;;
		github.com/opentofu/opentofu/cmd/tofu)
			# dev=no: a release build, whose version has no -dev suffix (which no constraint would meet).
			go get "${pkg}@${version}" && go build -ldflags "-s -w -X github.com/opentofu/opentofu/version.dev=no" -o "${out}/tofu" "${pkg}"
			;;
		code.gitea.io/gitea)
			go get "${pkg}@${version}" &&
				CGO_ENABLED=1 go build -tags 'sqlite sqlite_unlock_notify' \
					-ldflags "-s -w -X main.Version=${version#v}" -o "${out}/gitea" "${pkg}"
			;;
		*)
			go get "${pkg}/cmd@${version}" &&
				go build -ldflags "-s -w -X ${pkg}/common.version=${version#v}" -o "${out}/argocd" "${pkg}/cmd"
			;;
		esac
	) >"$log" 2>&1 || {
		echo "tools.sh: go build failed; last lines of its log:" >&2
		grep -v '^go: \(downloading\|upgraded\|added\)' "$log" | tail -n 40 >&2
		return 1
	}
}

# build_multi NAME DIR: wrapper_build into a temp dir, then rename it to DIR.
build_multi() {
	local name="$1" dir="$2" start
	build_tmp="$(mktemp -d "${tools_dir}/.build-${name}.XXXXXX")"
	echo "building ${name} ${version} (${eta})… from ${pkg}@${version}" >&2
	start=$SECONDS
	if ! with_heartbeat "$name" wrapper_build "${build_tmp}/out"; then
		echo "tools.sh: building ${name} ${version} failed" >&2
		return 1
	fi
	rm -rf "$dir"
	mv "${build_tmp}/out" "$dir"
	rm -rf "$build_tmp"
	build_tmp=""
	echo "built ${name} ${version} in $((SECONDS - start))s: ${dir}" >&2
}

# argocd_extras DIR: role-named links to the multi-call binary, and the CRDs
# testsuite/cluster applies (copied so tests need no module download).
argocd_extras() {
	local dir="$1" role moddir
	for role in argocd-server argocd-repo-server argocd-application-controller; do
		ln -sfn argocd "${dir}/${role}"
	done
	if [[ ! -f "${dir}/crds/application-crd.yaml" || ! -f "${dir}/crds/appproject-crd.yaml" ]]; then
		build_tmp="$(mktemp -d "${tools_dir}/.build-argocd-crds.XXXXXX")"
		moddir="$(mod_field "${pkg}@${version}" Dir)"
		mkdir -p "${build_tmp}/crds"
		cp "${moddir}/manifests/crds/application-crd.yaml" "${moddir}/manifests/crds/appproject-crd.yaml" "${build_tmp}/crds/"
		rm -rf "${dir}/crds"
		mv "${build_tmp}/crds" "${dir}/crds"
		rm -rf "$build_tmp"
		build_tmp=""
	fi
}

# gitea_extras DIR: the templates, options and public dirs gitea serves from
# STATIC_ROOT_PATH (the binary has no bindata), copied so tests need no module download.
gitea_extras() {
	local dir="$1" moddir d
	if [[ ! -d "${dir}/static/templates" || ! -d "${dir}/static/options" || ! -d "${dir}/static/public" ]]; then
		build_tmp="$(mktemp -d "${tools_dir}/.build-gitea-static.XXXXXX")"
		moddir="$(mod_field "${pkg}@${version}" Dir)"
		mkdir -p "${build_tmp}/static"
		for d in templates options public; do
			cp -R "${moddir}/${d}" "${build_tmp}/static/"
		done
		chmod -R u+w "${build_tmp}/static"
		rm -rf "${dir}/static"
		mv "${build_tmp}/static" "${dir}/static"
		rm -rf "$build_tmp"
		build_tmp=""
	fi
}

# build_server DIR: the server and sql tool into DIR under names that do not clash on PATH.
build_server() {
	local dir="$1" start
	build_tmp="$(mktemp -d "${tools_dir}/.build-temporal-server.XXXXXX")"
	echo "building temporal-server ${version} (${eta})… from ${pkg}/cmd/server@${version}" >&2
	start=$SECONDS
	if ! with_heartbeat temporal-server env GOBIN="$build_tmp" go install "${pkg}/cmd/server@${version}" "${pkg}/cmd/tools/sql@${version}"; then
		echo "tools.sh: building temporal-server ${version} failed" >&2
		return 1
	fi
	mkdir -p "$dir"
	mv -f "${build_tmp}/server" "${dir}/temporal-server"
	mv -f "${build_tmp}/sql" "${dir}/temporal-sql-tool"
	rm -rf "$build_tmp"
	build_tmp=""
	echo "built temporal-server ${version} in $((SECONDS - start))s: ${dir}" >&2
}

# server_extras DIR: the PostgreSQL schema the sql tool applies, copied so tests need no
# module download.
server_extras() {
	local dir="$1" moddir
	if [[ ! -d "${dir}/schema/postgresql/v12/temporal/versioned" ]]; then
		build_tmp="$(mktemp -d "${tools_dir}/.build-temporal-schema.XXXXXX")"
		moddir="$(mod_field "${pkg}@${version}" Dir)"
		mkdir -p "${build_tmp}/schema/postgresql"
		cp -R "${moddir}/schema/postgresql/v12" "${build_tmp}/schema/postgresql/"
		chmod -R u+w "${build_tmp}/schema"
		rm -rf "${dir}/schema"
		mv "${build_tmp}/schema" "${dir}/schema"
		rm -rf "$build_tmp"
		build_tmp=""
	fi
}

main() {
	if (($# == 0)); then
		echo "usage: scripts/tools.sh temporal|workflowcheck|kubernetes|argocd|gitea|temporal-server|helm|terraform-provider-time|tofu ..." >&2
		return 2
	fi
	mkdir -p "$tools_dir" "${root}/bin"
	local name pkg module version eta staging dir dest bins b
	for name in "$@"; do
		staging=""
		module=""
		tool_spec "$name"
		dir="${tools_dir}/${name}-${version}"
		case "$name" in
		kubernetes) bins=(kube-apiserver kube-controller-manager) ;;
		argocd) bins=(argocd) ;;
		gitea) bins=(gitea) ;;
		temporal-server) bins=(temporal-server temporal-sql-tool) ;;
		*) bins=("$name") ;;
		esac
		for b in "${bins[@]}"; do
			if [[ ! -x "${dir}/${b}" ]]; then
				case "$name" in
				kubernetes | argocd | gitea | tofu) build_multi "$name" "$dir" ;;
				temporal-server) build_server "$dir" ;;
				*) build "$name" "${dir}/${b}" ;;
				esac
				break
			fi
		done
		if [[ "$name" == argocd ]]; then
			argocd_extras "$dir"
			bins+=(argocd-server argocd-repo-server argocd-application-controller)
		fi
		if [[ "$name" == gitea ]]; then
			gitea_extras "$dir"
		fi
		if [[ "$name" == temporal-server ]]; then
			server_extras "$dir"
		fi
		for b in "${bins[@]}"; do
			dest="${dir}/${b}"
			ln -sfn "$dest" "${root}/bin/${b}"
			echo "$dest"
		done
	done
}

main "$@"
