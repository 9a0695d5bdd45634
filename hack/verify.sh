#!/usr/bin/env bash
# make verify: regenerate in a temporary copy of the tree and fail if the real tree differs,
# so verify never rewrites your working files. Checks:
#   1. CRDs, RBAC and deepcopy code (make manifests generate) are up to date, and so are their
#      copies in the Helm chart (charts/kubage/crds and files/rbac);
#   2. go.mod and go.sum are tidy (go mod tidy changes nothing).
# Environment: CONTROLLER_GEN (absolute path of the pinned controller-gen; required).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
: "${CONTROLLER_GEN:?set CONTROLLER_GEN to the pinned controller-gen (make verify does)}"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/kubage-verify.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# The working tree as it is (tracked and new files, uncommitted edits included), without bin/.
cd "$ROOT"
git ls-files -z --cached --others --exclude-standard |
  while IFS= read -r -d '' f; do [[ -e $f ]] && printf '%s\0' "$f"; done |
  tar --null -T - -cf - | tar -xf - -C "$tmp"

fail=0
# Generated code: the copy's Makefile runs the same targets with the same pinned tool.
if ! make -s -C "$tmp" manifests generate CONTROLLER_GEN="$CONTROLLER_GEN" >"$tmp/.generate.log" 2>&1; then
  cat "$tmp/.generate.log" >&2
  echo "verify: make manifests generate failed in the copy (see above)" >&2
  exit 1
fi
stale=0
for d in api config charts; do
  diff -ruN "$ROOT/$d" "$tmp/$d" >>"$tmp/.generated.diff" || stale=1
done
if ((stale)); then
  echo "verify: generated files (or the chart's copies of them) are out of date; run 'make manifests generate' and commit the result:" >&2
  sed 's|'"$tmp"'|<regenerated>|g' "$tmp/.generated.diff" >&2
  fail=1
fi

# Module files: go mod tidy in the copy must change nothing.
if ! (cd "$tmp" && go mod tidy) >"$tmp/.tidy.log" 2>&1; then
  cat "$tmp/.tidy.log" >&2
  echo "verify: go mod tidy failed in the copy (see above)" >&2
  exit 1
fi
for f in go.mod go.sum; do
  if ! diff -u "$ROOT/$f" "$tmp/$f" | sed 's|'"$tmp"'|<tidied>|g' >&2; then :; fi
  if ! cmp -s "$ROOT/$f" "$tmp/$f"; then
    echo "verify: $f is not tidy; run 'go mod tidy' and commit the result" >&2
    fail=1
  fi
done

if ((fail)); then
  exit 1
fi
echo "verify: generated files and go.mod/go.sum are up to date"
