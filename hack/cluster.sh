#!/usr/bin/env bash
# A local Kubernetes control plane for KubAge development and e2e tests: etcd, kube-apiserver,
# kube-controller-manager, kube-scheduler and kwok (fake kubelets driven by hack/kwok stages),
# all run from the pinned binaries in bin/k8s. No containers, no root.
#
#   hack/cluster.sh up          start (idempotent: a healthy cluster is left alone)
#   hack/cluster.sh down        stop every process this cluster started and remove its state
#   hack/cluster.sh status      show components and nodes
#   hack/cluster.sh kubeconfig  print the admin kubeconfig path
#
# Environment:
#   KUBAGE_CLUSTER_DIR   state, certs, logs, pids and kubeconfig (default <repo>/bin/cluster)
#   KUBAGE_K8S_BIN       where the binaries are (default <repo>/bin/k8s)
#   KUBAGE_NODES         number of fake nodes (default 3, at most 50)
#   KUBAGE_CLUSTER_TIMEOUT  seconds to wait for readiness (default 90)
#   KUBAGE_CLUSTER_OWNER_PID  tear the cluster down when this process exits (used by tests, so a
#                        killed test run does not leave a control plane behind)
#   KUBAGE_{ETCD,ETCD_PEER,APISERVER,CONTROLLER_MANAGER,SCHEDULER,KWOK}_PORT  fixed ports
#                        (default: free ports picked at `up` and remembered in ports.env)
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
K8S_BIN=${KUBAGE_K8S_BIN:-$ROOT/bin/k8s}
DIR=${KUBAGE_CLUSTER_DIR:-$ROOT/bin/cluster}
NODES=${KUBAGE_NODES:-3}
# Pod capacity of each node (a kubelet's default is 110; the test suites run a whole scenario
# corpus at once and ask for more).
NODE_PODS=${KUBAGE_NODE_PODS:-110}
TIMEOUT=${KUBAGE_CLUSTER_TIMEOUT:-90}

SERVICE_CIDR=10.96.0.0/16
SERVICE_FIRST_IP=10.96.0.1
POD_CIDR=10.244.0.0/16
# Pods of nodes without a podCIDR (the scenarios' own node pools) take addresses from a block
# of POD_CIDR that no kwok-node-N range reaches (those end below 10.244.200.0 for 50 nodes).
NODELESS_POD_CIDR=10.244.200.0/21
# The apiserver refuses loopback addresses in the `kubernetes` Endpoints, so it advertises a
# documentation address (TEST-NET-2) that nothing dials; clients use 127.0.0.1 from the kubeconfig.
ADVERTISE_ADDRESS=198.51.100.1
COMPONENTS=(etcd kube-apiserver kube-controller-manager kube-scheduler kwok)
BINARIES=(etcd kube-apiserver kube-controller-manager kube-scheduler kubectl kwok)
# Marks a directory as ours so `down` never deletes anything else.
MARKER=.kubage-cluster

log() { printf '[cluster %2ds] %s\n' "$SECONDS" "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }

abs_dir() { mkdir -p "$1" && (cd "$1" && pwd); }

kubectl_() { "$K8S_BIN/kubectl" --kubeconfig "$DIR/kubeconfig" --request-timeout=10s "$@"; }

# ---------------------------------------------------------------------------------------------
# Processes

pid_of() { cat "$DIR/pids/$1.pid" 2>/dev/null || true; }

alive() {
  local pid state
  pid=$(pid_of "$1")
  [[ -n $pid && -r /proc/$pid/stat ]] || return 1
  # A component that died while we still run is a zombie child: not alive.
  state=$(sed 's/^.*) //' "/proc/$pid/stat" 2>/dev/null | cut -d' ' -f1)
  [[ -n $state && $state != Z ]]
}

# start NAME CMD...: run CMD in its own session (so `down` can signal the whole process group),
# detached from our stdio so callers waiting on our output are not held open.
start() {
  local name=$1
  shift
  log "starting $name"
  setsid "$@" >"$DIR/logs/$name.log" 2>&1 </dev/null &
  echo $! >"$DIR/pids/$name.pid"
}

# Processes of this cluster: our binaries whose command line mentions our directory.
our_processes() {
  local bin_re dir_re
  bin_re=$(printf '%s' "$K8S_BIN" | sed 's/[][\.*^$/]/\\&/g')
  dir_re=$(printf '%s' "$DIR" | sed 's/[][\.*^$/]/\\&/g')
  pgrep -f -- "^$bin_re/[a-z-]+ .*$dir_re/" || true
}

fail_with_log() {
  local name=$1
  shift
  log "ERROR: $*"
  if [[ -f $DIR/logs/$name.log ]]; then
    log "last lines of $DIR/logs/$name.log:"
    tail -n 40 "$DIR/logs/$name.log" >&2 || true
  fi
  stop_processes
  log "processes stopped; state and logs kept in $DIR (run 'hack/cluster.sh down' to remove)"
  exit 1
}

check_alive() {
  local c
  for c in "$@"; do
    alive "$c" || fail_with_log "$c" "$c exited"
  done
}

# wait_for DESCRIPTION COMPONENT-TO-BLAME CMD...: poll CMD until it succeeds, the deadline passes
# or a started component dies.
wait_for() {
  local what=$1 blame=$2
  shift 2
  while ! "$@" >/dev/null 2>&1; do
    local started=()
    local c
    for c in "${COMPONENTS[@]}"; do [[ -f $DIR/pids/$c.pid ]] && started+=("$c"); done
    check_alive "${started[@]}"
    ((SECONDS < DEADLINE)) || fail_with_log "$blame" "timed out waiting for $what"
    sleep 0.3
  done
}

# stop_processes stops the components in reverse start order (clients before the apiserver,
# the apiserver before etcd, so none of them stalls on a vanished dependency), then kills
# anything of ours that is left.
stop_processes() {
  local i c pid end left
  for ((i = ${#COMPONENTS[@]} - 1; i >= 0; i--)); do
    c=${COMPONENTS[$i]}
    pid=$(pid_of "$c")
    [[ -n $pid ]] || continue
    # The component leads its own process group (started by setsid).
    kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null || true
    end=$((SECONDS + 10))
    while [[ -e /proc/$pid ]] && ! grep -q '^State:.*Z' "/proc/$pid/status" 2>/dev/null; do
      if ((SECONDS >= end)); then
        log "$c did not stop in 10s; killing it"
        kill -KILL -- "-$pid" 2>/dev/null || kill -KILL "$pid" 2>/dev/null || true
        break
      fi
      sleep 0.1
    done
  done
  rm -f "$DIR"/pids/*.pid 2>/dev/null || true
  end=$((SECONDS + 5))
  while left=$(our_processes) && [[ -n $left ]]; do
    if ((SECONDS >= end)); then
      log "killing leftover processes: $(echo $left)"
      # shellcheck disable=SC2086
      kill -KILL $left 2>/dev/null || true
      sleep 0.5
      break
    fi
    sleep 0.1
  done
  left=$(our_processes)
  [[ -z $left ]] || die "processes still running after stop: $(echo $left)"
}

# ---------------------------------------------------------------------------------------------
# Ports

# listening_ports: every TCP port in LISTEN state on this machine, one per line.
listening_ports() {
  local f
  for f in /proc/net/tcp /proc/net/tcp6; do
    [[ -r $f ]] || continue
    while read -r _ local _ state _; do
      [[ $state == 0A ]] && printf '%d\n' "0x${local##*:}"
    done < <(tail -n +2 "$f")
  done
}

pick_ports() {
  if [[ -f $DIR/ports.env ]]; then
    # shellcheck disable=SC1091
    source "$DIR/ports.env"
    return
  fi
  local used taken=() name var port
  used=$(listening_ports | sort -u)
  for name in ETCD ETCD_PEER APISERVER CONTROLLER_MANAGER SCHEDULER KWOK; do
    var=KUBAGE_${name}_PORT
    port=${!var:-}
    if [[ -z $port ]]; then
      while :; do
        port=$((20000 + RANDOM % 30000))
        grep -qx "$port" <<<"$used" && continue
        [[ " ${taken[*]} " == *" $port "* ]] && continue
        break
      done
    fi
    taken+=("$port")
    printf -v "${name}_PORT" '%s' "$port"
  done
  cat >"$DIR/ports.env" <<EOF
ETCD_PORT=$ETCD_PORT
ETCD_PEER_PORT=$ETCD_PEER_PORT
APISERVER_PORT=$APISERVER_PORT
CONTROLLER_MANAGER_PORT=$CONTROLLER_MANAGER_PORT
SCHEDULER_PORT=$SCHEDULER_PORT
KWOK_PORT=$KWOK_PORT
EOF
}

# ---------------------------------------------------------------------------------------------
# Certificates (ECDSA P-256: fast to generate, accepted everywhere in Kubernetes)

pki() { printf '%s/pki/%s' "$DIR" "$1"; }

new_key() { openssl ecparam -name prime256v1 -genkey -noout -out "$1" 2>/dev/null; }

# issue NAME SUBJECT EXTENSIONS: a leaf certificate signed by the cluster CA.
issue() {
  local name=$1 subj=$2 ext=$3
  new_key "$(pki "$name.key")"
  openssl req -new -key "$(pki "$name.key")" -subj "$subj" -out "$(pki "$name.csr")" 2>/dev/null
  printf '%s\n' "$ext" >"$(pki "$name.ext")"
  openssl x509 -req -in "$(pki "$name.csr")" -CA "$(pki ca.crt)" -CAkey "$(pki ca.key)" \
    -CAcreateserial -days 365 -sha256 -extfile "$(pki "$name.ext")" -out "$(pki "$name.crt")" 2>/dev/null
  rm -f "$(pki "$name.csr")" "$(pki "$name.ext")"
}

gen_certs() {
  mkdir -p "$DIR/pki"
  new_key "$(pki ca.key)"
  openssl req -x509 -new -key "$(pki ca.key)" -subj "/CN=kubage-local-ca" -days 3650 -sha256 \
    -config <(printf '[req]\ndistinguished_name=dn\nx509_extensions=ca\n[dn]\n[ca]\nbasicConstraints=critical,CA:TRUE\nkeyUsage=critical,keyCertSign,cRLSign,digitalSignature\nsubjectKeyIdentifier=hash\n') \
    -out "$(pki ca.crt)" 2>/dev/null
  local server='basicConstraints=CA:FALSE
keyUsage=critical,digitalSignature,keyEncipherment
extendedKeyUsage=serverAuth'
  local client='basicConstraints=CA:FALSE
keyUsage=critical,digitalSignature,keyEncipherment
extendedKeyUsage=clientAuth'
  issue apiserver "/CN=kube-apiserver" "$server
subjectAltName=IP:127.0.0.1,IP:$SERVICE_FIRST_IP,IP:$ADVERTISE_ADDRESS,DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,DNS:kubernetes.default.svc.cluster.local"
  # kwok's kubelet-like server (logs); the apiserver verifies it against the CA.
  issue kwok-serving "/CN=kwok-kubelet" "$server
subjectAltName=IP:127.0.0.1,DNS:localhost"
  issue admin "/O=system:masters/CN=kubernetes-admin" "$client"
  issue controller-manager "/CN=system:kube-controller-manager" "$client"
  issue scheduler "/CN=system:kube-scheduler" "$client"
  # kwok patches node and pod status, leases, events and its own Logs objects for every node.
  issue kwok "/O=system:masters/CN=kwok-controller" "$client"
  issue apiserver-kubelet-client "/O=system:masters/CN=kube-apiserver-kubelet-client" "$client"
  # Front proxy (request-header authentication) for aggregated APIs; also what controller-manager
  # and scheduler expect to find in kube-system/extension-apiserver-authentication.
  issue front-proxy-client "/CN=front-proxy-client" "$client"
  # Service-account token signing key pair.
  new_key "$(pki sa.key)"
  openssl ec -in "$(pki sa.key)" -pubout -out "$(pki sa.pub)" 2>/dev/null
  chmod 600 "$DIR"/pki/*.key
}

write_kubeconfig() {
  local file=$1 user=$2
  cat >"$file" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: kubage-local
  cluster:
    server: https://127.0.0.1:$APISERVER_PORT
    certificate-authority-data: $(base64 -w0 <"$(pki ca.crt)")
users:
- name: $user
  user:
    client-certificate-data: $(base64 -w0 <"$(pki "$user.crt")")
    client-key-data: $(base64 -w0 <"$(pki "$user.key")")
contexts:
- name: kubage-local
  context:
    cluster: kubage-local
    user: $user
current-context: kubage-local
EOF
  chmod 600 "$file"
}

# ---------------------------------------------------------------------------------------------
# kwok configuration: our stages plus log files rendered with this cluster's paths.

render_kwok() {
  mkdir -p "$DIR/kwok/logs"
  local f
  # kwok serves container logs only in the CRI format ("<time> stdout F <line>").
  local ts
  ts=$(date -u +%Y-%m-%dT%H:%M:%S.000000000Z)
  for f in "$ROOT"/hack/kwok/logs/*.log; do
    [[ -e $f ]] || continue
    sed "s/^/$ts stdout F /" "$f" >"$DIR/kwok/logs/$(basename "$f")"
  done
  : >"$DIR/kwok/stages.yaml"
  for f in "$ROOT"/hack/kwok/stages/*.yaml; do
    sed "s#@LOGS_DIR@#$DIR/kwok/logs#g" "$f" >>"$DIR/kwok/stages.yaml"
    printf '\n---\n' >>"$DIR/kwok/stages.yaml"
  done
}

# ---------------------------------------------------------------------------------------------
# Nodes

# Each node gets a /22 of POD_CIDR (1022 addresses): kwok hands out pod IPs past the end of a
# node's range rather than fail, so a /24 under a few hundred pods gave pods of one node the
# addresses of the next node's pods.
apply_nodes() {
  local i zones=(zone-a zone-b zone-c) manifest=""
  for ((i = 0; i < NODES; i++)); do
    local name zone
    name=$(printf 'kwok-node-%d' "$i")
    zone=${zones[$((i % 3))]}
    manifest+="---
apiVersion: v1
kind: Node
metadata:
  name: $name
  annotations:
    kwok.x-k8s.io/node: fake
    node.alpha.kubernetes.io/ttl: \"0\"
  labels:
    type: kwok
    kubernetes.io/arch: amd64
    kubernetes.io/os: linux
    kubernetes.io/hostname: $name
    node.kubernetes.io/instance-type: kwok-standard-4
    topology.kubernetes.io/region: local
    topology.kubernetes.io/zone: $zone
spec:
  podCIDR: 10.244.$((i * 4)).0/22
status:
  allocatable:
    cpu: \"4\"
    memory: 15Gi
    pods: \"$NODE_PODS\"
    ephemeral-storage: 95Gi
  capacity:
    cpu: \"4\"
    memory: 16Gi
    pods: \"$NODE_PODS\"
    ephemeral-storage: 100Gi
  nodeInfo:
    architecture: amd64
    operatingSystem: linux
    osImage: KubAge simulated node (kwok)
    containerRuntimeVersion: containerd://1.7.0-kwok
    kubeletVersion: v1.36.3
    kernelVersion: 6.1.0-kwok
"
  done
  kubectl_ apply -f - <<<"$manifest" >/dev/null
}

nodes_ready() {
  local out
  out=$(kubectl_ get nodes -l type=kwok -o jsonpath='{range .items[*]}{.metadata.name}{" "}{.status.conditions[?(@.type=="Ready")].status}{" "}{.spec.taints}{"\n"}{end}')
  [[ $(grep -c . <<<"$out") -eq $NODES ]] || return 1
  # Ready, and the node lifecycle controller has removed the not-ready taint.
  ! grep -qv ' True $' <<<"$out"
}

# ---------------------------------------------------------------------------------------------
# Commands

healthy() {
  [[ -f $DIR/kubeconfig ]] || return 1
  local c
  for c in "${COMPONENTS[@]}"; do alive "$c" || return 1; done
  kubectl_ get --raw /readyz >/dev/null 2>&1
}

usage_hint() {
  cat <<EOF
Local cluster is up ($NODES kwok nodes). Use it with:
  export KUBECONFIG=$DIR/kubeconfig
  $K8S_BIN/kubectl get nodes
Logs: $DIR/logs/   Stop: make cluster-down
EOF
}

cmd_up() {
  local b
  for b in "${BINARIES[@]}"; do
    [[ -x $K8S_BIN/$b ]] || die "$K8S_BIN/$b is missing; run 'make control-plane' first"
  done
  command -v openssl >/dev/null || die "openssl is required"
  [[ $NODES =~ ^[0-9]+$ ]] && ((NODES >= 1 && NODES <= 50)) || die "KUBAGE_NODES must be 1..50"
  DIR=$(abs_dir "$DIR")

  if healthy; then
    log "already running"
    usage_hint
    return 0
  fi
  if [[ -e $DIR/$MARKER ]]; then
    log "found a stopped or broken cluster in $DIR; recreating it"
    cmd_down
    DIR=$(abs_dir "$DIR")
  elif [[ -n $(ls -A "$DIR") ]]; then
    die "$DIR is not empty and was not created by this script"
  fi

  # A free port picked here can be taken by someone else before our component binds it; then
  # start once more on new ports (unless the ports were fixed by the caller).
  if (up_once); then
    usage_hint
    return 0
  fi
  if grep -qs "address already in use" "$DIR"/logs/*.log && [[ -z $(env | grep -E '^KUBAGE_[A-Z_]*_PORT=.') ]]; then
    log "a port was taken while starting; retrying on new ports"
    cmd_down
    DIR=$(abs_dir "$DIR")
    if (up_once); then
      usage_hint
      return 0
    fi
  fi
  return 1
}

# up_once starts a cluster in an empty $DIR; run in a subshell, since failures exit.
up_once() {
  DEADLINE=$((SECONDS + TIMEOUT))
  touch "$DIR/$MARKER"
  mkdir -p "$DIR/logs" "$DIR/pids" "$DIR/etcd"
  pick_ports
  gen_certs
  write_kubeconfig "$DIR/kubeconfig" admin
  write_kubeconfig "$DIR/controller-manager.kubeconfig" controller-manager
  write_kubeconfig "$DIR/scheduler.kubeconfig" scheduler
  write_kubeconfig "$DIR/kwok.kubeconfig" kwok
  render_kwok

  start etcd "$K8S_BIN/etcd" \
    --name=kubage \
    --data-dir="$DIR/etcd" \
    --listen-client-urls="http://127.0.0.1:$ETCD_PORT" \
    --advertise-client-urls="http://127.0.0.1:$ETCD_PORT" \
    --listen-peer-urls="http://127.0.0.1:$ETCD_PEER_PORT" \
    --initial-advertise-peer-urls="http://127.0.0.1:$ETCD_PEER_PORT" \
    --initial-cluster="kubage=http://127.0.0.1:$ETCD_PEER_PORT" \
    --unsafe-no-fsync=true \
    --quota-backend-bytes=2147483648 \
    --log-level=warn

  start kube-apiserver "$K8S_BIN/kube-apiserver" \
    --etcd-servers="http://127.0.0.1:$ETCD_PORT" \
    --bind-address=127.0.0.1 \
    --secure-port="$APISERVER_PORT" \
    --advertise-address="$ADVERTISE_ADDRESS" \
    --tls-cert-file="$(pki apiserver.crt)" \
    --tls-private-key-file="$(pki apiserver.key)" \
    --client-ca-file="$(pki ca.crt)" \
    --service-account-issuer=https://kubernetes.default.svc.cluster.local \
    --service-account-key-file="$(pki sa.pub)" \
    --service-account-signing-key-file="$(pki sa.key)" \
    --service-cluster-ip-range="$SERVICE_CIDR" \
    --authorization-mode=Node,RBAC \
    --allow-privileged=true \
    --kubelet-client-certificate="$(pki apiserver-kubelet-client.crt)" \
    --kubelet-client-key="$(pki apiserver-kubelet-client.key)" \
    --kubelet-certificate-authority="$(pki ca.crt)" \
    --kubelet-preferred-address-types=InternalIP \
    --requestheader-client-ca-file="$(pki ca.crt)" \
    --requestheader-allowed-names=front-proxy-client \
    --requestheader-username-headers=X-Remote-User \
    --requestheader-group-headers=X-Remote-Group \
    --requestheader-extra-headers-prefix=X-Remote-Extra- \
    --proxy-client-cert-file="$(pki front-proxy-client.crt)" \
    --proxy-client-key-file="$(pki front-proxy-client.key)" \
    --profiling=false \
    --v=1

  wait_for "etcd" etcd bash -c "exec 3<>/dev/tcp/127.0.0.1/$ETCD_PORT"
  wait_for "kube-apiserver /readyz" kube-apiserver kubectl_ get --raw /readyz

  # kwok reads its Logs objects from the API (created by the stages from pod annotations).
  kubectl_ apply -f "$ROOT/hack/kwok/crd-logs.yaml" >/dev/null

  # The controllers' and scheduler's own client limits (20 and 50 requests/s by default) are
  # raised: a test corpus creates a few hundred namespaces of workloads at once, and the
  # replicaset, job and endpoint controllers should not queue behind a limit meant for
  # protecting a shared production API server.
  start kube-controller-manager "$K8S_BIN/kube-controller-manager" \
    --kubeconfig="$DIR/controller-manager.kubeconfig" \
    --authentication-kubeconfig="$DIR/controller-manager.kubeconfig" \
    --authorization-kubeconfig="$DIR/controller-manager.kubeconfig" \
    --bind-address=127.0.0.1 \
    --secure-port="$CONTROLLER_MANAGER_PORT" \
    --cert-dir="$DIR/pki/controller-manager" \
    --leader-elect=false \
    --use-service-account-credentials=true \
    --service-account-private-key-file="$(pki sa.key)" \
    --root-ca-file="$(pki ca.crt)" \
    --cluster-signing-cert-file="$(pki ca.crt)" \
    --cluster-signing-key-file="$(pki ca.key)" \
    --service-cluster-ip-range="$SERVICE_CIDR" \
    --cluster-cidr="$POD_CIDR" \
    --allocate-node-cidrs=false \
    --controllers='*' \
    --kube-api-qps=300 \
    --kube-api-burst=600 \
    --v=1

  start kube-scheduler "$K8S_BIN/kube-scheduler" \
    --kubeconfig="$DIR/scheduler.kubeconfig" \
    --authentication-kubeconfig="$DIR/scheduler.kubeconfig" \
    --authorization-kubeconfig="$DIR/scheduler.kubeconfig" \
    --bind-address=127.0.0.1 \
    --secure-port="$SCHEDULER_PORT" \
    --cert-dir="$DIR/pki/scheduler" \
    --leader-elect=false \
    --kube-api-qps=300 \
    --kube-api-burst=600 \
    --v=1

  KWOK_WORKDIR="$DIR/kwok" start kwok "$K8S_BIN/kwok" \
    --kubeconfig="$DIR/kwok.kubeconfig" \
    --config="$DIR/kwok/stages.yaml" \
    --manage-all-nodes=false \
    --manage-nodes-with-annotation-selector=kwok.x-k8s.io/node=fake \
    --node-ip=127.0.0.1 \
    --node-port="$KWOK_PORT" \
    --server-address="127.0.0.1:$KWOK_PORT" \
    --tls-cert-file="$(pki kwok-serving.crt)" \
    --tls-private-key-file="$(pki kwok-serving.key)" \
    --cidr="$NODELESS_POD_CIDR" \
    --node-lease-duration-seconds=40 \
    --enable-crds=Logs

  log "kube-apiserver ready; creating $NODES nodes"
  apply_nodes
  wait_for "$NODES Ready nodes" kwok nodes_ready
  wait_for "the default ServiceAccount" kube-controller-manager kubectl_ -n default get serviceaccount default
  wait_for "kube-scheduler" kube-scheduler bash -c "exec 3<>/dev/tcp/127.0.0.1/$SCHEDULER_PORT"
  if [[ -n ${KUBAGE_CLUSTER_OWNER_PID:-} ]]; then
    start_watchdog "$KUBAGE_CLUSTER_OWNER_PID"
  fi
  log "ready in ${SECONDS}s"
}

# start_watchdog OWNER: a detached loop that runs `down` once OWNER is gone.
start_watchdog() {
  local owner=$1
  [[ $owner =~ ^[0-9]+$ ]] || die "KUBAGE_CLUSTER_OWNER_PID must be a pid"
  KUBAGE_CLUSTER_DIR="$DIR" setsid bash -c 'while kill -0 "$1" 2>/dev/null; do sleep 2; done; exec "$2" down' \
    kubage-cluster-watchdog "$owner" "$ROOT/hack/cluster.sh" >>"$DIR/logs/watchdog.log" 2>&1 </dev/null &
  echo $! >"$DIR/pids/watchdog.pid"
}

cmd_down() {
  if [[ ! -d $DIR ]]; then
    log "nothing to stop ($DIR does not exist)"
    return 0
  fi
  DIR=$(cd "$DIR" && pwd)
  local watchdog
  watchdog=$(cat "$DIR/pids/watchdog.pid" 2>/dev/null || true)
  if [[ -n $watchdog && $watchdog != "$$" ]]; then
    kill -TERM -- "-$watchdog" 2>/dev/null || true
  fi
  stop_processes
  if [[ -e $DIR/$MARKER ]]; then
    rm -rf "$DIR"
    log "stopped and removed $DIR"
  else
    log "stopped; $DIR was not created by this script, so it is left in place"
  fi
}

cmd_status() {
  [[ -d $DIR ]] || { echo "no cluster in $DIR"; return 1; }
  DIR=$(cd "$DIR" && pwd)
  local c rc=0
  for c in "${COMPONENTS[@]}"; do
    if alive "$c"; then echo "$c: running (pid $(pid_of "$c"))"; else echo "$c: stopped"; rc=1; fi
  done
  if kubectl_ get --raw /readyz >/dev/null 2>&1; then
    echo "kube-apiserver: ready ($(grep APISERVER_PORT "$DIR/ports.env"))"
    kubectl_ get nodes -o wide
  else
    echo "kube-apiserver: not ready"
    rc=1
  fi
  return $rc
}

case ${1:-} in
up) cmd_up ;;
down) cmd_down ;;
status) cmd_status ;;
kubeconfig) echo "$(cd "$DIR" 2>/dev/null && pwd)/kubeconfig" ;;
*)
  echo "usage: $0 up|down|status|kubeconfig" >&2
  exit 2
  ;;
esac
