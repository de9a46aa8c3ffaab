#!/usr/bin/env bash
# A real kube-apiserver + etcd on 127.0.0.1, for the live-cluster tests (read-only reader).
#
#   scripts/apiserver.sh build           build/install the binaries into .cache/apiserver/bin (cached;
#                                        a second run takes seconds). Prints the bin folder.
#   scripts/apiserver.sh built           exit 0 if the binaries are built, 1 if not (no output)
#   scripts/apiserver.sh start [DIR]     start etcd + kube-apiserver (loopback only, free ports), wait for
#                                        /readyz, write DIR/admin.kubeconfig and DIR/reader.kubeconfig.
#                                        DIR defaults to a new temporary folder. Prints DIR (only line on stdout).
#                                        Every request is audited at level Metadata (no bodies), one JSON
#                                        line each in DIR/audit.log (policy: DIR/audit-policy.yaml).
#   scripts/apiserver.sh stop [DIR]      stop kube-apiserver, wait, then etcd. DIR defaults to
#                                        $ODLM_RENDER_APISERVER_DIR. Removes DIR/etcd-data, keeps the logs.
#   scripts/apiserver.sh env [DIR]       print shell exports (ODLM_RENDER_APISERVER_DIR, KUBECONFIG)
#
# kube-apiserver is built from the Go module proxy (k8s.io/kubernetes, staging modules pinned with
# replace directives); etcd is Debian's etcd-server (apt-get) or, without apt, built from
# go.etcd.io/etcd/server/v3. Nothing here talks to anything but the module proxy, the apt mirror and
# 127.0.0.1.
#
# Settings (environment):
#   ODLM_APISERVER_K8S_VERSION   kube-apiserver version (default 1.36.3)
#   ODLM_APISERVER_ETCD_FROM     auto (default: apt if usable, else go) | apt | go
#   ODLM_APISERVER_ETCD_VERSION  etcd version for the go build (default 3.6.8)
#   ODLM_APISERVER_PORT, ODLM_APISERVER_ETCD_PORT, ODLM_APISERVER_ETCD_PEER_PORT
#                                fixed ports (default: free ports picked at random, retried on conflict)
#   ODLM_APISERVER_OWNER_PID     if set, a watcher stops the cluster once that process has exited
#   ODLM_APISERVER_READY_TIMEOUT seconds to wait for /readyz (default 90)
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
CACHE="$ROOT/.cache/apiserver"
BIN="$CACHE/bin"
SELF="$ROOT/scripts/apiserver.sh"
K8S_VERSION="${ODLM_APISERVER_K8S_VERSION:-1.36.3}"
ETCD_VERSION="${ODLM_APISERVER_ETCD_VERSION:-3.6.8}"
ETCD_FROM="${ODLM_APISERVER_ETCD_FROM:-auto}"
READY_TIMEOUT="${ODLM_APISERVER_READY_TIMEOUT:-90}"

log() { echo "apiserver.sh: $*" >&2; }
die() { log "$*"; exit 1; }

# ---------------------------------------------------------------------------------------------- build

kas_ok() { [ -x "$BIN/kube-apiserver" ] && "$BIN/kube-apiserver" --version 2>/dev/null | grep -qx "Kubernetes v${K8S_VERSION}"; }
etcd_ok() { [ -x "$BIN/etcd" ] && "$BIN/etcd" --version >/dev/null 2>&1; }

build_kas() {
  kas_ok && return 0
  command -v go >/dev/null || die "go is needed to build kube-apiserver"
  log "building kube-apiserver v${K8S_VERSION} from the Go module proxy (about 7 minutes on 2 cores the first time)"
  local src="$CACHE/src/kube-apiserver-v${K8S_VERSION}"
  mkdir -p "$src" "$BIN"
  local minor_patch="${K8S_VERSION#*.}"   # 36.3
  local staging="v0.${minor_patch}"       # v0.36.3
  (
    cd "$src"
    export GOTOOLCHAIN=local GOFLAGS=-mod=mod GOWORK=off CGO_ENABLED=0
    if [ ! -f go.sum ]; then
      printf 'module example.invalid/kubeapiserver\n\ngo 1.26.0\n\nrequire k8s.io/kubernetes v%s\n' "$K8S_VERSION" > go.mod
      local modfile
      modfile="$(go mod download -json "k8s.io/kubernetes@v${K8S_VERSION}" | sed -n 's/.*"GoMod": "\(.*\)".*/\1/p')"
      [ -f "$modfile" ] || die "could not download k8s.io/kubernetes@v${K8S_VERSION}"
      {
        echo
        echo "replace ("
        # every staging module that k8s.io/kubernetes maps to ./staging/src/... and also requires
        local m
        for m in $(grep -E '=> \./staging/src/' "$modfile" | awk '{print $1}'); do
          if grep -qE "^[[:space:]]+${m//./\\.} v" "$modfile"; then
            printf '\t%s => %s %s\n' "$m" "$m" "$staging"
          fi
        done
        echo ")"
      } >> go.mod
      printf '//go:build tools\n\npackage tools\n\nimport _ "k8s.io/kubernetes/cmd/kube-apiserver"\n' > tools.go
      go mod tidy >&2 || { rm -f go.sum; exit 1; }
    fi
    go build -trimpath -o "$BIN/kube-apiserver.tmp" \
      -ldflags "-s -w -X k8s.io/component-base/version.gitVersion=v${K8S_VERSION} -X k8s.io/component-base/version.gitMajor=${K8S_VERSION%%.*} -X k8s.io/component-base/version.gitMinor=${minor_patch%%.*}" \
      k8s.io/kubernetes/cmd/kube-apiserver >&2
  )
  mv -f "$BIN/kube-apiserver.tmp" "$BIN/kube-apiserver"
  kas_ok || die "built kube-apiserver does not report v${K8S_VERSION}"
}

apt_usable() {
  command -v apt-get >/dev/null || return 1
  [ "$(id -u)" = 0 ] || { command -v sudo >/dev/null && sudo -n true 2>/dev/null; } || return 1
}

etcd_from_apt() {
  if ! command -v etcd >/dev/null; then
    local sudo=""
    [ "$(id -u)" = 0 ] || sudo="sudo -n"
    log "installing etcd-server with apt-get"
    # installing does not start a service in a container (policy-rc.d) and we never enable one
    $sudo apt-get update >&2 || return 1
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y --no-install-recommends etcd-server >&2 || return 1
  fi
  command -v etcd >/dev/null || return 1
  mkdir -p "$BIN"
  ln -sfn "$(command -v etcd)" "$BIN/etcd"
}

etcd_from_go() {
  command -v go >/dev/null || die "go is needed to build etcd"
  log "building etcd v${ETCD_VERSION} from the Go module proxy (about 1.5 minutes)"
  local src="$CACHE/src/etcd-v${ETCD_VERSION}" v="v${ETCD_VERSION}"
  mkdir -p "$src" "$BIN"
  (
    cd "$src"
    export GOTOOLCHAIN=local GOFLAGS=-mod=mod GOWORK=off CGO_ENABLED=0
    if [ ! -f go.sum ]; then
      # etcd's own go.mod replaces its sibling modules with ../ paths, so `go install @v` is impossible;
      # requiring all of them at the same version works.
      printf 'module example.invalid/etcd\n\ngo 1.26.0\n\nrequire (\n' > go.mod
      local m
      for m in server api client/pkg client pkg; do printf '\tgo.etcd.io/etcd/%s/v3 %s\n' "$m" "$v" >> go.mod; done
      printf ')\n' >> go.mod
      printf '//go:build tools\n\npackage tools\n\nimport _ "go.etcd.io/etcd/server/v3"\n' > tools.go
      go mod tidy >&2 || { rm -f go.sum; exit 1; }
    fi
    go build -trimpath -ldflags "-s -w" -o "$BIN/etcd.tmp" go.etcd.io/etcd/server/v3 >&2
  )
  rm -f "$BIN/etcd"
  mv -f "$BIN/etcd.tmp" "$BIN/etcd"
}

build_etcd() {
  etcd_ok && return 0
  case "$ETCD_FROM" in
    apt) etcd_from_apt || die "apt-get install etcd-server failed" ;;
    go) etcd_from_go ;;
    auto)
      if apt_usable && etcd_from_apt; then :; else
        log "apt-get is not usable here; building etcd from Go modules instead"
        etcd_from_go
      fi ;;
    *) die "ODLM_APISERVER_ETCD_FROM must be auto, apt or go" ;;
  esac
  etcd_ok || die "etcd is not runnable: $BIN/etcd"
}

build() {
  mkdir -p "$CACHE"
  # one build at a time (parallel callers wait, then find everything built)
  exec 9>"$CACHE/build.lock"
  if command -v flock >/dev/null; then flock 9; fi
  build_kas
  build_etcd
  echo "$BIN"
}

built() { kas_ok && etcd_ok; }

# ---------------------------------------------------------------------------------------------- start

port_in_use() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

free_port() {
  local p _
  for _ in $(seq 1 100); do
    p=$(( (RANDOM * 32768 + RANDOM) % 30000 + 20000 ))
    case " ${TAKEN:-} " in *" $p "*) continue ;; esac
    if ! port_in_use "$p"; then TAKEN="${TAKEN:-} $p"; echo "$p"; return 0; fi
  done
  die "no free loopback port found"
}

alive() { [ -f "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null; }

gen_certs() {
  local d="$1/pki"
  mkdir -p "$d"
  (
    cd "$d"
    umask 077
    openssl ecparam -name prime256v1 -genkey -noout -out ca.key 2>/dev/null
    openssl req -x509 -new -key ca.key -sha256 -days 3650 -subj "/CN=odlm-render-test-ca" -out ca.crt 2>/dev/null
    openssl ecparam -name prime256v1 -genkey -noout -out apiserver.key 2>/dev/null
    openssl req -new -key apiserver.key -subj "/CN=kube-apiserver" -out apiserver.csr 2>/dev/null
    printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\nkeyUsage=critical,digitalSignature,keyEncipherment\nbasicConstraints=CA:FALSE\n' > apiserver.ext
    openssl x509 -req -in apiserver.csr -CA ca.crt -CAkey ca.key -CAcreateserial -sha256 -days 3650 \
      -extfile apiserver.ext -out apiserver.crt 2>/dev/null
    openssl genrsa -out sa.key 2048 2>/dev/null
    openssl rsa -in sa.key -pubout -out sa.pub 2>/dev/null
  ) || die "openssl failed"
}

# who did what, never bodies: one event per request (ResponseComplete; RequestReceived is omitted)
write_audit_policy() {
  cat > "$1" <<'EOF'
apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived]
rules:
- level: Metadata
EOF
}

token() { head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n'; }

write_kubeconfig() { # file user token
  cat > "$1" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: odlm-render-test
  cluster:
    server: $SERVER
    certificate-authority: $RUN/pki/ca.crt
users:
- name: $2
  user:
    token: $3
contexts:
- name: $2
  context: {cluster: odlm-render-test, user: $2}
current-context: $2
EOF
  chmod 600 "$1"
}

# one attempt with the ports in KAS_PORT/ETCD_PORT/ETCD_PEER_PORT; returns 2 if a process died early
# (a port conflict, most likely), 1 on other failures
start_once() {
  rm -rf "$RUN/etcd-data" "$RUN/audit.log"
  local fast=()   # throwaway data: skip fsync where this etcd can (3.5+; Debian's 3.4 cannot)
  if "$BIN/etcd" --help 2>&1 | grep -q -- '--unsafe-no-fsync'; then fast=(--unsafe-no-fsync); fi
  "$BIN/etcd" --name odlm-render-test --data-dir "$RUN/etcd-data" \
    --listen-client-urls "http://127.0.0.1:${ETCD_PORT}" --advertise-client-urls "http://127.0.0.1:${ETCD_PORT}" \
    --listen-peer-urls "http://127.0.0.1:${ETCD_PEER_PORT}" --initial-advertise-peer-urls "http://127.0.0.1:${ETCD_PEER_PORT}" \
    --initial-cluster "odlm-render-test=http://127.0.0.1:${ETCD_PEER_PORT}" \
    "${fast[@]}" --snapshot-count 10000 \
    </dev/null >"$RUN/etcd.log" 2>&1 &
  echo $! > "$RUN/etcd.pid"
  local i
  for i in $(seq 1 100); do   # 20 s
    alive "$RUN/etcd.pid" || { log "etcd exited; see $RUN/etcd.log"; return 2; }
    curl -sf --max-time 1 "http://127.0.0.1:${ETCD_PORT}/health" >/dev/null 2>&1 && break
    [ "$i" = 100 ] && { log "etcd not healthy after 20 s; see $RUN/etcd.log"; return 1; }
    sleep 0.2
  done

  "$BIN/kube-apiserver" \
    --etcd-servers="http://127.0.0.1:${ETCD_PORT}" \
    --bind-address=127.0.0.1 --advertise-address=127.0.0.1 --secure-port="${KAS_PORT}" \
    --tls-cert-file="$RUN/pki/apiserver.crt" --tls-private-key-file="$RUN/pki/apiserver.key" \
    --cert-dir="$RUN/pki/generated" \
    --token-auth-file="$RUN/tokens.csv" \
    --authorization-mode=RBAC \
    --service-account-issuer=https://kubernetes.default.svc \
    --service-account-key-file="$RUN/pki/sa.pub" \
    --service-account-signing-key-file="$RUN/pki/sa.key" \
    --service-cluster-ip-range=10.96.0.0/24 \
    --disable-admission-plugins=ServiceAccount \
    --profiling=false \
    --audit-policy-file="$RUN/audit-policy.yaml" \
    --audit-log-path="$RUN/audit.log" --audit-log-format=json --audit-log-mode=blocking \
    </dev/null >"$RUN/kube-apiserver.log" 2>&1 &
  echo $! > "$RUN/kube-apiserver.pid"

  local code steps=$(( READY_TIMEOUT * 4 ))
  for i in $(seq 1 "$steps"); do
    alive "$RUN/kube-apiserver.pid" || { log "kube-apiserver exited; see $RUN/kube-apiserver.log"; return 2; }
    code=$(curl -s --max-time 2 --cacert "$RUN/pki/ca.crt" -o /dev/null -w '%{http_code}' \
      -H "Authorization: Bearer $ADMIN_TOKEN" "$SERVER/readyz" 2>/dev/null || true)
    [ "$code" = 200 ] && return 0
    sleep 0.25
  done
  log "kube-apiserver not ready after ${READY_TIMEOUT} s; see $RUN/kube-apiserver.log"
  return 1
}

start() {
  built || die "kube-apiserver/etcd are not built; run: scripts/apiserver.sh build"
  command -v openssl >/dev/null || die "openssl is needed"
  command -v curl >/dev/null || die "curl is needed"
  if [ -n "${1:-}" ]; then RUN="$1"; mkdir -p "$RUN"; else RUN="$(mktemp -d "${TMPDIR:-/tmp}/odlm-apiserver.XXXXXX")"; fi
  RUN="$(cd "$RUN" && pwd)"
  if alive "$RUN/kube-apiserver.pid" || alive "$RUN/etcd.pid"; then die "a cluster is already running in $RUN"; fi

  gen_certs "$RUN"
  write_audit_policy "$RUN/audit-policy.yaml"
  ADMIN_TOKEN="$(token)"
  local reader_token
  reader_token="$(token)"
  # token,user,uid,"group1,group2": admin is a cluster admin; reader has no groups (RBAC grants only)
  ( umask 077; printf '%s,admin,admin-uid,"system:masters"\n%s,reader,reader-uid\n' "$ADMIN_TOKEN" "$reader_token" > "$RUN/tokens.csv" )

  local attempt rc fixed=""
  [ -n "${ODLM_APISERVER_PORT:-}${ODLM_APISERVER_ETCD_PORT:-}${ODLM_APISERVER_ETCD_PEER_PORT:-}" ] && fixed=1
  for attempt in 1 2 3; do
    TAKEN=""
    KAS_PORT="${ODLM_APISERVER_PORT:-$(free_port)}"
    ETCD_PORT="${ODLM_APISERVER_ETCD_PORT:-$(free_port)}"
    ETCD_PEER_PORT="${ODLM_APISERVER_ETCD_PEER_PORT:-$(free_port)}"
    SERVER="https://127.0.0.1:${KAS_PORT}"
    rc=0
    start_once || rc=$?
    [ "$rc" = 0 ] && break
    stop_run "$RUN"
    if [ "$rc" != 2 ] || [ -n "$fixed" ] || [ "$attempt" = 3 ]; then die "start failed (run dir $RUN)"; fi
    log "retrying with other ports"
  done

  echo "$SERVER" > "$RUN/server"
  write_kubeconfig "$RUN/admin.kubeconfig" admin "$ADMIN_TOKEN"
  write_kubeconfig "$RUN/reader.kubeconfig" reader "$reader_token"
  if [ -n "${ODLM_APISERVER_OWNER_PID:-}" ]; then
    # stop the cluster when the owner (a test binary) is gone, even if it was killed
    nohup bash -c 'while kill -0 "$1" 2>/dev/null && [ -f "$3/kube-apiserver.pid" ]; do sleep 1; done; "$2" stop "$3"' \
      watcher "$ODLM_APISERVER_OWNER_PID" "$SELF" "$RUN" </dev/null >/dev/null 2>&1 &
  fi
  log "ready at $SERVER (kube-apiserver pid $(cat "$RUN/kube-apiserver.pid"), etcd pid $(cat "$RUN/etcd.pid"))"
  echo "$RUN"
}

# ----------------------------------------------------------------------------------------------- stop

# stop the process in a pid file if it is still the named program: TERM, wait up to 30 s, then KILL
stop_pid() { # pidfile program
  local f="$1" prog="$2" pid i
  [ -f "$f" ] || return 0
  pid="$(cat "$f")"
  if kill -0 "$pid" 2>/dev/null && tr '\0' ' ' < "/proc/$pid/cmdline" 2>/dev/null | grep -q "$prog"; then
    kill -TERM "$pid" 2>/dev/null || true
    for i in $(seq 1 120); do kill -0 "$pid" 2>/dev/null || break; sleep 0.25; done
    if kill -0 "$pid" 2>/dev/null; then log "$prog ($pid) did not stop in 30 s; killing it"; kill -KILL "$pid" 2>/dev/null || true; sleep 0.2; fi
  fi
  rm -f "$f"
}

stop_run() {
  # apiserver first (it shuts down slowly when etcd disappears under it), then etcd
  stop_pid "$1/kube-apiserver.pid" kube-apiserver
  stop_pid "$1/etcd.pid" etcd
}

stop() {
  local run="${1:-${ODLM_RENDER_APISERVER_DIR:-}}"
  [ -n "$run" ] || die "stop: no run dir (argument or ODLM_RENDER_APISERVER_DIR)"
  [ -d "$run" ] || return 0
  stop_run "$run"
  rm -rf "$run/etcd-data"
}

env_cmd() {
  local run="${1:-${ODLM_RENDER_APISERVER_DIR:-}}"
  [ -n "$run" ] && [ -f "$run/admin.kubeconfig" ] || die "env: no started run dir (argument or ODLM_RENDER_APISERVER_DIR)"
  run="$(cd "$run" && pwd)"
  printf 'export ODLM_RENDER_APISERVER_DIR=%q\nexport KUBECONFIG=%q\n' "$run" "$run/admin.kubeconfig"
}

case "${1:-}" in
  build) build ;;
  built) built ;;
  start) start "${2:-}" ;;
  stop) stop "${2:-}" ;;
  env) env_cmd "${2:-}" ;;
  *) echo "usage: $0 build|built|start [DIR]|stop [DIR]|env [DIR]" >&2; exit 2 ;;
esac
