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
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// Wave 9a, data file: stateful software run by operators and charts (Redis, a Patroni
// cluster, PostgreSQL archiving with WAL-G, Argo CD's repo server and its Redis secret),
// where the consumer shows the symptom and the cause sits one or two objects further.

const (
	w9aSrcRedisMisconf  = "https://github.com/spotahome/redis-operator/issues/139 (clients get MISCONF Redis is configured to save RDB snapshots, but it is currently not able to persist on disk, after days of use; helm/charts#3143)"
	w9aSrcPatroniRBAC   = "https://github.com/zalando/postgres-operator/issues/1702 (Patroni: ApiException (403) Forbidden on the endpoints object, failed to update leader lock, not promoting; patroni/patroni#1837)"
	w9aSrcWalArchive    = "https://github.com/internetarchive/openlibrary/issues/13549 (DB out of space: WAL archiving stopped, pg_wal filled the volume, could not write to file \"pg_wal/xlogtemp\": No space left on device)"
	w9aSrcRepoServerOOM = "https://github.com/argoproj/argo-cd/issues/19740 (argocd-repo-server OOMKilled after a restart regenerates every manifest; ComparisonError ... dial tcp ...:8081: connect: connection refused, argo-cd#17546)"
	w9aSrcRedisInit     = "https://github.com/argoproj/argo-helm/issues/2721 (upgrade to the chart with redis-secret-init: secret \"argocd-redis\" not found; the init Job completed but only printed the argocd admin usage)"
)

// w9aArgo are the argo-helm chart's labels of one Argo CD component.
func w9aArgo(component string) map[string]string {
	return w8cLabels("app.kubernetes.io/name", "argocd-"+component, "app.kubernetes.io/instance", "argocd",
		"app.kubernetes.io/component", component, "app.kubernetes.io/part-of", "argocd")
}

func wave9aDataScenarios() []*Scenario {
	return append(wave9aStoreScenarios(), wave9aArgoScenarios()...)
}

func wave9aStoreScenarios() []*Scenario {
	return []*Scenario{
		{
			// The queue's Redis fills its 8Gi volume with RDB snapshots; BGSAVE fails, and
			// with stop-writes-on-bgsave-error every write the workers send is refused.
			// Worker and Redis pods are Running and Ready.
			Name: "notification-redis-misconf-disk-full", Covers: "a Ready BullMQ worker logs ReplyError 'MISCONF Redis is configured to save RDB snapshots, but it's currently unable to persist to disk'; the Ready redis-master logs 'Write error saving DB on disk: No space left on device' on its claim redis-data-notifications-redis-master-0",
			Source: w9aSrcRedisMisconf, Class: ClassClue, Hops: 3,
			Problem: "push notifications stopped going out around 14:30; notification-worker pods are Running and nothing restarted",
			Target:  target("Deployment", "notification-worker"),
			Want:    Want{Culprit: Ref{Kind: "PersistentVolumeClaim", Name: "redis-data-notifications-redis-master-0"}, Terms: []string{"MISCONF", "No space left on device"}},
			Setup: func(ctx context.Context, e *Env) error {
				redis := w8cLabels("app.kubernetes.io/name", "redis", "app.kubernetes.io/instance", "notifications", "app.kubernetes.io/component", "master")
				worker := w8bLabels("notification-worker", "notifications")
				api := w8bLabels("notification-api", "notifications")
				return steps(
					func() error {
						return e.createStaticPV(ctx, "redis-data-master-0", "redis-data-notifications-redis-master-0", "8Gi", corev1.ReadWriteOnce)
					},
					func() error {
						return e.createSecret(ctx, "notifications-redis", map[string]string{"redis-password": "T3kq8VwZr1Lm0pXa"})
					},
					func() error {
						return e.createConfigMap(ctx, "notifications-redis-configuration", map[string]string{
							"redis.conf":  "appendonly no\nsave 3600 1 300 100 60 10000\nstop-writes-on-bgsave-error yes\nmaxmemory-policy noeviction\n",
							"master.conf": "dir /data\nrename-command FLUSHDB \"\"\nrename-command FLUSHALL \"\"\n",
						})
					},
					func() error {
						st := w8bStatefulSet("notifications-redis-master", "docker.io/bitnami/redis:7.2.5-debian-12-r0", "notifications-redis-headless", 1, redis, running("w9a-redis-bgsave-enospc"), "redis", 6379)
						envKeyFromSecret(&st.Spec.Template, "REDIS_PASSWORD", "notifications-redis", "redis-password")
						w8bEnv(&st.Spec.Template, "REDIS_REPLICATION_MODE", "master", "ALLOW_EMPTY_PASSWORD", "no", "REDIS_TLS_ENABLED", "no")
						mountConfigMap(&st.Spec.Template, "notifications-redis-configuration", "/opt/bitnami/redis/mounted-etc")
						w8bClaimTemplate(st, "redis-data", "8Gi", "/data")
						return e.createStatefulSet(ctx, st)
					},
					func() error {
						return e.createService(ctx, w8bHeadless("notifications-redis-headless", redis, "redis", 6379))
					},
					func() error {
						return e.createService(ctx, w8bService("notifications-redis-master", redis, "redis", 6379))
					},
					func() error {
						d := w8bDeployment("notification-worker", "registry.example/notifications/worker:3.12.0", 3, worker, running("w9a-notification-worker-misconf"), "metrics", 9464)
						w8bEnv(&d.Spec.Template, "NODE_ENV", "production", "REDIS_HOST", "notifications-redis-master", "REDIS_PORT", "6379", "QUEUES", "push,email,sms")
						envKeyFromSecret(&d.Spec.Template, "REDIS_PASSWORD", "notifications-redis", "redis-password")
						return e.createDeployment(ctx, d)
					},
					func() error {
						d := w8bDeployment("notification-api", "registry.example/notifications/api:3.12.0", 2, api, nil, "http", 3000)
						w8bEnv(&d.Spec.Template, "NODE_ENV", "production", "REDIS_HOST", "notifications-redis-master", "REDIS_PORT", "6379")
						envKeyFromSecret(&d.Spec.Template, "REDIS_PASSWORD", "notifications-redis", "redis-password")
						return e.createDeployment(ctx, d)
					},
					func() error { return e.createService(ctx, w8bService("notification-api", api, "http", 80)) },
				)
			},
			Wait: all(w8cStatefulSetReady("notifications-redis-master", 1), readyReplicas("notification-worker", 3)),
		},
		{
			// The team replaced the operator's ClusterRole postgres-pod with a trimmed Role;
			// it lets Patroni read and create endpoints but not patch them, so no member can
			// take the leader lock, the selectorless master Service never gets an address.
			Name: "orders-patroni-role-no-endpoints-patch", Covers: "orders-api is not ready (connection refused to orders-db:5432); the master Service orders-db has no selector and its Endpoints no address; every Patroni pod logs ApiException (403) Forbidden on endpoints orders-db and 'failed to update leader lock'; the Role postgres-pod lacks patch/update on endpoints",
			Source: w9aSrcPatroniRBAC, Class: ClassProvider, Hops: 3,
			Problem: "orders-api is 0/3 ready since the orders database cluster was re-created this morning; all three orders-db pods are Running",
			Target:  target("Deployment", "orders-api"),
			Want:    Want{Culprit: Ref{Kind: "Role", Name: "postgres-pod"}, Terms: []string{"endpoints", "patch"}},
			Setup: func(ctx context.Context, e *Env) error {
				spilo := w8cLabels("application", "spilo", "cluster-name", "orders-db", "team", "orders")
				pods := w8cLabels("application", "spilo", "cluster-name", "orders-db", "team", "orders", "spilo-role", "replica")
				api := w8cLabels("app", "orders-api", "team", "orders")
				op := w8cLabels("app.kubernetes.io/name", "postgres-operator", "app.kubernetes.io/instance", "postgres-operator")
				return steps(
					func() error { return e.createServiceAccount(ctx, "postgres-pod") },
					func() error {
						all := []string{"get", "list", "watch"}
						return e.createRole(ctx, "postgres-pod",
							rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"endpoints"}, Verbs: append(all, "create")},
							rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"pods"}, Verbs: append(all, "patch", "update")},
							rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"services"}, Verbs: []string{"create"}},
							rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: append(all, "create", "patch", "update")})
					},
					func() error { return e.createRoleBinding(ctx, "postgres-pod", "Role", "postgres-pod", "postgres-pod") },
					func() error {
						return e.createDeployment(ctx, w8bDeployment("postgres-operator", "ghcr.io/zalando/postgres-operator:v1.13.0", 1, op, nil, "http", 8080))
					},
					func() error {
						return e.createSecret(ctx, "orders-app.orders-db.credentials.postgresql.acid.zalan.do", map[string]string{"username": "orders_app", "password": "Rb2mV9qLx7TnE4sW"})
					},
					func() error {
						st := w8bStatefulSet("orders-db", "ghcr.io/zalando/spilo-16:3.3-p1", "orders-db", 3, spilo, running("w9a-orders-db-patroni-forbidden"), "postgresql", 5432)
						st.Spec.Template.Labels = pods
						st.Spec.Template.Spec.ServiceAccountName = "postgres-pod"
						st.Spec.Template.Spec.Containers[0].Name = "postgres"
						st.Spec.Template.Spec.Containers[0].Ports = append(st.Spec.Template.Spec.Containers[0].Ports, corev1.ContainerPort{Name: "patroni", ContainerPort: 8008})
						w8bEnv(&st.Spec.Template, "SCOPE", "orders-db", "PGROOT", "/home/postgres/pgdata/pgroot", "KUBERNETES_USE_CONFIGMAPS", "false",
							"KUBERNETES_LABELS", `{"application":"spilo"}`, "KUBERNETES_ROLE_LABEL", "spilo-role", "KUBERNETES_SCOPE_LABEL", "cluster-name",
							"PGVERSION", "16", "DCS_ENABLE_KUBERNETES_API", "true")
						return e.createStatefulSet(ctx, st)
					},
					func() error { return e.createService(ctx, w8bService("orders-db-repl", pods, "postgresql", 5432)) },
					func() error {
						s := w8bService("orders-db", nil, "postgresql", 5432)
						s.Labels = w8cLabels("application", "spilo", "cluster-name", "orders-db", "spilo-role", "master")
						s.Spec.Ports[0].TargetPort = intstr.FromInt32(5432)
						return e.createService(ctx, s)
					},
					func() error {
						ep := &corev1.Endpoints{ObjectMeta: metav1.ObjectMeta{Name: "orders-db",
							Labels: w8cLabels("application", "spilo", "cluster-name", "orders-db", "spilo-role", "master")}}
						_, err := e.Client.CoreV1().Endpoints(e.Namespace).Create(ctx, ep, metav1.CreateOptions{})
						return wrap("Endpoints", "orders-db", err)
					},
					func() error {
						d := w8bDeployment("orders-api", "registry.example/orders/orders-api:5.2.0", 3, api,
							sim("readiness-fail", annMessage, "Readiness probe failed: HTTP probe failed with statuscode: 503", annLogs, "w9a-orders-api-db-refused"), "http", 8080)
						w8bEnv(&d.Spec.Template, "DB_HOST", "orders-db", "DB_PORT", "5432", "DB_NAME", "orders", "DB_SSLMODE", "require")
						envKeyFromSecret(&d.Spec.Template, "DB_USER", "orders-app.orders-db.credentials.postgresql.acid.zalan.do", "username")
						envKeyFromSecret(&d.Spec.Template, "DB_PASSWORD", "orders-app.orders-db.credentials.postgresql.acid.zalan.do", "password")
						w8bReadiness(&d.Spec.Template, "/readyz", "http", 10)
						return e.createDeployment(ctx, d)
					},
					func() error { return e.createService(ctx, w8bService("orders-api", api, "http", 80)) },
				)
			},
			Wait: all(w8cStatefulSetReady("orders-db", 3), podsWith(w8cLabels("app", "orders-api"), runningNotReady)),
		},
		{
			// The backup IAM key was rotated and the Secret still holds the old one: every
			// wal-g wal-push fails, PostgreSQL keeps every WAL segment, the 20Gi volume fills,
			// postgres PANICs and now cannot even finish crash recovery.
			Name: "invoices-db-wal-archive-fills-volume", Covers: "invoices-api is not ready; invoices-db crash-loops on 'could not write to file \"pg_wal/xlogtemp\": No space left on device'; earlier in the same log every 'archive command failed' with wal-g 'InvalidAccessKeyId'; the Secret invoices-db-walg holds the rotated-out key, so WAL piled up",
			Source: w9aSrcWalArchive, Class: ClassRanking, Hops: 3,
			Problem: "invoices-api has been returning 503 since 03:10 and invoices-db keeps restarting",
			Target:  target("Deployment", "invoices-api"),
			Want:    Want{Culprit: Ref{Kind: "Secret", Name: "invoices-db-walg"}, Terms: []string{"archive", "No space left on device"}},
			Setup: func(ctx context.Context, e *Env) error {
				db := w8cLabels("app", "invoices-db", "tier", "database", "team", "billing")
				api := w8cLabels("app", "invoices-api", "tier", "backend", "team", "billing")
				return steps(
					func() error {
						return e.createStaticPV(ctx, "invoices-pgdata-0", "pgdata-invoices-db-0", "20Gi", corev1.ReadWriteOnce)
					},
					func() error {
						return e.createSecret(ctx, "invoices-db-walg", map[string]string{"AWS_ACCESS_KEY_ID": "AKIAQX7Z3EXAMPLEW2KD", "AWS_SECRET_ACCESS_KEY": "mT4wq9XbEXAMPLEv0cLr2Hn8JkYs5Pd1ZgFa7eUo",
							"AWS_REGION": "eu-central-1", "WALG_S3_PREFIX": "s3://acme-pg-backups/invoices", "WALG_COMPRESSION_METHOD": "brotli"})
					},
					func() error {
						return e.createSecret(ctx, "invoices-db-auth", map[string]string{"POSTGRES_USER": "invoices", "POSTGRES_PASSWORD": "Yq3nW8vLk2TzR6pd", "POSTGRES_DB": "invoices"})
					},
					func() error {
						st := w8bStatefulSet("invoices-db", "registry.example/platform/postgres-walg:16.4-3.0.3", "invoices-db", 1, db, crash("1", "", "w9a-invoices-db-wal-enospc"), "postgres", 5432)
						w8cArgs(&st.Spec.Template, "postgres", "-c", "wal_level=replica", "-c", "archive_mode=on", "-c", "archive_command=wal-g wal-push %p",
							"-c", "archive_timeout=60", "-c", "max_wal_size=2GB")
						envFromSecret(&st.Spec.Template, "invoices-db-walg")
						envFromSecret(&st.Spec.Template, "invoices-db-auth")
						w8bEnv(&st.Spec.Template, "PGDATA", "/var/lib/postgresql/data/pgdata")
						w8bClaimTemplate(st, "pgdata", "20Gi", "/var/lib/postgresql/data")
						return e.createStatefulSet(ctx, st)
					},
					func() error { return e.createService(ctx, w8bService("invoices-db", db, "postgres", 5432)) },
					func() error {
						d := w8bDeployment("invoices-api", "registry.example/billing/invoices-api:2.19.4", 2, api,
							sim("readiness-fail", annMessage, "Readiness probe failed: HTTP probe failed with statuscode: 503", annLogs, "w9a-invoices-api-db-down"), "http", 8000)
						w8bEnv(&d.Spec.Template, "DATABASE_HOST", "invoices-db", "DATABASE_NAME", "invoices")
						envKeyFromSecret(&d.Spec.Template, "DATABASE_USER", "invoices-db-auth", "POSTGRES_USER")
						envKeyFromSecret(&d.Spec.Template, "DATABASE_PASSWORD", "invoices-db-auth", "POSTGRES_PASSWORD")
						w8bReadiness(&d.Spec.Template, "/health/ready", "http", 10)
						return e.createDeployment(ctx, d)
					},
					func() error { return e.createService(ctx, w8bService("invoices-api", api, "http", 80)) },
				)
			},
			Wait: all(podsWith(w8cLabels("app", "invoices-db"), crashLooping(2)), podsWith(w8cLabels("app", "invoices-api"), runningNotReady)),
		},
	}
}

// w9aArgoEnv adds the argo-helm chart's REDIS_PASSWORD (from Secret argocd-redis, key auth)
// and redis address to an Argo CD component.
func w9aArgoEnv(t *corev1.PodTemplateSpec) {
	w8bEnv(t, "ARGOCD_REDIS_SERVER", "argocd-redis:6379")
	w9aEnvFromSecretKey(t, "REDIS_PASSWORD", "argocd-redis", "auth")
}

func wave9aArgoScenarios() []*Scenario {
	return []*Scenario{
		{
			// A node-pool restart emptied the manifest cache; the repo server renders every
			// Helm application at once and is OOMKilled at its 256Mi limit over and over,
			// so the application controller cannot compare anything.
			Name: "argocd-repo-server-oomkilled-cold-cache", Covers: "every Argo CD Application shows ComparisonError; the Ready application controller logs 'failed to generate manifest ... dial tcp ...:8081: connect: connection refused'; argocd-repo-server is OOMKilled at its 256Mi memory limit after 'manifest cache miss' lines",
			Source: w9aSrcRepoServerOOM, Class: ClassRanking, Hops: 2,
			Problem: "all our Argo CD applications are Unknown with ComparisonError since the cluster restart and nothing syncs",
			Target:  target("StatefulSet", "argocd-application-controller"),
			Want:    Want{Culprit: Ref{Kind: "Deployment", Name: "argocd-repo-server"}, Terms: []string{"OOMKilled", "256Mi"}},
			Setup: func(ctx context.Context, e *Env) error {
				const image = "quay.io/argoproj/argocd:v2.12.4"
				return steps(
					func() error {
						return e.createConfigMap(ctx, "argocd-cmd-params-cm", map[string]string{"reposerver.parallelism.limit": "0",
							"controller.repo.server.timeout.seconds": "60", "server.insecure": "true"})
					},
					func() error {
						return e.createSecret(ctx, "argocd-redis", map[string]string{"auth": "pZ8kW2xQv5NrT1aL"})
					},
					func() error {
						d := w8bDeployment("argocd-repo-server", image, 1, w9aArgo("repo-server"), sim("oomkill", annLogs, "w9a-argocd-repo-server-cache-miss"), "repo-server", 8081)
						w8cArgs(&d.Spec.Template, "/usr/local/bin/argocd-repo-server", "--port=8081", "--metrics-port=8084")
						w8cRequests(&d.Spec.Template, "100m", "128Mi", "", "256Mi")
						w9aArgoEnv(&d.Spec.Template)
						return e.createDeployment(ctx, d)
					},
					func() error {
						return e.createService(ctx, w8bService("argocd-repo-server", w9aArgo("repo-server"), "repo-server", 8081))
					},
					func() error {
						st := w8bStatefulSet("argocd-application-controller", image, "argocd-application-controller", 1, w9aArgo("application-controller"),
							running("w9a-argocd-controller-comparison-error"), "metrics", 8082)
						w8cArgs(&st.Spec.Template, "/usr/local/bin/argocd-application-controller", "--metrics-port=8082", "--repo-server=argocd-repo-server:8081")
						w9aArgoEnv(&st.Spec.Template)
						return e.createStatefulSet(ctx, st)
					},
					func() error {
						d := w8bDeployment("argocd-server", image, 2, w9aArgo("server"), nil, "server", 8080)
						w8cArgs(&d.Spec.Template, "/usr/local/bin/argocd-server", "--port=8080", "--metrics-port=8083")
						w9aArgoEnv(&d.Spec.Template)
						return e.createDeployment(ctx, d)
					},
					func() error {
						return e.createService(ctx, w8bService("argocd-server", w9aArgo("server"), "server", 80))
					},
					func() error {
						return e.createDeployment(ctx, w8bDeployment("argocd-redis", "public.ecr.aws/docker/library/redis:7.2.4-alpine", 1, w9aArgo("redis"), nil, "redis", 6379))
					},
					func() error { return e.createService(ctx, w8bService("argocd-redis", w9aArgo("redis"), "redis", 6379)) },
				)
			},
			Wait: all(podsWith(w9aArgo("repo-server"), crashLooping(2)), w8cStatefulSetReady("argocd-application-controller", 1)),
		},
		{
			// The chart's pre-upgrade hook Job runs `argocd admin redis-initial-password`,
			// but its image was pinned to an older argocd without that command: the Job
			// printed the admin usage and exited 0, the Secret argocd-redis never appeared.
			Name: "argocd-redis-secret-init-old-cli", Covers: "after an argo-cd chart upgrade, argocd-server, repo-server, redis and the application controller wait in CreateContainerConfigError (secret \"argocd-redis\" not found); the hook Job argocd-redis-secret-init completed but its log is only the 'argocd admin' usage: its image v2.10.9 has no redis-initial-password command",
			Source: w9aSrcRedisInit, Class: ClassRanking, Hops: 2,
			Problem: "after upgrading the argo-cd chart, argocd-server, the repo server, redis and the application controller never start; applicationset and notifications run",
			Target:  target("Deployment", "argocd-server"),
			Want: Want{Culprit: Ref{Kind: "Secret", Name: "argocd-redis"}, Also: []Ref{{Kind: "Job", Name: "argocd-redis-secret-init"}},
				Terms: []string{"argocd-redis", "redis-initial-password"}},
			Setup: func(ctx context.Context, e *Env) error {
				const image = "quay.io/argoproj/argocd:v2.11.3"
				missing := sim("create-config-error")
				return steps(
					func() error { return e.createServiceAccount(ctx, "argocd-redis-secret-init") },
					func() error {
						return e.createRole(ctx, "argocd-redis-secret-init", rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"secrets"}, Verbs: []string{"get", "create"}})
					},
					func() error {
						return e.createRoleBinding(ctx, "argocd-redis-secret-init", "Role", "argocd-redis-secret-init", "argocd-redis-secret-init")
					},
					func() error {
						j := job("argocd-redis-secret-init", 6, running("w9a-argocd-secret-init-usage"))
						j.Annotations = map[string]string{"helm.sh/hook": "pre-install,pre-upgrade", "helm.sh/hook-delete-policy": "before-hook-creation"}
						j.Spec.Template.Labels = w9aArgo("redis-secret-init")
						j.Spec.Template.Spec.ServiceAccountName = "argocd-redis-secret-init"
						j.Spec.Template.Spec.Containers[0].Name = "secret-init"
						j.Spec.Template.Spec.Containers[0].Image = "quay.io/argoproj/argocd:v2.10.9"
						j.Spec.Template.Spec.Containers[0].Command = []string{"argocd", "admin", "redis-initial-password"}
						return e.w9aJob(ctx, j)
					},
					func() error {
						d := w8bDeployment("argocd-redis", "public.ecr.aws/docker/library/redis:7.2.4-alpine", 1, w9aArgo("redis"), missing, "redis", 6379)
						w8cArgs(&d.Spec.Template, "--save", "", "--appendonly", "no", "--requirepass $(REDIS_PASSWORD)")
						w9aEnvFromSecretKey(&d.Spec.Template, "REDIS_PASSWORD", "argocd-redis", "auth")
						return e.createDeployment(ctx, d)
					},
					func() error { return e.createService(ctx, w8bService("argocd-redis", w9aArgo("redis"), "redis", 6379)) },
					func() error {
						d := w8bDeployment("argocd-repo-server", image, 1, w9aArgo("repo-server"), missing, "repo-server", 8081)
						w9aArgoEnv(&d.Spec.Template)
						return e.createDeployment(ctx, d)
					},
					func() error {
						return e.createService(ctx, w8bService("argocd-repo-server", w9aArgo("repo-server"), "repo-server", 8081))
					},
					func() error {
						d := w8bDeployment("argocd-server", image, 2, w9aArgo("server"), missing, "server", 8080)
						w9aArgoEnv(&d.Spec.Template)
						return e.createDeployment(ctx, d)
					},
					func() error {
						return e.createService(ctx, w8bService("argocd-server", w9aArgo("server"), "server", 80))
					},
					func() error {
						st := w8bStatefulSet("argocd-application-controller", image, "argocd-application-controller", 1, w9aArgo("application-controller"), missing, "metrics", 8082)
						w9aArgoEnv(&st.Spec.Template)
						return e.createStatefulSet(ctx, st)
					},
					func() error {
						return e.createDeployment(ctx, w8bDeployment("argocd-applicationset-controller", image, 1, w9aArgo("applicationset-controller"), nil, "metrics", 8080))
					},
					func() error {
						return e.createDeployment(ctx, w8bDeployment("argocd-notifications-controller", image, 1, w9aArgo("notifications-controller"), nil, "metrics", 9001))
					},
				)
			},
			Wait: all(w9aJobComplete("argocd-redis-secret-init"), podsWith(w9aArgo("server"), waiting("CreateContainerConfigError")),
				podsWith(w9aArgo("application-controller"), waiting("CreateContainerConfigError"))),
		},
	}
}

// w9aJobComplete succeeds once Job name has succeeded.
func w9aJobComplete(name string) func(context.Context, *Env) error {
	return func(ctx context.Context, e *Env) error {
		j, err := e.Client.BatchV1().Jobs(e.Namespace).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if j.Status.Succeeded < 1 {
			return fmt.Errorf("job %s has not succeeded yet", name)
		}
		return nil
	}
}
