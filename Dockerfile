# slipway worker image (used by docker-compose.yml and deploy/helm/slipway).
#   docker build --build-arg VERSION=1.4.0 -t slipway-worker .
# Stage 1 compiles the binaries; stage 2 is a slim runtime with git, bubblewrap (terraform and
# exec hooks run in it; without a working one the worker refuses terraform steps and exec hooks,
# and logs so at start: see docker-compose.yml for the container settings it needs) and the
# terraform release the tests pin, from HashiCorp's signed apt repository.
# curl stays: compose healthchecks ask /readyz with it.

FROM golang:1.26-bookworm AS build
WORKDIR /src
# Module downloads are cached in their own layer, rebuilt only when go.mod/go.sum change.
COPY go.mod go.sum ./
RUN go mod download
COPY . .
# The release shown by `slipway version`, logs and metrics; the commit comes from Go's build info.
ARG VERSION=dev
RUN ldflags="-X github.com/slipway-dev/slipway/internal/version.Version=${VERSION}" \
 && CGO_ENABLED=0 go build -trimpath -ldflags "$ldflags" -o /out/slipway-worker ./worker \
 && CGO_ENABLED=0 go build -trimpath -ldflags "$ldflags" -o /out/slipway ./starter

FROM debian:bookworm-slim
ARG TERRAFORM_VERSION=1.11.4
RUN set -eux; \
    apt-get update; \
    apt-get install -y --no-install-recommends ca-certificates curl gnupg git bubblewrap tini; \
    curl -fsSL https://apt.releases.hashicorp.com/gpg \
      | gpg --dearmor -o /usr/share/keyrings/hashicorp-archive-keyring.gpg; \
    echo "deb [signed-by=/usr/share/keyrings/hashicorp-archive-keyring.gpg] https://apt.releases.hashicorp.com bookworm main" \
      > /etc/apt/sources.list.d/hashicorp.list; \
    apt-get update; \
    apt-get install -y --no-install-recommends "terraform=${TERRAFORM_VERSION}-1"; \
    apt-get purge -y --auto-remove gnupg; \
    rm -rf /var/lib/apt/lists/*; \
    terraform version; git --version; bwrap --version; tini --version
# Runs unprivileged, under a numeric uid so Kubernetes can check runAsNonRoot; all state (GitOps
# clone, terraform work dirs) lives on the volume.
RUN groupadd --system --gid 10001 slipway \
 && useradd --system --uid 10001 --gid 10001 --create-home --home-dir /var/lib/slipway --shell /usr/sbin/nologin slipway
COPY --from=build /out/slipway-worker /out/slipway /usr/local/bin/
USER 10001:10001
WORKDIR /var/lib/slipway
ENV SLIPWAY_STATE_DIR=/var/lib/slipway
VOLUME ["/var/lib/slipway"]
# tini is PID 1: it forwards SIGTERM to the worker (which drains) and reaps the orphans terraform
# providers and hooks leave, which a Go process as PID 1 would not.
ENTRYPOINT ["/usr/bin/tini", "--", "/usr/local/bin/slipway-worker"]
