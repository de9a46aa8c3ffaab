#!/usr/bin/env bash
# Runs every Go test with the pinned external tools: kustomize and kpt (scripts/tools.sh),
# Docker (the user's own, or as root a private dockerd without network: scripts/docker.sh)
# and one real kube-apiserver + etcd on loopback shared by all packages
# (scripts/apiserver.sh; the first build takes about 8 minutes, then it is cached in .cache/).
set -euo pipefail
cd "$(dirname "$0")/.."
export GOTOOLCHAIN=local GOFLAGS=-mod=mod
# commit messages: subjects of at most 72 characters, then a blank line (CONTRIBUTING.md)
scripts/check-commits.sh
scripts/tools.sh >/dev/null
scripts/apiserver.sh build >/dev/null
dir=$(scripts/apiserver.sh start)
status=1
# tests that need real third-party data (internal/refdata: $ODLM_RENDER_REFERENCE_DATA, else
# ../shared/reference) skip without it, each one line in this log, counted at the end
skiplog=$(mktemp)
export ODLM_RENDER_SKIP_LOG="$skiplog"
cleanup() {
  skipped=$(sort -u "$skiplog" | wc -l)
  if [ "$skipped" -gt 0 ]; then
    echo "test.sh: $skipped tests skipped for want of reference data (set ODLM_RENDER_REFERENCE_DATA to the reference-data folder, or place it at ../shared/reference; docs/testing.md)" >&2
  else
    echo "test.sh: no test skipped for want of reference data" >&2
  fi
  rm -f "$skiplog"
  scripts/apiserver.sh stop "$dir" >/dev/null 2>&1 || true
  scripts/docker.sh stop >/dev/null 2>&1 || true
  # the apiserver's folder (kubeconfigs, logs) is kept only when something failed
  if [ "$status" = 0 ]; then rm -rf "$dir"; else echo "test.sh: kube-apiserver logs kept in $dir" >&2; fi
}
trap cleanup EXIT
# Docker for the container-function tests: the user's own (DOCKER_HOST, the docker CLI's
# context, Podman's docker shim), or as root a private network-less dockerd; with none, those
# tests skip, unless ODLM_RENDER_REQUIRE_TOOLS=1 (CI) makes a missing tool a failure
if docker_host=$(scripts/docker.sh start); then
  [ -z "$docker_host" ] || export DOCKER_HOST="$docker_host"
else
  echo "test.sh: no Docker or Podman: the container-function tests skip" >&2
fi
export ODLM_RENDER_APISERVER_DIR="$dir"
go test -count=1 "$@" ./...
# bounded fuzzing, every run (no input may panic, whatever the options): the whole render with
# fuzzed option sets and snapshots, and templates; counted in executions, not seconds, so that
# a slow input never ends the run with a deadline error
go test ./pkg/render/ -run '^$' -fuzz '^FuzzRender$' -fuzztime 50000x -fuzzminimizetime 10s -timeout 10m
go test ./internal/template/ -run '^$' -fuzz '^FuzzResolve$' -fuzztime 200000x -fuzzminimizetime 10s -timeout 10m
status=0
