#!/usr/bin/env bash
# Installs the pinned external tools the integration tests and `make lint` run, into .cache/tools/bin
# (kept between runs on the same machine). Prints the bin folder.
set -euo pipefail
cd "$(dirname "$0")/.."
export GOTOOLCHAIN=local
bin="$PWD/.cache/tools/bin"
mkdir -p "$bin"
# golangci-lint, built with the local Go toolchain (a linter built with an older Go refuses
# code of a newer one); the build takes about 5 minutes on 2 cores, then it is cached
GOLANGCI_LINT_VERSION=v2.15.0
if ! "$bin/golangci-lint" version 2>/dev/null | grep -q "version ${GOLANGCI_LINT_VERSION#v} built with $(go env GOVERSION) "; then
  echo "installing golangci-lint $GOLANGCI_LINT_VERSION" >&2
  GOBIN="$bin" GOFLAGS=-mod=mod go install "github.com/golangci/golangci-lint/v2/cmd/golangci-lint@$GOLANGCI_LINT_VERSION" >&2
fi
# `scripts/tools.sh golangci-lint` (make lint) installs golangci-lint alone
if [ "${1:-}" = golangci-lint ]; then
  echo "$bin"
  exit 0
fi
KUSTOMIZE_VERSION=v5.8.2   # v5.8.3 needs Go 1.27
if ! "$bin/kustomize" version 2>/dev/null | grep -q "$KUSTOMIZE_VERSION"; then
  echo "installing kustomize $KUSTOMIZE_VERSION" >&2
  GOBIN="$bin" GOFLAGS=-mod=mod go install "sigs.k8s.io/kustomize/kustomize/v5@$KUSTOMIZE_VERSION" >&2
fi
# kpt: the go machine image ships kpt 1.0.0-beta.56 (Debian package google-cloud-cli-kpt);
# elsewhere, build v1.0.0-beta.54, the newest tag the Go module proxy serves under the
# module path github.com/GoogleContainerTools/kpt (kpt has no final v1; newer tags need
# modules the proxy refuses). That build takes about 5 minutes and needs cgo.
KPT_BUILD_VERSION=v1.0.0-beta.54
if [ ! -x "$bin/kpt" ]; then
  if [ -z "${KPT_FROM_SOURCE:-}" ] && command -v kpt >/dev/null 2>&1 && kpt version 2>/dev/null | grep -q '^1\.0\.0-beta\.5[4-9]'; then
    ln -sf "$(command -v kpt)" "$bin/kpt"
  else
    echo "building kpt $KPT_BUILD_VERSION" >&2
    src="$PWD/.cache/tools/kpt-src"
    mkdir -p "$src"
    cat > "$src/go.mod" <<EOM
module kptbuild

go 1.26.0

require github.com/GoogleContainerTools/kpt $KPT_BUILD_VERSION
EOM
    printf '//go:build tools\n\npackage tools\n\nimport _ "github.com/GoogleContainerTools/kpt"\n' > "$src/tools.go"
    # this kpt version is absent from the checksum database: skip it for this module only
    (cd "$src" && GONOSUMDB=github.com/GoogleContainerTools/kpt GOFLAGS=-mod=mod go mod tidy >&2 &&
      GONOSUMDB=github.com/GoogleContainerTools/kpt GOFLAGS=-mod=mod go build -o "$bin/kpt" github.com/GoogleContainerTools/kpt >&2)
  fi
fi
# CRDs of the External Secrets Operator, for validating what --bindinfo-secrets
# external-secrets renders (from the pinned Go module: data, not code we build)
ESO_VERSION=v0.20.4
crds="$PWD/.cache/tools/crds/external-secrets-$ESO_VERSION"
if [ ! -f "$crds/external-secrets.io_secretstores.yaml" ]; then
  echo "fetching External Secrets Operator $ESO_VERSION CRDs" >&2
  dir=$(cd "$(mktemp -d)" && GOFLAGS=-mod=mod go mod download -json "github.com/external-secrets/external-secrets@$ESO_VERSION" | sed -n 's/.*"Dir": "\(.*\)",*/\1/p')
  mkdir -p "$crds"
  cp "$dir/config/crds/bases/external-secrets.io_externalsecrets.yaml" "$dir/config/crds/bases/external-secrets.io_secretstores.yaml" "$crds/"
fi
echo "$bin"
