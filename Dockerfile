# slipway worker image (used by docker-compose.yml).
#   docker build -t slipway-worker .
# Stage 1 compiles the binaries; stage 2 is a slim runtime with git, bubblewrap (exec hooks run
# in it when the host allows user namespaces; the worker logs which confinement is in force) and
# the terraform release the tests pin, from HashiCorp's signed apt repository.

FROM golang:1.26-bookworm AS build
WORKDIR /src
# Module downloads are cached in their own layer, rebuilt only when go.mod/go.sum change.
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -o /out/slipway-worker ./worker \
 && CGO_ENABLED=0 go build -trimpath -o /out/slipway ./starter

FROM debian:bookworm-slim
ARG TERRAFORM_VERSION=1.11.4
RUN set -eux; \
    apt-get update; \
    apt-get install -y --no-install-recommends ca-certificates curl gnupg git bubblewrap; \
    curl -fsSL https://apt.releases.hashicorp.com/gpg \
      | gpg --dearmor -o /usr/share/keyrings/hashicorp-archive-keyring.gpg; \
    echo "deb [signed-by=/usr/share/keyrings/hashicorp-archive-keyring.gpg] https://apt.releases.hashicorp.com bookworm main" \
      > /etc/apt/sources.list.d/hashicorp.list; \
    apt-get update; \
    apt-get install -y --no-install-recommends "terraform=${TERRAFORM_VERSION}-1"; \
    apt-get purge -y --auto-remove curl gnupg; \
    rm -rf /var/lib/apt/lists/*; \
    terraform version; git --version; bwrap --version
# Runs unprivileged; all state (GitOps clone, terraform work dirs) lives on the volume.
RUN useradd --system --create-home --home-dir /var/lib/slipway --shell /usr/sbin/nologin slipway
COPY --from=build /out/slipway-worker /out/slipway /usr/local/bin/
USER slipway
WORKDIR /var/lib/slipway
ENV SLIPWAY_STATE_DIR=/var/lib/slipway
VOLUME ["/var/lib/slipway"]
ENTRYPOINT ["/usr/local/bin/slipway-worker"]
