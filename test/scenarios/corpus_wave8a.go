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
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
)

// Wave 8a: scenarios written by an outside hand from k8s-docs pages and Prometheus Operator
// runbooks the corpus had not used (security context, pod overhead, DaemonSet host ports,
// StatefulSet pod management, retained volumes, autoscaler bounds, rule evaluation, the
// config reloader), and from public issues where the docs are silent. Each is laid out as a
// team would run it, with healthy neighbours, and the expected answer is what an SRE reading
// the source would name, fixed before the engine ran.

const (
	srcW8aSecurityContext = "k8s-docs/tasks/configure-pod-container/security-context.md"
	srcW8aPodSecurity     = "https://kubernetes.io/docs/concepts/security/pod-security-admission/"
	srcW8aPodOverhead     = "k8s-docs/concepts/scheduling-eviction/pod-overhead.md"
	srcW8aDaemonSet       = "k8s-docs/concepts/workloads/controllers/daemonset.md"
	srcW8aHpaMaxedOut     = "runbooks/kubernetes/KubeHpaMaxedOut.md"
	srcW8aEtcdOrdered     = "https://github.com/bitnami/charts/pull/1299 ([bitnami/etcd] readinessProbe vs podManagementPolicy OrderedReady)"
	srcW8aPV              = "k8s-docs/concepts/storage/persistent-volumes.md"
	srcW8aRuleFailures    = "runbooks/prometheus/PrometheusRuleFailures.md"
	srcW8aReloader        = "runbooks/prometheus-operator/ConfigReloaderSidecarErrors.md"
)

func wave8aScenarios() []*Scenario {
	return append(append(wave8aFirstScenarios(), wave8aMoreScenarios()...), wave8aLateScenarios()...)
}

func wave8aFirstScenarios() []*Scenario {
	return []*Scenario{
		{
			// security-context: readOnlyRootFilesystem mounts the root filesystem read-only;
			// nginx creates its temp directories under /var/cache/nginx at start.
			Name: "shop-edge-readonly-rootfs", Covers: "the shop Ingress answers 503: storefront-edge (nginx) crash-loops with exit 1, its log says mkdir /var/cache/nginx/client_temp failed (30: Read-only file system); the Deployment sets readOnlyRootFilesystem without an emptyDir there",
			Source: srcW8aSecurityContext, Class: ClassClue, Hops: 3,
			Problem: "shop.example.com answers 503 since this morning's platform baseline rollout", Target: target("Ingress", "shop"),
			Want: Want{Culprit: Ref{Kind: "Deployment", Name: "storefront-edge"}, Terms: []string{"readOnlyRootFilesystem"}},
			Setup: func(ctx context.Context, e *Env) error {
				edge := map[string]string{"app.kubernetes.io/name": "storefront-edge", "app.kubernetes.io/component": "edge", "app.kubernetes.io/part-of": "shop"}
				web := map[string]string{"app.kubernetes.io/name": "storefront-web", "app.kubernetes.io/component": "frontend", "app.kubernetes.io/part-of": "shop"}
				return steps(
					func() error {
						return e.createConfigMap(ctx, "storefront-edge-conf", map[string]string{"default.conf": "server {\n  listen 8080;\n  server_name shop.example.com;\n" +
							"  location /static/ { root /srv; expires 7d; }\n  location / { proxy_pass http://storefront-web:3000; proxy_set_header Host $host; }\n}\n"})
					},
					func() error {
						d := w8aDeployment("storefront-edge", "nginx:1.27.2", 2, 8080, edge, crash("1", "", "w8a-edge-nginx-readonly-rootfs"))
						mountConfigMap(&d.Spec.Template, "storefront-edge-conf", "/etc/nginx/conf.d")
						d.Spec.Template.Spec.Containers[0].SecurityContext = &corev1.SecurityContext{
							RunAsUser: ptr.To[int64](101), RunAsNonRoot: ptr.To(true), ReadOnlyRootFilesystem: ptr.To(true), AllowPrivilegeEscalation: ptr.To(false),
						}
						return e.createDeployment(ctx, d)
					},
					func() error { return e.createService(ctx, service("storefront-edge", edge, intstr.FromString("http"))) },
					func() error {
						return e.createDeployment(ctx, w8aDeployment("storefront-web", "registry.example/shop/storefront-web:2026.11.3", 2, 3000, web, nil))
					},
					func() error {
						s := service("storefront-web", web, intstr.FromString("http"))
						s.Spec.Ports[0].Port = 3000
						return e.createService(ctx, s)
					},
					func() error { return e.createIngress(ctx, ingress("shop", "storefront-edge", 80)) },
				)
			},
			Wait: podsWith(map[string]string{"app.kubernetes.io/name": "storefront-edge"}, crashLooping(1)),
		},
		{
			// Pod Security Admission: a namespace enforcing "restricted" rejects pods whose
			// containers do not drop capabilities or forbid privilege escalation; the new
			// sidecar of revision 2 sets neither, so the new ReplicaSet creates no pod.
			Name: "tenant-api-psa-vault-sidecar", Covers: "tenant-api 2.8.0 never rolls out: the namespace enforces Pod Security 'restricted' and the vault-agent sidecar added in this revision sets no securityContext; the new ReplicaSet's creates fail, the old pods keep serving",
			Source: srcW8aPodSecurity, Class: ClassSingle, Hops: 1,
			Problem: "tenant-api 2.8.0 with the Vault agent never rolled out, the old version is still serving", Target: target("Deployment", "tenant-api"),
			Want: Want{Culprit: Ref{Kind: "Deployment", Name: "tenant-api"}, Terms: []string{"vault-agent", "restricted"}},
			Setup: func(ctx context.Context, e *Env) error {
				hardened := func(d *appsv1.Deployment) *appsv1.Deployment {
					d.Spec.Template.Spec.SecurityContext = &corev1.PodSecurityContext{
						RunAsNonRoot: ptr.To(true), RunAsUser: ptr.To[int64](10001),
						SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
					}
					d.Spec.Template.Spec.Containers[0].SecurityContext = w8aRestricted()
					return d
				}
				return steps(
					func() error {
						return e.w8aLabelNamespace(ctx, map[string]string{"pod-security.kubernetes.io/enforce": "restricted",
							"pod-security.kubernetes.io/enforce-version": "latest", "team": "identity"})
					},
					func() error {
						return e.createDeployment(ctx, hardened(w8aDeployment("tenant-api", "registry.example/identity/tenant-api:2.7.4", 2, 8080,
							map[string]string{"app": "tenant-api", "team": "identity"}, nil)))
					},
					func() error {
						return e.createDeployment(ctx, hardened(w8aDeployment("tenant-events", "registry.example/identity/tenant-events:1.3.0", 1, 8080,
							map[string]string{"app": "tenant-events", "team": "identity"}, nil)))
					},
				)
			},
			Wait: func(ctx context.Context, e *Env) error {
				if e.State["rolled"] == "" {
					if err := readyReplicas("tenant-api", 2)(ctx, e); err != nil {
						return err
					}
					if err := e.updateDeployment(ctx, "tenant-api", func(d *appsv1.Deployment) {
						t := &d.Spec.Template.Spec
						t.Containers[0].Image = "registry.example/identity/tenant-api:2.8.0"
						t.Containers[0].Env = append(t.Containers[0].Env, corev1.EnvVar{Name: "DB_CREDENTIALS_FILE", Value: "/vault/secrets/db.json"})
						t.Containers = append(t.Containers, corev1.Container{
							Name: "vault-agent", Image: "hashicorp/vault:1.18.1",
							Args: []string{"agent", "-config=/vault/config/agent.hcl"},
							Env:  []corev1.EnvVar{{Name: "VAULT_ADDR", Value: "https://vault.internal.example:8200"}},
						})
					}); err != nil {
						return err
					}
					e.State["rolled"] = "yes"
				}
				return podEventOn(ctx, e, "ReplicaSet", "FailedCreate", "vault-agent")
			},
		},
		{
			// pod-overhead: the scheduler adds the RuntimeClass overhead to the pod's requests;
			// 3600m fits a 4-CPU node, 3600m plus 500m does not.
			Name: "notebook-sandbox-runtimeclass-overhead", Covers: "notebook-sandbox pods stay Pending on Insufficient cpu on a 4-CPU node although they request 3600m: their RuntimeClass gvisor adds a 500m pod overhead",
			Source: srcW8aPodOverhead, Class: ClassMechanism, Hops: 2,
			Problem: "notebook sandbox pods are stuck in Pending since we moved them to gVisor", Target: target("Deployment", "notebook-sandbox"),
			Want: Want{Culprit: Ref{Kind: "RuntimeClass", Name: "gvisor", Cluster: true}, Terms: []string{"overhead"}},
			Setup: func(ctx context.Context, e *Env) error {
				sandbox := map[string]string{"app.kubernetes.io/name": "notebook-sandbox", "app.kubernetes.io/part-of": "notebooks"}
				return steps(
					func() error { _, err := e.createNode(ctx, nodeSpec{name: "sandbox-a", kwok: true}); return err },
					func() error {
						return e.w8aCreateRuntimeClass(ctx, "gvisor", "runsc", corev1.ResourceList{
							corev1.ResourceCPU: resource.MustParse("500m"), corev1.ResourceMemory: resource.MustParse("256Mi")})
					},
					func() error {
						d := w8aDeployment("notebook-sandbox", "registry.example/notebooks/sandbox:2026.10", 1, 8888, sandbox, nil)
						d.Spec.Template.Spec.RuntimeClassName = ptr.To(e.ClusterName("gvisor"))
						limits(&d.Spec.Template, "3600m", "6Gi")
						e.pin(&d.Spec.Template)
						return e.createDeployment(ctx, d)
					},
					func() error {
						return e.createDeployment(ctx, w8aDeployment("notebook-hub", "jupyterhub/k8s-hub:4.0.0", 1, 8081,
							map[string]string{"app.kubernetes.io/name": "notebook-hub", "app.kubernetes.io/part-of": "notebooks"}, nil))
					},
				)
			},
			Wait: podsWith(map[string]string{"app.kubernetes.io/name": "notebook-sandbox"}, unschedulable("Insufficient cpu")),
		},
		{
			// daemonset: pods can use a hostPort; each <hostIP, hostPort, protocol> is unique
			// per node, so a second DaemonSet on 9100 fits on no node of the pool.
			Name: "otel-agent-hostport-9100-taken", Covers: "the new otel-node-agent DaemonSet has no running pod: every pod is Pending on 'didn't have free ports', because the node-exporter DaemonSet already binds hostPort 9100 on each node",
			Source: srcW8aDaemonSet, Class: ClassRanking, Hops: 2,
			Problem: "the new OpenTelemetry node agent sends no host metrics from the build pool", Target: target("DaemonSet", "otel-node-agent"),
			Want: Want{Culprit: Ref{Kind: "DaemonSet", Name: "node-exporter"}, Also: []Ref{{Kind: "DaemonSet", Name: "otel-node-agent"}}, Terms: []string{"9100"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error { _, err := e.createNode(ctx, nodeSpec{name: "build-a", kwok: true}); return err },
					func() error { _, err := e.createNode(ctx, nodeSpec{name: "build-b", kwok: true}); return err },
					func() error {
						return e.w8aCreateDaemonSet(ctx, w8aDaemonSet("node-exporter", "quay.io/prometheus/node-exporter:v1.8.2",
							map[string]string{"k8s-app": "node-exporter"}, func(t *corev1.PodTemplateSpec) {
								e.pin(t)
								t.Spec.HostNetwork, t.Spec.HostPID = true, true
								t.Spec.Containers[0].Args = []string{"--path.rootfs=/host", "--web.listen-address=0.0.0.0:9100"}
								t.Spec.Containers[0].Ports = []corev1.ContainerPort{{Name: "metrics", ContainerPort: 9100, HostPort: 9100}}
							}))
					},
				)
			},
			Wait: func(ctx context.Context, e *Env) error {
				if e.State["otel"] == "" {
					ds, err := e.Client.AppsV1().DaemonSets(e.Namespace).Get(ctx, "node-exporter", metav1.GetOptions{})
					if err != nil {
						return err
					}
					if ds.Status.DesiredNumberScheduled != 2 || ds.Status.NumberReady != 2 {
						return fmt.Errorf("node-exporter: %d desired, %d ready", ds.Status.DesiredNumberScheduled, ds.Status.NumberReady)
					}
					// The observability team's new agent, rolled out weeks later.
					if err := e.w8aCreateDaemonSet(ctx, w8aDaemonSet("otel-node-agent", "otel/opentelemetry-collector-contrib:0.112.0",
						map[string]string{"app.kubernetes.io/name": "otel-node-agent", "app.kubernetes.io/part-of": "observability"}, func(t *corev1.PodTemplateSpec) {
							e.pin(t)
							t.Spec.Containers[0].Args = []string{"--config=/conf/agent.yaml"}
							t.Spec.Containers[0].Ports = []corev1.ContainerPort{{Name: "otlp", ContainerPort: 4317}, {Name: "hostmetrics", ContainerPort: 9100, HostPort: 9100}}
						})); err != nil {
						return err
					}
					e.State["otel"] = "yes"
				}
				return podsWith(map[string]string{"app.kubernetes.io/name": "otel-node-agent"}, unschedulable("free ports"))(ctx, e)
			},
		},
		{
			// KubeHpaMaxedOut: "max replicas too low". The HPA sets a target above its
			// maxReplicas back to the maximum, whatever the metrics say.
			Name: "checkout-hpa-max-undoes-scaleup", Covers: "checkout was scaled to 8 for a sale and is back at 3 within seconds: its HPA has maxReplicas 3 and rescales with reason 'Current number of replicas above Spec.MaxReplicas'; the pods log queue-full 503s",
			Source: srcW8aHpaMaxedOut, Class: ClassMechanism, Hops: 1,
			Problem: "we scaled checkout to 8 replicas for the sale and it keeps dropping back to 3", Target: target("Deployment", "checkout"),
			Want: Want{Culprit: Ref{Kind: "HorizontalPodAutoscaler", Name: "checkout"}, Terms: []string{"maxReplicas"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					// 3 (then 8) replicas of 500m: a node of their own.
					func() error { return e.ownNode(ctx, "shop") },
					func() error {
						d := w8aDeployment("checkout", "registry.example/shop/checkout-api:5.14.2", 3, 8080,
							map[string]string{"service": "checkout", "env": "prod"}, running("w8a-checkout-saturated"))
						limits(&d.Spec.Template, "500m", "512Mi")
						e.pin(&d.Spec.Template)
						return e.createDeployment(ctx, d)
					},
					func() error { return e.createHPA(ctx, "checkout", "checkout", 2, 3) },
					func() error {
						return e.createDeployment(ctx, w8aDeployment("cart", "registry.example/shop/cart-api:3.2.0", 2, 8080,
							map[string]string{"service": "cart", "env": "prod"}, nil))
					},
				)
			},
			Wait: func(ctx context.Context, e *Env) error {
				if e.State["scaled"] == "" {
					if err := readyReplicas("checkout", 3)(ctx, e); err != nil {
						return err
					}
					// kubectl scale deployment checkout --replicas=8
					if err := e.updateDeployment(ctx, "checkout", func(d *appsv1.Deployment) { d.Spec.Replicas = ptr.To[int32](8) }); err != nil {
						return err
					}
					e.State["scaled"] = "yes"
				}
				return all(objectEvent("HorizontalPodAutoscaler", "checkout", "SuccessfulRescale", "above Spec.MaxReplicas"), w8aDeploymentReplicas("checkout", 3))(ctx, e)
			},
		},
		{
			// bitnami/charts#1299: etcd needs its peers up to become healthy, and OrderedReady
			// creates etcd-1 only once etcd-0 is Ready: a deadlock.
			Name: "flags-etcd-orderedready-deadlock", Covers: "feature-flags crash-loops on etcd timeouts; etcd-client has no ready endpoint: etcd-0 is Running but never Ready (no leader, its peers do not resolve) and etcd-1/etcd-2 are never created because the StatefulSet uses podManagementPolicy OrderedReady",
			Source: srcW8aEtcdOrdered, Class: ClassProvider, Hops: 3,
			Problem: "feature-flags keeps crashing since the flags etcd cluster was recreated", Target: target("Deployment", "feature-flags"),
			Want: Want{Culprit: Ref{Kind: "StatefulSet", Name: "etcd"}, Terms: []string{"OrderedReady"}},
			Setup: func(ctx context.Context, e *Env) error {
				etcd := map[string]string{"app.kubernetes.io/name": "etcd", "app.kubernetes.io/instance": "flags"}
				ff := map[string]string{"app.kubernetes.io/name": "feature-flags", "app.kubernetes.io/instance": "flags"}
				return steps(
					func() error {
						s := service("etcd-headless", etcd, intstr.FromString("peer"))
						s.Spec.ClusterIP, s.Spec.PublishNotReadyAddresses = corev1.ClusterIPNone, true
						s.Spec.Ports = []corev1.ServicePort{{Name: "client", Port: 2379, TargetPort: intstr.FromString("client")}, {Name: "peer", Port: 2380, TargetPort: intstr.FromString("peer")}}
						return e.createService(ctx, s)
					},
					func() error {
						s := service("etcd-client", etcd, intstr.FromString("client"))
						s.Spec.Ports[0].Name, s.Spec.Ports[0].Port = "client", 2379
						return e.createService(ctx, s)
					},
					func() error {
						s := w8aStatefulSet("etcd", "bitnami/etcd:3.5.15", "etcd-headless", 3, etcd, readinessFail("w8a-etcd-waiting-for-peers"))
						s.Spec.PodManagementPolicy = appsv1.OrderedReadyPodManagement
						s.Spec.Template.Spec.Containers[0].Ports = []corev1.ContainerPort{{Name: "client", ContainerPort: 2379}, {Name: "peer", ContainerPort: 2380}}
						s.Spec.Template.Spec.Containers[0].ReadinessProbe = &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/health", Port: intstr.FromString("client")}}, PeriodSeconds: 10}
						s.Spec.Template.Spec.Containers[0].Env = []corev1.EnvVar{
							{Name: "ETCD_INITIAL_CLUSTER", Value: "etcd-0=http://etcd-0.etcd-headless:2380,etcd-1=http://etcd-1.etcd-headless:2380,etcd-2=http://etcd-2.etcd-headless:2380"},
							{Name: "ETCD_INITIAL_CLUSTER_STATE", Value: "new"},
						}
						_, err := e.Client.AppsV1().StatefulSets(e.Namespace).Create(ctx, s, metav1.CreateOptions{})
						return wrap("StatefulSet", s.Name, err)
					},
					func() error {
						d := w8aDeployment("feature-flags", "registry.example/platform/feature-flags:2.11.0", 2, 8080, ff, crash("1", "", "w8a-flagd-etcd-unavailable"))
						return e.createDeployment(ctx, env(d, "FLAGS_ETCD_ENDPOINTS", "http://etcd-client:2379", "FLAGS_ETCD_PREFIX", "/flags/"))
					},
					func() error {
						return e.createDeployment(ctx, w8aDeployment("flags-ui", "registry.example/platform/flags-ui:1.4.2", 1, 8080,
							map[string]string{"app.kubernetes.io/name": "flags-ui", "app.kubernetes.io/instance": "flags"}, nil))
					},
				)
			},
			Wait: all(
				podsWith(map[string]string{"app.kubernetes.io/name": "etcd"}, runningNotReady),
				podsWith(map[string]string{"app.kubernetes.io/name": "feature-flags"}, crashLooping(1)),
				w8aStatefulSetPods("etcd", 1),
			),
		},
		{
			// persistent-volumes: with reclaim policy Retain, a volume whose claim is deleted
			// is Released and "not yet available for another claim"; the recreated claim of
			// the same name stays Pending.
			Name: "reports-db-volume-released", Covers: "reports-api crash-loops on connection refused to reports-db; the reports-db pod is Pending on an unbound claim: the claim was recreated during a storage cleanup and the pre-provisioned volume it names is Released (Retain, claimRef still holds the deleted claim's UID)",
			Source: srcW8aPV, Class: ClassProvider, Hops: 4,
			Problem: "reports-api is crash looping after yesterday's storage cleanup", Target: target("Deployment", "reports-api"),
			Want: Want{Culprit: Ref{Kind: "PersistentVolume", Name: "reports-pgdata", Cluster: true}, Terms: []string{"Released"}},
			Setup: func(ctx context.Context, e *Env) error {
				db := map[string]string{"app.kubernetes.io/name": "postgresql", "app.kubernetes.io/instance": "reports-db"}
				class := e.ClusterName("local-ssd")
				return steps(
					func() error {
						return e.createStorageClass(ctx, "local-ssd", "kubernetes.io/no-provisioner", storagev1.VolumeBindingImmediate)
					},
					func() error { return e.w8aCreateRetainedPV(ctx, "reports-pgdata", "reports-pgdata", class, "20Gi") },
					func() error {
						c := pvc("reports-pgdata", class, "20Gi", corev1.ReadWriteOnce)
						c.Spec.VolumeName = e.ClusterName("reports-pgdata")
						return e.createPVC(ctx, c)
					},
					func() error {
						d := w8aDeployment("reports-db", "postgres:16.4", 1, 5432, db, nil)
						d.Spec.Strategy = appsv1.DeploymentStrategy{Type: appsv1.RecreateDeploymentStrategyType}
						d.Spec.Template.Spec.Containers[0].Ports[0].Name = "postgresql"
						claimVolume(&d.Spec.Template, "reports-pgdata")
						return e.createDeployment(ctx, d)
					},
					func() error {
						s := service("reports-db", db, intstr.FromString("postgresql"))
						s.Spec.Ports[0].Name, s.Spec.Ports[0].Port = "postgresql", 5432
						return e.createService(ctx, s)
					},
					func() error {
						msg := `psycopg.OperationalError: connection failed: connection to server at "reports-db" (` + e.clusterIP(ctx, "reports-db") + `), port 5432 failed: Connection refused`
						d := w8aDeployment("reports-api", "registry.example/analytics/reports-api:4.0.2", 2, 8000,
							map[string]string{"app.kubernetes.io/name": "reports-api", "app.kubernetes.io/instance": "reports"}, crash("1", msg, ""))
						return e.createDeployment(ctx, env(d, "DATABASE_HOST", "reports-db", "DATABASE_NAME", "reports", "DATABASE_PORT", "5432"))
					},
				)
			},
			Wait: all(
				w8aPVPhase("reports-pgdata", corev1.VolumeReleased),
				pvcPending("reports-pgdata"),
				podsWith(map[string]string{"app.kubernetes.io/instance": "reports-db"}, unschedulable("unbound")),
				podsWith(map[string]string{"app.kubernetes.io/name": "reports-api"}, crashLooping(1)),
			),
		},
		{
			// PrometheusRuleFailures: "Prometheus rules are incorrect or failed to calculate";
			// the rule manager logs each failed evaluation with its file and group.
			Name: "prometheus-rule-many-to-many", Covers: "Running Prometheus whose rule manager logs 'Evaluating rule failed … many-to-many matching not allowed' for a recording rule of checkout-slo.rules.yaml, a key of the rules ConfigMap",
			Source: srcW8aRuleFailures, Class: ClassOutside, Hops: 2,
			Problem: "PrometheusRuleFailures is firing for prometheus-k8s", Target: target("StatefulSet", "prometheus-k8s"),
			Want: Want{Culprit: Ref{Kind: "ConfigMap", Name: "prometheus-k8s-rules"}, Terms: []string{"many-to-many"}},
			Setup: func(ctx context.Context, e *Env) error {
				prom := map[string]string{"app.kubernetes.io/name": "prometheus", "app.kubernetes.io/instance": "k8s"}
				return steps(
					func() error {
						return e.createConfigMap(ctx, "prometheus-k8s-config", map[string]string{"prometheus.yml": "global:\n  scrape_interval: 30s\n  evaluation_interval: 30s\n" +
							"rule_files:\n  - /etc/prometheus/rules/*.yaml\nscrape_configs:\n  - job_name: checkout\n    kubernetes_sd_configs: [{role: pod}]\n" +
							"    relabel_configs:\n      - {source_labels: [__meta_kubernetes_pod_label_service], regex: checkout, action: keep}\n"})
					},
					func() error {
						return e.createConfigMap(ctx, "prometheus-k8s-rules", map[string]string{
							"checkout-slo.rules.yaml": "groups:\n- name: checkout-slo\n  interval: 30s\n  rules:\n" +
								"  - record: checkout:requests:rate5m\n    expr: sum by (namespace) (rate(http_requests_total{job=\"checkout\"}[5m]))\n" +
								"  - record: checkout:errors:rate5m\n    expr: sum by (namespace) (rate(http_requests_total{job=\"checkout\",code=~\"5..\"}[5m]))\n" +
								"  - record: checkout:slo_errors_per_request:ratio_rate1h\n    expr: sum by (namespace, route) (rate(http_requests_total{code=~\"5..\",job=\"checkout\"}[1h]))\n" +
								"      / on (namespace) group_left () sum by (namespace, pod) (rate(http_requests_total{job=\"checkout\"}[1h]))\n" +
								"  - alert: CheckoutErrorBudgetBurn\n    expr: checkout:slo_errors_per_request:ratio_rate1h > (14.4 * 0.001)\n    for: 2m\n    labels: {severity: page}\n",
							"node.rules.yaml": "groups:\n- name: node\n  rules:\n  - record: instance:node_cpu_utilisation:rate5m\n" +
								"    expr: 1 - avg without (cpu) (sum without (mode) (rate(node_cpu_seconds_total{mode=~\"idle|iowait|steal\"}[5m])))\n",
						})
					},
					func() error {
						s := service("prometheus-operated", prom, intstr.FromString("web"))
						s.Spec.ClusterIP, s.Spec.Ports[0].Name, s.Spec.Ports[0].Port = corev1.ClusterIPNone, "web", 9090
						return e.createService(ctx, s)
					},
					func() error {
						s := w8aStatefulSet("prometheus-k8s", "quay.io/prometheus/prometheus:v2.54.1", "prometheus-operated", 1, prom, running("w8a-prometheus-rule-many-to-many"))
						c := &s.Spec.Template.Spec.Containers[0]
						c.Name, c.Ports = "prometheus", []corev1.ContainerPort{{Name: "web", ContainerPort: 9090}}
						c.Args = []string{"--config.file=/etc/prometheus/config/prometheus.yml", "--storage.tsdb.path=/prometheus", "--storage.tsdb.retention.time=15d", "--web.enable-lifecycle"}
						mountConfigMap(&s.Spec.Template, "prometheus-k8s-config", "/etc/prometheus/config")
						mountConfigMap(&s.Spec.Template, "prometheus-k8s-rules", "/etc/prometheus/rules")
						_, err := e.Client.AppsV1().StatefulSets(e.Namespace).Create(ctx, s, metav1.CreateOptions{})
						return wrap("StatefulSet", s.Name, err)
					},
					func() error {
						return e.createDeployment(ctx, w8aDeployment("checkout", "registry.example/shop/checkout-api:5.14.2", 2, 8080,
							map[string]string{"service": "checkout", "env": "prod"}, nil))
					},
				)
			},
			Wait: podsWith(map[string]string{"app.kubernetes.io/name": "prometheus"}, runningReady),
		},
		{
			// ConfigReloaderSidecarErrors: "check config-reloader logs"; the reloader POSTs
			// /-/reload, which Prometheus refuses (403) unless it runs with --web.enable-lifecycle.
			Name: "prometheus-reloader-lifecycle-off", Covers: "a new scrape job never appears: the config-reloader sidecar logs 'trigger reload: received non-200 response: 403 Forbidden; have you set --web.enable-lifecycle'; the prometheus container's args lack that flag",
			Source: srcW8aReloader, Class: ClassClue, Hops: 1,
			Problem: "ConfigReloaderSidecarErrors is firing and the new payments scrape job never shows up in Prometheus targets", Target: target("StatefulSet", "prometheus-main"),
			Want: Want{Culprit: Ref{Kind: "StatefulSet", Name: "prometheus-main"}, Terms: []string{"web.enable-lifecycle"}},
			Setup: func(ctx context.Context, e *Env) error {
				prom := map[string]string{"app": "prometheus", "prometheus": "main"}
				return steps(
					func() error {
						return e.createConfigMap(ctx, "prometheus-main-config", map[string]string{"prometheus.yml": "global:\n  scrape_interval: 30s\n" +
							"scrape_configs:\n  - job_name: orders\n    static_configs: [{targets: ['orders:9102']}]\n" +
							"  - job_name: payments\n    static_configs: [{targets: ['payments:9102']}]\n"})
					},
					func() error { return e.createHeadless(ctx, "prometheus-main", "prometheus", "web", 9090) },
					func() error {
						s := w8aStatefulSet("prometheus-main", "quay.io/prometheus/prometheus:v2.54.1", "prometheus-main", 1, prom, running("w8a-prometheus-reloader-403"))
						c := &s.Spec.Template.Spec.Containers[0]
						c.Name, c.Ports = "prometheus", []corev1.ContainerPort{{Name: "web", ContainerPort: 9090}}
						c.Args = []string{"--config.file=/etc/prometheus/config_out/prometheus.env.yaml", "--storage.tsdb.path=/prometheus",
							"--storage.tsdb.retention.time=24h", "--web.route-prefix=/", "--web.listen-address=0.0.0.0:9090"}
						mountConfigMap(&s.Spec.Template, "prometheus-main-config", "/etc/prometheus/config")
						s.Spec.Template.Spec.Containers = append(s.Spec.Template.Spec.Containers, corev1.Container{
							Name: "config-reloader", Image: "quay.io/prometheus-operator/prometheus-config-reloader:v0.77.1",
							Args: []string{"--listen-address=:8080", "--reload-url=http://127.0.0.1:9090/-/reload",
								"--config-file=/etc/prometheus/config/prometheus.yml", "--config-envsubst-file=/etc/prometheus/config_out/prometheus.env.yaml"},
							VolumeMounts: []corev1.VolumeMount{{Name: "prometheus-main-config", MountPath: "/etc/prometheus/config"}},
						})
						_, err := e.Client.AppsV1().StatefulSets(e.Namespace).Create(ctx, s, metav1.CreateOptions{})
						return wrap("StatefulSet", s.Name, err)
					},
					func() error {
						return e.createDeployment(ctx, w8aDeployment("payments", "registry.example/pay/payments:7.1.0", 2, 9102, map[string]string{"app": "payments"}, nil))
					},
					func() error { return e.createServiceOn(ctx, "payments", "payments", 9102, intstr.FromString("http")) },
					func() error {
						return e.createDeployment(ctx, w8aDeployment("orders", "registry.example/shop/orders:3.9.1", 1, 9102, map[string]string{"app": "orders"}, nil))
					},
					func() error { return e.createServiceOn(ctx, "orders", "orders", 9102, intstr.FromString("http")) },
				)
			},
			Wait: podsWith(map[string]string{"prometheus": "main"}, runningReady),
		},
	}
}
