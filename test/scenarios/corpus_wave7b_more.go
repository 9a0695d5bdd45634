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
	"encoding/base64"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// The second half of wave 7b (see corpus_wave7b.go).

const (
	srcRbConfigReloader  = "runbooks/prometheus-operator/ConfigReloaderSidecarErrors.md"
	srcRbEtcdQuota       = "runbooks/etcd/etcdBackendQuotaLowSpace.md"
	srcRbCPUThrottling   = "runbooks/kubernetes/CPUThrottlingHigh.md"
	srcHostNetworkDNS    = "kubernetes.recipes: Kubernetes DNS Policy ClusterFirstWithHostNet (hostNetwork agents lose cluster DNS)"
	srcSingleArchPromote = "kubernetes/k8s.io#9509: coredns v1.14.3 promoted as a single-arch manifest (exec /coredns: exec format error)"
	srcUnquotedColon     = "grokdevops PM-010: Missing Runbook Extends CrashLoopBackOff Recovery by 45 Minutes (unquoted colon in a ConfigMap)"
	srcVersionedSecrets  = "zoelog: Kubernetes Secrets Rotation: Versioned Pattern with Instant Rollback"
	srcNetpolGoneRogue   = "bicov.pro: Network Policies Gone Rogue: The Day Dev Stopped Talking to Prod"
	srcConfigMapTypo     = "grafclouds: ConfigMap Typo Outage (DATABASE_CONNECITON_TIMEOUT)"
	srcECRTokenReplay    = "grokdevops: Incident Replay: ImagePullBackOff — Registry Authentication Failure (ECR token refresh CronJob)"
	srcRbAMMembers       = "runbooks/alertmanager/AlertmanagerMembersInconsistent.md"
)

func wave7bMoreScenarios() []*Scenario {
	return []*Scenario{
		{
			// A receivers typo pushed to the Alertmanager config Secret: Alertmanager keeps the
			// old config and the reloader sidecar logs a failed reload every tick.
			Name: "alertmanager-reload-rejects-recievers", Covers: "Running Alertmanager whose config-reloader and alertmanager logs repeat a failed reload ('field recievers not found'); the config Secret has the typo",
			Source: srcRbConfigReloader, Class: ClassOutside, Hops: 1,
			Problem: "config-reloader sidecar has not had a successful reload for 10m",
			Target:  target("StatefulSet", "alertmanager-main"),
			Want:    Want{Culprit: Ref{Kind: "Secret", Name: "alertmanager-main-config"}, Terms: []string{"recievers"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						return e.createSecret(ctx, "alertmanager-main-config", map[string]string{"alertmanager.yaml": "global:\n  resolve_timeout: 5m\nroute:\n  receiver: team-payments\n  group_by: [alertname, namespace]\n" +
							"  routes:\n    - matchers: [severity=\"critical\"]\n      receiver: pagerduty\nrecievers:\n  - name: team-payments\n    slack_configs:\n      - channel: '#payments-alerts'\n  - name: pagerduty\n    pagerduty_configs:\n      - routing_key_file: /etc/alertmanager/secrets/pd-key\n"})
					},
					func() error {
						st := plainStatefulSet("alertmanager-main", "quay.io/prometheus/alertmanager:v0.27.0", 2, running("w7b-alertmanager-reload-rejected"))
						st.Spec.ServiceName = "alertmanager-operated"
						port(&st.Spec.Template, "web", 9093)
						mountSecret(&st.Spec.Template, "alertmanager-main-config", "/etc/alertmanager/config")
						st.Spec.Template.Spec.Containers = append(st.Spec.Template.Spec.Containers, corev1.Container{
							Name: "config-reloader", Image: "quay.io/prometheus-operator/prometheus-config-reloader:v0.75.1",
							Args:         []string{"--reload-url=http://127.0.0.1:9093/-/reload", "--config-file=/etc/alertmanager/config/alertmanager.yaml", "--config-envsubst-file=/etc/alertmanager/config_out/alertmanager.env.yaml"},
							VolumeMounts: st.Spec.Template.Spec.Containers[0].VolumeMounts,
						})
						return e.createStatefulSet(ctx, st)
					},
					func() error { return e.createHeadless(ctx, "alertmanager-operated", "alertmanager-main", "web", 9093) },
				)
			},
			Wait: func(ctx context.Context, e *Env) error { return readyStatefulSet(ctx, e, "alertmanager-main", 2) },
		},
		{
			// etcd hit its 64 MB backend quota (no compaction) and raised NOSPACE; Patroni can no
			// longer renew its leader key and its members restart.
			Name: "patroni-etcd-database-space-exceeded", Covers: "Patroni members crash with 'etcdserver: mvcc: database space exceeded'; the etcd StatefulSet runs with --quota-backend-bytes=64MB and no auto-compaction and its log shows the NOSPACE alarm",
			Source: srcRbEtcdQuota, Class: ClassRanking, Hops: 2,
			Problem: "orders-db has no leader and its pods keep restarting",
			Target:  target("StatefulSet", "orders-db"),
			Want:    Want{Culprit: Ref{Kind: "StatefulSet", Name: "etcd"}, Terms: []string{"database space exceeded"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						st := plainStatefulSet("etcd", "quay.io/coreos/etcd:v3.5.15", 3, running("w7b-etcd-nospace"))
						st.Spec.PodManagementPolicy = appsv1.ParallelPodManagement
						port(&st.Spec.Template, "client", 2379)
						st.Spec.Template.Spec.Containers[0].Args = []string{"--quota-backend-bytes=67108864", "--auto-compaction-retention=0", "--snapshot-count=10000"}
						return e.createStatefulSet(ctx, st)
					},
					func() error { return e.createHeadless(ctx, "etcd", "etcd", "client", 2379) },
					func() error { return e.createServiceOn(ctx, "etcd-client", "etcd", 2379, intstr.FromString("client")) },
					func() error {
						return e.createDeployment(ctx, deployment("pgbouncer", "bitnami/pgbouncer:1.23.1", 1, nil))
					},
					func() error {
						st := plainStatefulSet("orders-db", "registry.example/data/patroni:3.3.2-pg16", 2,
							crash("1", "patroni.exceptions.DCSError: failed to update leader key /service/orders-db/leader: etcdserver: mvcc: database space exceeded", ""))
						st.Spec.PodManagementPolicy = appsv1.ParallelPodManagement
						port(&st.Spec.Template, "postgresql", 5432)
						st.Spec.Template.Spec.Containers[0].Env = []corev1.EnvVar{{Name: "PATRONI_ETCD3_HOSTS", Value: "etcd-client:2379"}, {Name: "PATRONI_SCOPE", Value: "orders-db"}}
						return e.createStatefulSet(ctx, st)
					},
					func() error { return e.createHeadless(ctx, "orders-db", "orders-db", "postgresql", 5432) },
				)
			},
			Wait: all(anyPod("orders-db", crashLooping(2)), func(ctx context.Context, e *Env) error { return readyStatefulSet(ctx, e, "etcd", 3) }),
		},
		{
			// The agent was moved to host networking; with dnsPolicy ClusterFirst a hostNetwork
			// pod gets the node's resolver, which knows nothing of cluster Services.
			Name: "node-agent-hostnetwork-cluster-dns", Covers: "a hostNetwork DaemonSet crash-loops: 'lookup metrics-gateway.<ns>.svc.cluster.local on 169.254.169.254:53: no such host' although the Service exists; dnsPolicy is ClusterFirst",
			Source: srcHostNetworkDNS, Class: ClassClue, Hops: 1,
			Problem: "node metrics stopped arriving after we switched the agent to host networking",
			Target:  target("DaemonSet", "node-agent"),
			Want:    Want{Culprit: Ref{Kind: "DaemonSet", Name: "node-agent"}, Terms: []string{"dnsPolicy"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						return e.createBackend(ctx, "metrics-gateway", "otel/opentelemetry-collector-contrib:0.110.0", 4317, 4317)
					},
					func() error {
						msg := fmt.Sprintf("otlp exporter: failed to connect: dial tcp: lookup metrics-gateway.%s.svc.cluster.local on 169.254.169.254:53: no such host", e.Namespace)
						return e.createDaemonSet(ctx, "node-agent", "registry.example/observability/node-agent:1.9.0", crash("1", msg, ""), func(t *corev1.PodTemplateSpec) {
							t.Spec.HostNetwork = true
							t.Spec.DNSPolicy = corev1.DNSClusterFirst
							t.Spec.Containers[0].Env = []corev1.EnvVar{{Name: "OTLP_ENDPOINT", Value: "metrics-gateway." + e.Namespace + ".svc.cluster.local:4317"}}
						})
					},
				)
			},
			Wait: anyPod("node-agent", crashLooping(2)),
		},
		{
			// The renderer's tag was overwritten by an arm64-only build; the nightly restart
			// pulled it on amd64 nodes. The log has one line.
			Name: "pdf-renderer-tag-overwritten-arm64", Covers: "after a rollout restart the new pdf-renderer pods crash; the only log line is 'exec /usr/local/bin/pdf-renderer: exec format error' (same tag, now a single-arch arm64 image)",
			Source: srcSingleArchPromote, Class: ClassClue, Hops: 1,
			Problem: "PDF exports fail since the nightly restart",
			Target:  target("Deployment", "pdf-renderer"),
			Want:    Want{Culprit: Ref{Kind: "Deployment", Name: "pdf-renderer"}, Terms: []string{"exec format error"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						d := deployment("pdf-renderer", "registry.example/docs/pdf-renderer:2.8", 2, nil)
						d.Spec.Template.Spec.Containers[0].ImagePullPolicy = corev1.PullAlways
						return e.createDeployment(ctx, d)
					},
					func() error {
						return e.createDeployment(ctx, deployment("docs-api", "registry.example/docs/api:4.0.1", 1, nil))
					},
				)
			},
			Wait: func(ctx context.Context, e *Env) error {
				if e.State["restarted"] == "" {
					if err := readyReplicas("pdf-renderer", 2)(ctx, e); err != nil {
						return err
					}
					if err := e.updateDeployment(ctx, "pdf-renderer", func(d *appsv1.Deployment) {
						a := crash("1", "", "w7b-pdf-renderer-exec-format")
						a["kubectl.kubernetes.io/restartedAt"] = "2026-11-27T02:00:00Z"
						d.Spec.Template.Annotations = a
					}); err != nil {
						return err
					}
					e.State["restarted"] = "yes"
				}
				return anyPod("pdf-renderer", crashLooping(2))(ctx, e)
			},
		},
		{
			// A feature flag added to the ConfigMap as `rate_limit_strategy: adaptive: true`:
			// the unquoted colon makes the YAML invalid and every auth-service pod exits.
			Name: "auth-service-config-unquoted-colon", Covers: "auth-service crash-loops; its logrus log says 'yaml: line 14: mapping values are not allowed in this context' for the config file mounted from a ConfigMap",
			Source: srcUnquotedColon, Class: ClassClue, Hops: 2,
			Problem: "logins are failing: auth-service pods are in CrashLoopBackOff after the 09:41 deploy",
			Target:  target("Deployment", "auth-service"),
			Want:    Want{Culprit: Ref{Kind: "ConfigMap", Name: "auth-service-config"}, Terms: []string{"mapping values are not allowed"}},
			Setup: func(ctx context.Context, e *Env) error {
				conf := "server:\n  port: 8080\n  read_timeout: 5s\n  write_timeout: 10s\nsessions:\n  store: redis://session-store:6379/0\n  ttl: 12h\n" +
					"oidc:\n  issuer: https://login.example.com\n  client_id: auth-service\nfeatures:\n  mfa_enforced: true\n  passkeys: false\n" +
					"  rate_limit_strategy: adaptive: true\n  rate_limit_rps: 50\n"
				return steps(
					func() error {
						return e.createConfigMap(ctx, "auth-service-config", map[string]string{"config.yaml": conf})
					},
					func() error { return e.createBackend(ctx, "session-store", "redis:7.2.5", 6379, 6379) },
					func() error {
						return e.createDeployment(ctx, deployment("login-web", "registry.example/identity/login-web:2.11.3", 1, nil))
					},
					func() error {
						d := deployment("auth-service", "registry.example/identity/auth-service:2.11.3", 2, crash("1", "", "w7b-auth-service-yaml"))
						mountConfigMap(&d.Spec.Template, "auth-service-config", "/etc/auth")
						return e.createDeployment(ctx, d)
					},
				)
			},
			Wait: anyPod("auth-service", crashLooping(2)),
		},
		{
			// The rotation job created orders-db-20261127093000 and deleted orders-db; the
			// running pods kept their env, the restarted ones cannot start.
			Name: "orders-db-secret-rotated-to-new-name", Covers: "restarted orders pods are stuck in CreateContainerConfigError: the Secret they reference was replaced by a versioned one during a credential rotation",
			Source: srcVersionedSecrets, Class: ClassReference, Hops: 2,
			Problem: "half of the orders pods are stuck since the credential rotation",
			Target:  target("Deployment", "orders"),
			Want:    Want{Culprit: Ref{Kind: "Secret", Name: "orders-db"}, Also: []Ref{{Kind: "Deployment", Name: "orders"}}, Terms: []string{"orders-db"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						return e.createSecret(ctx, "orders-db", map[string]string{"username": "orders", "password": "before-rotation"})
					},
					func() error {
						d := env(deployment("orders", "registry.example/shop/orders:9.1.0", 2, nil), "DB_HOST", "orders-postgres", "DB_USER", "orders")
						envKeyFromSecret(&d.Spec.Template, "DB_PASSWORD", "orders-db", "password")
						return e.createDeployment(ctx, d)
					},
					func() error { return e.createBackend(ctx, "orders-postgres", "postgres:16.4", 5432, 5432) },
				)
			},
			Wait: func(ctx context.Context, e *Env) error {
				if e.State["rotated"] == "" {
					if err := readyReplicas("orders", 2)(ctx, e); err != nil {
						return err
					}
					if err := e.createSecret(ctx, "orders-db-20261127093000", map[string]string{"username": "orders", "password": "after-rotation"}); err != nil {
						return err
					}
					if err := ignoreNotFound(e.Client.CoreV1().Secrets(e.Namespace).Delete(ctx, "orders-db", metav1.DeleteOptions{})); err != nil {
						return err
					}
					if err := e.updateDeployment(ctx, "orders", func(d *appsv1.Deployment) {
						d.Spec.Template.Annotations = map[string]string{annBehavior: "create-config-error", "kubectl.kubernetes.io/restartedAt": "2026-11-27T09:30:00Z"}
					}); err != nil {
						return err
					}
					e.State["rotated"] = "yes"
				}
				return anyPod("orders", waiting("CreateContainerConfigError"))(ctx, e)
			},
		},
		{
			// "Only frontend may call the backend": the reporting worker, which nobody listed,
			// times out on every job. The traceback is in the middle of its log.
			Name: "reporting-worker-allow-frontend-policy", Covers: "a Running reporting worker's Python traceback says 'Connection to backend timed out'; a new NetworkPolicy on backend admits only frontend pods",
			Source: srcNetpolGoneRogue, Class: ClassProvider, Hops: 2,
			Problem: "monthly revenue reports are stuck in the queue since Monday's security hardening",
			Target:  target("Deployment", "reporting-worker"),
			Want:    Want{Culprit: Ref{Kind: "NetworkPolicy", Name: "allow-frontend"}, Terms: []string{"allow-frontend"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error { return e.createBackend(ctx, "backend", "registry.example/shop/backend:12.4.0", 80, 8080) },
					func() error {
						return e.createDeployment(ctx, deployment("frontend", "registry.example/shop/frontend:12.4.0", 2, nil))
					},
					func() error {
						return e.createNetworkPolicy(ctx, &networkingv1.NetworkPolicy{
							ObjectMeta: metav1.ObjectMeta{Name: "allow-frontend"},
							Spec: networkingv1.NetworkPolicySpec{
								PodSelector: metav1.LabelSelector{MatchLabels: map[string]string{"app": "backend"}},
								PolicyTypes: []networkingv1.PolicyType{networkingv1.PolicyTypeIngress},
								Ingress: []networkingv1.NetworkPolicyIngressRule{{From: []networkingv1.NetworkPolicyPeer{{
									PodSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "frontend"}}}}}},
							},
						})
					},
					func() error {
						return e.createDeployment(ctx, env(deployment("reporting-worker", "registry.example/shop/reporting:3.0.2", 1, running("w7b-reporting-backend-timeout")),
							"BACKEND_URL", "http://backend", "QUEUE_URL", "redis://reporting-queue:6379/1"))
					},
					func() error { return e.createBackend(ctx, "reporting-queue", "redis:7.2.5", 6379, 6379) },
				)
			},
			Wait: all(anyPod("reporting-worker", runningReady), anyPod("backend", runningReady)),
		},
		{
			// 100m of CPU for a JVM search service with a 1 s liveness timeout: throttled, the
			// health endpoint answers late and the kubelet kills the container.
			Name: "search-api-cpu-throttled-liveness", Covers: "search-api restarts on liveness timeouts ('context deadline exceeded'); its CPU limit is 100m and the probe's timeoutSeconds is 1",
			Source: srcRbCPUThrottling, Class: ClassMechanism, Hops: 0,
			Problem: "CPUThrottlingHigh is firing for search-api and its pods restart every few minutes",
			Target:  target("Deployment", "search-api"),
			Want:    Want{Culprit: Ref{Kind: "Deployment", Name: "search-api"}, Terms: []string{"100m"}},
			Setup: func(ctx context.Context, e *Env) error {
				msg := `Liveness probe failed: Get "http://10.244.1.23:8080/healthz": context deadline exceeded (Client.Timeout exceeded while awaiting headers)`
				d := deployment("search-api", "registry.example/search/search-api:5.0.3", 2, sim("liveness-fail", annMessage, msg))
				limits(&d.Spec.Template, "100m", "1Gi")
				p := httpProbe("/healthz")
				p.TimeoutSeconds, p.PeriodSeconds, p.FailureThreshold = 1, 10, 3
				d.Spec.Template.Spec.Containers[0].LivenessProbe = p
				return steps(
					func() error { return e.createDeployment(ctx, env(d, "JAVA_TOOL_OPTIONS", "-XX:MaxRAMPercentage=60")) },
					func() error {
						return e.createBackend(ctx, "opensearch", "opensearchproject/opensearch:2.17.0", 9200, 9200)
					},
				)
			},
			Wait: all(anyPod("search-api", restartedWith("Error", 137)), podEvent("Unhealthy", "context deadline exceeded")),
		},
		{
			// DATABASE_CONNECITON_TIMEOUT: the app never finds its timeout, uses 0 ms, and every
			// query is cancelled. It stays Ready; only the log tells.
			Name: "inventory-api-timeout-key-typo", Covers: "a Ready inventory API whose log repeats 'canceling statement due to statement timeout (timeout 0 ms)' after a WARN that DATABASE_CONNECTION_TIMEOUT is unset; the envFrom ConfigMap spells it CONNECITON",
			Source: srcConfigMapTypo, Class: ClassOutside, Hops: 1,
			Problem: "stock lookups return 500 since this morning's config change",
			Target:  target("Deployment", "inventory-api"),
			Want:    Want{Culprit: Ref{Kind: "ConfigMap", Name: "inventory-api-env"}, Terms: []string{"DATABASE_CONNECTION_TIMEOUT"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error { return e.createBackend(ctx, "inventory-db", "postgres:16.4", 5432, 5432) },
					func() error {
						return e.createConfigMap(ctx, "inventory-api-env", map[string]string{"DATABASE_URL": "jdbc:postgresql://inventory-db:5432/inventory",
							"DATABASE_CONNECITON_TIMEOUT": "30000", "DATABASE_POOL_SIZE": "20", "SERVER_PORT": "8080"})
					},
					func() error {
						d := deployment("inventory-api", "registry.example/shop/inventory-api:3.8.0", 2, running("w7b-inventory-timeout-zero"))
						envFromConfigMap(&d.Spec.Template, "inventory-api-env")
						return e.createDeployment(ctx, d)
					},
				)
			},
			Wait: readyReplicas("inventory-api", 2),
		},
		{
			// ECR tokens live 12 hours; the CronJob that rewrites regcred fails (its role lost
			// ecr:GetAuthorizationToken), so the next rollout cannot pull. The on-call already
			// ran it by hand once: that Job failed too.
			Name: "checkout-ecr-token-refresh-failing", Covers: "new checkout-service pods are in ImagePullBackOff with '401 … authorization token has expired'; regcred is refreshed by a CronJob whose (manually started) Job fails with AccessDeniedException",
			Source: srcECRTokenReplay, Class: ClassRanking, Hops: 3,
			Problem: "checkout-service deploy stuck: 0 of 3 replicas available",
			Target:  target("Deployment", "checkout-service"),
			Want:    Want{Culprit: Ref{Kind: "CronJob", Name: "ecr-token-refresh"}, Terms: []string{"expired"}},
			Setup: func(ctx context.Context, e *Env) error {
				const registry = "123456789012.dkr.ecr.eu-west-1.amazonaws.com"
				image := registry + "/shop/checkout-service:5.1.0"
				denied := "An error occurred (AccessDeniedException) when calling the GetAuthorizationToken operation: User: arn:aws:sts::123456789012:assumed-role/ecr-token-refresh/botocore-session-1764230400 " +
					"is not authorized to perform: ecr:GetAuthorizationToken on resource: * because no identity-based policy allows the ecr:GetAuthorizationToken action"
				return steps(
					func() error {
						auth := base64.StdEncoding.EncodeToString([]byte("AWS:eyJwYXlsb2FkIjoiZXhwaXJlZCIsImRhdGFrZXkiOiIuLi4ifQ=="))
						_, err := e.Client.CoreV1().Secrets(e.Namespace).Create(ctx, &corev1.Secret{
							ObjectMeta: metav1.ObjectMeta{Name: "regcred"}, Type: corev1.SecretTypeDockerConfigJson,
							Data: map[string][]byte{corev1.DockerConfigJsonKey: []byte(`{"auths":{"https://` + registry + `":{"username":"AWS","auth":"` + auth + `"}}}`)},
						}, metav1.CreateOptions{})
						return wrap("Secret", "regcred", err)
					},
					func() error { return e.createServiceAccount(ctx, "ecr-token-refresh") },
					func() error {
						j := job("ecr-token-refresh", 1, sim("fail", annExitCode, "254", annMessage, denied))
						j.Spec.Template.Spec.ServiceAccountName = "ecr-token-refresh"
						j.Spec.Template.Spec.Containers[0].Image = "public.ecr.aws/aws-cli/aws-cli:2.17.50"
						j.Spec.Template.Spec.Containers[0].Command = []string{"/bin/sh", "-c", "kubectl create secret docker-registry regcred --docker-server=https://" + registry +
							" --docker-username=AWS --docker-password=$(aws ecr get-login-password --region eu-west-1) --dry-run=client -o yaml | kubectl apply -f -"}
						cj, err := e.Client.BatchV1().CronJobs(e.Namespace).Create(ctx, &batchv1.CronJob{
							ObjectMeta: metav1.ObjectMeta{Name: "ecr-token-refresh"},
							Spec: batchv1.CronJobSpec{Schedule: "0 */10 * * *", ConcurrencyPolicy: batchv1.ForbidConcurrent,
								JobTemplate: batchv1.JobTemplateSpec{Spec: j.Spec}},
						}, metav1.CreateOptions{})
						if err != nil {
							return wrap("CronJob", "ecr-token-refresh", err)
						}
						// kubectl create job --from=cronjob/ecr-token-refresh ecr-token-refresh-manual-x7k2p
						manual := &batchv1.Job{
							ObjectMeta: metav1.ObjectMeta{Name: "ecr-token-refresh-manual-x7k2p", Annotations: map[string]string{"cronjob.kubernetes.io/instantiate": "manual"},
								OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(cj, batchv1.SchemeGroupVersion.WithKind("CronJob"))}},
							Spec: cj.Spec.JobTemplate.Spec,
						}
						_, err = e.Client.BatchV1().Jobs(e.Namespace).Create(ctx, manual, metav1.CreateOptions{})
						return wrap("Job", manual.Name, err)
					},
					func() error { return e.createDeployment(ctx, deployment("checkout-web", "nginx:1.27.1", 2, nil)) },
					func() error {
						msg := fmt.Sprintf("rpc error: code = Unknown desc = failed to pull and unpack image %q: failed to resolve reference %q: unexpected status code 401 Unauthorized: "+
							"Your authorization token has expired. Reauthenticate and try again.", image, image)
						d := deployment("checkout-service", image, 3, sim("image-pull-auth", annMessage, msg))
						d.Spec.Template.Spec.ImagePullSecrets = []corev1.LocalObjectReference{{Name: "regcred"}}
						return e.createDeployment(ctx, d)
					},
				)
			},
			Wait: all(anyPod("checkout-service", waiting("ErrImagePull", "ImagePullBackOff")), func(ctx context.Context, e *Env) error {
				return jobFailed(ctx, e, "ecr-token-refresh-manual-x7k2p", "BackoffLimitExceeded")
			}),
		},
		{
			// A chart cleanup removed the governing headless Service; the peers' DNS names are
			// gone and each Alertmanager gossips alone. The pods are Ready.
			Name: "alertmanager-peers-headless-service-gone", Covers: "Ready Alertmanager replicas log 'Failed to resolve alertmanager-main-1.alertmanager-operated:9094 … no such host'; the StatefulSet's governing Service alertmanager-operated was deleted",
			Source: srcRbAMMembers, Class: ClassReference, Hops: 1,
			Problem: "A member of an Alertmanager cluster has not found all other cluster members.",
			Target:  target("StatefulSet", "alertmanager-main"),
			Want: Want{Culprit: Ref{Kind: "Service", Name: "alertmanager-operated"}, Also: []Ref{{Kind: "StatefulSet", Name: "alertmanager-main"}},
				Terms: []string{"alertmanager-operated"}},
			Setup: func(ctx context.Context, e *Env) error {
				var peers []string
				for i := 0; i < 3; i++ {
					peers = append(peers, fmt.Sprintf("--cluster.peer=alertmanager-main-%d.alertmanager-operated:9094", i))
				}
				return steps(
					func() error {
						st := plainStatefulSet("alertmanager-main", "quay.io/prometheus/alertmanager:v0.27.0", 3, running("w7b-alertmanager-gossip-no-peers"))
						st.Spec.ServiceName = "alertmanager-operated"
						st.Spec.PodManagementPolicy = appsv1.ParallelPodManagement
						port(&st.Spec.Template, "web", 9093)
						st.Spec.Template.Spec.Containers[0].Ports = append(st.Spec.Template.Spec.Containers[0].Ports, corev1.ContainerPort{Name: "mesh-tcp", ContainerPort: 9094})
						st.Spec.Template.Spec.Containers[0].Args = append([]string{"--config.file=/etc/alertmanager/config_out/alertmanager.env.yaml", "--cluster.listen-address=[$(POD_IP)]:9094"}, peers...)
						return e.createStatefulSet(ctx, st)
					},
					func() error {
						return e.createServiceOn(ctx, "alertmanager-main", "alertmanager-main", 9093, intstr.FromString("web"))
					},
					func() error {
						return e.createDeployment(ctx, deployment("karma", "ghcr.io/prymitive/karma:v0.120", 1, nil))
					},
				)
			},
			Wait: func(ctx context.Context, e *Env) error { return readyStatefulSet(ctx, e, "alertmanager-main", 3) },
		},
	}
}
