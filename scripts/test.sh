#!/usr/bin/env bash
# Runs every Go test with the pinned external tools: kustomize and kpt (scripts/tools.sh),
# a local dockerd without network (scripts/docker.sh) and one real kube-apiserver + etcd on
# loopback shared by all packages
# (scripts/apiserver.sh; the first build takes about 8 minutes, then it is cached in .cache/).
set -euo pipefail
cd "$(dirname "$0")/.."
export GOTOOLCHAIN=local GOFLAGS=-mod=mod
scripts/tools.sh >/dev/null
scripts/apiserver.sh build >/dev/null
dir=$(scripts/apiserver.sh start)
trap 'scripts/apiserver.sh stop "$dir" >/dev/null 2>&1 || true; scripts/docker.sh stop >/dev/null 2>&1 || true' EXIT
# a local dockerd without network, for the container-function tests (images are built locally)
DOCKER_HOST=$(scripts/docker.sh start)
export DOCKER_HOST
export ODLM_RENDER_APISERVER_DIR="$dir" ODLM_RENDER_REQUIRE_TOOLS=1
go test -count=1 "$@" ./...
# bounded fuzzing, every run (no input may panic, whatever the options): the whole render with
# fuzzed option sets and snapshots, and templates; counted in executions, not seconds, so that
# a slow input never ends the run with a deadline error
go test ./pkg/render/ -run '^$' -fuzz '^FuzzRender$' -fuzztime 50000x -fuzzminimizetime 10s -timeout 10m
go test ./internal/template/ -run '^$' -fuzz '^FuzzResolve$' -fuzztime 200000x -fuzzminimizetime 10s -timeout 10m
