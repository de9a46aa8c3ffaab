#!/usr/bin/env bash
# Runs every fuzzer of the module (`make fuzz`), one after the other, each for FUZZTIME
# (default 60s). The fuzzers are found in the code: every `func FuzzName(f *testing.F)` in the
# test files of the module's packages (go list ./...: bench/ and hack/argocd-cmp/, modules of
# their own, are not among them).
#   scripts/fuzz.sh           run them all
#   scripts/fuzz.sh --list    print them, one "PACKAGE FUZZER" a line
#   FUZZTIME=10s scripts/fuzz.sh
set -euo pipefail
cd "$(dirname "$0")/.."
export GOTOOLCHAIN=local GOFLAGS=-mod=mod
fuzztime=${FUZZTIME:-60s}

list() {
  go list -f '{{.Dir}}{{range .TestGoFiles}} {{.}}{{end}}{{range .XTestGoFiles}} {{.}}{{end}}' ./... |
    while read -r dir files; do
      [ -n "$files" ] || continue
      pkg=./${dir#"$PWD"/}
      [ "$dir" = "$PWD" ] && pkg=.
      for file in $files; do
        sed -n 's/^func \(Fuzz[A-Za-z0-9_]*\)(f \*testing\.F) {.*/\1/p' "$dir/$file"
      done | sort -u | while read -r fuzzer; do
        echo "$pkg $fuzzer"
      done
    done
}

case "${1:-}" in
  --list)
    list
    exit 0
    ;;
  "") ;;
  *)
    echo "usage: [FUZZTIME=60s] $0 [--list]" >&2
    exit 2
    ;;
esac

fuzzers=$(list)
if [ -z "$fuzzers" ]; then
  echo "fuzz.sh: no fuzzer found" >&2
  exit 1
fi
while read -r pkg fuzzer; do
  echo "fuzz.sh: $pkg $fuzzer for $fuzztime" >&2
  go test "$pkg/" -run '^$' -fuzz "^$fuzzer\$" -fuzztime "$fuzztime" -fuzzminimizetime 10s
done <<<"$fuzzers"
