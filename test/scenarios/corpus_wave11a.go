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

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// Wave 11a: the mainstream failures every SRE meets weekly, written by an outside hand from
// the Kubernetes debugging pages and the Prometheus Operator runbooks. A third have their cause
// on the object showing the symptom; the rest sit one or more objects away (a Service, a
// NetworkPolicy, a ConfigMap or Secret key, a quota, a claim). The expected answer was fixed
// from the failure as an SRE would explain it, before the engine ran.

const (
	w11aSrcCrashLooping  = "runbooks/kubernetes/KubePodCrashLooping.md"
	w11aSrcMemory        = "k8s-docs/tasks/configure-pod-container/assign-memory-resource.md"
	w11aSrcWaiting       = "runbooks/kubernetes/KubeContainerWaiting.md"
	w11aSrcProbes        = "k8s-docs/tasks/configure-pod-container/configure-liveness-readiness-startup-probes.md"
	w11aSrcJobFailed     = "runbooks/kubernetes/KubeJobFailed.md"
	w11aSrcThrottling    = "runbooks/kubernetes/CPUThrottlingHigh.md"
	w11aSrcCronJobs      = "k8s-docs/concepts/workloads/controllers/cron-jobs.md"
	w11aSrcSecret        = "k8s-docs/concepts/configuration/secret.md"
	w11aSrcConfigMap     = "k8s-docs/tasks/configure-pod-container/configure-pod-configmap.md"
	w11aSrcDebugService  = "k8s-docs/tasks/debug/debug-application/debug-service.md"
	w11aSrcNetPol        = "k8s-docs/concepts/services-networking/network-policies.md"
	w11aSrcReplicas      = "runbooks/kubernetes/KubeDeploymentReplicasMismatch.md"
	w11aSrcQuotas        = "k8s-docs/concepts/policy/resource-quotas.md"
	w11aSrcPV            = "k8s-docs/concepts/storage/persistent-volumes.md"
	w11aSrcFillingUp     = "runbooks/kubernetes/KubePersistentVolumeFillingUp.md"
	w11aSrcDNS           = "k8s-docs/tasks/administer-cluster/dns-debugging-resolution.md"
	w11aSrcPodNotReady   = "runbooks/kubernetes/KubePodNotReady.md"
	w11aSrcDebugApp      = "k8s-docs/tasks/debug/debug-application/debug-running-pod.md"
	w11aSrcDeterminePods = "k8s-docs/tasks/debug/debug-application/determine-reason-pod-failure.md"
)

func wave11aScenarios() []*Scenario {
	out := append(wave11aWorkloadScenarios(), wave11aWiringScenarios()...)
	return append(out, wave11aDependencyScenarios()...)
}

// wave11aWorkloadScenarios: the cause sits on the workload that shows the symptom.
func wave11aWorkloadScenarios() []*Scenario {
	invoice := w8bLabels("invoice-api", "billing", "app.kubernetes.io/component", "api")
	invoiceWeb := w8bLabels("invoice-web", "billing", "app.kubernetes.io/component", "frontend")
	payments := w8cLabels("app", "payments-worker", "team", "payments", "tier", "backend")
	paymentsAPI := w8cLabels("app", "payments-api", "team", "payments", "tier", "backend")
	resizer := w8cLabels("app.kubernetes.io/name", "media-resizer", "app.kubernetes.io/instance", "media")
	thumbs := w8cLabels("app.kubernetes.io/name", "media-thumbnailer", "app.kubernetes.io/instance", "media")
	search := w8cLabels("app.kubernetes.io/name", "search-api", "app.kubernetes.io/component", "opensearch")
	searchUI := w8cLabels("app.kubernetes.io/name", "search-ui", "app.kubernetes.io/component", "frontend")
	reports := w8cLabels("app", "reporting", "component", "batch")
	ledger := w8cLabels("app", "ledger-api", "team", "finance")
	ledgerUI := w8cLabels("app", "ledger-ui", "team", "finance")
	return []*Scenario{
		{
			// The Stripe key used to come from the stripe Secret through secretKeyRef; the
			// values file of the 3.8 release dropped the env entry, so the service exits at start.
			Name: "invoice-api-stripe-key-unset", Covers: "invoice-api crash-loops with exit 1 and 'Error: Missing required environment variable STRIPE_SECRET_KEY' in its Node.js log; the Deployment no longer sets the variable (the Secret that holds the key is still there, unreferenced)",
			Source: w11aSrcCrashLooping, Class: ClassClue, Hops: 0,
			Problem: "KubePodCrashLooping: pod invoice-api is restarting 4.2 times / 10 minutes",
			Target:  target("Deployment", "invoice-api"),
			Want:    Want{Culprit: Ref{Kind: "Deployment", Name: "invoice-api"}, Terms: []string{"STRIPE_SECRET_KEY"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						return e.createSecret(ctx, "invoice-api-stripe", map[string]string{"secret-key": "sk_live_51Hx2vQ0000000000000000000", "webhook-secret": "whsec_000000000000000000000000"})
					},
					func() error {
						return e.createConfigMap(ctx, "invoice-api-env", map[string]string{"NODE_ENV": "production", "LOG_LEVEL": "info", "DATABASE_HOST": "invoice-postgres", "DATABASE_NAME": "invoices"})
					},
					func() error {
						d := w8bDeployment("invoice-api", "ghcr.io/acme-billing/invoice-api:3.8.1", 2, invoice, crash("1", "", "w11a-invoice-api-stripe-key"), "http", 3000)
						w10aMain(&d.Spec.Template, "invoice-api")
						envFromConfigMap(&d.Spec.Template, "invoice-api-env")
						envKeyFromSecret(&d.Spec.Template, "STRIPE_WEBHOOK_SECRET", "invoice-api-stripe", "webhook-secret")
						return e.createDeployment(ctx, d)
					},
					func() error { return e.createService(ctx, w8bService("invoice-api", invoice, "http", 80)) },
					func() error {
						return e.createDeployment(ctx, w8bDeployment("invoice-web", "ghcr.io/acme-billing/invoice-web:3.8.0", 1, invoiceWeb, nil, "http", 8080))
					},
					func() error { return e.createService(ctx, w8bService("invoice-web", invoiceWeb, "http", 80)) },
				)
			},
			Wait: all(podsWith(invoice, crashLooping(2)), readyReplicas("invoice-web", 1)),
		},
		{
			// The JVM is told it may use a 768m heap in a 512Mi container: the kernel kills it
			// as soon as the nightly settlement batch fills the heap.
			Name: "payments-worker-heap-above-memory-limit", Covers: "payments-worker is OOMKilled (exit 137) over and over; JAVA_TOOL_OPTIONS sets -Xmx768m while the container's memory limit is 512Mi, so the heap alone outgrows the limit",
			Source: w11aSrcMemory, Class: ClassMechanism, Hops: 0,
			Problem: "settlement batches are stuck, payments-worker keeps restarting",
			Target:  target("Deployment", "payments-worker"),
			Want:    Want{Culprit: Ref{Kind: "Deployment", Name: "payments-worker"}, Terms: []string{"OOMKilled", "512Mi"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						d := w8bDeployment("payments-worker", "registry.example.com/payments/payments-worker:5.2.0", 1, payments,
							sim("oomkill", annLogs, "w11a-payments-worker-jvm"), "metrics", 8081)
						w10aMain(&d.Spec.Template, "worker")
						w8bEnv(&d.Spec.Template, "JAVA_TOOL_OPTIONS", "-Xms256m -Xmx768m -XX:+UseG1GC", "SPRING_PROFILES_ACTIVE", "prod", "KAFKA_BOOTSTRAP_SERVERS", "kafka.messaging:9092")
						w8cRequests(&d.Spec.Template, "50m", "128Mi", "1", "512Mi")
						return e.createDeployment(ctx, d)
					},
					func() error {
						d := w8bDeployment("payments-api", "registry.example.com/payments/payments-api:5.2.0", 1, paymentsAPI, nil, "http", 8080)
						w8bEnv(&d.Spec.Template, "JAVA_TOOL_OPTIONS", "-XX:MaxRAMPercentage=75.0", "SPRING_PROFILES_ACTIVE", "prod")
						w8cRequests(&d.Spec.Template, "50m", "128Mi", "1", "1Gi")
						return e.createDeployment(ctx, d)
					},
					func() error { return e.createService(ctx, w8bService("payments-api", paymentsAPI, "http", 80)) },
				)
			},
			Wait: all(podsWith(payments, restartedWith("OOMKilled", 137)), podsWith(payments, crashLooping(2))),
		},
		{
			// Release 2.14.0 was typed 2.41.0 in the values file; the old ReplicaSet keeps
			// serving while the new pod cannot pull.
			Name: "media-resizer-image-tag-transposed", Covers: "the media-resizer rollout hangs: the new pod is in ErrImagePull/ImagePullBackOff because the tag v2.41.0 does not exist (the release is v2.14.0, as the thumbnailer next to it runs); the old pod still serves",
			Source: w11aSrcWaiting, Class: ClassSingle, Hops: 0,
			Problem: "KubeContainerWaiting: media-resizer container has been in waiting state for longer than 1 hour",
			Target:  target("Deployment", "media-resizer"),
			Want:    Want{Culprit: Ref{Kind: "Deployment", Name: "media-resizer"}, Terms: []string{"v2.41.0"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						d := w8bDeployment("media-resizer", "ghcr.io/pixelworks/media-resizer:v2.13.2", 1, resizer, nil, "http", 8080)
						w10aMain(&d.Spec.Template, "resizer")
						return e.createDeployment(ctx, d)
					},
					func() error { return e.createService(ctx, w8bService("media-resizer", resizer, "http", 80)) },
					func() error {
						return e.createDeployment(ctx, w8bDeployment("media-thumbnailer", "ghcr.io/pixelworks/media-thumbnailer:v2.14.0", 1, thumbs, nil, "http", 8080))
					},
				)
			},
			Wait: w9bRollout("media-resizer", 1, func(d *appsv1.Deployment) {
				d.Spec.Template.Spec.Containers[0].Image = "ghcr.io/pixelworks/media-resizer:v2.41.0"
				d.Spec.Template.Annotations = sim("image-pull-notfound")
			}, podsWith(resizer, waiting("ErrImagePull", "ImagePullBackOff"))),
		},
		{
			// OpenSearch needs a minute to recover its indices; the liveness probe gives it one
			// second per check, no initial delay worth the name and no startupProbe.
			Name: "opensearch-liveness-kills-recovery", Covers: "search-api (OpenSearch) is killed by its liveness probe (timeoutSeconds 1, failureThreshold 1, initialDelaySeconds 5, no startupProbe) while it is still recovering indices: 'Liveness probe failed: ... context deadline exceeded', exit 137, restarts",
			Source: w11aSrcProbes, Class: ClassMechanism, Hops: 0,
			Problem: "search is down, search-api restarts every minute and never becomes ready",
			Target:  target("StatefulSet", "search-api"),
			Want:    Want{Culprit: Ref{Kind: "StatefulSet", Name: "search-api"}, Terms: []string{"liveness"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						st := w8bStatefulSet("search-api", "opensearchproject/opensearch:2.17.1", "search-api-headless", 1, search,
							sim("liveness-fail", annMessage, `Get "http://10.244.1.23:9200/_cluster/health?local=true": context deadline exceeded (Client.Timeout exceeded while awaiting headers)`, annLogs, "w11a-opensearch-startup"),
							"http", 9200)
						w10aMain(&st.Spec.Template, "opensearch")
						w10aPort(&st.Spec.Template, "transport", 9300)
						w8bEnv(&st.Spec.Template, "discovery.type", "single-node", "OPENSEARCH_JAVA_OPTS", "-Xms1g -Xmx1g")
						c := &st.Spec.Template.Spec.Containers[0]
						c.LivenessProbe = &corev1.Probe{InitialDelaySeconds: 5, PeriodSeconds: 10, TimeoutSeconds: 1, FailureThreshold: 1,
							ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/_cluster/health?local=true", Port: intstr.FromString("http")}}}
						c.ReadinessProbe = w10aProbe("/_cluster/health?local=true", "http", 10)
						return e.createStatefulSet(ctx, st)
					},
					func() error { return e.createService(ctx, w8bHeadless("search-api-headless", search, "http", 9200)) },
					func() error { return e.createService(ctx, w8bService("search-api", search, "http", 9200)) },
					func() error {
						return e.createDeployment(ctx, w8bDeployment("search-ui", "opensearchproject/opensearch-dashboards:2.17.1", 1, searchUI, nil, "http", 5601))
					},
				)
			},
			Wait: all(podsWith(search, restartedWith("Error", 137)), podEvent("Unhealthy", "Liveness probe failed")),
		},
		{
			// Image 3.0 of the reporting jobs moved the scripts from /app/jobs to
			// /app/reports; the Job still runs the old path and fails on every attempt.
			Name: "nightly-sales-report-script-moved", Covers: "Job nightly-sales-report fails (BackoffLimitExceeded): each pod exits 2 with 'python: can't open file '/app/jobs/nightly_sales_report.py': [Errno 2] No such file or directory' because the image it now runs moved the script",
			Source: w11aSrcJobFailed, Class: ClassClue, Hops: 0,
			Problem: "KubeJobFailed: job nightly-sales-report failed to complete",
			Target:  target("Job", "nightly-sales-report"),
			Want:    Want{Culprit: Ref{Kind: "Job", Name: "nightly-sales-report"}, Terms: []string{"nightly_sales_report.py"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						return e.createSecret(ctx, "reporting-db", map[string]string{"DATABASE_URL": "postgresql://reporting:reporting@warehouse-postgres:5432/warehouse"})
					},
					func() error {
						j := job("nightly-sales-report", 2, crash("2", "", "w11a-nightly-sales-report"))
						j.Spec.Template.Annotations[annBehavior] = "fail"
						j.Labels = reports
						j.Spec.Template.Labels = reports
						j.Spec.Template.Spec.Containers[0].Name = "report"
						j.Spec.Template.Spec.Containers[0].Image = "registry.example.com/data/reporting-jobs:3.0.0"
						j.Spec.Template.Spec.Containers[0].Command = []string{"python", "/app/jobs/nightly_sales_report.py"}
						j.Spec.Template.Spec.Containers[0].Args = []string{"--date", "yesterday", "--output", "s3://acme-reports/sales/"}
						envFromSecret(&j.Spec.Template, "reporting-db")
						return e.w9aJob(ctx, j)
					},
					func() error {
						j := job("weekly-churn-report", 2, nil)
						j.Spec.Template.Spec.Containers[0].Name = "report"
						j.Spec.Template.Spec.Containers[0].Image = "registry.example.com/data/reporting-jobs:2.9.4"
						j.Spec.Template.Spec.Containers[0].Command = []string{"python", "/app/jobs/weekly_churn_report.py"}
						envFromSecret(&j.Spec.Template, "reporting-db")
						return e.w9aJob(ctx, j)
					},
				)
			},
			Wait: all(w11aJobFailed("nightly-sales-report", "BackoffLimitExceeded"), w9aJobComplete("weekly-churn-report")),
		},
		{
			// A Spring Boot service under a 100m CPU limit: it takes minutes to start and every
			// readiness check outlasts the probe's one-second timeout while it is throttled.
			Name: "ledger-api-cpu-limit-probe-timeouts", Covers: "ledger-api pods are Running but never Ready: 'Readiness probe failed: ... context deadline exceeded'; the container's CPU limit is 100m (CPUThrottlingHigh), the app logs a 141 s start and /health/ready answering in 4 s",
			Source: w11aSrcThrottling, Class: ClassMechanism, Hops: 0,
			Problem: "ledger-api has no ready pods since the resources change, ledger-ui shows 503",
			Target:  target("Deployment", "ledger-api"),
			Want:    Want{Culprit: Ref{Kind: "Deployment", Name: "ledger-api"}, Terms: []string{"cpu", "100m"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						d := w8bDeployment("ledger-api", "registry.example.com/finance/ledger-api:2.9.3", 2, ledger,
							sim("readiness-fail", annMessage, `Get "http://10.244.2.31:8080/health/ready": context deadline exceeded (Client.Timeout exceeded while awaiting headers)`, annLogs, "w11a-ledger-api-startup"), "http", 8080)
						w10aMain(&d.Spec.Template, "ledger-api")
						w8bEnv(&d.Spec.Template, "JAVA_TOOL_OPTIONS", "-XX:MaxRAMPercentage=75.0", "SPRING_PROFILES_ACTIVE", "prod")
						w8cRequests(&d.Spec.Template, "100m", "256Mi", "100m", "1Gi")
						d.Spec.Template.Spec.Containers[0].ReadinessProbe = &corev1.Probe{PeriodSeconds: 15, TimeoutSeconds: 1, FailureThreshold: 3,
							ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/health/ready", Port: intstr.FromString("http")}}}
						return e.createDeployment(ctx, d)
					},
					func() error { return e.createService(ctx, w8bService("ledger-api", ledger, "http", 80)) },
					func() error {
						d := w8bDeployment("ledger-ui", "registry.example.com/finance/ledger-ui:2.9.0", 1, ledgerUI, nil, "http", 8080)
						w8bEnv(&d.Spec.Template, "LEDGER_API_URL", "http://ledger-api")
						return e.createDeployment(ctx, d)
					},
					func() error { return e.createService(ctx, w8bService("ledger-ui", ledgerUI, "http", 80)) },
				)
			},
			Wait: all(podsWith(ledger, runningNotReady), podEvent("Unhealthy", "Readiness probe failed"), readyReplicas("ledger-ui", 1)),
		},
		{
			// Suspended for a database migration three weeks ago and never resumed.
			Name: "invoice-mailer-cronjob-left-suspended", Covers: "no invoice run this week: CronJob invoice-mailer has spec.suspend: true (left over from a maintenance window) so it schedules nothing, while the other CronJobs of the namespace run",
			Source: w11aSrcCronJobs, Class: ClassOutside, Hops: 0,
			Problem: "customers did not get their weekly invoices, the invoice-mailer job did not run",
			Target:  target("CronJob", "invoice-mailer"),
			Want:    Want{Culprit: Ref{Kind: "CronJob", Name: "invoice-mailer"}, Terms: []string{"suspend"}},
			Setup: func(ctx context.Context, e *Env) error {
				mailer := w8cLabels("app.kubernetes.io/name", "invoice-mailer", "app.kubernetes.io/part-of", "billing")
				cleanup := w8cLabels("app.kubernetes.io/name", "invoice-archive", "app.kubernetes.io/part-of", "billing")
				return steps(
					func() error {
						return e.w11aCreateCronJob(ctx, w11aCronJob("invoice-mailer", "ghcr.io/acme-billing/invoice-mailer:1.12.0", "0 6 * * 1", true, mailer, "--send", "--week", "last"))
					},
					func() error {
						return e.w11aCreateCronJob(ctx, w11aCronJob("invoice-archive", "ghcr.io/acme-billing/invoice-archive:1.4.2", "*/1 * * * *", false, cleanup, "--older-than", "400d"))
					},
				)
			},
			Wait: all(w11aCronJobExists("invoice-mailer"), w11aAnyJobComplete),
			Slow: true,
		},
	}
}
