#!/usr/bin/env bash
# A private, network-less Docker daemon for the container-function tests, and the function
# image built offline from bin/odlm-render-fn (no image pulls: the Dockerfile's `function`
# target with FROM_STAGE=prebuilt).
#
#   scripts/docker.sh start   prints the DOCKER_HOST of a daemon the tests may use: the
#                             user's own first ($DOCKER_HOST, or the docker CLI's current
#                             context, printed as an empty line; Podman's docker CLI shim
#                             counts), else, as root only, a private dockerd it starts on a
#                             unix socket under .cache/docker with no network (no bridge, no
#                             iptables), installing Debian's docker.io when dockerd is missing
#                             (reuses a daemon this script started). Exits 1, saying why, when
#                             there is none and it is not root.
#   scripts/docker.sh build   builds the image $ODLM_RENDER_IMAGE (default
#                             localhost/odlm-render-fn:test; a name with a registry part, since
#                             kpt prefixes bare names with gcr.io/kpt-fn/) from $ODLM_RENDER_BINARY
#                             (default bin/odlm-render-fn: run `make build` first), target
#                             $ODLM_RENDER_TARGET (function, or cli from bin/odlm-render), on
#                             $DOCKER_HOST or else the daemon `start` starts; prints the tag
#   scripts/docker.sh stop    stops that daemon
#
# Starting a daemon needs root (dockerd is rootful); using the user's own does not. Only the
# unix socket is used: no TCP, no pulls.
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD/.cache/docker"
image="${ODLM_RENDER_IMAGE:-localhost/odlm-render-fn:test}"
# unix socket paths are limited to 108 bytes, and dockerd's containerd keeps its sockets
# under the exec root: keep that short even when the checkout path is long
if [ "${#root}" -le 48 ]; then
  run="$root/run"
else
  run="/tmp/odlm-render-docker-$(printf %s "$root" | sha256sum | cut -c1-12)"
fi
sock="$run/docker.sock"
host="unix://$sock"
log="$root/dockerd.log"

# the Docker client: Debian's (it drives BuildKit without the buildx plugin) unless the one on
# PATH has buildx
client() {
  if docker buildx version >/dev/null 2>&1; then
    DOCKER_HOST="$host" docker "$@"
  elif [ -x /usr/bin/docker ]; then
    DOCKER_HOST="$host" DOCKER_BUILDKIT=1 /usr/bin/docker "$@"
  else
    DOCKER_HOST="$host" DOCKER_BUILDKIT=1 docker "$@"
  fi
}

# whether a daemon answers on $host
running() {
  client version --format '{{.Server.Version}}' >/dev/null 2>&1
}

install() {
  command -v dockerd >/dev/null 2>&1 && return
  [ "$(id -u)" = 0 ] || { echo "dockerd is missing; run as root to install docker.io" >&2; exit 1; }
  echo "installing docker.io" >&2
  # keep apt from starting a system daemon (with its bridge and iptables rules)
  local guard=""
  if [ ! -e /usr/sbin/policy-rc.d ]; then
    printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d
    chmod +x /usr/sbin/policy-rc.d
    guard=1
  fi
  if ! DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends docker.io >&2; then
    apt-get update >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends docker.io >&2
  fi
  [ -z "$guard" ] || rm -f /usr/sbin/policy-rc.d
}

start() {
  # the user's own daemon (Docker, or Podman behind its docker CLI shim)
  if [ -n "${DOCKER_HOST:-}" ] && command -v docker >/dev/null 2>&1 &&
    docker version --format '{{.Server.Version}}' >/dev/null 2>&1; then
    echo "$DOCKER_HOST"
    return
  fi
  if running; then
    echo "$host"
    return
  fi
  if [ -z "${DOCKER_HOST:-}" ] && command -v docker >/dev/null 2>&1 &&
    docker version --format '{{.Server.Version}}' >/dev/null 2>&1; then
    echo "" # the CLI's current context answers: nothing to set
    return
  fi
  if [ "$(id -u)" != 0 ]; then
    echo "no Docker or Podman daemon answers (DOCKER_HOST, or the docker CLI's context), and starting a private one needs root" >&2
    exit 1
  fi
  install
  mkdir -p "$root/data" "$run"
  if [ -f "$run/dockerd.pid" ] && kill -0 "$(cat "$run/dockerd.pid")" 2>/dev/null; then
    echo "a dockerd ($(cat "$run/dockerd.pid")) owns $run but does not answer; run $0 stop" >&2
    exit 1
  fi
  rm -f "$sock" "$run/dockerd.pid"
  # setsid: the daemon outlives this script and the test run's process group
  setsid dockerd \
    --host "$host" --data-root "$root/data" --exec-root "$run" --pidfile "$run/dockerd.pid" \
    --bridge=none --iptables=false --ip6tables=false --ip-forward=false --ip-masq=false \
    --userland-proxy=false --group "$(id -g)" \
    >"$log" 2>&1 </dev/null &
  local pid=$!
  for _ in $(seq 1 120); do
    if running; then
      echo "$host"
      return
    fi
    if ! kill -0 "$pid" 2>/dev/null; then
      echo "dockerd exited; its log ($log):" >&2
      tail -n 30 "$log" >&2
      exit 1
    fi
    sleep 0.5
  done
  echo "dockerd did not answer within 60 s; its log ($log):" >&2
  tail -n 30 "$log" >&2
  kill "$pid" 2>/dev/null || true
  exit 1
}

stop() {
  local pidfile="$run/dockerd.pid"
  [ -f "$pidfile" ] || return 0
  local pid
  pid=$(cat "$pidfile")
  if kill -0 "$pid" 2>/dev/null; then
    kill "$pid"
    for _ in $(seq 1 60); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.5
    done
    if kill -0 "$pid" 2>/dev/null; then
      echo "dockerd $pid did not stop within 30 s: killing it" >&2
      kill -9 "$pid" 2>/dev/null || true
    fi
  fi
  rm -f "$pidfile" "$sock"
}

build() {
  # an explicit DOCKER_HOST (e.g. the one `start` printed) wins over this checkout's daemon
  host="${DOCKER_HOST:-$host}"
  running || { echo "no daemon on $host: run $0 start" >&2; exit 1; }
  local target="${ODLM_RENDER_TARGET:-function}" bin
  if [ "$target" = cli ] || [ "$target" = argocd-cmp ]; then
    bin="${ODLM_RENDER_BINARY:-bin/odlm-render}"
  else
    bin="${ODLM_RENDER_BINARY:-bin/odlm-render-fn}"
  fi
  [ -x "$bin" ] || { echo "$bin is missing: run make build" >&2; exit 1; }
  # the build context, laid out like the image: the binary and the same /etc files the
  # golang stage writes
  mkdir -p "$root"
  # (global: the EXIT trap runs after this function returned)
  ctx=$(mktemp -d "$root/context.XXXXXX")
  trap 'rm -rf "$ctx"' EXIT
  mkdir -p "$ctx/usr/local/bin" "$ctx/etc/ssl/certs"
  cp "$bin" "$ctx/usr/local/bin/$([ "$target" = function ] && echo odlm-render-fn || echo odlm-render)"
  mkdir -p "$ctx/home/argocd/cmp-server/config"
  cp deploy/argocd/plugin.yaml "$ctx/home/argocd/cmp-server/config/plugin.yaml"
  printf 'root:x:0:0:root:/root:/sbin/nologin\nargocd:x:999:999:argocd:/home/argocd:/sbin/nologin\nnobody:x:65534:65534:nobody:/nonexistent:/sbin/nologin\n' > "$ctx/etc/passwd"
  printf 'root:x:0:\nargocd:x:999:\nnobody:x:65534:\n' > "$ctx/etc/group"
  if [ -f /etc/ssl/certs/ca-certificates.crt ]; then
    cp /etc/ssl/certs/ca-certificates.crt "$ctx/etc/ssl/certs/"
  else
    : > "$ctx/etc/ssl/certs/ca-certificates.crt"
  fi
  # BuildKit builds only the stages the target needs: golang:1.26 is never pulled
  client build --pull=false --network none --build-arg FROM_STAGE=prebuilt \
    --target "$target" -t "$image" -f Dockerfile "$ctx" >&2
  echo "$image"
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  build) build ;;
  *) echo "usage: $0 start|stop|build" >&2; exit 2 ;;
esac
