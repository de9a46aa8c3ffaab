#!/usr/bin/env bash
# Checks the commit messages of the history against the rule of scripts/commit-msg (a subject
# of at most 72 characters, then a blank line; CONTRIBUTING.md). scripts/test.sh runs it.
#
# First it tries the hook on three sample messages (fine, subject too long, no blank line)
# and fails if the hook misjudges one. Then it checks every commit (merges aside: their
# subjects are written by the tools that merge) after a start point:
#   - the last tag, when there is one and it is newer than the start commit below;
#   - else the start commit named in scripts/commit-subjects-since: older subjects, many of
#     them longer than 72 characters, are history and stay as they are (as do the later
#     ones the file lists as "exempt HASH");
#   - without that file, the last 20 commits.
# A shallow clone that lacks the start commit checks the commits it has, and says so.
set -euo pipefail
cd "$(dirname "$0")/.."
hook=scripts/commit-msg
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# the hook itself, on messages whose verdict is known
long=$(printf 'x%.0s' {1..73})
printf 'pkg/render: a fine subject\n\nThe details, in the body.\n' >"$tmp/ok"
printf '%s\n\nThe body.\n' "$long" >"$tmp/too-long"
printf 'pkg/render: a subject\nand no blank line after it\n' >"$tmp/no-blank-line"
for sample in ok too-long no-blank-line; do
  want=1
  [ "$sample" = ok ] && want=0
  got=0
  "$hook" --stored "$tmp/$sample" 2>/dev/null || got=$?
  if [ "$got" != "$want" ]; then
    echo "check-commits: $hook misjudges the sample message \"$sample\" (exit status $got, want $want)" >&2
    exit 1
  fi
done

if ! git rev-parse --verify -q HEAD >/dev/null 2>&1; then
  echo "check-commits: no git history here: no commit to check"
  exit 0
fi
start=
exempt=()
if [ -f scripts/commit-subjects-since ]; then
  start=$(grep -v -e '^[[:space:]]*#' -e '^exempt ' scripts/commit-subjects-since | tr -d '[:space:]')
  # commits after the start that broke the rule and are shared history: "exempt HASH"
  read -r -a exempt <<<"$(sed -n 's/^exempt[[:space:]]\{1,\}\([0-9a-f]\{7,40\}\).*/\1/p' scripts/commit-subjects-since | tr '\n' ' ')"
fi
tag=$(git describe --tags --abbrev=0 2>/dev/null || true)
have_start=
if [ -n "$start" ] && git cat-file -e "$start^{commit}" 2>/dev/null; then
  have_start=1
fi
range=()
if [ -n "$tag" ] && { [ -z "$have_start" ] || git merge-base --is-ancestor "$start" "$tag"; }; then
  what="since the last tag, $tag"
  range=("$tag..HEAD")
elif [ -n "$have_start" ]; then
  what="since ${start:0:12} (scripts/commit-subjects-since)"
  range=("$start..HEAD")
elif [ -n "$start" ]; then
  if [ "$(git rev-parse --is-shallow-repository)" != true ]; then
    echo "check-commits: the start commit $start of scripts/commit-subjects-since is not in this history; name a commit of it there" >&2
    exit 1
  fi
  what="of this shallow clone (it lacks the start commit ${start:0:12} of scripts/commit-subjects-since: all it has)"
  range=(HEAD)
else
  what="among the last 20 (there is no scripts/commit-subjects-since)"
  range=(-n 20 HEAD)
fi

bad=0
count=0
exempted=0
while read -r commit; do
  count=$((count + 1))
  for e in ${exempt[@]+"${exempt[@]}"}; do
    if [[ $commit == "$e"* ]]; then
      exempted=$((exempted + 1))
      continue 2
    fi
  done
  git log -1 --format=%B "$commit" >"$tmp/message"
  if ! out=$("$hook" --stored "$tmp/message" 2>&1); then
    bad=$((bad + 1))
    echo "check-commits: commit ${commit:0:12} \"$(git log -1 --format=%s "$commit")\":" >&2
    sed 's/^/  /' <<<"$out" >&2
  fi
done < <(git rev-list --no-merges "${range[@]}")
if [ "$bad" -gt 0 ]; then
  echo "check-commits: commits $what: $count, $bad of them breaking the commit-message rule; reword them (git rebase -i) before they are shared; a shared one stays, listed as \"exempt HASH\" in scripts/commit-subjects-since" >&2
  exit 1
fi
echo "check-commits: commits $what: $count, all keeping to the commit-message rule$([ "$exempted" = 0 ] || echo " but the $exempted exempt in scripts/commit-subjects-since")"
