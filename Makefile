# slipway developer entry points (GNU make). `make test` is what CI runs.
SHELL := bash
.SHELLFLAGS := -euo pipefail -c
.DEFAULT_GOAL := build

GO     ?= go
TOOLS  := scripts/tools.sh
PHASE  := scripts/phase.sh
# A fresh clone has no bin/; tools.sh links the cached tools into it.
TEMPORAL      = $$($(TOOLS) temporal)
WORKFLOWCHECK = bin/workflowcheck
# The release `slipway version` prints; the commit comes from Go's VCS stamp, taken only where git
# answers (elsewhere, e.g. a tree git refuses, stamping would fail the build).
VERSION  ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
BUILDVCS := $(shell git rev-parse --is-inside-work-tree >/dev/null 2>&1 && echo auto || echo false)
LDFLAGS  := -X github.com/slipway-dev/slipway/internal/version.Version=$(VERSION)

.PHONY: build deps demo dev test chaos bench bench-go bench-webhook temporal workflowcheck argocd-stack compose-check tidy-check docs clean

## build: bin/slipway (starter CLI) and bin/slipway-worker, stamped with VERSION and the commit
build:
	@$(PHASE) build bash -c '$(GO) build -buildvcs=$(BUILDVCS) -ldflags "$(LDFLAGS)" -o bin/slipway ./starter && $(GO) build -buildvcs=$(BUILDVCS) -ldflags "$(LDFLAGS)" -o bin/slipway-worker ./worker'

## temporal: build the pinned temporal CLI once into the tool cache (~9 min cold)
temporal:
	@$(PHASE) "tools temporal" $(TOOLS) temporal

## workflowcheck: build the pinned workflowcheck once into the tool cache
workflowcheck:
	@$(PHASE) "tools workflowcheck" $(TOOLS) workflowcheck

## argocd-stack: build kube-apiserver, kube-controller-manager and argocd once into the tool cache (~19 min cold)
argocd-stack:
	@$(PHASE) "tools kubernetes argocd" $(TOOLS) kubernetes argocd

## deps: Debian packages (git, PostgreSQL, etcd, redis, docker-compose) when missing
deps:
	@$(PHASE) "apt packages" scripts/apt-deps.sh

## demo: the full lifecycle of an example instance on the embedded default
## (dev server, local GitOps repo, real terraform, real ArgoCD on a local kube-apiserver)
demo: deps temporal argocd-stack build
	SLIPWAY_TEMPORAL="$(TEMPORAL)" bin/slipway demo

## dev: dev server + worker + UI, kept running
dev: deps temporal argocd-stack build
	SLIPWAY_TEMPORAL="$(TEMPORAL)" bin/slipway dev

## test: vet, workflowcheck, then every test against real components (screenshots in artifacts/);
## the e2e package runs as SLIPWAY_E2E_SHARDS processes (default 2) beside the rest (scripts/gotest.sh)
test: deps
	@start=$$SECONDS; \
	$(PHASE) tools $(TOOLS) temporal workflowcheck kubernetes argocd gitea temporal-server helm terraform-provider-time tofu >/dev/null; \
	$(PHASE) npm scripts/npm-deps.sh >/dev/null; \
	$(PHASE) vet $(GO) vet ./...; \
	$(PHASE) workflowcheck $(WORKFLOWCHECK) ./workflows/...; \
	figures=$$(mktemp -d); status=0; \
	SLIPWAY_TEMPORAL="$(TEMPORAL)" SLIPWAY_FIGURES_DIR="$$figures" SLIPWAY_ARTIFACTS_DIR="$${SLIPWAY_ARTIFACTS_DIR:-$(CURDIR)/artifacts}" GO="$(GO)" $(PHASE) "go test" scripts/gotest.sh -count=1 -timeout 60m || status=$$?; \
	for f in "$$figures"/*; do if [[ -f "$$f" ]]; then echo "== figures: $$(basename "$$f")" >&2; cat "$$f" >&2; fi; done; \
	rm -rf "$$figures"; \
	echo "== make test total: $$((SECONDS - start))s" >&2; \
	exit $$status

## chaos: kill points, 30% transient faults over 200 lifecycles 8 at a time, a server restart,
## 20 concurrent requests and a secrets grep, on the real dev server, git, terraform and PostgreSQL;
## prints the figures and fails when one is off target (CHAOS_ARGS adds flags, e.g. -v)
chaos: deps temporal
	@$(PHASE) "tools terraform-provider-time" $(TOOLS) terraform-provider-time >/dev/null
	SLIPWAY_TEMPORAL="$(TEMPORAL)" $(GO) run ./testsuite/chaos -lifecycles 200 -parallel 8 -fault-rate 0.3 $(CHAOS_ARGS)

## bench: one table on a real dev server: the Temporal floor, each pipeline against it, an update
## deploy on real git and terraform split by where the time goes, 10/100/1,000 concurrent lifecycles
## and 1,000/10,000 parked instances; raw figures in bench/results/ (BENCH_ARGS narrows it, e.g. -rows floor,pipelines)
bench: temporal
	SLIPWAY_TEMPORAL="$(TEMPORAL)" $(GO) run ./testsuite/bench $(BENCH_ARGS)

## bench-go: the Go benchmarks (activity step, update deploy, observer over an idle fleet)
bench-go: temporal
	SLIPWAY_TEMPORAL="$(TEMPORAL)" $(GO) test -count=1 -run '^$$' -bench . -benchtime 20x ./testsuite/e2e/

## bench-webhook: 1,000 signed deliveries (20% redelivered, 10% badly signed), 32 at a time, Temporal frozen 3s halfway, on a real dev server
bench-webhook: temporal
	SLIPWAY_TEMPORAL="$(TEMPORAL)" $(GO) run ./testsuite/webhookbench -n 1000 -concurrency 32 -dup 0.2 -bad 0.1 -outage 3s

## retire-version: the running workflows still on CHANGE's old branches (up to UPTO, default the
## DefaultVersion one) and the steps that retire them (docs/versions.md); it changes nothing
.PHONY: retire-version
retire-version:
	@[[ -n "$(CHANGE)" ]] || { echo "usage: make retire-version CHANGE=<change-id> [UPTO=<n>]" >&2; exit 2; }
	SLIPWAY_TEMPORAL="$(TEMPORAL)" scripts/retire-version.sh "$(CHANGE)" $(UPTO)

## compose-check: docker-compose.yml is testsuite/production's topology and the chart's (static checks,
## the schema job on a real PostgreSQL), plus `docker-compose config` when docker-compose is installed
compose-check:
	@$(PHASE) "tools helm" $(TOOLS) helm >/dev/null
	@$(PHASE) compose-check $(GO) test -count=1 -run 'TestCompose|TestDocker' ./testsuite/packaging/

## tidy-check: fail when go.mod/go.sum are not tidy
tidy-check:
	@$(PHASE) tidy-check $(GO) mod tidy -diff

## docs: regenerate the CLI reference (docs/reference/cli, one page per command) from the code
docs:
	$(GO) run ./internal/cli/gendocs docs/reference/cli

## clean: remove build output (the tool cache outside the clone stays)
clean:
	rm -rf bin/ coverage.out coverage.html *.coverprofile
