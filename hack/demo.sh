#!/usr/bin/env bash
# make demo: a local cluster with a broken shop, the KubAge operator, and the root causes it finds.
#
#   1. hack/cluster.sh up (reused when it already runs)
#   2. CRDs and the agent's ClusterRoles
#   3. the operator (bin/kubage manager) in the background     → bin/demo/manager.log
#   4. the stand-in kubelet (bin/fakekubelet, a test program built from test/cmd/fakekubelet)
#      that runs the pods of task Jobs as local kubage processes, since no container runs on the
#      kwok nodes                                               → bin/demo/kubelet.log
#   5. config/samples/demo/app.yaml: five faults in namespace kubage-demo
#   6. config/samples/demo/troubleshoots.yaml, then each session's root cause and report
#
# Rerunning is safe: the operator and the harness are restarted (with the current binary) and the
# Troubleshoots are recreated. The cluster, the operator and the harness keep running afterwards;
# `make cluster-down` stops all of them (they exit when the cluster's state goes away).
#
# Environment: KUBAGE_BIN (default bin/kubage), KUBAGE_FAKEKUBELET (default bin/fakekubelet),
# KUBAGE_DEMO_TIMEOUT (seconds to wait for the
# sessions, default 180), plus hack/cluster.sh's variables.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
KUBAGE=${KUBAGE_BIN:-$ROOT/bin/kubage}
FAKEKUBELET=${KUBAGE_FAKEKUBELET:-$ROOT/bin/fakekubelet}
KUBECTL=${KUBAGE_K8S_BIN:-$ROOT/bin/k8s}/kubectl
DEMO_DIR=$ROOT/bin/demo
NS=kubage-demo
TIMEOUT=${KUBAGE_DEMO_TIMEOUT:-180}
AGENT_IMAGE=kubage:demo

step() { printf '\n\033[1m==> %s\033[0m (%ds)\n' "$*" "$SECONDS"; }
die() { printf 'demo: %s\n' "$*" >&2; exit 1; }

[[ -x $KUBAGE ]] || die "$KUBAGE is missing: run make build (or make demo)"
[[ -x $FAKEKUBELET ]] || die "$FAKEKUBELET is missing: run make test-programs (or make demo)"
[[ -x $KUBECTL ]] || die "$KUBECTL is missing: run make control-plane"
mkdir -p "$DEMO_DIR"

step "Local cluster"
"$ROOT/hack/cluster.sh" up
KUBECONFIG=$("$ROOT/hack/cluster.sh" kubeconfig)
export KUBECONFIG
CLUSTER_DIR=$(dirname "$KUBECONFIG")
k() { "$KUBECTL" --request-timeout=20s "$@"; }

step "CRDs and agent roles"
k apply --server-side --force-conflicts -f "$ROOT/config/crd/bases" >/dev/null
k wait --for=condition=Established --timeout=60s crd/troubleshoots.kubage.io >/dev/null
# config/default prefixes every name with kubage-; the operator binds these in session namespaces.
for f in agent_role.yaml agent_result_role.yaml agent_result_cluster_role.yaml; do
  sed 's/^  name: /  name: kubage-/' "$ROOT/config/rbac/$f" | k apply -f - >/dev/null
done
echo "installed"

# stop_ours NAME PATTERN: stop the process we started last time, if its command line still
# matches PATTERN (so a recycled pid is left alone).
stop_ours() {
  local pidfile=$DEMO_DIR/$1.pid pid
  pid=$(cat "$pidfile" 2>/dev/null || true)
  if [[ -n $pid ]] && tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q -- "$2"; then
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 50); do [[ -e /proc/$pid ]] || break; sleep 0.2; done
    kill -9 "$pid" 2>/dev/null || true
  fi
  rm -f "$pidfile"
}

# run_bg NAME PROGRAM ARGS...: start PROGRAM in the background with a watchdog that stops it
# when the cluster's state directory goes away (make cluster-down).
run_bg() {
  local name=$1
  shift
  setsid "$@" >"$DEMO_DIR/$name.log" 2>&1 </dev/null &
  local pid=$!
  echo "$pid" >"$DEMO_DIR/$name.pid"
  setsid bash -c 'while [[ -e /proc/$1 && -f $2 ]]; do sleep 2; done; kill "$1" 2>/dev/null' \
    _ "$pid" "$KUBECONFIG" </dev/null >/dev/null 2>&1 &
  disown -a
}

step "Operator"
stop_ours manager "kubage.* manager"
manager_args=(manager --kubeconfig "$KUBECONFIG" --metrics-bind-address=0 --health-probe-bind-address=0)
# The Job runner's flags (internal/runner.JobOptions): the agent image is only a name here, the
# harness runs bin/kubage for it; a missing image is reported after 15 s instead of 1 min.
if "$KUBAGE" manager --help 2>&1 | grep -q -- --agent-image; then
  manager_args+=(--agent-image="$AGENT_IMAGE" --agent-start-timeout=15s)
fi
run_bg manager "$KUBAGE" "${manager_args[@]}"
echo "kubage manager running (pid $(cat "$DEMO_DIR/manager.pid")), log: $DEMO_DIR/manager.log"

step "Stand-in kubelet for task Jobs"
# Also stops a harness an older demo started as `kubage dev kubelet`.
stop_ours kubelet "fakekubelet\|kubage.* dev kubelet"
run_bg kubelet "$FAKEKUBELET" --kubeconfig "$KUBECONFIG" --binary "$KUBAGE" --work-dir "$DEMO_DIR/kubelet"
echo "fakekubelet running (pid $(cat "$DEMO_DIR/kubelet.pid")), log: $DEMO_DIR/kubelet.log"

step "Broken application (namespace $NS)"
k apply -f "$ROOT/config/samples/demo/app.yaml"

# Wait until every fault shows, so the sessions see the symptoms a user would have seen (an
# on-call engineer opens "payments keeps restarting" after a few restarts, not after the first).
symptoms() {
  local pods
  pods=$(k get pods -n "$NS" -o jsonpath='{range .items[*]}{.metadata.labels.app}:{.status.containerStatuses[*].state.waiting.reason}:{.status.containerStatuses[*].restartCount}:{.status.conditions[?(@.type=="PodScheduled")].reason}{"\n"}{end}' 2>/dev/null || true)
  grep -q '^checkout-api:.*CreateContainerConfigError' <<<"$pods" &&
    grep -q '^recommendations:.*\(ErrImagePull\|ImagePullBackOff\)' <<<"$pods" &&
    grep -Eq '^payments:[^:]*:([3-9]|[1-9][0-9])' <<<"$pods" &&
    grep -q '^orders-db:.*Unschedulable' <<<"$pods"
}
for _ in $(seq 90); do symptoms && break; sleep 1; done
symptoms && echo "all five faults are visible" || echo "not every fault is visible yet; investigating anyway"

step "Troubleshoots"
# Fresh sessions on every run: delete the previous ones (their Jobs and ConfigMaps go with them).
k delete troubleshoots.kubage.io -n "$NS" --all --ignore-not-found --wait=true --timeout=60s >/dev/null
k apply -f "$ROOT/config/samples/demo/troubleshoots.yaml"
names=$(k get troubleshoots.kubage.io -n "$NS" -o jsonpath='{.items[*].metadata.name}')

printf 'waiting for %d sessions (at most %ds)\n' "$(wc -w <<<"$names")" "$TIMEOUT"
deadline=$((SECONDS + TIMEOUT))
last=""
while :; do
  phases=$(k get troubleshoots.kubage.io -n "$NS" -o jsonpath='{range .items[*]}{.metadata.name}={.status.phase}{" "}{end}')
  if [[ $phases != "$last" ]]; then
    printf '  [%3ds] %s\n' "$SECONDS" "$phases"
    last=$phases
  fi
  pending=$(tr ' ' '\n' <<<"$phases" | grep -v -e '=Completed$' -e '=Failed$' -e '^$' || true)
  [[ -z $pending ]] && break
  if ((SECONDS > deadline)); then
    echo "some sessions did not finish in ${TIMEOUT}s; see $DEMO_DIR/manager.log"
    break
  fi
  sleep 1
done

step "Root causes"
for name in $names; do
  k get troubleshoots.kubage.io -n "$NS" "$name" -o jsonpath='{.spec.taskRunner}{"\t"}{.status.phase}{"\t"}{.metadata.creationTimestamp}{"\t"}{.status.completionTime}{"\t"}{.status.rootCause.category}{"\t"}{.status.rootCause.confidence}{"\t"}{.status.rootCause.affectedObjects[0].kind}/{.status.rootCause.affectedObjects[0].name}{"\t"}{.status.reportRef.name}{"\t"}{.status.rootCause.summary}{"\n"}' |
    while IFS=$'\t' read -r runner phase created completed category confidence culprit report summary; do
      took="?"
      if [[ -n $completed ]]; then
        took="$(($(date -d "$completed" +%s) - $(date -d "$created" +%s)))s"
      fi
      printf '\n\033[1m%s\033[0m  %s in %s (task runner %s)\n' "$name" "${phase:-?}" "$took" "${runner:-default}"
      printf '  category:   %s (confidence %s%%)\n' "${category:--}" "${confidence:-0}"
      printf '  culprit:    %s\n' "$culprit"
      printf '  root cause: %s\n' "${summary:--}"
      if [[ -n $report ]]; then
        printf '  report:     kubectl -n %s get configmap %s -o jsonpath='"'"'{.data.report\\.md}'"'"'\n' "$NS" "$report"
      fi
    done
done

first=$(k get troubleshoots.kubage.io -n "$NS" -o jsonpath='{.items[0].status.reportRef.name}' 2>/dev/null || true)
if [[ -n $first ]]; then
  step "Report $first (first lines)"
  k get configmap -n "$NS" "$first" -o jsonpath='{.data.report\.md}' | head -n 30
fi

cat <<EOF

The cluster, the operator and the kubelet harness keep running:
  export KUBECONFIG=$KUBECONFIG
  $KUBECTL get troubleshoots -n $NS
  logs: $DEMO_DIR/manager.log, $DEMO_DIR/kubelet.log
Stop everything with: make cluster-down
EOF
