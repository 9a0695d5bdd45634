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

	corev1 "k8s.io/api/core/v1"
)

// Wave 13b: multi-hop faults written blind by an outside hand from the Kubernetes docs and the
// Prometheus Operator runbooks. The symptom (a Job without pods, a Pending claim, an Ingress
// that answers 503, a crash-looping client) sits on one object and the cause on another: a
// quota, a LimitRange, a node's taint or labels, a policy, a binding, the provider's spec.
// Half of them carry no log clue: only events, conditions, termination messages and the spec
// decide. Every Want was written from the source before anything ran.

const (
	w13bSrcJobQuota     = "runbooks/kubernetes/KubeJobCompletion.md; k8s-docs/concepts/policy/resource-quotas.md"
	w13bSrcTaint        = "runbooks/kubernetes/KubeDeploymentReplicasMismatch.md; k8s-docs/concepts/scheduling-eviction/taint-and-toleration.md"
	w13bSrcNodeSelector = "k8s-docs/tasks/configure-pod-container/assign-pods-nodes-using-node-affinity.md"
	w13bSrcWFFC         = "k8s-docs/concepts/storage/storage-classes.md (Volume binding mode WaitForFirstConsumer); k8s-docs/concepts/scheduling-eviction/assign-pod-node.md"
	w13bSrcNetPolPort   = "k8s-docs/concepts/services-networking/network-policies.md (ports are the pod's ports, not the Service's)"
	w13bSrcLeaseRBAC    = "k8s-docs/tasks/configure-pod-container/configure-service-account.md; https://github.com/kubernetes/client-go/blob/master/tools/leaderelection (a leader renews its Lease with update)"
	w13bSrcBindingNS    = "https://kubernetes.io/docs/reference/access-authn-authz/rbac/ (RoleBinding subjects: a ServiceAccount subject names its namespace)"
)

func wave13bScenarios() []*Scenario {
	return append(wave13bFirstScenarios(), wave13bMoreScenarios()...)
}

func wave13bFirstScenarios() []*Scenario {
	ledgerAPI := w8bLabels("ledger-api", "ledger", "app.kubernetes.io/component", "api")
	ledgerWeb := w8bLabels("ledger-web", "ledger", "app.kubernetes.io/component", "web")
	recsAPI := w8bLabels("recs-api", "recommendations")
	recsWorker := w8bLabels("recs-worker", "recommendations")
	invoice := w8cLabels("app", "invoice-api", "team", "billing")
	pdf := w8cLabels("app", "pdf-renderer", "team", "billing")
	tsdb := w8cLabels("app.kubernetes.io/name", "timescaledb", "app.kubernetes.io/instance", "tsdb")
	checkout := w8bLabels("checkout-web", "shop")
	pricing := w8bLabels("pricing", "shop")
	sweeper := w8cLabels("app.kubernetes.io/name", "image-sweeper", "app.kubernetes.io/part-of", "platform-tools")
	return []*Scenario{
		{
			// The namespace's object-count quota allows four pods; ledger-api and ledger-web
			// already hold them, so the month-end Job gets no pod and ledger-web is one short.
			Name: "ledger-close-job-pods-quota-full", Covers: "KubeJobNotCompleted: Job ledger-close-2026-11 has no pod; the Job controller's FailedCreate says 'exceeded quota: ledger-pods, requested: pods=1, used: pods=4, limited: pods=4'; ledger-web is one replica short for the same quota, filled by ledger-api and ledger-web",
			Source: w13bSrcJobQuota, Class: ClassRanking, Hops: 1,
			Problem: "KubeJobNotCompleted: Job ledger-close-2026-11 is taking more than 12 hours to complete and the month-end close is late",
			Target:  target("Job", "ledger-close-2026-11"),
			Want:    Want{Culprit: Ref{Kind: "ResourceQuota", Name: "ledger-pods"}, Terms: []string{"quota", "pods"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						return e.createQuota(ctx, "ledger-pods", w13bList("pods", "4", "services", "10", "persistentvolumeclaims", "4"))
					},
					func() error {
						return e.createConfigMap(ctx, "ledger-config", map[string]string{"LEDGER_CURRENCY": "EUR", "LEDGER_CLOSE_DAY": "1", "DB_HOST": "ledger-db.finance-data.svc"})
					},
					func() error {
						d := w8bDeployment("ledger-api", "registry.example/finance/ledger-api:6.2.0", 2, ledgerAPI, nil, "http", 8080)
						envFromConfigMap(&d.Spec.Template, "ledger-config")
						return e.w11bServe(ctx, d, 80)
					},
					func() error {
						d := w8bDeployment("ledger-web", "registry.example/finance/ledger-web:6.2.0", 3, ledgerWeb, nil, "http", 3000)
						w8bEnv(&d.Spec.Template, "LEDGER_API_URL", "http://ledger-api")
						return e.w11bServe(ctx, d, 80)
					},
				)
			},
			Wait: w13bOnce("job", w13bPodsAtLeast(4), func(ctx context.Context, e *Env) error {
				j := job("ledger-close-2026-11", 2, nil)
				j.Labels = w8bLabels("ledger-close", "ledger")
				j.Spec.Template.Labels = j.Labels
				c := &j.Spec.Template.Spec.Containers[0]
				c.Name, c.Image, c.Args = "close", "registry.example/finance/ledger-jobs:6.2.0", []string{"close-period", "--period=2026-11"}
				envFromConfigMap(&j.Spec.Template, "ledger-config")
				return e.w9aJob(ctx, j)
			}, objectEvent("Job", "ledger-close-2026-11", "FailedCreate", "exceeded quota")),
		},
		{
			// The kernel-upgrade runbook taints the node before the reboot and removes the taint
			// afterwards; the last step was skipped, so nothing of the pool schedules any more.
			Name: "recs-pool-maintenance-taint-left", Covers: "KubeDeploymentReplicasMismatch: recs-api (and recs-worker) pods are Pending with '1 node(s) had untolerated taint {node.example.com/maintenance: kernel-upgrade}'; the recs pool's only node kept the maintenance taint after the upgrade",
			Source: w13bSrcTaint, Class: ClassRanking, Hops: 2,
			Problem: "KubeDeploymentReplicasMismatch: Deployment recs-api has not matched the expected number of replicas for more than 15 minutes, since last night's maintenance window",
			Target:  target("Deployment", "recs-api"),
			Want:    Want{Culprit: Ref{Kind: "Node", Name: "recs-a", Cluster: true}, Terms: []string{"node.example.com/maintenance"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						_, err := e.w10bNode(ctx, "recs-a", w8cLabels("node.example.com/pool", "recs"),
							corev1.Taint{Key: "node.example.com/maintenance", Value: "kernel-upgrade", Effect: corev1.TaintEffectNoSchedule})
						return err
					},
					func() error {
						d := w8bDeployment("recs-api", "registry.example/recs/recs-api:2.8.1", 2, recsAPI, nil, "http", 8080)
						e.pin(&d.Spec.Template)
						w8bEnv(&d.Spec.Template, "MODEL_BUCKET", "s3://recs-models/prod", "FEATURE_STORE_URL", "http://feature-store:6566")
						return e.w11bServe(ctx, d, 80)
					},
					func() error {
						d := w8bDeployment("recs-worker", "registry.example/recs/recs-worker:2.8.1", 1, recsWorker, nil, "metrics", 9102)
						e.pin(&d.Spec.Template)
						return e.createDeployment(ctx, d)
					},
					func() error {
						d := w8bDeployment("recs-ui", "registry.example/recs/recs-ui:1.4.0", 1, w8bLabels("recs-ui", "recommendations"), nil, "http", 8080)
						return e.w11bServe(ctx, d, 80)
					},
				)
			},
			Wait: all(podsWith(recsAPI, unschedulable("untolerated taint")), podsWith(recsWorker, unschedulable("untolerated taint")), readyReplicas("recs-ui", 1)),
		},
		{
			// The platform team renamed the pool's workload-class label value; thumbnailer was
			// updated, pdf-renderer still selects the old value, so it never schedules and
			// invoice-api's render calls are refused.
			Name: "invoice-pdf-renderer-selector-relabel", Covers: "invoice-api crash-loops on 'request to http://pdf-renderer:8080/render failed, reason: connect ECONNREFUSED'; pdf-renderer is Pending (didn't match Pod's node affinity/selector): its nodeSelector asks workload-class=cpu-optimized while the render pool's node is now labelled workload-class=compute-optimized",
			Source: w13bSrcNodeSelector, Class: ClassProvider, Hops: 3,
			Problem: "invoice PDFs fail to generate and invoice-api keeps restarting since the render pool was relabelled",
			Target:  target("Deployment", "invoice-api"),
			Want:    Want{Culprit: Ref{Kind: "Deployment", Name: "pdf-renderer"}, Terms: []string{"cpu-optimized"}},
			Setup: func(ctx context.Context, e *Env) error {
				onPool := func(t *corev1.PodTemplateSpec, class string) {
					e.pin(t)
					t.Spec.NodeSelector["workload-class"] = class
				}
				return steps(
					func() error {
						_, err := e.w10bNode(ctx, "render-a", w8cLabels("workload-class", "compute-optimized"))
						return err
					},
					func() error {
						d := w8bDeployment("pdf-renderer", "registry.example/billing/pdf-renderer:3.3.0", 2, pdf, nil, "http", 8080)
						onPool(&d.Spec.Template, "cpu-optimized")
						w8bEnv(&d.Spec.Template, "CHROMIUM_FLAGS", "--no-sandbox --disable-gpu", "MAX_CONCURRENT_RENDERS", "4")
						return e.w11bServe(ctx, d, 8080)
					},
					func() error {
						d := w8bDeployment("thumbnailer", "registry.example/media/thumbnailer:1.9.2", 1, w8cLabels("app", "thumbnailer", "team", "media"), nil, "http", 8080)
						onPool(&d.Spec.Template, "compute-optimized")
						return e.w11bServe(ctx, d, 8080)
					},
					func() error {
						msg := fmt.Sprintf("rendering INV-2026-118204 failed: FetchError: request to http://pdf-renderer:8080/render failed, reason: connect ECONNREFUSED %s:8080", e.clusterIP(ctx, "pdf-renderer"))
						d := w8bDeployment("invoice-api", "registry.example/billing/invoice-api:5.0.3", 2, invoice, crash("1", msg, ""), "http", 3000)
						w8bEnv(&d.Spec.Template, "PDF_RENDERER_URL", "http://pdf-renderer:8080", "NODE_ENV", "production")
						return e.w11bServe(ctx, d, 80)
					},
				)
			},
			Wait: all(podsWith(invoice, crashLooping(2)), podsWith(pdf, unschedulable("affinity")), readyReplicas("thumbnailer", 1)),
		},
		{
			// The values file was copied from the production cluster and pins the database to
			// eu-central-2a; the local volume waits in zone-a, the claim waits for a consumer,
			// and the consumer can be placed nowhere.
			Name: "tsdb-claim-pending-zone-affinity", Covers: "PVC data-tsdb-0 stays Pending with 'waiting for first consumer to be created before binding' although an Available local volume of its class exists in zone-a; the real cause is tsdb-0 being unschedulable: StatefulSet tsdb requires topology.kubernetes.io/zone In [eu-central-2a], a zone no node has",
			Source: w13bSrcWFFC, Class: ClassRanking, Hops: 2,
			Problem: "the volume claim data-tsdb-0 has been Pending for 40 minutes although a matching local volume is Available, so the metrics database never started",
			Target:  target("PersistentVolumeClaim", "data-tsdb-0"),
			Want:    Want{Culprit: Ref{Kind: "StatefulSet", Name: "tsdb"}, Terms: []string{"eu-central-2a"}},
			Setup: func(ctx context.Context, e *Env) error {
				class := e.ClusterName("tsdb-local")
				return steps(
					func() error {
						return e.createStorageClass(ctx, "tsdb-local", "kubernetes.io/no-provisioner", "WaitForFirstConsumer")
					},
					func() error { return e.w13bLocalPV(ctx, "tsdb-nvme0", class, "100Gi", "zone-a") },
					func() error {
						st := w8bStatefulSet("tsdb", "timescale/timescaledb-ha:pg16.4-ts2.17.2", "tsdb-headless", 1, tsdb, nil, "postgres", 5432)
						w8bEnv(&st.Spec.Template, "POSTGRES_DB", "metrics", "PGDATA", "/home/postgres/pgdata/data", "TIMESCALEDB_TELEMETRY", "off")
						w13bZoneAffinity(&st.Spec.Template, "eu-central-2a")
						w13bClaimTemplate(st, "data", class, "100Gi", "/home/postgres/pgdata")
						return e.createStatefulSet(ctx, st)
					},
					func() error { return e.createService(ctx, w8bHeadless("tsdb-headless", tsdb, "postgres", 5432)) },
					func() error { return e.createService(ctx, w8bService("tsdb", tsdb, "postgres", 5432)) },
					func() error {
						d := w8bDeployment("grafana", "grafana/grafana:11.3.0", 1, w8cLabels("app.kubernetes.io/name", "grafana", "app.kubernetes.io/instance", "metrics"), nil, "http", 3000)
						return e.w11bServe(ctx, d, 80)
					},
				)
			},
			Wait: all(pvcPending("data-tsdb-0"), podsWith(tsdb, unschedulable("affinity"))),
		},
		{
			// The policy was written from the Service's point of view: it admits port 80, but
			// NetworkPolicy ports are the pod's, and pricing listens on 8080.
			Name: "checkout-pricing-netpol-service-port", Covers: "checkout-web crash-loops on 'Post \"http://pricing/v1/quotes\": dial tcp ...:80: i/o timeout'; pricing is Ready behind its Service (80 -> http 8080), but NetworkPolicy pricing-allow-checkout admits checkout-web on TCP 80, the Service port, instead of the container port 8080, under the namespace's default-deny-ingress",
			Source: w13bSrcNetPolPort, Class: ClassProvider, Hops: 2,
			Problem: "checkout-web crash-loops with timeouts to pricing since the network policies were rolled out",
			Target:  target("Deployment", "checkout-web"),
			Want:    Want{Culprit: Ref{Kind: "NetworkPolicy", Name: "pricing-allow-checkout"}, Terms: []string{"8080"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						return e.createNetworkPolicy(ctx, w13bIngressPolicy("default-deny-ingress", nil))
					},
					func() error {
						d := w8bDeployment("pricing", "registry.example/shop/pricing:4.6.2", 2, pricing, nil, "http", 8080)
						return e.w11bServe(ctx, d, 80)
					},
					func() error {
						return e.createNetworkPolicy(ctx, w13bIngressPolicy("pricing-allow-checkout", pricing, w13bFrom(nil, checkout, "TCP", 80)))
					},
					func() error {
						return e.createNetworkPolicy(ctx, w13bIngressPolicy("checkout-web-allow-ingress-nginx", checkout,
							w13bFrom(map[string]string{"kubernetes.io/metadata.name": "ingress-nginx"}, nil, "TCP", 8080)))
					},
					func() error {
						msg := fmt.Sprintf("quote request failed: Post \"http://pricing/v1/quotes\": dial tcp %s:80: i/o timeout", e.clusterIP(ctx, "pricing"))
						d := w8bDeployment("checkout-web", "registry.example/shop/checkout-web:12.0.1", 2, checkout, crash("1", msg, ""), "http", 8080)
						w8bEnv(&d.Spec.Template, "PRICING_URL", "http://pricing", "PRICING_TIMEOUT", "5s")
						return e.w11bServe(ctx, d, 80)
					},
				)
			},
			Wait: all(podsWith(checkout, crashLooping(2)), readyReplicas("pricing", 2)),
		},
		{
			// The leader-election Role lets the controller create its Lease but not renew it:
			// the first renewal is refused and client-go gives up leadership, so it exits.
			Name: "image-sweeper-lease-renew-forbidden", Covers: "image-sweeper crash-loops: its termination message says 'leases.coordination.k8s.io \"image-sweeper-leader\" is forbidden: User \"system:serviceaccount:<ns>:image-sweeper\" cannot update resource \"leases\"... leaderelection lost'; Role image-sweeper-leader-election grants get, list, watch and create on leases but not update",
			Source: w13bSrcLeaseRBAC, Class: ClassOutside, Hops: 2,
			Problem: "the image-sweeper controller restarts every minute or so and stale images are no longer cleaned",
			Target:  target("Deployment", "image-sweeper"),
			Want:    Want{Culprit: Ref{Kind: "Role", Name: "image-sweeper-leader-election"}, Terms: []string{"update", "leases"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error { return e.createServiceAccount(ctx, "image-sweeper") },
					func() error {
						return e.createRole(ctx, "image-sweeper", w13bRule("", "pods", "get", "list", "watch"), w13bRule("batch", "jobs", "get", "list", "create", "delete"))
					},
					func() error {
						return e.createRoleBinding(ctx, "image-sweeper", "Role", "image-sweeper", "image-sweeper")
					},
					func() error {
						return e.createRole(ctx, "image-sweeper-leader-election", w13bRule("coordination.k8s.io", "leases", "get", "list", "watch", "create"),
							w13bRule("", "events", "create", "patch"))
					},
					func() error {
						return e.createRoleBinding(ctx, "image-sweeper-leader-election", "Role", "image-sweeper-leader-election", "image-sweeper")
					},
					func() error {
						msg := fmt.Sprintf("error renewing lease %[1]s/image-sweeper-leader: leases.coordination.k8s.io \"image-sweeper-leader\" is forbidden: User \"system:serviceaccount:%[1]s:image-sweeper\" cannot update resource \"leases\" in API group \"coordination.k8s.io\" in the namespace \"%[1]s\"; leaderelection lost", e.Namespace)
						d := w8bDeployment("image-sweeper", "registry.example/platform/image-sweeper:0.7.3", 1, sweeper, crash("1", msg, "w13b-image-sweeper"), "metrics", 8080)
						d.Spec.Template.Spec.ServiceAccountName = "image-sweeper"
						w8cArgs(&d.Spec.Template, "--leader-elect=true", "--leader-election-id=image-sweeper-leader", "--max-image-age=720h")
						return e.createDeployment(ctx, d)
					},
					func() error {
						d := w8bDeployment("registry-cache", "registry:2.8.3", 1, w8cLabels("app.kubernetes.io/name", "registry-cache", "app.kubernetes.io/part-of", "platform-tools"), nil, "http", 5000)
						return e.w11bServe(ctx, d, 5000)
					},
				)
			},
			Wait: podsWith(sweeper, crashLooping(2)),
		},
		{
			// The RoleBinding was copied from the ops-tools namespace and kept its subject's
			// namespace, so it binds a ServiceAccount that does not run here.
			Name: "cert-expiry-check-binding-subject-ns", Covers: "Job cert-expiry-check-29410080 fails; its termination message says 'secrets is forbidden: User \"system:serviceaccount:<ns>:cert-checker\" cannot list resource \"secrets\"'; Role cert-checker allows it, but RoleBinding cert-checker's subject is ServiceAccount cert-checker in namespace ops-tools",
			Source: w13bSrcBindingNS, Class: ClassReference, Hops: 2,
			Problem: "KubeJobFailed: the certificate expiry check failed and nobody was warned about expiring certificates",
			Target:  target("Job", "cert-expiry-check-29410080"),
			Want:    Want{Culprit: Ref{Kind: "RoleBinding", Name: "cert-checker"}, Terms: []string{"ops-tools"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error { return e.createServiceAccount(ctx, "cert-checker") },
					func() error { return e.createRole(ctx, "cert-checker", w13bRule("", "secrets", "get", "list")) },
					func() error {
						return e.w13bRoleBinding(ctx, "cert-checker", "cert-checker", "cert-checker", "ops-tools")
					},
					func() error { return e.w10bTLSSecret(ctx, "shop-tls", "shop.example.com") },
					func() error {
						return e.createConfigMap(ctx, "cert-checker", map[string]string{"WARN_DAYS": "21", "SLACK_CHANNEL": "#platform-alerts"})
					},
					func() error {
						msg := fmt.Sprintf("listing TLS secrets: secrets is forbidden: User \"system:serviceaccount:%[1]s:cert-checker\" cannot list resource \"secrets\" in API group \"\" in the namespace \"%[1]s\"", e.Namespace)
						j := job("cert-expiry-check-29410080", 1, sim("fail", annExitCode, "1", annMessage, msg))
						j.Spec.Template.Spec.ServiceAccountName = "cert-checker"
						c := &j.Spec.Template.Spec.Containers[0]
						c.Name, c.Image = "check", "registry.example/platform/cert-checker:1.2.0"
						envFromConfigMap(&j.Spec.Template, "cert-checker")
						return e.w9aJob(ctx, j)
					},
				)
			},
			Wait: w11aJobFailed("cert-expiry-check-29410080", "BackoffLimitExceeded"),
		},
	}
}
