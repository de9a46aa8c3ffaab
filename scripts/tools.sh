#!/usr/bin/env bash
# Installs the pinned external tools the integration tests run, into .cache/tools/bin
# (kept between runs on the same machine). Prints the bin folder.
set -euo pipefail
cd "$(dirname "$0")/.."
export GOTOOLCHAIN=local
KUSTOMIZE_VERSION=v5.8.2   # v5.8.3 needs Go 1.27
bin="$PWD/.cache/tools/bin"
mkdir -p "$bin"
if ! "$bin/kustomize" version 2>/dev/null | grep -q "$KUSTOMIZE_VERSION"; then
  echo "installing kustomize $KUSTOMIZE_VERSION" >&2
  GOBIN="$bin" GOFLAGS=-mod=mod go install "sigs.k8s.io/kustomize/kustomize/v5@$KUSTOMIZE_VERSION" >&2
fi
echo "$bin"
