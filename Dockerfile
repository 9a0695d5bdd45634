# Build a static kubage binary, then ship it alone on a distroless nonroot base.
FROM golang:1.26 AS builder
ARG TARGETOS
ARG TARGETARCH
WORKDIR /workspace

# Dependencies first, so source edits do not invalidate the module cache layer.
COPY go.mod go.sum ./
RUN go mod download

COPY api/ api/
COPY cmd/ cmd/
COPY controllers/ controllers/
COPY internal/ internal/
RUN CGO_ENABLED=0 GOOS=${TARGETOS:-linux} GOARCH=${TARGETARCH} \
    go build -trimpath -ldflags="-s -w" -o kubage ./cmd/kubage

FROM gcr.io/distroless/static:nonroot
WORKDIR /
COPY --from=builder /workspace/kubage /kubage
USER 65532:65532
ENTRYPOINT ["/kubage"]
