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
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
)

// Wave 7b: broken clusters written by an outside hand from public incident write-ups and
// postmortems (named in Source by their titles) and from the Prometheus Operator runbooks. The
// expected answer is what an SRE reading the write-up would name, fixed before the engine ran;
// the problem is phrased as a user or an alert would, with unrelated healthy workloads beside
// the fault and the clue often only in a container log.

const (
	srcRedditPiDay       = "Reddit: You Broke Reddit: The Pi-Day Outage (r/RedditEng, 2023)"
	srcJetstackWebhook   = "Jetstack: How a simple admission webhook lead to a cluster outage (Charlie Egan)"
	srcCronJobNearMiss   = "devopshero.dev: How We Almost Lost Our Production Kubernetes Cluster to a Misconfigured CronJob"
	srcGrafanaPriorities = "Grafana Labs: How a Production Outage Was Caused Using Kubernetes Pod Priorities (2019)"
	srcLivenessDBPing    = "sivabuilds.com: Liveness vs Readiness (a /health endpoint with a database ping caused cascading restarts)"
	srcJavaOOM           = "212clab: Java OOM Troubleshooting (MaxRAMPercentage=75 with a 512Mi limit)"
	srcCertExpiryMTLS    = "crackingwalnuts.com: Certificate Expiry Incidents (The mTLS Trap)"
	srcRbAlertsToAnyAM   = "runbooks/prometheus/PrometheusErrorSendingAlertsToAnyAlertmanager.md"
	srcRbRemoteStorage   = "runbooks/prometheus/PrometheusRemoteStorageFailures.md"
)

func wave7bScenarios() []*Scenario {
	return append(wave7bFirstScenarios(), wave7bMoreScenarios()...)
}

func wave7bFirstScenarios() []*Scenario {
	return []*Scenario{
		{
			// The upgrade removed the node-role.kubernetes.io/master label; the route
			// reflectors were pinned to it, so BGP never comes up on any node.
			Name: "calico-rr-master-label-removed", Covers: "calico-node is not ready everywhere (BGP not established); the route-reflector Deployment is Pending on a nodeSelector for the master label no node carries since 1.24",
			Source: srcRedditPiDay, Class: ClassRanking, Hops: 2,
			Problem: "pods lost cross-node connectivity right after the control plane upgrade to 1.24",
			Target:  target("DaemonSet", "calico-node"),
			Want:    Want{Culprit: Ref{Kind: "Deployment", Name: "calico-route-reflector"}, Terms: []string{"node-role.kubernetes.io/master"}},
			Setup: func(ctx context.Context, e *Env) error {
				rr := map[string]string{"k8s-app": "calico-route-reflector"}
				return steps(
					func() error {
						return e.createDeployment(ctx, labelledDeployment("calico-kube-controllers", "docker.io/calico/kube-controllers:v3.25.0", map[string]string{"k8s-app": "calico-kube-controllers"}, nil))
					},
					func() error {
						d := labelledDeployment("calico-route-reflector", "docker.io/calico/node:v3.25.0", rr, nil)
						d.Spec.Replicas = ptr.To[int32](2)
						d.Spec.Template.Spec.NodeSelector = map[string]string{"node-role.kubernetes.io/master": ""}
						port(&d.Spec.Template, "bgp", 179)
						return e.createDeployment(ctx, d)
					},
					func() error {
						s := service("calico-route-reflector", rr, intstr.FromString("bgp"))
						s.Spec.Ports[0].Name, s.Spec.Ports[0].Port = "bgp", 179
						return e.createService(ctx, s)
					},
					func() error {
						msg := "Readiness probe failed: calico/node is not ready: BIRD is not ready: BGP not established with 10.0.12.4,10.0.12.5"
						return e.createDaemonSet(ctx, "calico-node", "docker.io/calico/node:v3.25.0", sim("readiness-fail", annMessage, msg, annLogs, "w7b-calico-node-bgp"), func(t *corev1.PodTemplateSpec) {
							t.Spec.Containers[0].ReadinessProbe = &corev1.Probe{PeriodSeconds: 10, ProbeHandler: corev1.ProbeHandler{
								Exec: &corev1.ExecAction{Command: []string{"/bin/calico-node", "-bird-ready", "-felix-ready"}}}}
							t.Spec.Containers[0].Env = []corev1.EnvVar{{Name: "CALICO_NETWORKING_BACKEND", Value: "bird"}, {Name: "FELIX_HEALTHENABLED", Value: "true"}}
						})
					},
				)
			},
			Wait: all(podsWith(map[string]string{"k8s-app": "calico-route-reflector"}, unschedulable("selector")), anyPod("calico-node", runningNotReady)),
		},
		{
			// OPA was uninstalled, its ValidatingWebhookConfiguration was left behind and fails
			// closed: no pod of the namespace can be created any more.
			Name: "opa-webhook-down-blocks-pod-creation", Covers: "a new Deployment has 0 pods: its ReplicaSet's creates fail calling an OPA validating webhook (failurePolicy Fail) left behind after OPA and its Service were uninstalled",
			Source: srcJetstackWebhook, Class: ClassReference, Hops: 2,
			Problem: "the storefront deploy from CI shows 0 of 3 pods, nothing in kubectl get pods",
			Target:  target("Deployment", "storefront"),
			Want: Want{Culprit: Ref{Kind: "ValidatingWebhookConfiguration", Name: "opa-validating-webhook", Cluster: true},
				Also: []Ref{{Kind: "Service", Name: "opa"}}, Terms: []string{"failed calling webhook"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						return e.createDeployment(ctx, deployment("storefront-cache", "memcached:1.6.29", 1, nil))
					},
					// The cache came up while OPA was still installed.
					func() error {
						return poll(ctx, setupWait, func() error { return readyReplicas("storefront-cache", 1)(ctx, e) })
					},
					func() error { return e.createPodWebhook(ctx, "opa-validating-webhook", "opa") },
					func() error {
						return e.createDeployment(ctx, deployment("storefront", "registry.example/shop/storefront:6.3.0", 3, nil))
					},
				)
			},
			Wait: func(ctx context.Context, e *Env) error {
				return podEventOn(ctx, e, "ReplicaSet", "FailedCreate", "failed calling webhook")
			},
		},
		{
			// Every minute instead of every hour, concurrencyPolicy left at Allow, and runs
			// that never finish: they pile up until the namespace's pod quota is gone.
			Name: "session-cleanup-cronjob-pileup", Covers: "a payments rollout is stuck on 'exceeded quota'; the pods quota is used up by session-cleanup Jobs that pile up (every minute, concurrencyPolicy Allow, runs never finish)",
			Source: srcCronJobNearMiss, Class: ClassRanking, Hops: 2, Slow: true,
			Problem: "payments-api deploy is stuck since this morning",
			Target:  target("Deployment", "payments-api"),
			Want:    Want{Culprit: Ref{Kind: "CronJob", Name: "session-cleanup"}, Terms: []string{"session-cleanup", "concurrencyPolicy"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						return e.createQuota(ctx, "team-payments", corev1.ResourceList{corev1.ResourcePods: resource.MustParse("3")})
					},
					func() error {
						return e.createDeployment(ctx, deployment("payments-api", "registry.example/payments/payments-app:4.2.0", 1, nil))
					},
					func() error {
						j := job("session-cleanup", 0, sim("run"))
						j.Spec.Template.Spec.Containers[0].Image = "registry.example/payments/payments-app:4.2.0"
						j.Spec.Template.Spec.Containers[0].Args = []string{"cleanup-sessions", "--redis=redis://session-redis:6379/2"}
						_, err := e.Client.BatchV1().CronJobs(e.Namespace).Create(ctx, &batchv1.CronJob{
							ObjectMeta: metav1.ObjectMeta{Name: "session-cleanup"},
							Spec: batchv1.CronJobSpec{Schedule: "*/1 * * * *", ConcurrencyPolicy: batchv1.AllowConcurrent,
								JobTemplate: batchv1.JobTemplateSpec{Spec: j.Spec}},
						}, metav1.CreateOptions{})
						return wrap("CronJob", "session-cleanup", err)
					},
				)
			},
			Wait: func(ctx context.Context, e *Env) error {
				if e.State["rolled"] == "" {
					cj, err := e.Client.BatchV1().CronJobs(e.Namespace).Get(ctx, "session-cleanup", metav1.GetOptions{})
					if err != nil {
						return err
					}
					if len(cj.Status.Active) < 2 {
						return fmt.Errorf("%d session-cleanup jobs active", len(cj.Status.Active))
					}
					if err := anyPodCount(ctx, e, "session-cleanup", 2); err != nil {
						return err
					}
					// The morning's deploy.
					if err := e.updateDeployment(ctx, "payments-api", func(d *appsv1.Deployment) {
						d.Spec.Template.Spec.Containers[0].Image = "registry.example/payments/payments-app:4.2.1"
					}); err != nil {
						return err
					}
					e.State["rolled"] = "yes"
				}
				return podEventOn(ctx, e, "ReplicaSet", "FailedCreate", "exceeded quota")
			},
		},
		{
			// A new PriorityClass on the stateless tier: the distributor preempts an ingester,
			// which then cannot come back on the full node.
			Name: "ingester-preempted-by-priorityclass", Covers: "an ingester StatefulSet pod is Pending on Insufficient cpu after it was preempted by a distributor pod running at a new, higher PriorityClass",
			Source: srcGrafanaPriorities, Class: ClassRanking, Hops: 2,
			Problem: "an ingester is stuck in Pending and remote writes are failing",
			Target:  target("StatefulSet", "ingester"),
			Want:    Want{Culprit: Ref{Kind: "Deployment", Name: "distributor"}, Terms: []string{"preempt"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error { _, err := e.createNode(ctx, nodeSpec{name: "cortex", kwok: true}); return err },
					func() error { return e.createPriorityClass(ctx, "stateless-critical", 1000000) },
					func() error {
						st := plainStatefulSet("ingester", "quay.io/cortexproject/cortex:v1.17.1", 2, nil)
						st.Spec.PodManagementPolicy = appsv1.ParallelPodManagement
						st.Spec.Template.Spec.Containers[0].Args = []string{"-target=ingester", "-ingester.lifecycler.join-after=30s"}
						limits(&st.Spec.Template, "1500m", "4Gi")
						e.pin(&st.Spec.Template)
						return e.createStatefulSet(ctx, st)
					},
					func() error { return e.createService(ctx, headless("ingester")) },
				)
			},
			Wait: func(ctx context.Context, e *Env) error {
				if e.State["distributor"] == "" {
					if err := readyStatefulSet(ctx, e, "ingester", 2); err != nil {
						return err
					}
					d := deployment("distributor", "quay.io/cortexproject/cortex:v1.17.1", 1, nil)
					d.Spec.Template.Spec.Containers[0].Args = []string{"-target=distributor"}
					d.Spec.Template.Spec.PriorityClassName = e.ClusterName("stateless-critical")
					limits(&d.Spec.Template, "2", "2Gi")
					e.pin(&d.Spec.Template)
					if err := e.createDeployment(ctx, d); err != nil {
						return err
					}
					e.State["distributor"] = "yes"
				}
				return all(anyPod("distributor", runningReady), anyPod("ingester", unschedulable("Insufficient cpu")))(ctx, e)
			},
		},
		{
			// The liveness probe pings the database; the database is OOMKilled, so every API
			// pod is killed by its kubelet in turn.
			Name: "accounts-liveness-pings-oom-postgres", Covers: "API pods restarted by a liveness probe whose /health pings the database; the postgres StatefulSet is OOMKilled over and over",
			Source: srcLivenessDBPing, Class: ClassRanking, Hops: 3,
			Problem: "accounts-api keeps restarting every few minutes",
			Target:  target("Deployment", "accounts-api"),
			Want:    Want{Culprit: Ref{Kind: "StatefulSet", Name: "postgres"}, Terms: []string{"OOMKilled"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						st := plainStatefulSet("postgres", "postgres:16.4", 1, sim("oomkill"))
						port(&st.Spec.Template, "postgres", 5432)
						memoryOnly(&st.Spec.Template, 0, "256Mi")
						return e.createStatefulSet(ctx, st)
					},
					func() error {
						return e.createServiceOn(ctx, "postgres", "postgres", 5432, intstr.FromString("postgres"))
					},
					func() error {
						return e.createDeployment(ctx, deployment("accounts-web", "registry.example/accounts/web:5.4.1", 1, nil))
					},
					func() error {
						d := deployment("accounts-api", "registry.example/accounts/api:5.4.1", 2,
							sim("liveness-fail", annMessage, "Liveness probe failed: HTTP probe failed with statuscode: 503", annLogs, "w7b-accounts-health-db-ping"))
						d.Spec.Template.Spec.Containers[0].LivenessProbe = httpProbe("/health")
						return e.createDeployment(ctx, env(d, "DATABASE_URL", "postgres://accounts@postgres:5432/accounts?sslmode=disable"))
					},
				)
			},
			Wait: all(anyPod("postgres", restartedWith("OOMKilled", 137)), anyPod("accounts-api", restartedWith("Error", 137)), podEvent("Unhealthy", "503")),
		},
		{
			// The 3.2 rollout raised the heap share to 75 % of a 512Mi limit; the JVM's other
			// memory pushes the container over and the kernel kills it.
			Name: "gateway-jvm-maxrampercentage-oomkilled", Covers: "a gateway rollout is stuck: the new pods (JAVA_OPTS MaxRAMPercentage=75, 512Mi limit) are OOMKilled while the old ones serve",
			Source: srcJavaOOM, Class: ClassMechanism, Hops: 1,
			Problem: "the cloud-gateway rollout to 3.2 never finishes",
			Target:  target("Deployment", "cloud-gateway"),
			Want:    Want{Culprit: Ref{Kind: "Deployment", Name: "cloud-gateway"}, Terms: []string{"OOMKilled", "512Mi"}},
			Setup: func(ctx context.Context, e *Env) error {
				d := env(deployment("cloud-gateway", "registry.example/edge/cloud-gateway:3.1.4", 2, nil), "JAVA_OPTS", "-XX:+UseContainerSupport -XX:MaxRAMPercentage=50.0")
				limits(&d.Spec.Template, "500m", "512Mi")
				return steps(
					func() error { return e.createDeployment(ctx, d) },
					func() error {
						return e.createBackend(ctx, "config-server", "registry.example/edge/config-server:2.0.3", 8888, 8888)
					},
				)
			},
			Wait: func(ctx context.Context, e *Env) error {
				if e.State["upgraded"] == "" {
					if err := readyReplicas("cloud-gateway", 2)(ctx, e); err != nil {
						return err
					}
					if err := e.updateDeployment(ctx, "cloud-gateway", func(d *appsv1.Deployment) {
						c := &d.Spec.Template.Spec.Containers[0]
						c.Image = "registry.example/edge/cloud-gateway:3.2.0"
						c.Env = []corev1.EnvVar{{Name: "JAVA_OPTS", Value: "-XX:+UseContainerSupport -XX:MaxRAMPercentage=75.0"}}
						d.Spec.Template.Annotations = sim("oomkill")
					}); err != nil {
						return err
					}
					e.State["upgraded"] = "yes"
				}
				return anyPod("cloud-gateway", restartedWith("OOMKilled", 137))(ctx, e)
			},
		},
		{
			// The ledger's serving certificate (a kubernetes.io/tls Secret) expired three days
			// ago; payments stays Ready and parks every entry in its outbox.
			Name: "payments-ledger-serving-cert-expired", Covers: "a Ready payments service logs (JSON) 'x509: certificate has expired' calling https://ledger:8443; the ledger's serving certificate Secret really is expired",
			Source: srcCertExpiryMTLS, Class: ClassProvider, Hops: 3,
			Problem: "payments can't reach the ledger since 14:00",
			Target:  target("Deployment", "payments"),
			Want:    Want{Culprit: Ref{Kind: "Secret", Name: "ledger-tls"}, Terms: []string{"expired"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error { return e.createExpiredTLSSecret(ctx, "ledger-tls", "ledger."+e.Namespace+".svc") },
					func() error {
						d := deployment("ledger", "registry.example/finance/ledger:3.9.2", 2, nil)
						port(&d.Spec.Template, "https", 8443)
						mountSecret(&d.Spec.Template, "ledger-tls", "/etc/ledger/tls")
						return e.createDeployment(ctx, env(d, "TLS_CERT_FILE", "/etc/ledger/tls/tls.crt", "TLS_KEY_FILE", "/etc/ledger/tls/tls.key"))
					},
					func() error { return e.createServiceOn(ctx, "ledger", "ledger", 8443, intstr.FromString("https")) },
					func() error {
						return e.createDeployment(ctx, deployment("ledger-ui", "registry.example/finance/ledger-ui:1.4.0", 1, nil))
					},
					func() error {
						return e.createDeployment(ctx, env(deployment("payments", "registry.example/finance/payments:7.12.0", 2, running("w7b-payments-ledger-x509")),
							"LEDGER_URL", "https://ledger:8443", "LEDGER_CA_FILE", "/etc/ssl/certs/internal-ca.pem"))
					},
				)
			},
			Wait: all(readyReplicas("payments", 2), readyReplicas("ledger", 2)),
		},
		{
			// Prometheus still points at alertmanager-main after the chart migration; only the
			// operator's alertmanager-operated Service exists. Its notifier logs say so.
			Name: "prometheus-alertmanager-target-renamed", Covers: "a Ready Prometheus logs 'Error sending alert … lookup alertmanager-main … no such host'; prometheus.yml in a ConfigMap names a Service that does not exist (it is alertmanager-operated)",
			Source: srcRbAlertsToAnyAM, Class: ClassClue, Hops: 2,
			Problem: "Prometheus encounters more than 3% errors sending alerts to any Alertmanager.",
			Target:  target("StatefulSet", "prometheus-k8s"),
			Want:    Want{Culprit: Ref{Kind: "ConfigMap", Name: "prometheus-k8s-config"}, Terms: []string{"alertmanager-main"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						st := plainStatefulSet("alertmanager-main", "quay.io/prometheus/alertmanager:v0.27.0", 1, nil)
						st.Spec.ServiceName = "alertmanager-operated"
						port(&st.Spec.Template, "web", 9093)
						return e.createStatefulSet(ctx, st)
					},
					func() error { return e.createHeadless(ctx, "alertmanager-operated", "alertmanager-main", "web", 9093) },
					func() error {
						return e.createConfigMap(ctx, "prometheus-k8s-config", map[string]string{"prometheus.yml": "global:\n  scrape_interval: 30s\n  evaluation_interval: 30s\n" +
							"alerting:\n  alertmanagers:\n    - static_configs:\n        - targets: ['alertmanager-main:9093']\n" +
							"rule_files:\n  - /etc/prometheus/rules/*.yaml\nscrape_configs:\n  - job_name: kubelet\n    scheme: https\n    kubernetes_sd_configs:\n      - role: node\n"})
					},
					func() error {
						st := plainStatefulSet("prometheus-k8s", "quay.io/prometheus/prometheus:v2.53.1", 1, running("w7b-prometheus-alertmanager-dns"))
						st.Spec.ServiceName = "prometheus-operated"
						port(&st.Spec.Template, "web", 9090)
						mountConfigMap(&st.Spec.Template, "prometheus-k8s-config", "/etc/prometheus")
						return e.createStatefulSet(ctx, st)
					},
					func() error { return e.createHeadless(ctx, "prometheus-operated", "prometheus-k8s", "web", 9090) },
				)
			},
			Wait: all(anyPod("prometheus-k8s", runningReady), anyPod("alertmanager-main", runningReady)),
		},
		{
			// Remote write to Thanos Receive is refused: the receive Service's selector says
			// thanos-receiver, the pods are thanos-receive.
			Name: "remote-write-thanos-receive-selector", Covers: "a Ready Prometheus logs 'Failed to send batch … connection refused' to thanos-receive:19291; that Service's selector matches no pod",
			Source: srcRbRemoteStorage, Class: ClassProvider, Hops: 2,
			Problem: "Prometheus fails to send samples to remote storage.",
			Target:  target("Deployment", "prometheus"),
			Want:    Want{Culprit: Ref{Kind: "Service", Name: "thanos-receive"}, Terms: []string{"thanos-receive", "selector"}},
			Setup: func(ctx context.Context, e *Env) error {
				recv := map[string]string{"app.kubernetes.io/name": "thanos-receive", "app.kubernetes.io/instance": "thanos"}
				return steps(
					func() error {
						d := labelledDeployment("thanos-receive", "quay.io/thanos/thanos:v0.36.1", recv, nil)
						port(&d.Spec.Template, "remote-write", 19291)
						return e.createDeployment(ctx, d)
					},
					func() error {
						s := service("thanos-receive", map[string]string{"app.kubernetes.io/name": "thanos-receiver", "app.kubernetes.io/instance": "thanos"}, intstr.FromString("remote-write"))
						s.Spec.Ports[0].Name, s.Spec.Ports[0].Port = "remote-write", 19291
						return e.createService(ctx, s)
					},
					func() error {
						return e.createConfigMap(ctx, "prometheus-config", map[string]string{"prometheus.yml": "global:\n  scrape_interval: 30s\n  external_labels:\n    cluster: prod-eu-1\n" +
							"remote_write:\n  - url: http://thanos-receive:19291/api/v1/receive\n    queue_config:\n      max_shards: 10\n"})
					},
					func() error {
						d := labelledDeployment("prometheus", "quay.io/prometheus/prometheus:v2.53.1", map[string]string{"app.kubernetes.io/name": "prometheus"}, running("w7b-prometheus-remote-write-refused"))
						port(&d.Spec.Template, "web", 9090)
						mountConfigMap(&d.Spec.Template, "prometheus-config", "/etc/prometheus")
						return e.createDeployment(ctx, d)
					},
				)
			},
			Wait: all(podsWith(map[string]string{"app.kubernetes.io/name": "prometheus"}, runningReady), podsWith(map[string]string{"app.kubernetes.io/name": "thanos-receive"}, runningReady)),
		},
	}
}
