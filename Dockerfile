# syntax=docker/dockerfile:1
# claimbridge image: a static binary (CGO_ENABLED=0) on distroless/static,
# running as the nonroot user (65532) with the binary as entrypoint.
#   docker build -t claimbridge:dev .
# test/image checks what can be checked without an engine: the static build
# and this file's shape.

FROM --platform=$BUILDPLATFORM golang:1.26 AS build
ARG TARGETOS
ARG TARGETARCH
# The version the binary reports (claimbridge version, the start-up log,
# claimbridge_build_info); .git is not in the build context:
#   docker build --build-arg VERSION=$(git describe --tags --dirty --always) .
ARG VERSION=
WORKDIR /src
# Dependencies first: a source change does not re-download modules.
COPY go.mod go.sum ./
RUN --mount=type=cache,target=/go/pkg/mod go mod download
COPY . .
RUN --mount=type=cache,target=/go/pkg/mod --mount=type=cache,target=/root/.cache/go-build \
    CGO_ENABLED=0 GOOS=$TARGETOS GOARCH=$TARGETARCH \
    go build -trimpath -ldflags "-s -w -X github.com/claimbridge/claimbridge/internal/version.version=${VERSION}" -o /out/claimbridge ./cmd/claimbridge

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/claimbridge /claimbridge
USER 65532:65532
ENTRYPOINT ["/claimbridge"]
