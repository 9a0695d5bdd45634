#!/usr/bin/env bash
# make lint-selftest: prove the layer rules bite. A throw-away package in internal/ imports
# controllers and a test double, and a throw-away file in controllers/ imports a brain
# (internal/agent) directly; golangci-lint must fail on them with depguard, naming all three.
# Environment: GOLANGCI_LINT (the pinned binary; required).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
: "${GOLANGCI_LINT:?set GOLANGCI_LINT to the pinned golangci-lint (make lint-selftest does)}"
cd "$ROOT"

dir=internal/zzlintselftest
ctl=controllers/lintselftest_violation.go
for p in "$dir" "$ctl"; do
  [[ ! -e $p ]] || { echo "lint-selftest: $p exists; remove it first" >&2; exit 1; }
done
mkdir "$dir"
trap 'rm -rf "$ROOT/$dir" "$ROOT/$ctl"' EXIT
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
{
  cat hack/boilerplate.go.txt
  cat <<'GO'

package controllers

import (
	// A deliberate violation for the linter to find (written and removed by hack/lint-selftest.sh).
	_ "github.com/kubage/kubage/internal/agent"
)
GO
} >"$ctl"

set +e
out=$("$GOLANGCI_LINT" run --allow-serial-runners "./$dir/..." ./controllers/... 2>&1)
rc=$?
set -e
echo "$out"
if ((rc == 0)); then
  echo "lint-selftest: FAILED: golangci-lint passed a package in internal/ that imports controllers" >&2
  exit 1
fi
for want in 'import .github.com/kubage/kubage/controllers. is not allowed.*(depguard)' \
  'import .github.com/kubage/kubage/test/fakes/llmtest. is not allowed.*(depguard)' \
  'lintselftest_violation.go.*import .github.com/kubage/kubage/internal/agent. is not allowed.*(depguard)'; do
  if ! grep -Eq "$want" <<<"$out"; then
    echo "lint-selftest: FAILED: expected a depguard finding matching /$want/" >&2
    exit 1
  fi
done
echo "lint-selftest: OK: golangci-lint exited $rc with the expected depguard findings"
