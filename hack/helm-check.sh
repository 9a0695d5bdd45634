#!/usr/bin/env bash
# make helm-check: the Helm chart lints and renders with its defaults and with every values
# example in charts/kubage/ci/, and every kubage_* metric its PrometheusRule queries is one the
# operator defines (a renamed metric must not silently break an alert).
# Environment: HELM (the pinned helm binary; make helm-check sets it).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
: "${HELM:?set HELM to the pinned helm (make helm-check does)}"
CHART="$ROOT/charts/kubage"
cd "$ROOT"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/kubage-helm-check.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
# Helm keeps caches and config under HOME; keep them out of the user's.
export HELM_CACHE_HOME="$tmp/cache" HELM_CONFIG_HOME="$tmp/config" HELM_DATA_HOME="$tmp/data"

examples=("" "$CHART"/ci/*.yaml)
n=0
for values in "${examples[@]}"; do
  args=()
  name=defaults
  if [[ -n $values ]]; then
    args=(--values "$values")
    name=${values#"$ROOT/"}
  fi
  if ! "$HELM" lint --strict "$CHART" "${args[@]}" >"$tmp/lint.log" 2>&1; then
    cat "$tmp/lint.log" >&2
    echo "helm-check: helm lint failed with $name" >&2
    exit 1
  fi
  if ! "$HELM" template kubage "$CHART" --namespace kubage-system --include-crds "${args[@]}" >"$tmp/render-$n.yaml" 2>"$tmp/template.log"; then
    cat "$tmp/template.log" >&2
    echo "helm-check: helm template failed with $name" >&2
    exit 1
  fi
  echo "helm-check: lint and template pass with $name ($(grep -c '^kind:' "$tmp/render-$n.yaml") objects)"
  n=$((n + 1))
done

# Unsafe or incomplete settings must be refused, each with a message naming what to set.
refusals=(
  "mcp.namespaces|--set mcp.enabled=true --set mcp.token.value=t0123456789abcdef"
  "not in mcp.namespaces|--values $CHART/ci/multitenant-values.yaml --set mcp.namespaces={shop}"
  "serving certificate|--set approvals.enabled=true"
  "approvals.tls.caBundle|--set approvals.enabled=true --set approvals.tls.existingSecret=kubage-webhook-tls"
  "not both|--set approvals.enabled=true --set approvals.certManager.enabled=true --set approvals.tls.existingSecret=s --set approvals.tls.caBundle=Zm9v"
)
for r in "${refusals[@]}"; do
  want=${r%%|*}
  read -r -a args <<<"${r#*|}"
  if "$HELM" template kubage "$CHART" --namespace kubage-system "${args[@]}" >/dev/null 2>"$tmp/refusal.log"; then
    echo "helm-check: the chart renders with ${r#*|}, which it must refuse" >&2
    exit 1
  fi
  if ! grep -q -- "$want" "$tmp/refusal.log"; then
    cat "$tmp/refusal.log" >&2
    echo "helm-check: refusing ${r#*|} does not say \"$want\"" >&2
    exit 1
  fi
done
echo "helm-check: ${#refusals[@]} unsafe or incomplete settings refused"

# Metric names in the rendered PrometheusRules, without the histogram suffixes, must each be
# declared (Name: "kubage_...") in the operator's Go code.
names=$(cat "$tmp"/render-*.yaml | awk '/^kind: PrometheusRule/{on=1} /^---/{on=0} on' |
  grep -o 'kubage_[a-z_]*' | sed -E 's/_(bucket|count|sum)$//' | sort -u)
if [[ -z $names ]]; then
  echo "helm-check: no values example renders the PrometheusRule; enable it in one of charts/kubage/ci/" >&2
  exit 1
fi
missing=0
for m in $names; do
  if ! git grep --untracked -q -E "Name: +\"$m\"|NewDesc\(\"$m\"" -- '*.go' ':!*_test.go'; then
    echo "helm-check: the PrometheusRule queries $m, which no Go code defines" >&2
    missing=1
  fi
done
((missing == 0)) || exit 1
echo "helm-check: the PrometheusRule queries $(wc -w <<<"$names") metrics, each defined by the operator"
