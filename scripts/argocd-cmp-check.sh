#!/usr/bin/env bash
# Optional fidelity check, NOT part of `make test`: runs the Argo CD plugin
# (deploy/argocd/plugin.yaml) through Argo CD's real cmp-server code (v3.2.12, the newest
# release that builds from the Go module proxy) against examples/argocd, the way Argo CD's
# repo-server calls it. internal/cli/argocd_test.go emulates the same contract in `make test`.
#
#   scripts/argocd-cmp-check.sh        # first run: ~1 min of module downloads, a ~4 min build
#
# It builds bin/odlm-render (make build) and the harness hack/argocd-cmp (a separate Go module,
# cached in .cache/argocd-cmp), streams a snapshot of the checkout (tracked and untracked,
# non-ignored files: what a clone of the working tree holds) to the plugin, and checks:
# discovery (MatchRepository), the named plugin found as repo-server finds it, GenerateManifest
# (two Subscriptions with sync-wave annotations, no ResourceList), a broken application (no
# catalog parameter) failing, and reports what the generate command sees (cwd, env, modes).
# ARGOCD_CMP_KEEP=1 keeps the scratch folder. Exit status: 0 pass, 1 fail, 2 setup error.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
export GOTOOLCHAIN=local
CACHE=$ROOT/.cache/argocd-cmp
HARNESS=$CACHE/argocd-cmp-harness
ARGOCD_VERSION=$(sed -n 's/^require github.com\/argoproj\/argo-cd\/v3 //p; s/^\tgithub.com\/argoproj\/argo-cd\/v3 //p' hack/argocd-cmp/go.mod | head -1)

now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1fs", b - a }'; }
timings=()
die() { echo "argocd-cmp-check: $*" >&2; echo "FAIL argocd-cmp-check (setup)"; exit 2; }

# 1. the CLI the plugin commands call
t0=$(now)
make -s build >/dev/null || die "make build failed"
timings+=("make build $(secs "$t0" "$(now)")")

# 2. the harness, rebuilt only when its sources or the Go version change
t0=$(now)
mkdir -p "$CACHE"
key=$( (go version; cat hack/argocd-cmp/go.mod hack/argocd-cmp/go.sum hack/argocd-cmp/*.go) | sha256sum | cut -c1-64)
if [[ -x $HARNESS && -f $CACHE/key && $(cat "$CACHE/key") == "$key" ]]; then
	timings+=("harness build cached")
else
	echo "building the harness (Argo CD $ARGOCD_VERSION cmp-server; ~4 min the first time)..." >&2
	(cd hack/argocd-cmp && GOFLAGS='-mod=readonly -buildvcs=false' CGO_ENABLED=0 \
		go build -trimpath -o "$HARNESS.tmp" .) || die "building hack/argocd-cmp failed"
	mv "$HARNESS.tmp" "$HARNESS"
	echo "$key" >"$CACHE/key"
	timings+=("harness build $(secs "$t0" "$(now)") ($(du -m "$HARNESS" | cut -f1) MB)")
fi

# 3. a snapshot of the repository as repo-server's checkout would hold it (no .cache, bin, ...)
SCRATCH=$(mktemp -d /tmp/argocd-cmp.XXXXXX) # short: unix socket paths are limited to 108 bytes
if [[ ${ARGOCD_CMP_KEEP:-} == 1 ]]; then
	echo "scratch folder kept: $SCRATCH" >&2
else
	trap 'rm -rf "$SCRATCH"' EXIT
fi
mkdir -p "$SCRATCH/repo" "$SCRATCH/home" "$SCRATCH/work"
if git rev-parse --git-dir >/dev/null 2>&1; then
	revision=$(git rev-parse HEAD 2>/dev/null || echo 0123456789abcdef0123456789abcdef01234567)
	git ls-files -z -co --exclude-standard | while IFS= read -r -d '' f; do
		[[ -e $f || -L $f ]] && printf '%s\0' "$f"
	done | tar --null -T - -cf - | tar -xf - -C "$SCRATCH/repo"
else
	revision=0123456789abcdef0123456789abcdef01234567
	tar --exclude=./.git --exclude=./.cache --exclude=./bin -cf - . | tar -xf - -C "$SCRATCH/repo"
fi

# 4. the harness, with a sidecar-like environment: only bin/ on PATH (the sidecar image has no
# shell and nothing but odlm-render), nothing of this shell's environment
t0=$(now)
set +e
env -i PATH="$ROOT/bin" HOME="$SCRATCH/home" "$HARNESS" \
	-plugin-dir "$ROOT/deploy/argocd" \
	-application "$ROOT/examples/argocd/application.yaml" \
	-repo "$SCRATCH/repo" \
	-other-path deploy/argocd \
	-broken-without catalog \
	-kube-version v1.33.4 \
	-revision "$revision" \
	-work "$SCRATCH/work" \
	-log "$SCRATCH/cmp-server.log"
rc=$?
set -e
timings+=("harness run $(secs "$t0" "$(now)")")

echo "timings: $(IFS=';'; echo "${timings[*]}" | sed 's/;/, /g')"
if [[ $rc == 0 ]]; then
	echo "PASS argocd-cmp-check: odlm-render plugin under Argo CD $ARGOCD_VERSION cmp-server"
	exit 0
fi
if [[ -s $SCRATCH/cmp-server.log ]]; then
	echo "--- cmp-server log (last 30 lines) ---"
	tail -n 30 "$SCRATCH/cmp-server.log"
fi
echo "FAIL argocd-cmp-check: odlm-render plugin under Argo CD $ARGOCD_VERSION cmp-server"
[[ $rc == 1 ]] && exit 1 || exit 2
