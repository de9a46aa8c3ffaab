#!/usr/bin/env bash
# Benchmark odlm-render's catalog extract against operator-registry v1.73.0
# (declcfg.LoadFS + ConvertToModel) on ../shared/catalogs (community and
# certified v4.20, 33 MB) and on a synthetic copy of them N times over, in one
# run, and print a table and the ratios. Takes a few minutes; not part of
# `make test`. The comparison lives in bench/, a separate Go module, so that
# the product does not depend on operator-registry.
#
#   scripts/bench-catalog.sh [-copies 10] [-runs 3] [-shared DIR] [-work DIR] [-packages a,b,c] [-old DIR]
#
# -old DIR adds a catalog of the older shape (every bundle manifest an olm.bundle.object:
# community-operators-prod's catalogs/v4.16, for one; the reference-data folder holds four of
# its packages, ../shared/reference/catalogs-community-v4.16), whose CRDs and install
# strategies extract keeps as bundle contents.
#
# The catalogs are third-party data beside the checkout, not in the repository: without
# ../shared/catalogs (and no -shared DIR), the script says so and exits 1.
set -euo pipefail
export GOTOOLCHAIN=local GOFLAGS=-mod=mod
root=$(cd "$(dirname "$0")/.." && pwd)
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
if [[ " $* " != *" -shared "* && ! -d "$root/../shared/catalogs/community-v4.20" ]]; then
  echo "bench-catalog.sh: no shared catalogs: $root/../shared/catalogs/community-v4.20 does not exist;" >&2
  echo "  put the community and certified v4.20 catalogs there, or name their folder with -shared DIR" >&2
  exit 1
fi
cd "$root/bench"
echo "building the benchmark binaries…" >&2
go build -trimpath -o "$bin/" ./cmd/...
"$bin/bench" -bin "$bin" -shared "$root/../shared/catalogs" "$@"
