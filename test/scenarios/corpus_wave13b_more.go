/*
Copyright 2026 The KubAge Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package scenarios

import (
	"context"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

const (
	w13bSrcLimitDefault = "k8s-docs/concepts/policy/limit-range.md (default requests injected by the LimitRanger); runbooks/kubernetes/KubeDeploymentReplicasMismatch.md"
	w13bSrcLimitPVC     = "k8s-docs/concepts/policy/limit-range.md (maximum storage request per PersistentVolumeClaim); runbooks/kubernetes/KubeStatefulSetReplicasMismatch.md"
	w13bSrcHashLabel    = "k8s-docs/concepts/workloads/controllers/deployment.md (the pod-template-hash label is added by the Deployment controller per ReplicaSet)"
	w13bSrcDNSLabel     = "k8s-docs/tasks/administer-cluster/dns-debugging-resolution.md (DNS pods carry k8s-app=kube-dns); k8s-docs/concepts/services-networking/network-policies.md"
	w13bSrcProbeName    = "https://github.com/helm/helm/issues/4009 (Readiness probe errored: strconv.Atoi: parsing \"http\": invalid syntax, a named port the container does not declare)"
	w13bSrcJobDeadline  = "k8s-docs/concepts/workloads/controllers/job.md (activeDeadlineSeconds); k8s-docs/concepts/storage/dynamic-provisioning.md"
	w13bSrcPeerAnd      = "k8s-docs/concepts/services-networking/network-policies.md (Behavior of to and from selectors: one element with namespaceSelector and podSelector)"
	w13bSrcSpreadLabel  = "k8s-docs/concepts/scheduling-eviction/topology-spread-constraints.md; runbooks/kubernetes/KubePodNotReady.md"
)

func wave13bMoreScenarios() []*Scenario {
	orders := w8bLabels("orders-api", "orders")
	analytics := w8cLabels("app", "analytics-api", "team", "data")
	ch := w8cLabels("app.kubernetes.io/name", "clickhouse", "app.kubernetes.io/instance", "analytics")
	estimates := w8bLabels("estimates-web", "quotes", "app.kubernetes.io/component", "frontend")
	hooks := w8cLabels("app.kubernetes.io/name", "webhook-dispatcher", "app.kubernetes.io/part-of", "integrations")
	portal := w8bLabels("billing-portal", "billing")
	store := w8cLabels("app.kubernetes.io/name", "feature-store", "app.kubernetes.io/component", "online")
	model := w8cLabels("app.kubernetes.io/name", "model-server", "app.kubernetes.io/part-of", "ml-platform")
	tiles := w8cLabels("app", "tile-server", "team", "maps")
	return []*Scenario{
		{
			// The platform team rolled out namespace defaults copied from the ML namespace: every
			// container without requests now asks 24Gi of memory, more than a node has. Running
			// pods keep running; the first rollout and the export Job stay Pending.
			Name: "orders-rollout-limitrange-default-24gi", Covers: "KubeDeploymentReplicasMismatch: the orders-api 2.4.1 rollout hangs with its new pod Pending on 'Insufficient memory', and Job orders-export-20261129 is Pending too; neither sets resources, and the new LimitRange default-resources injects a default memory request and limit of 24Gi, above any node's allocatable",
			Source: w13bSrcLimitDefault, Class: ClassRanking, Hops: 2,
			Problem: "KubeDeploymentReplicasMismatch: the orders-api 2.4.1 rollout has been stuck for 20 minutes; only the image tag changed",
			Target:  target("Deployment", "orders-api"),
			Want:    Want{Culprit: Ref{Kind: "LimitRange", Name: "default-resources"}, Terms: []string{"24Gi"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						return e.createConfigMap(ctx, "orders-config", map[string]string{"ORDERS_DB_HOST": "orders-db", "KAFKA_BROKERS": "events-kafka:9092"})
					},
					func() error {
						d := w8bDeployment("orders-api", "registry.example/orders/orders-api:2.4.0", 2, orders, nil, "http", 8080)
						envFromConfigMap(&d.Spec.Template, "orders-config")
						return e.w11bServe(ctx, d, 80)
					},
					func() error {
						d := w8bDeployment("orders-worker", "registry.example/orders/orders-worker:2.4.0", 1, w8bLabels("orders-worker", "orders"), nil, "metrics", 9100)
						envFromConfigMap(&d.Spec.Template, "orders-config")
						return e.createDeployment(ctx, d)
					},
					func() error {
						d := w8bDeployment("payments-gateway", "registry.example/orders/payments-gateway:1.7.2", 1, w8bLabels("payments-gateway", "orders"), nil, "http", 8080)
						w8cRequests(&d.Spec.Template, "50m", "128Mi", "", "256Mi")
						return e.w11bServe(ctx, d, 80)
					},
				)
			},
			Wait: w13bOnce("limits", readyReplicas("orders-api", 2), func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						return e.w13bLimitRange(ctx, "default-resources", corev1.LimitRangeItem{Type: corev1.LimitTypeContainer,
							Default: w13bList("cpu", "500m", "memory", "24Gi"), DefaultRequest: w13bList("cpu", "100m", "memory", "24Gi")})
					},
					func() error { return e.w13bSetImage(ctx, "orders-api", "registry.example/orders/orders-api:2.4.1") },
					func() error {
						j := job("orders-export-20261129", 1, nil)
						c := &j.Spec.Template.Spec.Containers[0]
						c.Name, c.Image, c.Args = "export", "registry.example/orders/orders-worker:2.4.0", []string{"export", "--date=2026-11-29"}
						return e.w9aJob(ctx, j)
					},
				)
			}, podsWith(orders, unschedulable("Insufficient memory"))),
		},
		{
			// The chart asks 200Gi per ClickHouse replica; the namespace's LimitRange caps a
			// claim at 50Gi, so the StatefulSet cannot create its claim and has no pod.
			Name: "analytics-clickhouse-claim-limitrange", Covers: "analytics-api crash-loops on 'dial tcp ...:9000: connect: connection refused' to clickhouse; StatefulSet clickhouse has no pod: FailedCreate 'persistentvolumeclaims \"data-clickhouse-0\" is forbidden: maximum storage usage per PersistentVolumeClaim is 50Gi, but request is 200Gi' from LimitRange storage-limits",
			Source: w13bSrcLimitPVC, Class: ClassMechanism, Hops: 3,
			Problem: "the analytics dashboards are empty and analytics-api keeps restarting after the ClickHouse install",
			Target:  target("Deployment", "analytics-api"),
			Want:    Want{Culprit: Ref{Kind: "LimitRange", Name: "storage-limits"}, Terms: []string{"50Gi"}},
			Setup: func(ctx context.Context, e *Env) error {
				class := e.ClusterName("clickhouse-local")
				return steps(
					func() error {
						return e.w13bLimitRange(ctx, "storage-limits", corev1.LimitRangeItem{Type: corev1.LimitTypePersistentVolumeClaim,
							Max: w13bList("storage", "50Gi"), Min: w13bList("storage", "1Gi")})
					},
					func() error {
						return e.createStorageClass(ctx, "clickhouse-local", "kubernetes.io/no-provisioner", "WaitForFirstConsumer")
					},
					func() error {
						st := w8bStatefulSet("clickhouse", "clickhouse/clickhouse-server:24.8.6", "clickhouse-headless", 1, ch, nil, "native", 9000)
						w10aPort(&st.Spec.Template, "http", 8123)
						w8bEnv(&st.Spec.Template, "CLICKHOUSE_DB", "analytics", "CLICKHOUSE_USER", "analytics")
						w13bClaimTemplate(st, "data", class, "200Gi", "/var/lib/clickhouse")
						return e.createStatefulSet(ctx, st)
					},
					func() error { return e.createService(ctx, w8bHeadless("clickhouse-headless", ch, "native", 9000)) },
					func() error {
						return e.createService(ctx, w10aServicePort(w8bService("clickhouse", ch, "native", 9000), "http", 8123))
					},
					func() error {
						msg := fmt.Sprintf("query dashboard_daily: clickhouse [execute]:: dial tcp %s:9000: connect: connection refused", e.clusterIP(ctx, "clickhouse"))
						d := w8bDeployment("analytics-api", "registry.example/data/analytics-api:1.15.0", 2, analytics, crash("1", msg, ""), "http", 8080)
						w8bEnv(&d.Spec.Template, "CLICKHOUSE_ADDR", "clickhouse:9000", "CLICKHOUSE_DATABASE", "analytics")
						return e.w11bServe(ctx, d, 80)
					},
					func() error {
						d := w8bDeployment("superset", "apache/superset:4.1.1", 1, w8cLabels("app", "superset", "team", "data"), nil, "http", 8088)
						return e.w11bServe(ctx, d, 80)
					},
				)
			},
			Wait: all(objectEvent("StatefulSet", "clickhouse", "FailedCreate", "50Gi"), podsWith(analytics, crashLooping(2))),
		},
		{
			// Someone built the Service's selector from 'kubectl get pods --show-labels' and
			// kept the ReplicaSet's pod-template-hash; the next rollout made it select nothing.
			Name: "estimates-service-selects-old-pod-hash", Covers: "estimates.example.com answers 503; estimates-web's pods are Ready, but Service estimates-web selects pod-template-hash=5d8c7b9f6d, the hash of a ReplicaSet replaced by the last rollout, so it has no endpoints (no log or event says so)",
			Source: w13bSrcHashLabel, Class: ClassProvider, Hops: 2,
			Problem: "estimates.example.com returns 503 Service Unavailable since this morning's release",
			Target:  target("Ingress", "estimates-web"),
			Want:    Want{Culprit: Ref{Kind: "Service", Name: "estimates-web"}, Terms: []string{"pod-template-hash"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						d := w8bDeployment("estimates-web", "registry.example/quotes/estimates-web:3.12.0", 2, estimates, nil, "http", 3000)
						w8bReadiness(&d.Spec.Template, "/api/health", "http", 10)
						return e.createDeployment(ctx, d)
					},
					func() error {
						sel := map[string]string{"pod-template-hash": "5d8c7b9f6d"}
						for k, v := range estimates {
							sel[k] = v
						}
						return e.createService(ctx, w10aServiceTo("estimates-web", sel, "http", 80, "http"))
					},
					func() error {
						d := w8bDeployment("estimates-api", "registry.example/quotes/estimates-api:3.12.0", 2, w8bLabels("estimates-api", "quotes", "app.kubernetes.io/component", "api"), nil, "http", 8080)
						return e.w11bServe(ctx, d, 80)
					},
					func() error {
						return e.createIngress(ctx, w8cHostIngress("estimates-web", "estimates.example.com", "estimates-web", 80))
					},
					func() error {
						return e.createIngress(ctx, w8cHostIngress("estimates-api", "api.estimates.example.com", "estimates-api", 80))
					},
				)
			},
			Wait: all(readyReplicas("estimates-web", 2), readyReplicas("estimates-api", 2), w13bNoEndpoints("estimates-web")),
		},
		{
			// The egress policy allows DNS only to pods labelled k8s-app=coredns in kube-system;
			// the cluster DNS pods are labelled k8s-app=kube-dns, so every lookup times out.
			Name: "webhook-dispatcher-dns-egress-pod-label", Covers: "webhook-dispatcher crash-loops on 'getaddrinfo EAI_AGAIN hooks.partner-a.example.com'; its NetworkPolicy webhook-dispatcher-egress allows port 53 only to kube-system pods labelled k8s-app=coredns, while the DNS pods carry k8s-app=kube-dns (webhook-api's policy has it right)",
			Source: w13bSrcDNSLabel, Class: ClassClue, Hops: 2,
			Problem: "partner webhooks are not delivered; webhook-dispatcher restarts in a loop since the egress lockdown",
			Target:  target("Deployment", "webhook-dispatcher"),
			Want:    Want{Culprit: Ref{Kind: "NetworkPolicy", Name: "webhook-dispatcher-egress"}, Terms: []string{"coredns"}},
			Setup: func(ctx context.Context, e *Env) error {
				dns := func(app string) networkingv1.NetworkPolicyEgressRule {
					return networkingv1.NetworkPolicyEgressRule{To: []networkingv1.NetworkPolicyPeer{{
						NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"kubernetes.io/metadata.name": "kube-system"}},
						PodSelector:       &metav1.LabelSelector{MatchLabels: map[string]string{"k8s-app": app}},
					}}, Ports: w8cPorts("UDP", 53, "TCP", 53)}
				}
				https := networkingv1.NetworkPolicyEgressRule{To: []networkingv1.NetworkPolicyPeer{{IPBlock: &networkingv1.IPBlock{CIDR: "0.0.0.0/0", Except: []string{"10.0.0.0/8"}}}},
					Ports: w8cPorts("TCP", 443)}
				api := w8cLabels("app.kubernetes.io/name", "webhook-api", "app.kubernetes.io/part-of", "integrations")
				return steps(
					func() error {
						return e.createNetworkPolicy(ctx, w8cEgressPolicy("webhook-api-egress", api, dns("kube-dns"), https))
					},
					func() error {
						return e.createNetworkPolicy(ctx, w8cEgressPolicy("webhook-dispatcher-egress", hooks, dns("coredns"), https))
					},
					func() error {
						d := w8bDeployment("webhook-api", "registry.example/integrations/webhook-api:2.2.0", 1, api, nil, "http", 8080)
						return e.w11bServe(ctx, d, 80)
					},
					func() error {
						d := w8bDeployment("webhook-dispatcher", "registry.example/integrations/webhook-dispatcher:2.2.0", 2, hooks,
							crash("1", "Error: getaddrinfo EAI_AGAIN hooks.partner-a.example.com\n    at GetAddrInfoReqWrap.onlookupall [as oncomplete] (node:dns:120:26)", ""), "metrics", 9464)
						w8bEnv(&d.Spec.Template, "PARTNER_ENDPOINTS", "https://hooks.partner-a.example.com/v2/events,https://api.partner-b.example.net/webhooks", "DELIVERY_TIMEOUT_MS", "10000")
						return e.createDeployment(ctx, d)
					},
				)
			},
			Wait: all(podsWith(hooks, crashLooping(2)), readyReplicas("webhook-api", 1)),
		},
		{
			// Chart 3.0 moved the health listener into the envoy sidecar; the portal container's
			// readiness probe still names port "health", which that container does not declare.
			Name: "billing-portal-probe-port-on-sidecar", Covers: "billing.example.com answers 503 after the portal 3.0 deploy; billing-portal pods run but are never Ready, Unhealthy events say 'Readiness probe errored and resulted in unknown state: strconv.Atoi: parsing \"health\": invalid syntax': the portal container's probe names port health, declared only by the envoy sidecar; the rollout ends ProgressDeadlineExceeded",
			Source: w13bSrcProbeName, Class: ClassClue, Hops: 3,
			Problem: "billing.example.com returns 503 since the billing-portal 3.0 deploy",
			Target:  target("Ingress", "billing-portal"),
			Want:    Want{Culprit: Ref{Kind: "Deployment", Name: "billing-portal"}, Terms: []string{"readiness", "health"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						d := w8bDeployment("billing-portal", "registry.example/billing/billing-portal:3.0.0", 2, portal,
							sim("readiness-fail", annContainer, "portal", annMessage, "Readiness probe errored and resulted in unknown state: strconv.Atoi: parsing \"health\": invalid syntax"), "http", 8080)
						d.Spec.ProgressDeadlineSeconds = ptr.To[int32](60)
						w10aMain(&d.Spec.Template, "portal")
						d.Spec.Template.Spec.Containers[0].ReadinessProbe = w10aProbe("/healthz", "health", 10)
						w10aContainer(&d.Spec.Template, "envoy", "envoyproxy/envoy:v1.31.2", "health", 8081, "-c", "/etc/envoy/envoy.yaml")
						return e.w11bServe(ctx, d, 80)
					},
					func() error {
						return e.createIngress(ctx, w8cHostIngress("billing-portal", "billing.example.com", "billing-portal", 80))
					},
					func() error {
						d := w8bDeployment("billing-api", "registry.example/billing/billing-api:7.4.2", 2, w8bLabels("billing-api", "billing"), nil, "http", 8080)
						w8bReadiness(&d.Spec.Template, "/healthz", "http", 10)
						return e.w11bServe(ctx, d, 80)
					},
				)
			},
			Wait: all(podsWith(portal, runningNotReady), deploymentCondition("billing-portal", appsv1.DeploymentProgressing, "ProgressDeadlineExceeded")),
		},
		{
			// The scratch claim names the class gp3-encrypted, which was never created (the
			// cluster has gp3 with encryption on); the reindex pod waits on the unbound claim
			// until the Job's deadline fails it.
			Name: "search-reindex-deadline-claim-class", Covers: "KubeJobFailed: Job search-reindex-20261129 failed with DeadlineExceeded (activeDeadlineSeconds 45) without its pod ever starting: the pod waited on PVC reindex-scratch, Pending with ProvisioningFailed 'storageclass.storage.k8s.io \"...-gp3-encrypted\" not found'; only the class ...-gp3 exists",
			Source: w13bSrcJobDeadline, Class: ClassRanking, Hops: 2,
			Problem: "KubeJobFailed: the nightly search reindex failed with 'Job was active longer than specified deadline'",
			Target:  target("Job", "search-reindex-20261129"),
			Want:    Want{Culprit: Ref{Kind: "PersistentVolumeClaim", Name: "reindex-scratch"}, Terms: []string{"gp3-encrypted"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error { return e.createStorageClass(ctx, "gp3", "ebs.csi.aws.com", "WaitForFirstConsumer") },
					func() error {
						return e.createPVC(ctx, pvc("reindex-scratch", e.ClusterName("gp3-encrypted"), "200Gi", corev1.ReadWriteOnce))
					},
					func() error {
						d := w8bDeployment("search-api", "registry.example/search/search-api:5.1.0", 2, w8cLabels("app", "search-api", "team", "search"), nil, "http", 8080)
						w8bEnv(&d.Spec.Template, "OPENSEARCH_URL", "https://opensearch.search-data.svc:9200", "INDEX_ALIAS", "products")
						return e.w11bServe(ctx, d, 80)
					},
					func() error {
						j := job("search-reindex-20261129", 2, nil)
						j.Spec.ActiveDeadlineSeconds = ptr.To[int64](45)
						j.Labels = w8cLabels("app", "search-reindex", "team", "search")
						c := &j.Spec.Template.Spec.Containers[0]
						c.Name, c.Image, c.Args = "reindex", "registry.example/search/search-tools:5.1.0", []string{"reindex", "--alias=products", "--scratch=/data"}
						claimVolume(&j.Spec.Template, "reindex-scratch")
						return e.w9aJob(ctx, j)
					},
				)
			},
			Wait: all(w11aJobFailed("search-reindex-20261129", "DeadlineExceeded"), pvcPending("reindex-scratch")),
		},
		{
			// The policy was meant to admit model-server pods OR any pod of the team's
			// namespaces; written as one peer it admits only model-server pods in namespaces
			// labelled team=ml, and this namespace has no such label.
			Name: "model-server-feature-store-peer-and", Covers: "model-server crash-loops on 'loading online features: dial tcp ...:6379: i/o timeout' to feature-store; NetworkPolicy feature-store-clients has one from peer with both namespaceSelector team=ml and podSelector model-server (AND), so model-server in this unlabelled namespace is not admitted",
			Source: w13bSrcPeerAnd, Class: ClassProvider, Hops: 2,
			Problem: "model-server cannot start: it times out loading features from the feature store",
			Target:  target("Deployment", "model-server"),
			Want:    Want{Culprit: Ref{Kind: "NetworkPolicy", Name: "feature-store-clients"}, Terms: []string{"namespaceSelector"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						d := w8bDeployment("feature-store", "redis:7.4.1", 1, store, nil, "redis", 6379)
						w8cArgs(&d.Spec.Template, "redis-server", "--maxmemory", "2gb", "--maxmemory-policy", "allkeys-lru")
						return e.w11bServe(ctx, d, 6379)
					},
					func() error {
						return e.createNetworkPolicy(ctx, w13bIngressPolicy("feature-store-clients", store,
							w13bFrom(map[string]string{"team": "ml"}, map[string]string{"app.kubernetes.io/name": "model-server"}, "TCP", 6379)))
					},
					func() error {
						d := w8bDeployment("feature-materializer", "registry.example/ml/feature-materializer:0.9.4", 1,
							w8cLabels("app.kubernetes.io/name", "feature-materializer", "app.kubernetes.io/part-of", "ml-platform"), nil, "metrics", 9090)
						w8bEnv(&d.Spec.Template, "ONLINE_STORE", "s3://ml-features/online-snapshots")
						return e.createDeployment(ctx, d)
					},
					func() error {
						msg := fmt.Sprintf("loading online features: dial tcp %s:6379: i/o timeout", e.clusterIP(ctx, "feature-store"))
						d := w8bDeployment("model-server", "registry.example/ml/model-server:4.2.0", 2, model, crash("1", msg, ""), "grpc", 8500)
						w8bEnv(&d.Spec.Template, "FEATURE_STORE_ADDR", "feature-store:6379", "MODEL_NAME", "ranker-v12")
						return e.w11bServe(ctx, d, 8500)
					},
				)
			},
			Wait: all(podsWith(model, crashLooping(2)), readyReplicas("feature-store", 1)),
		},
		{
			// The self-managed maps pool registers its kubelets with --node-labels that forgot
			// the zone; tile-server spreads across zones with DoNotSchedule, so no pod fits.
			Name: "tile-server-spread-node-missing-zone", Covers: "KubePodNotReady: tile-server pods stay Pending with 'node(s) didn't match pod topology spread constraints (missing required label)'; their spread constraint uses topology.kubernetes.io/zone and the maps pool's node tiles-a was registered without that label",
			Source: w13bSrcSpreadLabel, Class: ClassMechanism, Hops: 2,
			Problem: "KubePodNotReady: tile-server pods have been in a non-ready state for longer than 15 minutes on the new maps node pool",
			Target:  target("Deployment", "tile-server"),
			Want:    Want{Culprit: Ref{Kind: "Node", Name: "tiles-a", Cluster: true}, Terms: []string{"topology.kubernetes.io/zone"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						_, err := e.w10bNode(ctx, "tiles-a", w8cLabels("node.example.com/pool", "maps", "node.kubernetes.io/instance-type", "m6i.2xlarge"))
						return err
					},
					func() error {
						d := w8bDeployment("tile-server", "registry.example/maps/tile-server:2.0.5", 2, tiles, nil, "http", 8080)
						e.pin(&d.Spec.Template)
						d.Spec.Template.Spec.TopologySpreadConstraints = []corev1.TopologySpreadConstraint{{MaxSkew: 1, TopologyKey: "topology.kubernetes.io/zone",
							WhenUnsatisfiable: corev1.DoNotSchedule, LabelSelector: &metav1.LabelSelector{MatchLabels: tiles}}}
						return e.w11bServe(ctx, d, 80)
					},
					func() error {
						d := w8bDeployment("tile-cache", "varnish:7.6.1", 1, w8cLabels("app", "tile-cache", "team", "maps"), nil, "http", 80)
						w8bEnv(&d.Spec.Template, "VARNISH_BACKEND_HOST", "tile-server", "VARNISH_BACKEND_PORT", "80")
						return e.w11bServe(ctx, d, 80)
					},
				)
			},
			Wait: all(podsWith(tiles, unschedulable("topology spread")), readyReplicas("tile-cache", 1)),
		},
	}
}
