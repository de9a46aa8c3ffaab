# odlm-render images. Default target `function`: the KRM function (kustomize and kpt run
# container functions as user nobody). Target `cli`: the odlm-render command. Target
# `argocd-cmp`: the Argo CD Config Management Plugin sidecar (the CLI, plugin.yaml, user 999).
#
#   docker build .                    # the function, compiled in golang:1.26
#   docker build --target cli .       # the CLI
#   docker build --target argocd-cmp .  # the Argo CD plugin sidecar
#   scripts/docker.sh build           # offline: the same image from bin/odlm-render-fn
#                                     # (FROM_STAGE=prebuilt, a context of host files; no pulls)
#
# Both ways end in the same stages below: FROM scratch with /etc/passwd and /etc/group
# (root, nobody 65534), /etc/ssl/certs/ca-certificates.crt, the binary in /usr/local/bin,
# USER 65534:65534. Build with BuildKit: it skips the stage that is not selected.

# where the runtime files come from: `build` (compile here) or `prebuilt` (the build context)
ARG FROM_STAGE=build

# the build context is a folder laid out like the image: usr/local/bin/odlm-render-fn,
# etc/passwd, etc/group, etc/ssl/certs/ca-certificates.crt (scripts/docker.sh writes it)
FROM scratch AS prebuilt
COPY . /out/

FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=dev
ENV CGO_ENABLED=0 GOTOOLCHAIN=local
RUN ldflags="-s -w -X github.com/odlm-render/odlm-render/internal/version.Version=${VERSION}" && \
    go build -trimpath -ldflags "$ldflags" -o /out/usr/local/bin/odlm-render ./cmd/odlm-render && \
    go build -trimpath -ldflags "$ldflags" -o /out/usr/local/bin/odlm-render-fn ./fn && \
    mkdir -p /out/etc/ssl/certs && \
    cp /etc/ssl/certs/ca-certificates.crt /out/etc/ssl/certs/ && \
    mkdir -p /out/home/argocd/cmp-server/config && \
    cp deploy/argocd/plugin.yaml /out/home/argocd/cmp-server/config/plugin.yaml && \
    printf 'root:x:0:0:root:/root:/sbin/nologin\nargocd:x:999:999:argocd:/home/argocd:/sbin/nologin\nnobody:x:65534:65534:nobody:/nonexistent:/sbin/nologin\n' > /out/etc/passwd && \
    printf 'root:x:0:\nargocd:x:999:\nnobody:x:65534:\n' > /out/etc/group

FROM ${FROM_STAGE} AS files

FROM scratch AS cli
COPY --from=files /out/etc/passwd /out/etc/group /etc/
COPY --from=files /out/etc/ssl/certs/ca-certificates.crt /etc/ssl/certs/
COPY --from=files /out/usr/local/bin/odlm-render /usr/local/bin/odlm-render
USER 65534:65534
ENTRYPOINT ["/usr/local/bin/odlm-render"]

# kpt and kustomize run it with --user nobody: /etc/passwd must name that user
FROM scratch AS function
COPY --from=files /out/etc/passwd /out/etc/group /etc/
COPY --from=files /out/etc/ssl/certs/ca-certificates.crt /etc/ssl/certs/
COPY --from=files /out/usr/local/bin/odlm-render-fn /usr/local/bin/odlm-render-fn
USER 65534:65534
ENTRYPOINT ["/usr/local/bin/odlm-render-fn"]

# Argo CD runs the sidecar with its own cmp-server as the command
# (/var/run/argocd/argocd-cmp-server, from a shared volume) as user 999; the server reads
# /home/argocd/cmp-server/config/plugin.yaml and runs `odlm-render argocd-generate`.
FROM scratch AS argocd-cmp
COPY --from=files /out/etc/passwd /out/etc/group /etc/
COPY --from=files /out/etc/ssl/certs/ca-certificates.crt /etc/ssl/certs/
COPY --from=files /out/usr/local/bin/odlm-render /usr/local/bin/odlm-render
COPY --from=files --chown=999:999 /out/home/argocd /home/argocd
ENV PATH=/usr/local/bin
USER 999:999
ENTRYPOINT ["/usr/local/bin/odlm-render"]
