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
	"errors"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
)

// A second batch of independently written scenarios: configuration files and mounts, a
// probe aimed at the wrong port, and a quota that refuses pods behind an Ingress.

const (
	srcIndSecret      = "k8s-docs/concepts/configuration/secret.md"
	srcIndConfigMap   = "k8s-docs/concepts/configuration/configmap.md"
	srcIndDNS         = "k8s-docs/tasks/administer-cluster/dns-debugging-resolution.md"
	srcIndDeployment  = "k8s-docs/concepts/workloads/controllers/deployment.md"
	srcIndStatefulSet = "k8s-docs/concepts/workloads/controllers/statefulset.md"
)

func independentMoreScenarios() []*Scenario {
	return []*Scenario{
		{
			Name: "mailer-secret-items-key-renamed", Covers: "mailer pods stay in ContainerCreating: their Secret volume projects a key (items) the Secret no longer has",
			Source: srcIndSecret, Class: ClassReference, Hops: 1,
			Problem: "mailer pods are stuck in ContainerCreating",
			Want:    Want{Culprit: Ref{Kind: "Secret", Name: "smtp-creds"}, Terms: []string{"password"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						return e.createSecret(ctx, "smtp-creds", map[string]string{"username": "mailer", "smtp-password": "hunter2-rotated"})
					},
					func() error {
						d := deployment("mailer", "registry.example/comms/mailer:3.0.1", 1, sim("mount-fail", annMessage,
							`MountVolume.SetUp failed for volume "smtp" : references non-existent secret key: password`))
						d.Spec.Template.Spec.Volumes = []corev1.Volume{{Name: "smtp", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{
							SecretName: "smtp-creds", Items: []corev1.KeyToPath{{Key: "username", Path: "user"}, {Key: "password", Path: "pass"}}}}}}
						d.Spec.Template.Spec.Containers[0].VolumeMounts = []corev1.VolumeMount{{Name: "smtp", MountPath: "/var/run/smtp", ReadOnly: true}}
						return e.createDeployment(ctx, d)
					},
					// Noise: the digest CronJob is suspended during the migration.
					func() error { return e.createCronJob(ctx, "mail-digest", "30 5 * * *", true, nil) },
				)
			},
			Wait: podEvent("FailedMount", "non-existent secret key"),
		},
		{
			Name: "nginx-subpath-conf-key-renamed", Covers: "the web proxy cannot start: its subPath mount names a ConfigMap key that was renamed; the Ingress in front of it has no endpoints",
			Source: srcIndConfigMap, Class: ClassReference, Hops: 2,
			Problem: "www returns 503 since the config cleanup",
			Want:    Want{Culprit: Ref{Kind: "ConfigMap", Name: "proxy-conf"}, Terms: []string{"default.conf"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						return e.createConfigMap(ctx, "proxy-conf", map[string]string{"site.conf": "server { listen 8080; location / { proxy_pass http://app:8080; } }"})
					},
					func() error { return e.createBackend(ctx, "app", "registry.example/web/app:9.9.0", 8080, 8080) },
					func() error {
						d := deployment("proxy", "nginx:1.27", 2, sim("create-config-error", annMessage, `failed to prepare subPath for volumeMount "conf" of container "app"`))
						d.Spec.Template.Spec.Volumes = []corev1.Volume{{Name: "conf", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
							LocalObjectReference: corev1.LocalObjectReference{Name: "proxy-conf"}}}}}
						d.Spec.Template.Spec.Containers[0].VolumeMounts = []corev1.VolumeMount{{Name: "conf", MountPath: "/etc/nginx/conf.d/default.conf", SubPath: "default.conf"}}
						return e.createDeployment(ctx, d)
					},
					func() error { return e.createServiceOn(ctx, "proxy", "proxy", 80, intstr.FromString("http")) },
					func() error { return e.createIngress(ctx, ingress("www", "proxy", 80)) },
				)
			},
			Wait: anyPod("proxy", waiting("CreateContainerConfigError")),
		},
		{
			Name: "backend-readiness-probe-wrong-port", Covers: "frontend is not ready because backend never becomes ready: backend's readiness probe checks port 8081 while it serves 8080",
			Source: srcProbes, Class: ClassRanking, Hops: 2,
			Problem: "frontend is not ready", Target: target("Deployment", "frontend"),
			Want: Want{Culprit: Ref{Kind: "Deployment", Name: "backend"}, Terms: []string{"8081"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						d := deployment("backend", "registry.example/web/backend:2.8.0", 2, sim("readiness-fail", annMessage,
							`Readiness probe failed: Get "http://10.244.1.5:8081/ready": dial tcp 10.244.1.5:8081: connect: connection refused`))
						p := httpProbe("/ready")
						p.HTTPGet.Port = intstr.FromInt(8081)
						d.Spec.Template.Spec.Containers[0].ReadinessProbe = p
						return e.createDeployment(ctx, d)
					},
					func() error { return e.createServiceOn(ctx, "backend", "backend", 80, intstr.FromString("http")) },
					func() error {
						d := deployment("frontend", "registry.example/web/frontend:7.2.0", 1, readinessFail("readiness-fail"))
						d.Spec.Template.Spec.Containers[0].ReadinessProbe = httpProbe("/ready")
						return e.createDeployment(ctx, env(d, "BACKEND_URL", "http://backend"))
					},
				)
			},
			Wait: all(anyPod("backend", runningNotReady), anyPod("frontend", runningNotReady), podEvent("Unhealthy", "8081")),
		},
		{
			Name: "notifier-config-json-malformed", Covers: "notifier crash-loops on a parse error in the config file its ConfigMap provides",
			Source: srcIndConfigMap, Class: ClassClue, Hops: 1,
			Problem: "no notifications are sent", Target: target("Deployment", "notifier"),
			Want: Want{Culprit: Ref{Kind: "ConfigMap", Name: "notifier-config"}, Terms: []string{"config.json"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error { return e.createBackend(ctx, "mail", "registry.example/comms/postfix:3.8", 25, 25) },
					func() error {
						return e.createConfigMap(ctx, "notifier-config", map[string]string{"config.json": `{"smtp": {"host": "mail", "port": 25,}, "from": "noreply@example.com"}`})
					},
					func() error {
						d := deployment("notifier", "registry.example/comms/notifier:1.4.0", 1, crash("1",
							"load config: parse /etc/notifier/config.json: invalid character '}' looking for beginning of object key string", "notifier-config"))
						mountConfigMap(&d.Spec.Template, "notifier-config", "/etc/notifier")
						return e.createDeployment(ctx, d)
					},
				)
			},
			Wait: anyPod("notifier", crashLooping(3)),
		},
		{
			Name: "worker-dns-egress-tcp-only", Covers: "ingest workers crash on DNS timeouts: their egress policy admits port 53 to kube-system over TCP only, and lookups go over UDP",
			Source: srcIndDNS, Class: ClassProvider, Hops: 2,
			Problem: "ingest workers crash with DNS timeouts",
			Want:    Want{Culprit: Ref{Kind: "NetworkPolicy", Name: "ingest-worker-egress"}, Terms: []string{"UDP"}},
			Setup: func(ctx context.Context, e *Env) error {
				worker := map[string]string{"app.kubernetes.io/name": "ingest-worker"}
				return steps(
					func() error { return e.createBackend(ctx, "queue", "rabbitmq:3.13", 5672, 5672) },
					func() error {
						d := labelledDeployment("ingest-worker", "registry.example/data/ingest-worker:6.0.2", worker, crash("1",
							"dial tcp: lookup queue on 10.96.0.10:53: read udp 10.244.1.9:45871->10.96.0.10:53: i/o timeout", "ingest-worker-dns"))
						return e.createDeployment(ctx, env(d, "QUEUE_ADDR", "queue:5672"))
					},
					func() error {
						return e.createNetworkPolicy(ctx, &networkingv1.NetworkPolicy{
							ObjectMeta: metav1.ObjectMeta{Name: "ingest-worker-egress"},
							Spec: networkingv1.NetworkPolicySpec{
								PodSelector: metav1.LabelSelector{MatchLabels: worker},
								PolicyTypes: []networkingv1.PolicyType{networkingv1.PolicyTypeEgress},
								Egress: []networkingv1.NetworkPolicyEgressRule{
									{To: []networkingv1.NetworkPolicyPeer{{PodSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "queue"}}}},
										Ports: []networkingv1.NetworkPolicyPort{{Port: ptr.To(intstr.FromInt(5672))}}},
									{To: []networkingv1.NetworkPolicyPeer{{NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"kubernetes.io/metadata.name": "kube-system"}}}},
										Ports: []networkingv1.NetworkPolicyPort{{Protocol: ptr.To(corev1.ProtocolTCP), Port: ptr.To(intstr.FromInt(53))}}},
								},
							},
						})
					},
				)
			},
			Wait: podsWith(map[string]string{"app.kubernetes.io/name": "ingest-worker"}, crashLooping(3)),
		},
		{
			Name: "checkout-rollout-left-paused", Covers: "a new checkout version never rolls out: the Deployment was paused during an earlier change and never resumed",
			Source: srcIndDeployment, Class: ClassOutside, Hops: 0,
			Problem: "checkout still serves 1.4 although we deployed 1.5",
			Want:    Want{Culprit: Ref{Kind: "Deployment", Name: "checkout"}, Terms: []string{"paused"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						return e.createDeployment(ctx, deployment("checkout", "registry.example/shop/checkout:1.4.0", 2, nil))
					},
					func() error { return e.createServiceOn(ctx, "checkout", "checkout", 80, intstr.FromString("http")) },
					// Noise: a cleanup CronJob someone suspended, and a PDB on checkout.
					func() error { return e.createCronJob(ctx, "cart-cleanup", "0 3 * * *", true, nil) },
					func() error { return e.createPDB(ctx, "checkout", 2, map[string]string{"app": "checkout"}) },
				)
			},
			Wait: func(ctx context.Context, e *Env) error {
				d, err := e.Client.AppsV1().Deployments(e.Namespace).Get(ctx, "checkout", metav1.GetOptions{})
				if err != nil {
					return err
				}
				if e.State["paused"] == "" {
					if d.Status.AvailableReplicas < 2 {
						return errors.New("1.4 not available yet")
					}
					d.Spec.Paused = true
					d.Spec.Template.Spec.Containers[0].Image = "registry.example/shop/checkout:1.5.0"
					if _, err := e.Client.AppsV1().Deployments(e.Namespace).Update(ctx, d, metav1.UpdateOptions{}); err != nil {
						return err
					}
					e.State["paused"] = "yes"
					return errors.New("paused with 1.5 in the template")
				}
				if d.Status.ObservedGeneration < d.Generation {
					return errors.New("the controller has not seen the paused template yet")
				}
				return nil
			},
		},
		{
			Name: "ledger-replica-dns-ordinal-out-of-range", Covers: "ledger-reader crash-loops on a replica host that does not resolve: its ConfigMap names ordinal 2 of a StatefulSet that runs 2 replicas (0 and 1)",
			Source: srcIndStatefulSet, Class: ClassClue, Hops: 2,
			Problem: "ledger-reader keeps crashing", Target: target("Deployment", "ledger-reader"),
			Want: Want{Culprit: Ref{Kind: "ConfigMap", Name: "ledger-reader-config"}, Terms: []string{"ledger-db-2"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						st := plainStatefulSet("ledger-db", "postgres:16.2", 2, nil)
						return e.createStatefulSet(ctx, st)
					},
					func() error { return e.createService(ctx, headless("ledger-db")) },
					func() error {
						return e.createConfigMap(ctx, "ledger-reader-config", map[string]string{
							"PRIMARY_HOST": "ledger-db-0.ledger-db", "REPLICA_HOST": "ledger-db-2.ledger-db", "POOL": "8"})
					},
					func() error {
						d := deployment("ledger-reader", "registry.example/fin/ledger-reader:2.0.0", 1, crash("1",
							"replica pool: dial tcp: lookup ledger-db-2.ledger-db on 10.96.0.10:53: no such host", "ledger-reader-dns"))
						envFromConfigMap(&d.Spec.Template, "ledger-reader-config")
						return e.createDeployment(ctx, d)
					},
				)
			},
			Wait: all(anyPod("ledger-db", runningReady), anyPod("ledger-reader", crashLooping(3))),
		},
		{
			Name: "search-ingress-quota-needs-limits", Covers: "an Ingress answers 503: its Service has no endpoints because a ResourceQuota on limits refuses the search pods, which set none",
			Source: srcQuotaFullyUsed, Class: ClassRanking, Hops: 3,
			Problem: "search.example.com returns 503",
			Want:    Want{Culprit: Ref{Kind: "ResourceQuota", Name: "compute-guard"}, Terms: []string{"compute-guard"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						return e.createQuota(ctx, "compute-guard", corev1.ResourceList{corev1.ResourceLimitsCPU: resource.MustParse("4"), corev1.ResourceLimitsMemory: resource.MustParse("8Gi")})
					},
					func() error {
						return e.createDeployment(ctx, deployment("search", "registry.example/search/api:5.1.0", 2, nil))
					},
					func() error { return e.createServiceOn(ctx, "search", "search", 80, intstr.FromString("http")) },
					func() error { return e.createIngress(ctx, ingress("search", "search", 80)) },
				)
			},
			Wait: deploymentCondition("search", appsv1.DeploymentReplicaFailure, "FailedCreate"),
		},
	}
}
