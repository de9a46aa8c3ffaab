# odlm-render images. Default target: the KRM function (kustomize/kpt container functions run
# it as user nobody). Target `cli`: the odlm-render command.
FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ENV CGO_ENABLED=0 GOTOOLCHAIN=local
RUN go build -trimpath -ldflags '-s -w' -o /out/odlm-render ./cmd/odlm-render && \
    go build -trimpath -ldflags '-s -w' -o /out/odlm-render-fn ./fn

FROM gcr.io/distroless/static-debian12:nonroot AS cli
COPY --from=build /out/odlm-render /usr/local/bin/odlm-render
USER 65534:65534
ENTRYPOINT ["/usr/local/bin/odlm-render"]

# distroless/static ships /etc/passwd with user nobody (65534), which kpt and kustomize ask for
FROM gcr.io/distroless/static-debian12:nonroot AS function
COPY --from=build /out/odlm-render-fn /usr/local/bin/odlm-render-fn
USER 65534:65534
ENTRYPOINT ["/usr/local/bin/odlm-render-fn"]
