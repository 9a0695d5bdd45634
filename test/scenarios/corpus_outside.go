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
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
)

// Class 6: questions outside the failure catalogue (RBAC), Running and Ready workloads whose
// logs repeat an error, and objects configured not to run. Class 0 extras at the end.

const (
	srcDeployment     = "k8s-docs/concepts/workloads/controllers/deployment.md"
	srcDaemonSet      = "k8s-docs/concepts/workloads/controllers/daemonset.md"
	srcDSNotScheduled = "runbooks/kubernetes/KubeDaemonSetNotScheduled.md"
	srcStsUpdate      = "runbooks/kubernetes/KubeStatefulSetUpdateNotRolledOut.md"
	srcImages         = "k8s-docs/concepts/containers/images.md"
)

func outsideScenarios() []*Scenario {
	return []*Scenario{
		{
			Name: "rbac-role-lacks-list", Covers: "RBAC question: the bound Role grants get and watch on pods, not list",
			Source: srcServiceAccount, Class: ClassOutside, Hops: 2,
			Problem: "why can't the reporter service account list pods?", Target: target("ServiceAccount", "reporter"),
			Want: Want{Culprit: Ref{Kind: "Role", Name: "pod-reader"}, Terms: []string{"pod-reader", "list"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error { return e.createServiceAccount(ctx, "reporter") },
					func() error {
						return e.createRole(ctx, "pod-reader", rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"pods"}, Verbs: []string{"get", "watch"}})
					},
					func() error { return e.createRoleBinding(ctx, "reporter-pod-reader", "Role", "pod-reader", "reporter") },
				)
			},
		},
		{
			Name: "rbac-binding-subject-typo", Covers: "RBAC question: the RoleBinding's subject names ci-deployer, the account is ci-deploy",
			Source: srcServiceAccount, Class: ClassOutside, Hops: 1,
			Problem: "the ci-deploy service account gets forbidden when it updates deployments", Target: target("ServiceAccount", "ci-deploy"),
			Want: Want{Culprit: Ref{Kind: "RoleBinding", Name: "deployer"}, Terms: []string{"ci-deployer"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error { return e.createServiceAccount(ctx, "ci-deploy") },
					func() error {
						return e.createRole(ctx, "deployer", rbacv1.PolicyRule{APIGroups: []string{"apps"}, Resources: []string{"deployments"}, Verbs: []string{"get", "list", "update", "patch"}})
					},
					func() error { return e.createRoleBinding(ctx, "deployer", "Role", "deployer", "ci-deployer") },
				)
			},
		},
		{
			Name: "rbac-role-wrong-api-group", Covers: "RBAC question: the Role grants deployments in the core API group instead of apps",
			Source: srcServiceAccount, Class: ClassOutside, Hops: 2,
			Problem: "argo-sync cannot patch deployments: forbidden", Target: target("ServiceAccount", "argo-sync"),
			Want: Want{Culprit: Ref{Kind: "Role", Name: "deploy-manager"}, Terms: []string{"deploy-manager", "apps"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error { return e.createServiceAccount(ctx, "argo-sync") },
					func() error {
						return e.createRole(ctx, "deploy-manager", rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"deployments"}, Verbs: []string{"get", "list", "patch", "update"}})
					},
					func() error {
						return e.createRoleBinding(ctx, "argo-sync-deploy-manager", "Role", "deploy-manager", "argo-sync")
					},
				)
			},
		},
		{
			Name: "controller-forbidden-in-logs", Covers: "a Running controller whose log repeats 'configmaps is forbidden … cannot list'; its Role grants only get",
			Source: srcRunningPod, Class: ClassOutside, Hops: 2,
			Problem: "config-controller does not pick up changes", Target: target("Deployment", "config-controller"),
			Want: Want{Culprit: Ref{Kind: "Role", Name: "config-reader"}, Terms: []string{"configmaps", "list"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error { return e.createServiceAccount(ctx, "config-controller") },
					func() error {
						return e.createRole(ctx, "config-reader", rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"get"}})
					},
					func() error {
						return e.createRoleBinding(ctx, "config-controller-reader", "Role", "config-reader", "config-controller")
					},
					func() error {
						d := deployment("config-controller", "example/config-controller:0.8", 1, running("controller-forbidden"))
						d.Spec.Template.Spec.ServiceAccountName = "config-controller"
						return e.createDeployment(ctx, d)
					},
				)
			},
			Wait: anyPod("config-controller", runningReady),
		},
		{
			Name: "events-publisher-no-brokers", Covers: "a Running, Ready publisher whose log repeats 'run out of available brokers'",
			Source: srcRunningPod, Class: ClassOutside,
			Problem: "no order events have arrived downstream for an hour", Target: target("Deployment", "events-publisher"),
			Want: Want{Culprit: Ref{Kind: "Deployment", Name: "events-publisher"}, Terms: []string{"brokers"}},
			Setup: func(ctx context.Context, e *Env) error {
				return e.createDeployment(ctx, env(deployment("events-publisher", "example/events-publisher:1.5", 1, running("publisher-no-brokers")),
					"KAFKA_BROKERS", "kafka-0.kafka.streaming.svc:9092"))
			},
			Wait: anyPod("events-publisher", runningReady),
		},
		{
			Name: "media-sync-s3-access-denied", Covers: "a Running worker whose log repeats S3 AccessDenied (403)",
			Source: srcRunningPod, Class: ClassOutside,
			Problem: "new product images don't show up", Target: target("Deployment", "media-sync"),
			Want: Want{Culprit: Ref{Kind: "Deployment", Name: "media-sync"}, Terms: []string{"AccessDenied"}},
			Setup: func(ctx context.Context, e *Env) error {
				return e.createDeployment(ctx, deployment("media-sync", "example/media-sync:3.2", 1, running("s3-access-denied")))
			},
			Wait: anyPod("media-sync", runningReady),
		},
		{
			Name: "payments-sync-rate-limited", Covers: "a Running worker whose log repeats 429 Too Many Requests from its upstream",
			Source: srcLogging, Class: ClassOutside,
			Problem: "payment statuses are hours behind", Target: target("Deployment", "payments-sync"),
			Want: Want{Culprit: Ref{Kind: "Deployment", Name: "payments-sync"}, Terms: []string{"429"}},
			Setup: func(ctx context.Context, e *Env) error {
				return e.createDeployment(ctx, deployment("payments-sync", "example/payments-sync:1.1", 1, running("payments-429")))
			},
			Wait: anyPod("payments-sync", runningReady),
		},
		{
			Name: "storefront-rollout-paused", Covers: "a new image never rolls out: the Deployment is paused",
			Source: srcDeployment, Class: ClassOutside,
			Problem: "the new storefront version never rolls out", Target: target("Deployment", "storefront"),
			Want: Want{Culprit: Ref{Kind: "Deployment", Name: "storefront"}, Terms: []string{"paused"}},
			Setup: func(ctx context.Context, e *Env) error {
				return e.createDeployment(ctx, deployment("storefront", "example/storefront:9.1", 2, nil))
			},
			Wait: func(ctx context.Context, e *Env) error {
				if e.State["paused"] != "" {
					return nil
				}
				d, err := e.Client.AppsV1().Deployments(e.Namespace).Get(ctx, "storefront", metav1.GetOptions{})
				if err != nil {
					return err
				}
				if d.Status.AvailableReplicas < 2 {
					return errors.New("9.1 not available yet")
				}
				d.Spec.Paused = true
				d.Spec.Template.Spec.Containers[0].Image = "example/storefront:9.2"
				if _, err := e.Client.AppsV1().Deployments(e.Namespace).Update(ctx, d, metav1.UpdateOptions{}); err != nil {
					return err
				}
				e.State["paused"] = "yes"
				return nil
			},
		},
		{
			Name: "zk-partition-holds-update", Covers: "StatefulSet pods keep the old image: rollingUpdate.partition equals the replica count",
			Source: srcStsUpdate, Class: ClassOutside,
			Problem: "zk pods still run the old image after the upgrade", Target: target("StatefulSet", "zk"),
			Want: Want{Culprit: Ref{Kind: "StatefulSet", Name: "zk"}, Terms: []string{"partition"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error { return e.createService(ctx, headless("zk")) },
					func() error {
						s := plainStatefulSet("zk", "zookeeper:3.8", 2, nil)
						s.Spec.UpdateStrategy = appsv1.StatefulSetUpdateStrategy{Type: appsv1.RollingUpdateStatefulSetStrategyType,
							RollingUpdate: &appsv1.RollingUpdateStatefulSetStrategy{Partition: ptr.To[int32](2)}}
						_, err := e.Client.AppsV1().StatefulSets(e.Namespace).Create(ctx, s, metav1.CreateOptions{})
						return wrap("StatefulSet", "zk", err)
					},
				)
			},
			Wait: func(ctx context.Context, e *Env) error {
				s, err := e.Client.AppsV1().StatefulSets(e.Namespace).Get(ctx, "zk", metav1.GetOptions{})
				if err != nil {
					return err
				}
				if e.State["updated"] == "" {
					if s.Status.ReadyReplicas < 2 {
						return errors.New("zk not ready yet")
					}
					s.Spec.Template.Spec.Containers[0].Image = "zookeeper:3.9"
					if _, err := e.Client.AppsV1().StatefulSets(e.Namespace).Update(ctx, s, metav1.UpdateOptions{}); err != nil {
						return err
					}
					e.State["updated"] = "yes"
					return errors.New("update sent")
				}
				if s.Status.UpdateRevision == s.Status.CurrentRevision {
					return errors.New("no new revision yet")
				}
				return nil
			},
		},
		{
			Name: "gpu-plugin-daemonset-no-nodes", Covers: "a DaemonSet runs on no node: its nodeSelector matches none",
			Source: srcDSNotScheduled, Class: ClassOutside,
			Problem: "the GPU device plugin isn't running anywhere", Target: target("DaemonSet", "gpu-device-plugin"),
			Want: Want{Culprit: Ref{Kind: "DaemonSet", Name: "gpu-device-plugin"}, Terms: []string{"accelerator"}},
			Setup: func(ctx context.Context, e *Env) error {
				return e.createDaemonSet(ctx, "gpu-device-plugin", "nvcr.io/nvidia/k8s-device-plugin:v0.15.0", nil, func(t *corev1.PodTemplateSpec) {
					t.Spec.NodeSelector = map[string]string{"accelerator": "nvidia-a100"}
				})
			},
		},
		{
			Name: "backfill-job-suspended", Covers: "a Job never starts: it was created suspended",
			Source: srcJob, Class: ClassOutside,
			Problem: "the backfill job never started", Target: target("Job", "backfill"),
			Want: Want{Culprit: Ref{Kind: "Job", Name: "backfill"}, Terms: []string{"suspend"}},
			Setup: func(ctx context.Context, e *Env) error {
				j := job("backfill", 2, nil)
				j.Spec.Suspend = ptr.To(true)
				_, err := e.Client.BatchV1().Jobs(e.Namespace).Create(ctx, j, metav1.CreateOptions{})
				return wrap("Job", j.Name, err)
			},
		},
		{
			Name: "billing-client-unknown-authority", Covers: "a Running client whose log repeats 'x509: certificate signed by unknown authority'",
			Source: srcRunningPod, Class: ClassOutside,
			Problem: "invoices are not synced to the ledger", Target: target("Deployment", "ledger-sync"),
			Want: Want{Culprit: Ref{Kind: "Deployment", Name: "ledger-sync"}, Terms: []string{"x509", "unknown authority"}},
			Setup: func(ctx context.Context, e *Env) error {
				return e.createDeployment(ctx, env(deployment("ledger-sync", "example/ledger-sync:2.0", 1, running("ledger-x509")), "LEDGER_URL", "https://ledger.internal.example:8443"))
			},
			Wait: anyPod("ledger-sync", runningReady),
		},
		{
			Name: "rbac-clusterrole-missing", Covers: "RBAC question: the RoleBinding refers to a ClusterRole that does not exist",
			Source: srcServiceAccount, Class: ClassOutside, Hops: 2,
			Problem: "why can't vault-agent read secrets in this namespace?", Target: target("ServiceAccount", "vault-agent"),
			Want: Want{Culprit: Ref{Kind: "ClusterRole", Name: "secret-reader", Cluster: true}, Also: []Ref{{Kind: "RoleBinding", Name: "vault-agent-secrets"}}, Terms: []string{"{ns}-secret-reader"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error { return e.createServiceAccount(ctx, "vault-agent") },
					func() error {
						return e.createRoleBinding(ctx, "vault-agent-secrets", "ClusterRole", e.ClusterName("secret-reader"), "vault-agent")
					},
				)
			},
		},
		{
			Name: "api-scaled-to-zero-by-mistake", Covers: "a Service has no endpoints because its Deployment was scaled to 0",
			Source: srcDeployMismatch, Class: ClassOutside, Hops: 1,
			Problem: "api.internal has no backends", Target: target("Service", "api"),
			Want: Want{Culprit: Ref{Kind: "Deployment", Name: "api"}, Terms: []string{"replicas"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error { return e.createDeployment(ctx, deployment("api", "example/api:3.1", 0, nil)) },
					func() error { return e.createServiceOn(ctx, "api", "api", 80, intstr.FromString("http")) },
				)
			},
		},
		{
			Name: "rbac-secret-resource-names", Covers: "RBAC question: the Role limits get on secrets to resourceNames that do not include the one asked for",
			Source: srcSecret, Class: ClassOutside, Hops: 2,
			Problem: "payments-worker gets forbidden reading the stripe-keys secret", Target: target("ServiceAccount", "payments-worker"),
			Want: Want{Culprit: Ref{Kind: "Role", Name: "payments-secrets"}, Terms: []string{"payments-secrets", "stripe-keys"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error { return e.createServiceAccount(ctx, "payments-worker") },
					func() error { return e.createSecret(ctx, "stripe-keys", map[string]string{"api-key": "x"}) },
					func() error {
						return e.createRole(ctx, "payments-secrets", rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"secrets"}, Verbs: []string{"get"}, ResourceNames: []string{"payments-db", "stripe-key"}})
					},
					func() error {
						return e.createRoleBinding(ctx, "payments-worker-secrets", "Role", "payments-secrets", "payments-worker")
					},
				)
			},
		},
		{
			Name: "checkpoint-disk-full-running", Covers: "a Running stream processor whose log repeats 'no space left on device' writing checkpoints",
			Source: "runbooks/kubernetes/KubePersistentVolumeFillingUp.md", Class: ClassOutside,
			Problem: "clickstream aggregates stopped updating", Target: target("Deployment", "clickstream"),
			Want: Want{Culprit: Ref{Kind: "Deployment", Name: "clickstream"}, Terms: []string{"no space left on device"}},
			Setup: func(ctx context.Context, e *Env) error {
				return e.createDeployment(ctx, deployment("clickstream", "example/clickstream:4.4", 1, running("checkpoint-disk-full")))
			},
			Wait: anyPod("clickstream", runningReady),
		},
		{
			Name: "orders-db-too-many-clients", Covers: "a Running API whose log repeats 'sorry, too many clients already' from postgres",
			Source: srcRunningPod, Class: ClassOutside,
			Problem: "orders API is slow and some requests fail", Target: target("Deployment", "orders-api"),
			Want: Want{Culprit: Ref{Kind: "Deployment", Name: "orders-api"}, Terms: []string{"too many clients"}},
			Setup: func(ctx context.Context, e *Env) error {
				return e.createDeployment(ctx, env(deployment("orders-api", "example/orders-api:5.0", 2, running("orders-too-many-clients")), "DB_POOL_SIZE", "50"))
			},
			Wait: anyPod("orders-api", runningReady),
		},
		// Class 0: one object, one catalogue rule, from the outside sources.
		{
			Name: "mongo-image-tag-typo", Covers: "StatefulSet pod in ImagePullBackOff: the tag does not exist",
			Source: srcImages, Class: ClassSingle,
			Problem: "mongo-0 is not running", Target: target("StatefulSet", "mongo"),
			Want: Want{Culprit: Ref{Kind: "StatefulSet", Name: "mongo"}, Terms: []string{"mongo:7.0.99-does-not-exist"}},
			Setup: func(ctx context.Context, e *Env) error {
				_, err := e.Client.AppsV1().StatefulSets(e.Namespace).Create(ctx, plainStatefulSet("mongo", "mongo:7.0.99-does-not-exist", 1, nil), metav1.CreateOptions{})
				return wrap("StatefulSet", "mongo", err)
			},
			Wait: anyPod("mongo", waiting("ErrImagePull", "ImagePullBackOff")),
		},
		{
			Name: "oneshot-script-in-deployment", Covers: "CrashLoopBackOff with reason Completed: a run-once script deployed as a Deployment exits 0",
			Source: srcPodFailure, Class: ClassSingle,
			Problem: "seed-data keeps restarting even though it says it succeeded", Target: target("Deployment", "seed-data"),
			Want: Want{Culprit: Ref{Kind: "Deployment", Name: "seed-data"}, Terms: []string{"Completed"}},
			Setup: func(ctx context.Context, e *Env) error {
				return e.createDeployment(ctx, deployment("seed-data", "example/seed-data:1.0", 1, sim("complete", annLogs, "seed-complete")))
			},
			Wait: anyPod("seed-data", func(p *corev1.Pod) error {
				for _, cs := range p.Status.ContainerStatuses {
					if t := cs.LastTerminationState.Terminated; t != nil && t.Reason == "Completed" && cs.RestartCount >= 2 {
						return nil
					}
				}
				return fmt.Errorf("not restarted twice after Completed")
			}),
		},
		{
			Name: "node-agent-daemonset-crash", Covers: "DaemonSet pods crash-loop: the host path the agent reads is not mounted",
			Source: "runbooks/kubernetes/KubeDaemonSetRolloutStuck.md", Class: ClassSingle,
			Problem: "node-agent is crash looping on every node", Target: target("DaemonSet", "node-agent"),
			Want: Want{Culprit: Ref{Kind: "DaemonSet", Name: "node-agent"}, Terms: []string{"/host/proc"}},
			Setup: func(ctx context.Context, e *Env) error {
				return e.createDaemonSet(ctx, "node-agent", "example/node-agent:0.12", crash("1",
					"open /host/proc/1/ns/net: no such file or directory", "node-agent-hostproc"), nil)
			},
			Wait: anyPod("node-agent", crashLooping(3)),
		},
	}
}
