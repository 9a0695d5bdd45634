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
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// Wave 10b: a fresh batch by an outside hand, from k8s-docs pages on configuration the corpus
// had used little (downward API, security context, service account token projection, Pod
// DNS and indexed Jobs, topology spread, priority and preemption, extended resources,
// ConfigMap volumes), each combined with the real software a team runs and the log lines it
// writes. Each team labels its objects its own way; several clues are only in a log.

const (
	w10bSrcDownwardAPI     = "k8s-docs/concepts/workloads/pods/downward-api.md"
	w10bSrcSecurityContext = "k8s-docs/tasks/configure-pod-container/security-context.md"
	w10bSrcIndexedJob      = "k8s-docs/concepts/workloads/controllers/job.md"
	w10bSrcTokenProjection = "k8s-docs/tasks/configure-pod-container/configure-service-account.md"
	w10bSrcTopologySpread  = "k8s-docs/concepts/scheduling-eviction/topology-spread-constraints.md"
	w10bSrcPriority        = "k8s-docs/concepts/scheduling-eviction/pod-priority-preemption.md"
	w10bSrcExtendedRes     = "k8s-docs/concepts/configuration/manage-resources-containers.md"
	w10bSrcPodDNS          = "k8s-docs/concepts/services-networking/dns-pod-service.md"
	w10bSrcConfigMapItems  = "k8s-docs/tasks/configure-pod-container/configure-pod-configmap.md"
	w10bSrcStatefulSet     = "k8s-docs/concepts/workloads/controllers/statefulset.md"
	w10bSrcPSARoot         = "k8s-docs/tasks/configure-pod-container/security-context.md (runAsNonRoot: the kubelet refuses an image whose user is root)"
)

func wave10bScenarios() []*Scenario {
	out := append(wave10bFirstScenarios(), wave10bSchedulingScenarios()...)
	out = append(out, wave10bMoreScenarios()...)
	return append(out, wave10bStorageScenarios()...)
}

func wave10bFirstScenarios() []*Scenario {
	return []*Scenario{
		{
			// Datadog's unified service tagging reads DD_AGENT_HOST from the downward API; the
			// new chart took status.podIP where the agent listens on the node (status.hostIP),
			// so the tracer posts to the app's own pod and every flush is refused.
			Name: "checkout-ddtrace-agent-host-pod-ip", Covers: "checkout-api is Running and Ready but no trace reaches APM: its dd-trace log repeats 'lost 14 traces: Post \"http://10.244.1.23:8126/v0.4/traces\": ... connection refused'; DD_AGENT_HOST comes from fieldRef status.podIP, not status.hostIP where the node's datadog-agent listens",
			Source: w10bSrcDownwardAPI, Class: ClassOutside, Hops: 1,
			Problem: "APM shows no traces from checkout-api since it moved to the new chart last week; cart-api traces still arrive",
			Target:  target("Deployment", "checkout-api"),
			Want:    Want{Culprit: Ref{Kind: "Deployment", Name: "checkout-api"}, Terms: []string{"DD_AGENT_HOST", "podIP"}},
			Setup: func(ctx context.Context, e *Env) error {
				ust := func(service, version string, extra ...string) map[string]string {
					return w8cLabels(append([]string{"app.kubernetes.io/name", service, "tags.datadoghq.com/service", service,
						"tags.datadoghq.com/env", "production", "tags.datadoghq.com/version", version}, extra...)...)
				}
				ddEnv := func(t *corev1.PodTemplateSpec, hostField string) {
					w10bFieldEnv(t, "DD_AGENT_HOST", hostField,
						"DD_ENV", "metadata.labels['tags.datadoghq.com/env']",
						"DD_SERVICE", "metadata.labels['tags.datadoghq.com/service']",
						"DD_VERSION", "metadata.labels['tags.datadoghq.com/version']")
					w8bEnv(t, "DD_TRACE_AGENT_PORT", "8126", "DD_RUNTIME_METRICS_ENABLED", "true", "DD_LOGS_INJECTION", "true")
				}
				agent := w8cLabels("app.kubernetes.io/name", "datadog-agent", "app.kubernetes.io/component", "agent")
				return steps(
					func() error { _, err := e.w10bNode(ctx, "general", nil); return err },
					func() error {
						t := template("datadog-agent", "gcr.io/datadoghq/agent:7.59.0", nil)
						t.Labels = agent
						t.Spec.Containers[0].Ports = []corev1.ContainerPort{
							{Name: "traceport", ContainerPort: 8126, HostPort: 8126, Protocol: corev1.ProtocolTCP},
							{Name: "dogstatsdport", ContainerPort: 8125, HostPort: 8125, Protocol: corev1.ProtocolUDP}}
						w8bEnv(&t, "DD_APM_ENABLED", "true", "DD_APM_NON_LOCAL_TRAFFIC", "true", "DD_DOGSTATSD_NON_LOCAL_TRAFFIC", "true", "DD_SITE", "datadoghq.eu")
						e.pin(&t)
						_, err := e.Client.AppsV1().DaemonSets(e.Namespace).Create(ctx, w10bDaemonSet("datadog-agent", agent, t), metav1.CreateOptions{})
						return wrap("DaemonSet", "datadog-agent", err)
					},
					func() error {
						pg := w8cLabels("app.kubernetes.io/name", "checkout-pg", "app.kubernetes.io/component", "database")
						st := w8bStatefulSet("checkout-pg", "postgres:16.4", "checkout-pg", 1, pg, nil, "postgres", 5432)
						e.pin(&st.Spec.Template)
						return steps(func() error { return e.createStatefulSet(ctx, st) },
							func() error { return e.createService(ctx, w8bService("checkout-pg", pg, "postgres", 5432)) })
					},
					func() error {
						lbl := ust("cart-api", "3.8.0")
						d := w8bDeployment("cart-api", "registry.example/shop/cart-api:3.8.0", 2, lbl, nil, "http", 8080)
						ddEnv(&d.Spec.Template, "status.hostIP")
						e.pin(&d.Spec.Template)
						return steps(func() error { return e.createDeployment(ctx, d) },
							func() error {
								return e.createService(ctx, w8bService("cart-api", w8cLabels("app.kubernetes.io/name", "cart-api"), "http", 80))
							})
					},
					func() error {
						lbl := ust("checkout-api", "7.14.2")
						d := w8bDeployment("checkout-api", "registry.example/shop/checkout-api:7.14.2", 2, lbl, running("w10b-checkout-ddtrace-podip"), "http", 8080)
						ddEnv(&d.Spec.Template, "status.podIP")
						w8bEnv(&d.Spec.Template, "PGHOST", "checkout-pg", "PGDATABASE", "checkout")
						e.pin(&d.Spec.Template)
						return steps(func() error { return e.createDeployment(ctx, d) },
							func() error {
								return e.createService(ctx, w8bService("checkout-api", w8cLabels("app.kubernetes.io/name", "checkout-api"), "http", 80))
							})
					},
				)
			},
			Wait: all(readyReplicas("checkout-api", 2), readyReplicas("cart-api", 2)),
		},
		{
			// The namespace moved to the restricted profile: runAsNonRoot, uid 1001, every
			// capability dropped. Next.js still listens on port 80, which needs root or
			// NET_BIND_SERVICE, so the server dies with EACCES before it takes a request.
			Name: "storefront-next-port-80-caps-dropped", Covers: "shop.example.com answers 503: the storefront Service has no endpoints because every Next.js pod exits with 'Error: listen EACCES: permission denied 0.0.0.0:80' after its securityContext was hardened (runAsUser 1001, capabilities drop ALL) while PORT stayed 80",
			Source: w10bSrcSecurityContext, Class: ClassClue, Hops: 3,
			Problem: "shop.example.com returns 503 since the security hardening of the growth namespace was rolled out",
			Target:  target("Ingress", "storefront"),
			Want:    Want{Culprit: Ref{Kind: "Deployment", Name: "storefront"}, Terms: []string{"permission denied", "80"}},
			Setup: func(ctx context.Context, e *Env) error {
				web := w8cLabels("app", "storefront", "tier", "web", "team", "growth")
				api := w8cLabels("app", "storefront-api", "tier", "api", "team", "growth")
				return steps(
					func() error {
						d := w8bDeployment("storefront-api", "registry.example/growth/storefront-api:2026.11.3", 2, api, nil, "http", 8080)
						w10bRestricted(&d.Spec.Template, 1001)
						return e.createDeployment(ctx, d)
					},
					func() error { return e.createService(ctx, w8bService("storefront-api", api, "http", 8080)) },
					func() error {
						d := w8bDeployment("storefront", "registry.example/growth/storefront:2026.11.3", 3, web, crash("1", "", "w10b-storefront-next-eacces"), "http", 80)
						w8cArgs(&d.Spec.Template, "node", "server.js")
						w8bEnv(&d.Spec.Template, "PORT", "80", "HOSTNAME", "0.0.0.0", "NODE_ENV", "production", "API_BASE_URL", "http://storefront-api:8080")
						w10bRestricted(&d.Spec.Template, 1001)
						return e.createDeployment(ctx, d)
					},
					func() error { return e.createService(ctx, w8bService("storefront", web, "http", 80)) },
					func() error {
						return e.createIngress(ctx, w8cHostIngress("storefront", "shop.example.com", "storefront", 80))
					},
				)
			},
			Wait: all(readyReplicas("storefront-api", 2), podsWith(w8cLabels("app", "storefront"), crashLooping(2))),
		},
		{
			// An indexed Job's pods are reachable as <job>-<index>.<subdomain> only when a
			// headless Service named like the subdomain exists; the Service was named after
			// the Job, so the torchrun rendezvous host never resolves and every index fails.
			Name: "resnet-indexed-job-subdomain-mismatch", Covers: "the 4-worker indexed training Job resnet-train fails with FailedIndexes: every torchrun logs '[c10d] The IPv4 network addresses of (resnet-train-0.resnet-train-workers, 29500) cannot be retrieved (gai error: -2 - Name or service not known)'; the pods' subdomain is resnet-train-workers but the headless Service is called resnet-train",
			Source: w10bSrcIndexedJob, Class: ClassProvider, Hops: 2,
			Problem: "the resnet50 training job failed on all 4 workers within a minute; the same script works from a notebook",
			Target:  target("Job", "resnet-train"),
			Want:    Want{Culprit: Ref{Kind: "Job", Name: "resnet-train"}, Also: []Ref{{Kind: "Service", Name: "resnet-train"}}, Terms: []string{"resnet-train-workers", "subdomain"}},
			Setup: func(ctx context.Context, e *Env) error {
				exp := func(extra ...string) map[string]string {
					return w8cLabels(append([]string{"ml.example.com/team", "vision", "ml.example.com/experiment", "resnet50-imagenet"}, extra...)...)
				}
				return steps(
					func() error {
						_, err := e.w10bNode(ctx, "train", map[string]string{"node.kubernetes.io/instance-type": "c6i.4xlarge", "ml.example.com/pool": "training"})
						return err
					},
					func() error {
						d := w8bDeployment("mlflow", "ghcr.io/mlflow/mlflow:v2.17.2", 1, exp("app.kubernetes.io/name", "mlflow"), nil, "http", 5000)
						return e.createDeployment(ctx, d)
					},
					func() error {
						return e.createService(ctx, w8bService("mlflow", w8cLabels("app.kubernetes.io/name", "mlflow"), "http", 5000))
					},
					func() error {
						s := w8bHeadless("resnet-train", w8cLabels("batch.kubernetes.io/job-name", "resnet-train"), "c10d", 29500)
						s.Labels = exp()
						return e.createService(ctx, s)
					},
					func() error {
						t := template("resnet-train", "registry.example/vision/resnet-trainer:0.9.3", sim("fail", annExitCode, "1", annLogs, "w10b-resnet-torchrun-subdomain"))
						t.Labels = exp("app.kubernetes.io/name", "resnet-trainer")
						t.Spec.RestartPolicy = corev1.RestartPolicyNever
						t.Spec.Subdomain = "resnet-train-workers"
						t.Spec.Containers[0].Name = "trainer"
						t.Spec.Containers[0].Ports = []corev1.ContainerPort{{Name: "c10d", ContainerPort: 29500}}
						w8cArgs(&t, "torchrun", "--nnodes=4", "--nproc-per-node=1", "--node-rank=$(JOB_COMPLETION_INDEX)",
							"--rdzv-backend=static", "--master-addr=$(MASTER_ADDR)", "--master-port=29500", "train.py", "--epochs=90", "--data=/datasets/imagenet")
						w8bEnv(&t, "MASTER_ADDR", "resnet-train-0.resnet-train-workers", "MLFLOW_TRACKING_URI", "http://mlflow:5000", "NCCL_DEBUG", "WARN")
						w10bCPU(&t, "500m", "1Gi")
						e.pin(&t)
						_, err := e.Client.BatchV1().Jobs(e.Namespace).Create(ctx, &batchv1.Job{
							ObjectMeta: metav1.ObjectMeta{Name: "resnet-train", Labels: exp()},
							Spec: batchv1.JobSpec{
								CompletionMode: ptr.To(batchv1.IndexedCompletion), Completions: ptr.To[int32](4), Parallelism: ptr.To[int32](4),
								BackoffLimitPerIndex: ptr.To[int32](1), Template: t,
							},
						}, metav1.CreateOptions{})
						return wrap("Job", "resnet-train", err)
					},
				)
			},
			Wait: func(ctx context.Context, e *Env) error { return jobFailed(ctx, e, "resnet-train", "FailedIndexes") },
		},
		{
			// The pod-identity token is a projected serviceAccountToken; STS accepts only the
			// audience the identity provider was registered with (sts.amazonaws.com). The chart
			// upgrade set the audience to the app's own name, so AssumeRoleWithWebIdentity fails.
			Name: "billing-export-projected-token-audience", Covers: "billing-export crash-loops (exit 1, no termination message); its log says 'AssumeRoleWithWebIdentity, https response error StatusCode: 400 ... InvalidIdentityToken: Incorrect token audience' before 'exporter stopped'; the projected serviceAccountToken volume asks for audience billing-export, not sts.amazonaws.com",
			Source: w10bSrcTokenProjection, Class: ClassClue, Hops: 1,
			Problem: "finalized invoices are no longer exported to S3 since the billing-export chart upgrade; the pod keeps restarting",
			Target:  target("Deployment", "billing-export"),
			Want:    Want{Culprit: Ref{Kind: "Deployment", Name: "billing-export"}, Terms: []string{"audience"}},
			Setup: func(ctx context.Context, e *Env) error {
				helm := func(name, instance, chart string) map[string]string {
					return w8cLabels("app.kubernetes.io/name", name, "app.kubernetes.io/instance", instance, "app.kubernetes.io/managed-by", "Helm", "helm.sh/chart", chart)
				}
				webIdentity := func(t *corev1.PodTemplateSpec, sa, role, audience string) {
					t.Spec.ServiceAccountName = sa
					t.Spec.Volumes = append(t.Spec.Volumes, corev1.Volume{Name: "aws-iam-token", VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{
						Sources: []corev1.VolumeProjection{{ServiceAccountToken: &corev1.ServiceAccountTokenProjection{Audience: audience, ExpirationSeconds: ptr.To[int64](86400), Path: "token"}}}}}})
					t.Spec.Containers[0].VolumeMounts = append(t.Spec.Containers[0].VolumeMounts, corev1.VolumeMount{Name: "aws-iam-token", MountPath: "/var/run/secrets/eks.amazonaws.com/serviceaccount", ReadOnly: true})
					w8bEnv(t, "AWS_ROLE_ARN", role, "AWS_WEB_IDENTITY_TOKEN_FILE", "/var/run/secrets/eks.amazonaws.com/serviceaccount/token",
						"AWS_REGION", "eu-west-1", "AWS_STS_REGIONAL_ENDPOINTS", "regional")
				}
				sa := func(name, role string) error {
					_, err := e.Client.CoreV1().ServiceAccounts(e.Namespace).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{
						Name: name, Annotations: map[string]string{"eks.amazonaws.com/role-arn": role}}}, metav1.CreateOptions{})
					return wrap("ServiceAccount", name, err)
				}
				const exportRole, archiveRole = "arn:aws:iam::481516234200:role/billing-export", "arn:aws:iam::481516234200:role/ledger-archiver"
				return steps(
					func() error { return sa("billing-export", exportRole) },
					func() error { return sa("ledger-archiver", archiveRole) },
					func() error {
						d := w8bDeployment("billing-api", "registry.example/billing/api:5.1.0", 2, helm("billing-api", "billing-api-prod", "billing-api-5.1.0"), nil, "http", 8080)
						return e.createDeployment(ctx, d)
					},
					func() error {
						return e.createService(ctx, w8bService("billing-api", w8cLabels("app.kubernetes.io/instance", "billing-api-prod"), "http", 80))
					},
					func() error {
						d := w8bDeployment("ledger-archiver", "registry.example/billing/ledger-archiver:1.6.4", 1, helm("ledger-archiver", "ledger-archiver-prod", "ledger-archiver-1.6.4"), nil, "", 0)
						webIdentity(&d.Spec.Template, "ledger-archiver", archiveRole, "sts.amazonaws.com")
						return e.createDeployment(ctx, d)
					},
					func() error {
						d := w8bDeployment("billing-export", "registry.example/billing/export:2.8.1", 1, helm("billing-export", "billing-export-prod", "billing-export-2.8.1"),
							crash("1", "", "w10b-billing-export-sts-audience"), "metrics", 9090)
						webIdentity(&d.Spec.Template, "billing-export", exportRole, "billing-export")
						w8bEnv(&d.Spec.Template, "EXPORT_BUCKET", "acme-billing-exports-prod", "QUEUE_URL", "https://sqs.eu-west-1.amazonaws.com/481516234200/billing-invoices-finalized")
						return e.createDeployment(ctx, d)
					},
				)
			},
			Wait: all(readyReplicas("ledger-archiver", 1), podsWith(w8cLabels("app.kubernetes.io/name", "billing-export"), crashLooping(2))),
		},
	}
}

// w10bDaemonSet is a DaemonSet selecting lbl with pod template t.
func w10bDaemonSet(name string, lbl map[string]string, t corev1.PodTemplateSpec) *appsv1.DaemonSet {
	return &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: lbl},
		Spec: appsv1.DaemonSetSpec{Selector: &metav1.LabelSelector{MatchLabels: lbl}, Template: t}}
}
