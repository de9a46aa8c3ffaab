#!/usr/bin/env bash
# Scale benchmarks of the render engine and the KRM function, measured in one run, printed
# as one table plus the ratios against the targets of issue 8. Takes a few minutes on 2 cores;
# not part of `make test`.
#
#   scripts/bench.sh            (or `make bench`)
#
# The real catalogs and bundles the fleet renders from are third-party data the repository does
# not hold: they are read from the reference-data folder ($ODLM_RENDER_REFERENCE_DATA, else
# ../shared/reference beside the checkout; see internal/refdata), its copy of the project's
# testdata/catalogs and testdata/bundles. Without it, every section but startup stops with a
# message saying so (SECTIONS=startup runs).
#
# 1. go test -bench BenchmarkRenderScale: N OperandRequests × 3 operands (kube-green,
#    nfs-provisioner-operator, nvidia-network-operator from testdata/catalogs), N = 10 … 10000:
#    ns, B and allocs per op and per operand; linearity = per-operand time at 10000 / at 100;
#    the same fleet with the real CRDs of kube-green and nfs-provisioner-operator on the
#    catalog's heads (validated: what the API server's checks cost), and the same fleet with
#    every request nested one level (an OperandConfig resource that is
#    an OperandRequest), compared per emitted object.
# 2. kustomize build (pinned, scripts/tools.sh) of ~2,000 objects, RUNS times each (medians,
#    wall and CPU): the fleet through bin/odlm-render-fn as an exec transformer and as a
#    generator (inputs read from files); the same fleet through a do-nothing exec transformer
#    (hack/minimal-fn: kustomize's own cost of running any function on that input); and the
#    rendered objects as plain YAML (what the output costs kustomize without a function).
# 3. exec start-up on an empty ResourceList: odlm-render-fn vs a minimal kyaml function (both
#    built as make build builds, started in turns; medians).
# 4. peak RSS of odlm-render-fn on the largest fleet vs its input bytes.
#
# 5. the KRM functions SDK: the same engine behind github.com/kptdev/krm-functions-sdk/go/fn
#    (bench/cmd/sdkfn) against the function's own ResourceList I/O, on SDK_REQUESTS requests
#    and on an empty ResourceList.
#
# 6. the catalog's own snapshot writer and streaming decoder against go.yaml.in/yaml/v3 on the
#    shared community catalog (../shared/catalogs/community-v4.20; the reference folder's copy
#    of testdata/catalogs without it).
#
# 1b. the CLI end to end (bin/odlm-render render, wall and CPU) on 10,000 requests against the
#    engine alone on the same fleet (BenchmarkRenderScale/requests=10000).
#
# SECTIONS="go cli kustomize startup peak sdk lib" (the default) chooses what runs.
set -euo pipefail
export GOTOOLCHAIN=local GOFLAGS=-mod=mod
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
RUNS=${RUNS:-3}             # kustomize builds per variant (median; ~25 s each at 2,000 objects)
STARTS=${STARTS:-50}        # function starts per binary (median)
KUST_REQUESTS=${KUST_REQUESTS:-666}    # × 3 own CRs each ≈ 2,000 objects
PEAK_REQUESTS=${PEAK_REQUESTS:-10000}
SDK_REQUESTS=${SDK_REQUESTS:-10000}
SDK_RUNS=${SDK_RUNS:-3}
SECTIONS=${SECTIONS:-go cli kustomize startup peak sdk lib}
run() { [[ " $SECTIONS " == *" $1 "* ]]; }

# the reference-data folder (absolute: the Go tests resolve it from their package folders)
reference=${ODLM_RENDER_REFERENCE_DATA:-$root/../shared/reference}
catalogs=$reference/odlm-render-testdata/testdata/catalogs
needs=""
for s in go cli kustomize peak sdk; do run "$s" && needs="$needs $s"; done
if run lib && [ ! -d "$root/../shared/catalogs/community-v4.20" ]; then needs="$needs lib"; fi
if [ ! -d "$catalogs" ]; then
  if [ -n "$needs" ]; then
    echo "bench.sh: no reference-data folder: $catalogs does not exist." >&2
    echo "  The sections$needs render real catalogs the repository does not hold; set" >&2
    echo "  ODLM_RENDER_REFERENCE_DATA to the reference-data folder (default ../shared/reference" >&2
    echo "  beside the checkout, see internal/refdata), or run SECTIONS=startup only." >&2
    exit 1
  fi
else
  ODLM_RENDER_REFERENCE_DATA=$(cd "$reference" && pwd)
  export ODLM_RENDER_REFERENCE_DATA
  catalogs=$ODLM_RENDER_REFERENCE_DATA/odlm-render-testdata/testdata/catalogs
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "building bin/ and hack/minimal-fn, installing kustomize…" >&2
make -s build >&2
CGO_ENABLED=0 go build -trimpath -ldflags '-s -w' -o "$work/minimal-fn" ./hack/minimal-fn   # as make build builds the function
kustomize="$(scripts/tools.sh)/kustomize"
fn="$root/bin/odlm-render-fn"

median() { sort -g | awk '{v[NR]=$1} END {print (NR%2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2)}'; }

# timed OUT CMD…: appends "wall-ms cpu-ms" (user+sys of the whole process tree) to OUT
timed() {
  local out=$1; shift
  /usr/bin/time -f '%e %U %S' -o "$work/time.txt" "$@"
  awk '{printf "%.0f %.0f\n", $1*1000, ($2+$3)*1000}' "$work/time.txt" >> "$out"
}

# median_runs FILE: one line per benchmark with the median of each of its figures over the
# runs (-count), in go test's "value unit" layout
median_runs() {
  awk '/^Benchmark/ {
      name = $1; if (!(name in seen)) { seen[name] = 1; order[++n] = name }
      runs[name]++
      for (i = 3; i < NF; i += 2) { unit[name, i] = $(i+1); val[name, i, runs[name]] = $i }
      width[name] = NF
    }
    END {
      for (j = 1; j <= n; j++) { name = order[j]; line = name " " runs[name]
        for (i = 3; i < width[name]; i += 2) {
          k = runs[name]; delete v
          for (r = 1; r <= k; r++) v[r] = val[name, i, r]
          # insertion sort of k values, then the middle one
          for (a = 2; a <= k; a++) { x = v[a]; b = a - 1; while (b >= 1 && v[b] + 0 > x + 0) { v[b+1] = v[b]; b-- } v[b+1] = x }
          m = (k % 2) ? v[(k+1)/2] : (v[k/2] + v[k/2+1]) / 2
          line = line " " m " " unit[name, i]
        }
        print line
      }
    }' "$1"
}

# fleet N OWN: the registry + config of BenchmarkRenderScale and N requests in their own
# namespaces, each asking for 3 operators and defining OWN SleepInfos of its own.
fleet() {
  cat "$root/testdata/bench/fleet-platform.yaml"
  awk -v n="$1" -v own="$2" 'BEGIN {
    for (i = 0; i < n; i++) {
      printf "---\napiVersion: operator.ibm.com/v1alpha1\nkind: OperandRequest\nmetadata: {name: team-%d, namespace: team-%d}\nspec:\n  requests:\n  - registry: fleet\n    registryNamespace: platform\n    operands:\n    - name: kube-green\n    - name: nfs\n    - name: network\n", i, i
      for (j = 0; j < own; j++)
        printf "    - {name: kube-green, apiVersion: kube-green.com/v1alpha1, kind: SleepInfo, instanceName: sleep-%d, spec: {weekdays: \"1-5\", sleepAt: \"2%d:00\"}}\n", j, j % 4
    }
  }'
}

# render_config [INPUTS]: an exec-function RenderConfig reading the three packages' catalogs
# (and, for a generator, its inputs from INPUTS)
render_config() {
  cat <<EOM
apiVersion: odlm-render.io/v1alpha1
kind: RenderConfig
metadata:
  name: render
  annotations:
    config.kubernetes.io/function: |
      exec:
        path: $fn
spec:
  catalogs:
  - $catalogs/community/kube-green
  - $catalogs/community/nfs-provisioner-operator
  - $catalogs/certified/nvidia-network-operator
EOM
  if [ -n "${1:-}" ]; then printf '  inputs: [%s]\n' "$1"; fi
}

# --- 1. Go benchmarks ---------------------------------------------------------------------
if run go; then
  echo "go test -bench BenchmarkRenderScale (N up to 10000)…" >&2
  # three runs each: the table takes the median of each figure (the machine may be shared)
  go test ./pkg/render/ -run '^$' -bench 'BenchmarkRenderScale' -benchmem -count 3 | tee "$work/go.txt" >&2
  median_runs "$work/go.txt" > "$work/go.median" && mv "$work/go.median" "$work/go.txt"
fi

# --- 1b. the CLI end to end against the engine alone, on the same 10,000-request fleet -----
if run cli; then
  echo "CLI end to end: ${CLI_RUNS:-5} runs on 10,000 requests…" >&2
  fleet 10000 1 > "$work/cli-fleet.yaml"   # what BenchmarkRenderScale renders: one own SleepInfo each
  for _ in $(seq "${CLI_RUNS:-5}"); do
    timed "$work/cli.ms" "$root/bin/odlm-render" render "$work/cli-fleet.yaml" \
      --catalog "$catalogs/community/kube-green" --catalog "$catalogs/community/nfs-provisioner-operator" \
      --catalog "$catalogs/certified/nvidia-network-operator" > "$work/cli.out"
  done
  cli_objects=$(grep -c '^kind: ' "$work/cli.out")
  cli_wall=$(cut -d' ' -f1 "$work/cli.ms" | median) cli_cpu=$(cut -d' ' -f2 "$work/cli.ms" | median)
  go test ./pkg/render/ -run '^$' -bench 'BenchmarkRenderScale/requests=10000$' -benchtime 3x -count 3 > "$work/engine.txt"
  engine_ms=$(awk '/^BenchmarkRenderScale\/requests=10000/ {print $3/1e6}' "$work/engine.txt" | median)
fi

# --- 2. kustomize: the function, a do-nothing function, plain YAML ------------------------
if run kustomize; then
  echo "kustomize build: 4 variants × ${RUNS} runs (minutes: kustomize is quadratic in the object count)…" >&2
  mkdir -p "$work/kfn" "$work/kgen" "$work/kplain" "$work/knoop" "$work/knoopout"
  fleet "$KUST_REQUESTS" 3 > "$work/kfn/fleet.yaml"
  render_config > "$work/kfn/render.yaml"
  printf 'resources:\n- fleet.yaml\ntransformers:\n- render.yaml\n' > "$work/kfn/kustomization.yaml"
  render_config "$work/kfn/fleet.yaml" > "$work/kgen/render.yaml"
  printf 'generators:\n- render.yaml\n' > "$work/kgen/kustomization.yaml"
  printf 'resources:\n- objects.yaml\n' > "$work/kplain/kustomization.yaml"
  printf 'apiVersion: example.com/v1\nkind: Noop\nmetadata:\n  name: noop\n  annotations:\n    config.kubernetes.io/function: |\n      exec:\n        path: %s\n' "$work/minimal-fn" > "$work/knoop/noop.yaml"
  # the do-nothing transformer gets the function's own input: the same fleet
  cp "$work/kfn/fleet.yaml" "$work/knoop/fleet.yaml"
  printf 'resources:\n- fleet.yaml\ntransformers:\n- noop.yaml\n' > "$work/knoop/kustomization.yaml"
  # and the rendered objects through it: kustomize's cost of taking in a function's output
  cp "$work/knoop/noop.yaml" "$work/knoopout/noop.yaml"
  printf 'resources:\n- objects.yaml\ntransformers:\n- noop.yaml\n' > "$work/knoopout/kustomization.yaml"
  # the function alone, on the ResourceList kustomize hands it (kpt fn source writes the same)
  kpt="$(dirname "$kustomize")/kpt"
  (cd "$work/kfn" && "$kpt" fn source . --fn-config render.yaml) > "$work/fn-input.yaml"
  for _ in $(seq "$RUNS"); do
    # the function's output is the other variants' input
    timed "$work/kfn.ms" "$kustomize" build --enable-alpha-plugins --enable-exec "$work/kfn" > "$work/fn.out"
    [ -s "$work/kplain/objects.yaml" ] || { cp "$work/fn.out" "$work/kplain/objects.yaml"; cp "$work/fn.out" "$work/knoopout/objects.yaml"; }
    timed "$work/kfnalone.ms" "$fn" < "$work/fn-input.yaml" > /dev/null
    timed "$work/knoopout.ms" "$kustomize" build --enable-alpha-plugins --enable-exec "$work/knoopout" > "$work/noopout.out"
    timed "$work/kgen.ms" "$kustomize" build --enable-alpha-plugins --enable-exec "$work/kgen" > "$work/gen.out"
    timed "$work/kplain.ms" "$kustomize" build --enable-alpha-plugins --enable-exec "$work/kplain" > "$work/plain.out"
    timed "$work/knoop.ms" "$kustomize" build --enable-alpha-plugins --enable-exec "$work/knoop" > "$work/noop.out"
  done
  kobjects=$(grep -c '^kind: ' "$work/kplain/objects.yaml")
  for v in gen plain; do
    cmp -s "$work/$v.out" "$work/fn.out" || echo "note: the $v variant's output differs from the transformer's" >&2
  done
  for v in kfn kgen kplain knoop knoopout kfnalone; do
    declare "${v}_wall=$(cut -d' ' -f1 "$work/$v.ms" | median)" "${v}_cpu=$(cut -d' ' -f2 "$work/$v.ms" | median)"
  done
fi

# --- 3. exec start-up on an empty ResourceList --------------------------------------------
if run startup; then
  echo "start-up: ${STARTS} runs of each function, interleaved…" >&2
  printf 'apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems: []\n' > "$work/empty.yaml"
  # the two functions take turns, so that a load on a shared machine weighs on both alike
  for _ in $(seq "$STARTS"); do
    for b in fn min; do
      bin=$fn; [ "$b" = min ] && bin=$work/minimal-fn
      t0=$EPOCHREALTIME; "$bin" < "$work/empty.yaml" > /dev/null; t1=$EPOCHREALTIME
      awk -v a="$t0" -v b="$t1" 'BEGIN {print (b-a)*1000}' >> "$work/start-$b.ms"
    done
  done
  s_fn=$(median < "$work/start-fn.ms"); s_min=$(median < "$work/start-min.ms")
  # what the packages' init functions take of it (GODEBUG=inittrace=1: each linked package's
  # init, in ms of wall clock), the sum per start, median of 10
  inits() {
    for _ in $(seq 10); do
      GODEBUG=inittrace=1 "$1" < "$work/empty.yaml" 2>&1 > /dev/null | awk '/^init / {s += $5; n++} END {print s, n}'
    done | sort -g | awk '{v[NR] = $0} END {print v[int((NR+1)/2)]}'
  }
  read -r i_fn n_fn <<< "$(inits "$fn")"; read -r i_min n_min <<< "$(inits "$work/minimal-fn")"
fi

# --- 4. peak memory of the largest case ---------------------------------------------------
if run peak; then
  echo "peak memory: ${PEAK_REQUESTS} requests through the function…" >&2
  {
    printf 'apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nfunctionConfig:\n'
    render_config | sed -e '/annotations:/,/path:/d' -e 's/^/  /'
    printf 'items:\n'
    fleet "$PEAK_REQUESTS" 1 | awk '/^---$/ {first = 1; next} {printf "%s%s\n", (first ? "- " : "  "), $0; first = 0}' | sed '1s/^  /- /'
  } > "$work/peak.yaml"
  in_bytes=$(stat -c %s "$work/peak.yaml")
  cat_bytes=$(cat "$catalogs"/community/kube-green/* "$catalogs"/community/nfs-provisioner-operator/* "$catalogs"/certified/nvidia-network-operator/* 2>/dev/null | wc -c)
  /usr/bin/time -v "$fn" < "$work/peak.yaml" > "$work/peak.out" 2> "$work/peak.time"
  rss_kb=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$work/peak.time")
  peak_s=$(awk -F': ' '/Elapsed \(wall clock\)/ {print $2}' "$work/peak.time")
  peak_objects=$(grep -c '^- apiVersion: ' "$work/peak.out" || true)
fi

# --- 5. the KRM functions SDK: what reading and writing through it would cost --------------
# bench/cmd/sdkfn is the same engine behind github.com/kptdev/krm-functions-sdk/go/fn v1.1.1;
# both take the same ResourceList (SDK_REQUESTS requests) and an empty one, SDK_RUNS times.
if run sdk; then
  echo "KRM functions SDK: ${SDK_REQUESTS} requests and start-up, ${SDK_RUNS} runs each…" >&2
  (cd bench && go build -trimpath -o "$work/sdkfn" ./cmd/sdkfn)
  {
    printf 'apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nfunctionConfig:\n'
    render_config | sed -e '/annotations:/,/path:/d' -e 's/^/  /'
    printf 'items:\n'
    fleet "$SDK_REQUESTS" 1 | awk '/^---$/ {first = 1; next} {printf "%s%s\n", (first ? "- " : "  "), $0; first = 0}' | sed '1s/^  /- /'
  } > "$work/sdk.yaml"
  printf 'apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems: []\n' > "$work/sdk-empty.yaml"
  for b in "$fn" "$work/sdkfn"; do
    n=$(basename "$b")
    for _ in $(seq "$SDK_RUNS"); do timed "$work/sdk-$n.ms" "$b" < "$work/sdk.yaml" > "$work/sdk-$n.out"; done
    grep -c '^- apiVersion: ' "$work/sdk-$n.out" > "$work/sdk-$n.objects" || true
    for _ in $(seq "$STARTS"); do
      t0=$EPOCHREALTIME; "$b" < "$work/sdk-empty.yaml" > /dev/null; t1=$EPOCHREALTIME
      echo "$t0 $t1"
    done | awk '{print ($2-$1)*1000}' | median > "$work/sdk-$n.start"
  done
fi

# --- 6. the catalog's own YAML writer and decoder against go.yaml.in/yaml/v3 ---------------
if run lib; then
  echo "catalog YAML writer and decoder vs yaml.v3 (3 runs)…" >&2
  go test ./internal/fbc/ -run '^$' -bench 'BenchmarkSnapshotWrite|BenchmarkCatalogDecode' -benchmem -count 3 | tee "$work/lib.txt" >&2
  median_runs "$work/lib.txt" > "$work/lib.median"
fi

# --- the table ----------------------------------------------------------------------------
if run go; then
  awk -v ops=3 '
    /^BenchmarkRenderScale\/nested=/ {
      split($1, a, /[=-]/); n = a[2]
      for (i = 3; i < NF; i++) { if ($(i+1) == "ns/emitted") nne[n] = $i; if ($(i+1) == "emitted") nem[n] = $i }
      norder[++nk] = n
    }
    /^BenchmarkRenderScale\/olm-v0=/ {
      split($1, a, /[=-]/); n = a[3]
      for (i = 3; i < NF; i++) { if ($(i+1) == "ns/emitted") v0e[n] = $i; if ($(i+1) == "emitted") v0m[n] = $i }
      porder[++pk] = n
    }
    /^BenchmarkRenderScale\/olm-none=/ {
      split($1, a, /[=-]/); n = a[3]
      for (i = 3; i < NF; i++) { if ($(i+1) == "ns/emitted") pne[n] = $i; if ($(i+1) == "emitted") pnm[n] = $i }
    }
    /^BenchmarkRenderScale\/validated=/ {
      split($1, a, /[=-]/); n = a[2]
      for (i = 3; i < NF; i++) { if ($(i+1) == "ns/op") vns[n] = $i }
      vorder[++vk] = n
    }
    /^BenchmarkRenderScale\/requests=/ {
      split($1, a, /[=-]/); n = a[2]
      for (i = 3; i < NF; i++) { if ($(i+1) == "ns/op") ns[n] = $i; if ($(i+1) == "B/op") by[n] = $i; if ($(i+1) == "allocs/op") al[n] = $i; if ($(i+1) == "objects") ob[n] = $i; if ($(i+1) == "ns/emitted") ne[n] = $i; if ($(i+1) == "emitted") em[n] = $i }
      order[++k] = n
    }
    END {
      if (nk) {
        printf "%-40s %14s %14s %14s %14s %10s\n", "nested fleet vs flat (go test -bench)", "flat emitted", "flat ns/obj", "nested emitted", "nested ns/obj", "ratio"
        for (j = 1; j <= nk; j++) { n = norder[j]
          printf "%-40s %14d %14.0f %14d %14.0f %10.2f\n", "N=" n " requests", em[n], ne[n], nem[n], nne[n], nne[n]/ne[n] }
        if (nne[10000] && ne[10000]) { r = nne[10000]/ne[10000]; printf "RATIO nested / flat, ns per emitted object at N=10000: %.2f  (target <= 1.3) %s\n", r, (r <= 1.3 ? "OK" : "FAIL") }
        if (ne[1000] && ne[10000]) { r = ne[10000]/ne[1000]; printf "RATIO flat fleet, ns per emitted object at N=10000 / at N=1000: %.2f  (target <= 1.1) %s\n", r, (r <= 1.1 ? "OK" : "FAIL") }
        if (nne[1000] && nne[10000]) { r = nne[10000]/nne[1000]; printf "RATIO nested fleet, ns per emitted object at N=10000 / at N=1000: %.2f  (target <= 1.1) %s\n\n", r, (r <= 1.1 ? "OK" : "FAIL") }
      }
      if (pk) {
        printf "%-40s %14s %14s %14s %14s %10s\n", "--olm none vs OLM v0 (go test -bench)", "v0 emitted", "v0 ns/obj", "none emitted", "none ns/obj", "ratio"
        for (j = 1; j <= pk; j++) { n = porder[j]
          printf "%-40s %14d %14.0f %14d %14.0f %10.2f\n", "N=" n " requests", v0m[n], v0e[n], pnm[n], pne[n], pne[n]/v0e[n] }
        if (pne[10000] && v0e[10000]) { r = pne[10000]/v0e[10000]; printf "RATIO --olm none / OLM v0, ns per emitted object at N=10000: %.2f  (target <= 1.3) %s\n\n", r, (r <= 1.3 ? "OK" : "FAIL") }
      }
      if (vk) {
        printf "%-40s %14s %14s %10s\n", "CRD checks (validated vs requests)", "requests ns/op", "validated ns/op", "ratio"
        for (j = 1; j <= vk; j++) { n = vorder[j]
          printf "%-40s %14.0f %14.0f %10.2f\n", "N=" n " requests", ns[n], vns[n], vns[n]/ns[n] }
        if (vns[10000] && ns[10000]) { r = vns[10000]/ns[10000]; printf "RATIO validated / unvalidated render at N=10000: %.2f  (target <= 1.3) %s\n\n", r, (r <= 1.3 ? "OK" : "FAIL") }
      }
      printf "%-40s %14s %12s %12s %12s %12s %14s\n", "render (go test -bench)", "ns/op", "B/op", "allocs/op", "ns/operand", "B/operand", "allocs/operand"
      for (j = 1; j <= k; j++) { n = order[j]; m = n * ops
        printf "%-40s %14.0f %12.0f %12.0f %12.0f %12.0f %14.1f\n", "N=" n " requests × 3 (" int(ob[n]) " objects)", ns[n], by[n], al[n], ns[n]/m, by[n]/m, al[n]/m }
      if (ns[100] && ns[10000]) {
        lin = (ns[10000]/30000) / (ns[100]/300); alr = (al[10000]/30000) / (al[100]/300)
        # least-squares slope of ns/op against operands
        for (j = 1; j <= k; j++) { n = order[j]; x = n*ops; sx += x; sy += ns[n]; sxx += x*x; sxy += x*ns[n] }
        slope = (k*sxy - sx*sy) / (k*sxx - sx*sx)
        printf "fitted slope: %.0f ns per operand\n", slope
        printf "RATIO linearity (ns/operand at 10000 / at 100): %.2f  (target ~1: linear) %s\n", lin, (lin <= 1.5 ? "OK" : "FAIL")
        printf "RATIO allocs/operand at 10000 / at 100: %.2f  (target bounded, <= 1.5) %s\n", alr, (alr <= 1.5 ? "OK" : "FAIL")
      }
    }' "$work/go.txt"
fi
if run cli; then
  echo
  printf '%-72s %10s %14s\n' "10,000 requests, $cli_objects objects out (median of ${CLI_RUNS:-5})" "wall ms" "CPU ms (u+s)"
  printf '%-72s %10.0f %14s\n' "the engine alone (go test -bench, inputs decoded, nothing written)" "$engine_ms" "-"
  printf '%-72s %10.0f %14.0f\n' "bin/odlm-render render, end to end (read, render, write)" "$cli_wall" "$cli_cpu"
  awk -v e="$engine_ms" -v c="$cli_wall" 'BEGIN { r = c/e; printf "RATIO CLI end to end vs the engine: %.2f× wall  (target <= 1.5) %s\n", r, (r <= 1.5 ? "OK" : "FAIL") }'
fi
if run kustomize; then
  echo
  printf '%-72s %10s %14s\n' "kustomize build (median of $RUNS runs each)" "wall ms" "CPU ms (u+s)"
  printf '%-72s %10.0f %14.0f\n' "the fleet ($KUST_REQUESTS requests) through a do-nothing exec transformer" "$knoop_wall" "$knoop_cpu"
  printf '%-72s %10.0f %14.0f\n' "the fleet through odlm-render-fn as a transformer ($kobjects objects out)" "$kfn_wall" "$kfn_cpu"
  printf '%-72s %10.0f %14.0f\n' "odlm-render-fn as a generator (the fleet read from files)" "$kgen_wall" "$kgen_cpu"
  printf '%-72s %10.0f %14.0f\n' "the $kobjects rendered objects as plain YAML, no function" "$kplain_wall" "$kplain_cpu"
  printf '%-72s %10.0f %14.0f\n' "the $kobjects rendered objects through the do-nothing transformer" "$knoopout_wall" "$knoopout_cpu"
  printf '%-72s %10.0f %14.0f\n' "odlm-render-fn alone on the fleet's ResourceList (no kustomize)" "$kfnalone_wall" "$kfnalone_cpu"
  awk -v fn="$kfn_cpu" -v gen="$kgen_cpu" -v noop="$knoop_cpu" -v plain="$kplain_cpu" -v noopout="$knoopout_cpu" -v alone="$kfnalone_cpu" 'BEGIN {
    printf "same input: odlm-render-fn %.2f× the CPU of a do-nothing transformer (which returns %s times fewer objects)\n", fn/noop, "3"
    printf "same output: odlm-render-fn %.2f× the CPU of the do-nothing transformer given the rendered objects\n", fn/noopout
    printf "same output: transformer %.2f×, generator %.2f× the CPU of the rendered objects as plain YAML\n", fn/plain, gen/plain
    r = alone/fn; printf "RATIO the function'"'"'s own share of the transformer build: %.0f%% of its CPU (the rest is kustomize'"'"'s reading, merging and writing)  (target <= 30%%) %s\n", r*100, (r <= 0.3 ? "OK" : "FAIL")
  }'
fi
if run startup; then
  echo
  printf '%-60s %10s\n' "exec start-up, empty ResourceList (median of $STARTS)" "ms"
  printf '%-60s %10.1f\n' "bin/odlm-render-fn" "$s_fn"
  printf '%-60s %10.1f\n' "hack/minimal-fn (kyaml framework only)" "$s_min"
  printf '%-60s %10.1f\n' "  of which package inits, odlm-render-fn ($n_fn packages)" "$i_fn"
  printf '%-60s %10.1f\n' "  of which package inits, minimal-fn ($n_min packages)" "$i_min"
  awk -v a="$s_fn" -v b="$s_min" 'BEGIN { r = a/b; printf "RATIO start-up: %.1f ms, %.2f× minimal  (target < 30 ms and <= 1.3× minimal) %s\n", a, r, (a < 30 && r <= 1.3 ? "OK" : "FAIL") }'
fi
if run sdk; then
  echo
  own_wall=$(cut -d' ' -f1 "$work/sdk-odlm-render-fn.ms" | median); own_cpu=$(cut -d' ' -f2 "$work/sdk-odlm-render-fn.ms" | median)
  sdk_wall=$(cut -d' ' -f1 "$work/sdk-sdkfn.ms" | median); sdk_cpu=$(cut -d' ' -f2 "$work/sdk-sdkfn.ms" | median)
  printf '%-60s %10s %10s %10s %12s\n' "KRM function, $SDK_REQUESTS requests (median of $SDK_RUNS)" "wall ms" "CPU ms" "objects" "start-up ms"
  printf '%-60s %10.0f %10.0f %10s %12.1f\n' "odlm-render-fn (internal/krm)" "$own_wall" "$own_cpu" "$(cat "$work/sdk-odlm-render-fn.objects")" "$(cat "$work/sdk-odlm-render-fn.start")"
  printf '%-60s %10.0f %10.0f %10s %12.1f\n' "the same engine through krm-functions-sdk v1.1.1" "$sdk_wall" "$sdk_cpu" "$(cat "$work/sdk-sdkfn.objects")" "$(cat "$work/sdk-sdkfn.start")"
  awk -v a="$sdk_cpu" -v b="$own_cpu" -v s="$(cat "$work/sdk-sdkfn.start")" 'BEGIN {
    r = a/b; printf "RATIO SDK / own ResourceList I/O, CPU on the run: %.2f× (+%.0f%%)  (the SDK is adopted at <= 1.10× and start-up < 30 ms) %s\n", r, (r-1)*100, (r <= 1.1 && s < 30 ? "ADOPT" : "KEEP internal/krm")
  }'
fi
if run lib; then
  echo
  awk '
    /^Benchmark(SnapshotWrite|CatalogDecode)\// {
      split($1, a, "/"); sub(/-[0-9]+$/, "", a[2]); name = a[1] "/" a[2]
      for (i = 3; i < NF; i++) { if ($(i+1) == "ns/op") ns[name] = $i; if ($(i+1) == "B/op") by[name] = $i }
    }
    END {
      printf "%-60s %12s %12s\n", "catalog YAML (go test -bench, median of 3)", "ms/op", "MB/op"
      split("BenchmarkSnapshotWrite BenchmarkCatalogDecode", kinds, " ")
      label["BenchmarkSnapshotWrite"] = "snapshot writer"; label["BenchmarkCatalogDecode"] = "catalog decoder"
      for (k = 1; k <= 2; k++) { b = kinds[k]
        printf "%-60s %12.1f %12.1f\n", label[b] " (own)", ns[b "/own"]/1e6, by[b "/own"]/1e6
        printf "%-60s %12.1f %12.1f\n", label[b] " (yaml.v3)", ns[b "/yamlv3"]/1e6, by[b "/yamlv3"]/1e6
        r = ns[b "/yamlv3"]/ns[b "/own"]
        printf "RATIO %s, yaml.v3 / own: %.1f× time, %.1f× memory  (kept at >= 2×) %s\n", label[b], r, by[b "/yamlv3"]/by[b "/own"], (r >= 2 ? "KEEP" : "USE THE LIBRARY")
      }
    }' "$work/lib.median"
fi
if run peak; then
  echo
  echo "peak memory, $PEAK_REQUESTS requests via odlm-render-fn"
  printf '%-60s %10s\n' "wall time" "$peak_s"
  printf '%-60s %10s\n' "objects out" "$peak_objects"
  printf '%-60s %10.1f MB\n' "input ResourceList" "$(awk -v b="$in_bytes" 'BEGIN {print b/1e6}')"
  printf '%-60s %10.1f MB\n' "catalog files read" "$(awk -v b="$cat_bytes" 'BEGIN {print b/1e6}')"
  printf '%-60s %10.1f MB\n' "max RSS (/usr/bin/time -v)" "$(awk -v k="$rss_kb" 'BEGIN {print k*1024/1e6}')"
  awk -v k="$rss_kb" -v b="$in_bytes" 'BEGIN { r = k*1024/b; printf "RATIO peak RSS / input bytes: %.1f×  (target < 10×) %s\n", r, (r < 10 ? "OK" : "FAIL") }'
fi
