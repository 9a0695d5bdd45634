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
)

// The rotation script of wave 18a's CronJob, as written (the ConfigMap gets it with CRLF).
const w18aRotateScript = `#!/usr/bin/env bash

# Monthly partition rotation for metrics.events (OPS-2291)
echo "partition-rotate starting at $(date -u +%FT%TZ)"
echo "partitioned tables: $(psql -Atc 'select count(*) from partman.part_config')"

psql -c 'select partman.run_maintenance()'
echo "premake done, checking retention"
cd /tmp

rotate() {
  local table="$1"
  psql -v ON_ERROR_STOP=1 -c "call partman.run_maintenance_proc(p_analyze := false)" || return 1
  echo "rotated ${table}"
}

rotate metrics.events
rotate metrics.sessions
echo "done"
`

const w18aVacuumScript = `#!/usr/bin/env bash
set -euo pipefail
echo "vacuum-analyze starting at $(date -u +%FT%TZ)"
psql -v ON_ERROR_STOP=1 -c 'vacuum (analyze, skip_locked) metrics.events_default'
echo "done"
`

func wave18aMoreScenarios() []*Scenario {
	loyalty := w8bLabels("loyalty-api", "loyalty")
	vouchers := w8bLabels("vouchers-api", "loyalty")
	relay := w8bLabels("mail-relay", "platform")
	rotate := w8bLabels("partition-rotate", "metrics")
	reportsDB := w8cLabels("app.kubernetes.io/name", "postgresql", "app.kubernetes.io/instance", "reports-db")
	reportAPI := w8bLabels("report-api", "reports")
	auditDB := w8cLabels("app.kubernetes.io/name", "postgresql", "app.kubernetes.io/instance", "audit-db")
	auditAPI := w8bLabels("audit-api", "reports")
	cache := w8bLabels("bazel-remote-cache", "ci")
	mirror := w8bLabels("artifact-mirror", "ci")
	return []*Scenario{
		{
			// Spring Boot's /actuator/health aggregates every health indicator, the mail one
			// included (it opens an SMTP connection to spring.mail.host). The readiness probe
			// points at that aggregate, and the new ConfigMap names a relay host that does not
			// exist, so every pod answers 503 and is never Ready (vouchers-api, same probe,
			// names the real relay and is Ready).
			Name: "loyalty-api-unready-after-email-feature", Covers: "loyalty-api (Spring Boot 3.3, Kotlin) runs and logs 'Started', but its readiness probe on /actuator/health answers 503: 'o.s.b.a.mail.MailHealthIndicator : Mail health check failed ... MailConnectException: Couldn't connect to host, port: smtp-relay, 587 ... UnknownHostException: smtp-relay'; ConfigMap loyalty-api-config sets SPRING_MAIL_HOST=smtp-relay while the relay Service is mail-relay (vouchers-api uses mail-relay and is Ready)",
			Source: w18aSrcMailHealth, Class: ClassClue, Hops: 2,
			Problem: "loyalty-api has had zero ready pods since we shipped the points-expiry notifications; when I port-forward to a pod the API answers normally",
			Target:  target("Deployment", "loyalty-api"),
			Want:    Want{Culprit: Ref{Kind: "ConfigMap", Name: "loyalty-api-config"}, Terms: []string{"smtp-relay"}},
			Setup: func(ctx context.Context, e *Env) error {
				app := func(name, cm string, lbl, ann map[string]string) *appsv1.Deployment {
					d := w11bApp(name, name, "registry.example/loyalty/"+name+":5.2.0", 2, lbl, ann, "http", 8080)
					envFromConfigMap(&d.Spec.Template, cm)
					w8bReadiness(&d.Spec.Template, "/actuator/health", "http", 10)
					return d
				}
				env := func(mailHost, db string) map[string]string {
					return map[string]string{"SPRING_PROFILES_ACTIVE": "prod", "SPRING_MAIL_HOST": mailHost, "SPRING_MAIL_PORT": "587",
						"SPRING_MAIL_PROPERTIES_MAIL_SMTP_STARTTLS_ENABLE": "true", "SPRING_DATASOURCE_URL": "jdbc:postgresql://" + db + ":5432/loyalty",
						"MANAGEMENT_ENDPOINTS_WEB_EXPOSURE_INCLUDE": "health,info,prometheus", "JAVA_TOOL_OPTIONS": "-XX:MaxRAMPercentage=75"}
				}
				return steps(
					func() error {
						return e.w11bStore(ctx, "loyalty-db", "docker.io/library/postgres:16.4", w8bLabels("loyalty-db", "loyalty"), nil, "postgresql", 5432, "POSTGRES_DB", "loyalty")
					},
					func() error {
						d := w11bApp("mail-relay", "postfix", "docker.io/boky/postfix:v4.3.0", 1, relay, nil, "smtp", 587)
						w8bEnv(&d.Spec.Template, "RELAYHOST", "[email-smtp.eu-west-1.amazonaws.com]:587", "ALLOWED_SENDER_DOMAINS", "loyalty.example.com")
						return e.w11bServe(ctx, d, 587)
					},
					func() error {
						return e.w10aConfigMap(ctx, "loyalty-api-config", loyalty, env("smtp-relay", "loyalty-db"))
					},
					func() error {
						return e.w10aConfigMap(ctx, "vouchers-api-config", vouchers, env("mail-relay", "loyalty-db"))
					},
					func() error {
						d := app("loyalty-api", "loyalty-api-config", loyalty, w11bReadinessFail("loyalty-api", "w18a-loyalty-api-mail-health", "HTTP probe failed with statuscode: 503"))
						return e.w11bServe(ctx, d, 80)
					},
					func() error { return e.w11bServe(ctx, app("vouchers-api", "vouchers-api-config", vouchers, nil), 80) },
				)
			},
			Wait: all(podsWith(loyalty, runningNotReady), podEvent("Unhealthy", "statuscode: 503"), readyReplicas("vouchers-api", 2), readyReplicas("mail-relay", 1)),
		},
		{
			// The rotation script was edited on a Windows laptop and applied with
			// --from-file: every line of the ConfigMap key now ends in \r\n. bash runs the
			// harmless lines, chokes on the blank ones ($'\r': command not found) and stops at
			// the function definition with a syntax error, exit 2. vacuum-analyze.sh, a key of
			// the same ConfigMap with Unix line endings, runs fine every minute.
			Name: "partition-rotate-cron-exit-2", Covers: "every run of CronJob partition-rotate fails with exit code 2; its log shows \"$'\\r': command not found\" and \"syntax error near unexpected token `$'{\\r''\": key rotate-partitions.sh of ConfigMap partition-scripts has CRLF line endings (the vacuum-analyze CronJob runs vacuum-analyze.sh from the same ConfigMap and succeeds)",
			Source: w18aSrcCRLF, Class: ClassClue, Hops: 1, Slow: true,
			Problem: "the partition-rotate CronJob fails on every run since last week's script change was merged; the same commands work when Priya pastes them into psql by hand",
			Target:  target("CronJob", "partition-rotate"),
			Want:    Want{Culprit: Ref{Kind: "ConfigMap", Name: "partition-scripts"}, Terms: []string{"CRLF"}},
			Setup: func(ctx context.Context, e *Env) error {
				image := "docker.io/library/postgres:16.4"
				return steps(
					func() error {
						return e.w10aConfigMap(ctx, "partition-scripts", w8bLabels("partition-scripts", "metrics"), map[string]string{
							"rotate-partitions.sh": w18aCRLF(w18aRotateScript), "vacuum-analyze.sh": w18aVacuumScript})
					},
					func() error {
						c := w18aScriptCronJob("partition-rotate", image, "partition-scripts", "rotate-partitions.sh", rotate,
							sim("fail", annExitCode, "2", annLogs, "w18a-partition-rotate-crlf"))
						w8bEnv(&c.Spec.JobTemplate.Spec.Template, "PGHOST", "metrics-db", "PGDATABASE", "metrics", "PGUSER", "partman")
						return e.w11aCreateCronJob(ctx, c)
					},
					func() error {
						c := w18aScriptCronJob("vacuum-analyze", image, "partition-scripts", "vacuum-analyze.sh", w8bLabels("vacuum-analyze", "metrics"), nil)
						w8bEnv(&c.Spec.JobTemplate.Spec.Template, "PGHOST", "metrics-db", "PGDATABASE", "metrics", "PGUSER", "partman")
						return e.w11aCreateCronJob(ctx, c)
					},
					func() error {
						return e.w11bStore(ctx, "metrics-db", "docker.io/library/postgres:16.4", w8bLabels("metrics-db", "metrics"), nil, "postgresql", 5432, "POSTGRES_DB", "metrics")
					},
				)
			},
			Wait: all(w13aAnyJobFailed, w11aAnyJobComplete, podsWith(rotate, w18aFailedWith(2))),
		},
		{
			// The DBA team added the monitoring namespace to the database's ingress policy so
			// postgres-exporter can scrape it, and wrote namespaceSelector into the existing
			// from element instead of a new one: both selectors in one element must now match,
			// which only report-api pods in namespace monitoring would. report-api, in this
			// namespace, times out (audit-db's policy lists the two peers separately and works).
			Name: "report-api-db-timeouts-after-exporter", Covers: "report-api (Go, pgx) crash-loops on 'failed to connect to `user=reports database=reports`: 10.96.0.243:5432 (reports-db): dial error: timeout: dial tcp 10.96.0.243:5432: i/o timeout' while reports-db is Ready: NetworkPolicy reports-db-ingress has one from element combining namespaceSelector kubernetes.io/metadata.name=monitoring and podSelector report-api, so it admits only report-api pods in namespace monitoring (audit-db-ingress lists the peers separately and audit-api connects)",
			Source: w18aSrcPeerAND, Class: ClassProvider, Hops: 2,
			Problem: "report-api crash-loops on database timeouts since yesterday afternoon; reports-db is up and healthy and the DBA can connect to it",
			Target:  target("Deployment", "report-api"),
			Want:    Want{Culprit: Ref{Kind: "NetworkPolicy", Name: "reports-db-ingress"}, Terms: []string{"namespaceSelector"}},
			Setup: func(ctx context.Context, e *Env) error {
				db := func(name string, lbl map[string]string, ip string) error {
					st := w8bStatefulSet(name, "docker.io/bitnami/postgresql:16.4.0", name+"-hl", 1, lbl, nil, "tcp-postgresql", 5432)
					st.Spec.Template.Spec.Containers[0].Name = "postgresql"
					w8bEnv(&st.Spec.Template, "POSTGRESQL_DATABASE", "reports", "POSTGRESQL_USERNAME", "reports")
					envKeyFromSecret(&st.Spec.Template, "POSTGRESQL_PASSWORD", name+"-auth", "password")
					return steps(
						func() error {
							return e.createSecret(ctx, name+"-auth", map[string]string{"password": "hV3qL8xN2wRt6yPz"})
						},
						func() error { return e.createStatefulSet(ctx, st) },
						func() error { return e.createService(ctx, w8bHeadless(name+"-hl", lbl, "tcp-postgresql", 5432)) },
						func() error {
							s := w8bService(name, lbl, "tcp-postgresql", 5432)
							s.Spec.ClusterIP = ip
							return e.createService(ctx, s)
						},
					)
				}
				return steps(
					func() error { return db("reports-db", reportsDB, "10.96.0.243") },
					func() error { return db("audit-db", auditDB, "") },
					func() error {
						return e.createNetworkPolicy(ctx, w13bIngressPolicy("reports-db-ingress", reportsDB,
							w13bFrom(map[string]string{"kubernetes.io/metadata.name": "monitoring"}, reportAPI, "TCP", 5432)))
					},
					func() error {
						return e.createNetworkPolicy(ctx, w18aIngressFrom("audit-db-ingress", auditDB, 5432, w18aPods(auditAPI), w18aNamespace("monitoring")))
					},
					func() error {
						msg := "cannot open database pool: failed to connect to `user=reports database=reports`: 10.96.0.243:5432 (reports-db): dial error: timeout: dial tcp 10.96.0.243:5432: i/o timeout"
						d := w11bApp("report-api", "report-api", "ghcr.io/example-corp/report-api:1.19.2", 2, reportAPI, crash("1", msg, "w18a-report-api-pgx-timeout"), "http", 8080)
						w8bEnv(&d.Spec.Template, "DATABASE_URL", "postgres://reports@reports-db:5432/reports?pool_max_conns=10&connect_timeout=5", "LOG_FORMAT", "json")
						envKeyFromSecret(&d.Spec.Template, "PGPASSWORD", "reports-db-auth", "password")
						return e.w11bServe(ctx, d, 80)
					},
					func() error {
						d := w11bApp("audit-api", "audit-api", "ghcr.io/example-corp/audit-api:0.7.3", 1, auditAPI, nil, "http", 8080)
						w8bEnv(&d.Spec.Template, "DATABASE_URL", "postgres://reports@audit-db:5432/reports?pool_max_conns=5", "LOG_FORMAT", "json")
						envKeyFromSecret(&d.Spec.Template, "PGPASSWORD", "audit-db-auth", "password")
						return e.w11bServe(ctx, d, 80)
					},
				)
			},
			Wait: all(podsWith(reportAPI, crashLooping(2)), readyReplicas("audit-api", 1), w8cStatefulSetReady("reports-db", 1)),
		},
		{
			// The bazel cache was pinned to the new NVMe node with spec.nodeName. Its claim's
			// class binds on first consumer, which the scheduler signals by annotating the
			// claim with the node it picked; nodeName bypasses the scheduler, so the claim
			// waits for ever and the kubelet cannot mount it (artifact-mirror, placed through
			// a nodeSelector on the same class, binds and runs).
			Name: "bazel-cache-stuck-creating-on-nvme-node", Covers: "bazel-remote-cache's pod is bound to kwok-node-1 but stays ContainerCreating with FailedMount '... error processing PVC <ns>/bazel-cache-data: PVC is not bound'; the claim's StorageClass local-nvme is WaitForFirstConsumer (no provisioner, an Available local PV in zone-b) and the Deployment sets spec.nodeName, so the scheduler never selects a node for the claim, which stays Pending on 'waiting for first consumer' (artifact-mirror, on the same class through a nodeSelector, is Bound and Running)",
			Source: w18aSrcNodeNameWFFC, Class: ClassMechanism, Hops: 1,
			Problem: "CI builds crawl since yesterday because the bazel remote cache is down: its pod has sat in ContainerCreating since we moved it onto the new NVMe node",
			Target:  target("Deployment", "bazel-remote-cache"),
			Want:    Want{Culprit: Ref{Kind: "Deployment", Name: "bazel-remote-cache"}, Terms: []string{"nodeName"}},
			Setup: func(ctx context.Context, e *Env) error {
				class := e.ClusterName("local-nvme")
				return steps(
					func() error { return e.w9cLocalClass(ctx, "local-nvme") },
					func() error { return e.w13bLocalPV(ctx, "nvme-b", class, "200Gi", "zone-b") },
					func() error { return e.w13bLocalPV(ctx, "nvme-a", class, "200Gi", "zone-a") },
					func() error { return e.createPVC(ctx, pvc("bazel-cache-data", class, "200Gi", "ReadWriteOnce")) },
					func() error { return e.createPVC(ctx, pvc("artifact-mirror-data", class, "200Gi", "ReadWriteOnce")) },
					func() error {
						msg := fmt.Sprintf("Unable to attach or mount volumes: unmounted volumes=[cache], unattached volumes=[], failed to process volumes=[cache]: error processing PVC %s/bazel-cache-data: PVC is not bound", e.Namespace)
						d := w11bApp("bazel-remote-cache", "bazel-remote", "docker.io/buchgr/bazel-remote-cache:v2.4.4", 1, cache, sim("mount-fail", annMessage, msg), "grpc", 9092)
						w10aPort(&d.Spec.Template, "http", 8080)
						w8cArgs(&d.Spec.Template, "--dir=/data", "--max_size=180", "--grpc_address=0.0.0.0:9092", "--http_address=0.0.0.0:8080")
						d.Spec.Strategy = appsv1.DeploymentStrategy{Type: appsv1.RecreateDeploymentStrategyType}
						d.Spec.Template.Spec.NodeName = "kwok-node-1"
						w17bClaimMount(&d.Spec.Template, "cache", "bazel-cache-data", "/data")
						return e.w11bServe(ctx, d, 9092)
					},
					func() error {
						d := w11bApp("artifact-mirror", "mirror", "docker.io/library/nginx:1.27.3", 1, mirror, nil, "http", 8080)
						d.Spec.Strategy = appsv1.DeploymentStrategy{Type: appsv1.RecreateDeploymentStrategyType}
						d.Spec.Template.Spec.NodeSelector = map[string]string{"topology.kubernetes.io/zone": "zone-a"}
						w17bClaimMount(&d.Spec.Template, "mirror", "artifact-mirror-data", "/var/cache/mirror")
						return e.w11bServe(ctx, d, 80)
					},
				)
			},
			Wait: all(pvcPending("bazel-cache-data"), podEvent("FailedMount", "PVC is not bound"), w17bClaimBound("artifact-mirror-data"), readyReplicas("artifact-mirror", 1)),
		},
	}
}
