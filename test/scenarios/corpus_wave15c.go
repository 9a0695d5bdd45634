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

	"k8s.io/utils/ptr"
)

// Wave 15c: written blind by an outside hand from the Kubernetes docs (RBAC, Jobs, CronJobs,
// Deployments, Services, debugging running pods) and public issue threads. The evidence sits in
// Kubernetes itself (RBAC objects, CronJob and Job specs, node taints, rollout status, Service
// spec, termination messages) wherever a real cluster would put it there, and the questions lean
// outside the failure catalogue: why can't account X do Y, why did this CronJob not run, why
// does this Job never finish, why are all replicas on one node, why is the rollout still on the
// old version, why does one pod get all the traffic, why does a healthy worker do nothing. Every
// Want was fixed from the source before anything ran.

func wave15cScenarios() []*Scenario {
	return append(wave15cAccessScenarios(), wave15cMoreScenarios()...)
}

func wave15cAccessScenarios() []*Scenario {
	spark := w8cLabels("app.kubernetes.io/name", "spark", "app.kubernetes.io/instance", "daily-aggregates", "spark-role", "driver")
	rotator := w8bLabels("cert-rotator", "platform")
	reports := w8bLabels("report-worker", "reporting")
	audit := w8bLabels("audit-export", "compliance")
	warmer := w8bLabels("cache-warmer", "storefront")
	return []*Scenario{
		{
			// Spark 3 drivers create a ConfigMap with the executors' configuration before they
			// ask for executor pods. The Role copied from an old spark-rbac.yaml grants pods and
			// services only, so the driver dies on its first POST .../configmaps.
			Name: "daily-aggregates-spark-driver-role", Covers: "Job daily-aggregates (spark-submit in client mode as ServiceAccount spark) fails at once with the fabric8 'Forbidden!Configured service account doesn't have access ... cannot create resource \"configmaps\"'; Role spark-driver grants pods and services but not configmaps",
			Source: w15cSrcSpark, Class: ClassOutside, Hops: 2,
			Problem: "why can't the spark service account run the daily-aggregates job? the driver pod dies a few seconds after submit, every night since the Spark 3.5 upgrade",
			Target:  target("Job", "daily-aggregates"),
			Want:    Want{Culprit: Ref{Kind: "Role", Name: "spark-driver"}, Terms: []string{"configmaps"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						return e.w15cAccount(ctx, "spark", "spark-driver",
							w15cRule("", []string{"pods"}, "create", "get", "list", "watch", "delete", "deletecollection"),
							w15cRule("", []string{"services"}, "create", "get", "delete"),
							w15cRule("", []string{"persistentvolumeclaims"}, "create", "get", "list", "delete"))
					},
					func() error {
						return e.w15cAccount(ctx, "spark-history", "spark-history",
							w15cRule("", []string{"configmaps"}, "get", "list", "watch"))
					},
					func() error {
						d := w8bDeployment("spark-history", "docker.io/apache/spark:3.5.3", 1, w8cLabels("app.kubernetes.io/name", "spark-history-server"), nil, "http", 18080)
						d.Spec.Template.Spec.ServiceAccountName = "spark-history"
						w8cArgs(&d.Spec.Template, "/opt/spark/bin/spark-class", "org.apache.spark.deploy.history.HistoryServer")
						w8bEnv(&d.Spec.Template, "SPARK_HISTORY_OPTS", "-Dspark.history.fs.logDirectory=s3a://analytics-spark-events/")
						return e.w11bServe(ctx, d, 80)
					},
					func() error {
						msg := "Exception in thread \"main\" io.fabric8.kubernetes.client.KubernetesClientException: Failure executing: POST at: https://kubernetes.default.svc/api/v1/namespaces/" + e.Namespace +
							"/configmaps. Message: Forbidden!Configured service account doesn't have access. Service account may have been revoked. " +
							w15cForbidden(e, "configmaps", "spark", "create", "configmaps", "") + "."
						j := w15cJob("daily-aggregates", "docker.io/apache/spark:3.5.3", "spark", 1, spark, sim("fail", annExitCode, "1", annMessage, msg),
							"/opt/spark/bin/spark-submit", "--master", "k8s://https://kubernetes.default.svc", "--deploy-mode", "client",
							"--conf", "spark.kubernetes.namespace="+e.Namespace, "--conf", "spark.kubernetes.authenticate.driver.serviceAccountName=spark",
							"--conf", "spark.kubernetes.container.image=docker.io/apache/spark:3.5.3", "--conf", "spark.executor.instances=2",
							"--conf", "spark.driver.host=daily-aggregates-driver", "--class", "com.example.analytics.DailyAggregates", "local:///opt/app/daily-aggregates.jar", "--date=yesterday")
						return e.w9aJob(ctx, j)
					},
				)
			},
			Wait: all(func(ctx context.Context, e *Env) error {
				return jobFailed(ctx, e, "daily-aggregates", "BackoffLimitExceeded")
			}, readyReplicas("spark-history", 1)),
		},
		{
			// The rotator was rebuilt on client-go's events/v1 recorder, which writes
			// events.k8s.io Events; its Role still grants events in the core group only, so
			// every event is rejected while the rotation itself works.
			Name: "cert-rotator-no-events-on-secrets", Covers: "cert-rotator is Running and Ready and rotates its Secrets, but its log repeats 'Server rejected event (will not retry!)' err=\"events.events.k8s.io is forbidden ... cannot create resource \\\"events\\\" in API group \\\"events.k8s.io\\\"\"; Role cert-rotator grants create on events in the core API group \"\" only",
			Source: w15cSrcEvents, Class: ClassOutside, Hops: 1,
			Problem: "cert-rotator says it rotates the internal certificates but not one Rotated event has appeared on the Secrets since we upgraded it to 2.0, and its log is full of errors",
			Target:  target("Deployment", "cert-rotator"),
			Want:    Want{Culprit: Ref{Kind: "Role", Name: "cert-rotator"}, Terms: []string{"events.k8s.io"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						return e.w15cAccount(ctx, "cert-rotator", "cert-rotator",
							w15cRule("", []string{"secrets"}, "get", "list", "watch", "update", "patch"),
							w15cRule("", []string{"events"}, "create", "patch", "update"),
							w15cRule("coordination.k8s.io", []string{"leases"}, "get", "create", "update"))
					},
					func() error { return e.w9aTLSSecret(ctx, "billing-internal-tls", "billing.internal.example") },
					func() error { return e.w9aTLSSecret(ctx, "ledger-internal-tls", "ledger.internal.example") },
					func() error {
						d := w8bDeployment("cert-rotator", "ghcr.io/example-platform/cert-rotator:2.0.1", 1, rotator, running("w15c-cert-rotator-events"), "metrics", 8080)
						d.Spec.Template.Spec.ServiceAccountName = "cert-rotator"
						w8cArgs(&d.Spec.Template, "--selector=platform.example.com/rotate=true", "--renew-before=720h", "--leader-elect=true", "--metrics-bind-address=:8080")
						w8cReadiness(&d.Spec.Template, "/readyz", "metrics")
						return e.createDeployment(ctx, d)
					},
					func() error {
						d := w8bDeployment("billing-api", "registry.example/billing/billing-api:5.2.0", 2, w8bLabels("billing-api", "billing"), nil, "https", 8443)
						mountSecret(&d.Spec.Template, "billing-internal-tls", "/etc/tls")
						return e.w11bServe(ctx, d, 443)
					},
				)
			},
			Wait: all(podsWith(rotator, runningReady), readyReplicas("billing-api", 2)),
		},
		{
			// The nightly restarter evicts stale report workers so their PodDisruptionBudget is
			// honoured. An eviction is a create on the pods/eviction subresource; the Role grants
			// get, list and delete on pods, which is what plain deletion would need.
			Name: "report-worker-restarter-evict-denied", Covers: "Job restart-report-workers (ServiceAccount pod-restarter) fails: 'pods \"report-worker-...\" is forbidden: ... cannot create resource \"pods/eviction\"'; Role pod-restarter grants get, list, delete on pods but nothing on the pods/eviction subresource (the PDB of report-worker is healthy)",
			Source: w15cSrcEviction, Class: ClassOutside, Hops: 2,
			Problem: "why can't the pod-restarter service account restart the report workers? the nightly restart job fails and the workers are days old",
			Target:  target("Job", "restart-report-workers"),
			Want:    Want{Culprit: Ref{Kind: "Role", Name: "pod-restarter"}, Terms: []string{"pods/eviction"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						return e.w15cAccount(ctx, "pod-restarter", "pod-restarter",
							w15cRule("", []string{"pods"}, "get", "list", "delete"),
							w15cRule("apps", []string{"deployments", "replicasets"}, "get", "list"))
					},
					func() error {
						d := w8bDeployment("report-worker", "registry.example/reporting/report-worker:3.3.0", 3, reports, nil, "metrics", 9102)
						w8bEnv(&d.Spec.Template, "QUEUE_URL", "amqp://reporting-mq:5672/reports", "WORKER_CONCURRENCY", "4")
						return e.createDeployment(ctx, d)
					},
					func() error { return e.createPDB(ctx, "report-worker", 2, reports) },
				)
			},
			Wait: func(ctx context.Context, e *Env) error {
				if e.State["restarter"] == "" {
					if err := all(readyReplicas("report-worker", 3), pdbHealthy("report-worker", 3))(ctx, e); err != nil {
						return err
					}
					pods, err := e.Client.CoreV1().Pods(e.Namespace).List(ctx, w15cSelect(reports))
					if err != nil || len(pods.Items) == 0 {
						return fmt.Errorf("report-worker pods: %v", err)
					}
					pod := pods.Items[0].Name
					msg := fmt.Sprintf("evicting pod %s/%s (age 96h > --max-age=72h)\nerror: %s", e.Namespace, pod,
						w15cForbidden(e, fmt.Sprintf("pods %q", pod), "pod-restarter", "create", "pods/eviction", ""))
					j := w15cJob("restart-report-workers", "registry.example/platform/pod-restarter:1.4.2", "pod-restarter", 0, w8bLabels("pod-restarter", "platform"),
						sim("fail", annExitCode, "1", annMessage, msg), "--namespace="+e.Namespace, "--selector=app.kubernetes.io/name=report-worker", "--max-age=72h", "--use-eviction=true")
					if err := e.w9aJob(ctx, j); err != nil {
						return err
					}
					e.State["restarter"] = pod
				}
				return jobFailed(ctx, e, "restart-report-workers", "BackoffLimitExceeded")
			},
		},
		{
			// successfulJobsHistoryLimit: 0 was set to "keep the namespace clean": the
			// controller deletes each Job (and its pod) as soon as it succeeds, so the runs that
			// did happen leave nothing to list but the CronJob's own status.
			Name: "audit-export-runs-leave-no-trace", Covers: "the team thinks CronJob audit-export never runs because no Job or pod of it is ever listed; it runs every minute and succeeds (status.lastSuccessfulTime moves), but successfulJobsHistoryLimit 0 deletes each Job when it finishes, unlike audit-compact (limit 3) whose Jobs stay",
			Source: w15cSrcHistory, Class: ClassOutside, Hops: 0, Slow: true,
			Problem: "why is the audit-export CronJob not running? there is never a Job or a pod for it, while audit-compact next to it shows its runs",
			Target:  target("CronJob", "audit-export"),
			Want:    Want{Culprit: Ref{Kind: "CronJob", Name: "audit-export"}, Terms: []string{"successfulJobsHistoryLimit"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						c := w11aCronJob("audit-export", "registry.example/compliance/audit-export:1.9.0", "* * * * *", false, audit, "export", "--since=1m", "--sink=s3://compliance-audit-archive/k8s/")
						c.Spec.SuccessfulJobsHistoryLimit = ptr.To[int32](0)
						c.Spec.FailedJobsHistoryLimit = ptr.To[int32](0)
						return e.w11aCreateCronJob(ctx, c)
					},
					func() error {
						return e.w11aCreateCronJob(ctx, w11aCronJob("audit-compact", "registry.example/compliance/audit-export:1.9.0", "* * * * *", false, w8bLabels("audit-compact", "compliance"), "compact", "--older-than=24h"))
					},
				)
			},
			Wait: all(w15cHistoryGone("audit-export"), w11aAnyJobComplete),
		},
		{
			// "Every five minutes" was written as 5 * * * *: the first field is the minute, so
			// the CronJob runs once an hour at minute 5 and the cache is stale for the rest.
			Name: "product-cache-warmer-stale-most-of-hour", Covers: "the product cache goes stale between refreshes: CronJob cache-warmer meant to run every five minutes has schedule '5 * * * *', i.e. once an hour at minute 5 (sitemap-builder next to it uses '*/15 * * * *' correctly)",
			Source: w15cSrcSchedule, Class: ClassOutside, Hops: 0,
			Problem: "the cache-warmer CronJob is supposed to refresh the product cache every five minutes, but prices on the storefront are stale for most of each hour",
			Target:  target("CronJob", "cache-warmer"),
			Want:    Want{Culprit: Ref{Kind: "CronJob", Name: "cache-warmer"}, Terms: []string{"5 * * * *"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						return e.w11aCreateCronJob(ctx, w11aCronJob("cache-warmer", "registry.example/storefront/cache-tools:4.2.0", "5 * * * *", false, warmer, "warm", "--catalog=http://catalog:8080", "--redis=redis://product-cache:6379/0", "--ttl=600"))
					},
					func() error {
						return e.w11aCreateCronJob(ctx, w11aCronJob("sitemap-builder", "registry.example/storefront/cache-tools:4.2.0", "*/15 * * * *", false, w8bLabels("sitemap-builder", "storefront"), "sitemap", "--out=s3://storefront-public/sitemap.xml"))
					},
					func() error {
						d := w8bDeployment("storefront", "registry.example/storefront/web:12.4.1", 2, w8bLabels("storefront", "storefront"), nil, "http", 3000)
						w8bEnv(&d.Spec.Template, "PRODUCT_CACHE_URL", "redis://product-cache:6379/0", "CATALOG_URL", "http://catalog:8080")
						return e.w11bServe(ctx, d, 80)
					},
				)
			},
			Wait: all(w11aCronJobExists("cache-warmer"), readyReplicas("storefront", 2)),
		},
	}
}
