# syntax=docker/dockerfile:1
#
# gamesolver: a static binary on distroless/static, running as uid 65532.
#
#   docker build --build-arg VERSION=$(git describe --tags --always --dirty) -t gamesolver .
#   docker run --stop-timeout 40 -p 8080:8080 -v gamesolver-data:/data gamesolver
#
# Needs BuildKit (the default builder of Docker 23+) for the cache mounts.
# The build stage runs on the builder's platform and cross-compiles, so
# `docker buildx build --platform linux/amd64,linux/arm64` needs no emulation.

# The patch release of go.mod's go line (TestDockerfileGoVersion): the image
# sets GOTOOLCHAIN=local, so an older cached golang:1.26 would stop the build.
FROM --platform=$BUILDPLATFORM golang:1.26.8-bookworm AS build
WORKDIR /src
ENV CGO_ENABLED=0
# Modules first: this layer and the module cache survive source edits.
COPY go.mod go.sum ./
RUN --mount=type=cache,target=/go/pkg/mod \
    go mod download
COPY . .
ARG VERSION=dev
ARG TARGETOS TARGETARCH
RUN --mount=type=cache,target=/go/pkg/mod \
    --mount=type=cache,target=/root/.cache/go-build \
    GOOS=$TARGETOS GOARCH=$TARGETARCH \
    go build -trimpath -ldflags "-s -w -X main.version=${VERSION}" -o /out/gamesolver ./cmd/gamesolver
# The data dir must exist and belong to the runtime user in the image: a new
# named volume mounted on /data copies this owner, so tablebases can be built
# into it. (distroless has no shell to mkdir/chown in the final stage.)
RUN mkdir -p /out/data

FROM gcr.io/distroless/static-debian12:nonroot
ARG VERSION=dev
LABEL org.opencontainers.image.title="gamesolver" \
      org.opencontainers.image.description="Exact analysis of Teeko and polyomino games over a REST API" \
      org.opencontainers.image.source="https://github.com/gamesolver/gamesolver" \
      org.opencontainers.image.version="${VERSION}"
COPY --from=build /out/gamesolver /gamesolver
COPY --from=build --chown=65532:65532 /out/data /data
# Tablebases are built into /data on the first start (about 10 s on two idle
# cores, a minute on a busy machine) and
# loaded from it afterwards: keep it on a volume.
VOLUME ["/data"]
ENV GAMESOLVER_ADDR=:8080 \
    GAMESOLVER_DATA_DIR=/data
EXPOSE 8080
USER 65532:65532
# `gamesolver healthcheck` GETs /healthz on the loopback and exits 0 on a 200
# (distroless has no curl or wget): at GAMESOLVER_METRICS_ADDR's port when it
# is set, else GAMESOLVER_ADDR's. A worker (`docker run ... worker`) has no
# listener but its metrics address: run it with -e GAMESOLVER_METRICS_ADDR=:9090
# (or --no-healthcheck). Liveness only: /readyz (503 while tables build)
# gates traffic.
HEALTHCHECK --interval=30s --timeout=5s --start-period=90s --retries=3 \
    CMD ["/gamesolver", "healthcheck"]
ENTRYPOINT ["/gamesolver"]
CMD ["serve"]
