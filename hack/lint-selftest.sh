#!/usr/bin/env bash
# make lint-selftest: prove the layer rules bite. A throw-away package in internal/ imports
# controllers and a test double; golangci-lint must fail on it with depguard, naming both.
# Environment: GOLANGCI_LINT (the pinned binary; required).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
: "${GOLANGCI_LINT:?set GOLANGCI_LINT to the pinned golangci-lint (make lint-selftest does)}"
cd "$ROOT"

dir=internal/zzlintselftest
[[ ! -e $dir ]] || { echo "lint-selftest: $dir exists; remove it first" >&2; exit 1; }
mkdir "$dir"
trap 'rm -rf "$ROOT/$dir"' EXIT
{
  cat hack/boilerplate.go.txt
  cat <<'GO'

// Package zzlintselftest breaks the layer map on purpose (written and removed by hack/lint-selftest.sh).
package zzlintselftest

import (
	// Deliberate violations for the linter to find.
	_ "github.com/kubage/kubage/controllers"
	_ "github.com/kubage/kubage/test/fakes/llmtest"
)
GO
} >"$dir/selftest.go"

set +e
out=$("$GOLANGCI_LINT" run --allow-serial-runners "./$dir/..." 2>&1)
rc=$?
set -e
echo "$out"
if ((rc == 0)); then
  echo "lint-selftest: FAILED: golangci-lint passed a package in internal/ that imports controllers" >&2
  exit 1
fi
for want in 'import .github.com/kubage/kubage/controllers. is not allowed.*(depguard)' \
  'import .github.com/kubage/kubage/test/fakes/llmtest. is not allowed.*(depguard)'; do
  if ! grep -Eq "$want" <<<"$out"; then
    echo "lint-selftest: FAILED: expected a depguard finding matching /$want/" >&2
    exit 1
  fi
done
echo "lint-selftest: OK: golangci-lint exited $rc with the expected depguard findings"
