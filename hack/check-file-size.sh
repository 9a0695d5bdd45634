#!/usr/bin/env bash
# make verify-size: no hand-written, non-test Go file under controllers/, internal/ or cmd/ is
# over 500 lines (issue 11): a file that long mixes concerns a reader should find apart.
# Generated files (a "Code generated ... DO NOT EDIT." line) and api/ type files are exempt.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
LIMIT=500

# Files allowed over the limit while a split is in flight; empty since issue 11's splits landed.
declare -A pending=()

fail=0
while IFS= read -r f; do
  [[ -f $f ]] || continue
  grep -q '^// Code generated .* DO NOT EDIT\.$' "$f" && continue
  n=$(wc -l <"$f")
  if ((n > LIMIT)); then
    if [[ -n ${pending[$f]:-} ]]; then
      echo "verify-size: $f has $n lines (allowed for now: ${pending[$f]})"
    else
      echo "verify-size: $f has $n lines (> $LIMIT): split it by concern" >&2
      fail=1
    fi
  elif [[ -n ${pending[$f]:-} ]]; then
    echo "verify-size: $f has $n lines now: remove it from the pending list in hack/check-file-size.sh"
  fi
done < <(git ls-files --cached --others --exclude-standard -- 'controllers/*.go' 'internal/*.go' 'cmd/*.go' | grep -v '_test\.go$')
exit $fail
