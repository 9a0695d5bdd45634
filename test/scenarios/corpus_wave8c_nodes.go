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
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// Wave 8c, third file: failures between the objects controllers own. Nothing crashes and no
// log says why; the cause is a node's spec or status, a budget's numbers, a finalizer, an
// autoscaler's reference, or what else runs on a node.

func wave8cControllerScenarios() []*Scenario {
	return append(wave8cNodeScenarios(), wave8cOwnerScenarios()...)
}

func wave8cNodeScenarios() []*Scenario {
	render := w8cLabels("app", "render-worker", "team", "media", "tier", "batch")
	return []*Scenario{
		{
			// The render pool's node was cordoned for a kernel patch and never uncordoned:
			// running pods stay, but the 3.4 rollout's new pod has nowhere to go.
			Name: "render-pool-node-left-cordoned", Covers: "a render-worker rollout is stuck with a new pod Pending ('1 node(s) were unschedulable', the rest do not match node-pool=render); the pool's only node was cordoned for maintenance and never uncordoned",
			Source: w8cSrcNodes, Class: ClassRanking, Hops: 2,
			Problem: "the render-worker 3.4.0 rollout has been stuck for an hour, one new pod never starts",
			Target:  target("Deployment", "render-worker"),
			Want:    Want{Culprit: Ref{Kind: "Node", Name: "render-1", Cluster: true}, Terms: []string{"cordon"}},
			Setup: func(ctx context.Context, e *Env) error {
				api := w8cLabels("app", "render-api", "team", "media", "tier", "web")
				return steps(
					func() error {
						_, err := e.w8cNodeWithPool(ctx, "render-1", false, "node-pool", "render")
						return err
					},
					func() error {
						d := w8bDeployment("render-worker", "registry.example/media/render-worker:3.3.2", 2, render, nil, "metrics", 9100)
						e.w8cOnPool(&d.Spec.Template, "node-pool", "render")
						w8cRequests(&d.Spec.Template, "1", "2Gi", "", "4Gi")
						return e.createDeployment(ctx, d)
					},
					func() error {
						if err := e.createDeployment(ctx, w8bDeployment("render-api", "registry.example/media/render-api:3.3.2", 2, api, nil, "http", 8080)); err != nil {
							return err
						}
						return e.createService(ctx, w8bService("render-api", api, "http", 80))
					},
				)
			},
			Wait: func(ctx context.Context, e *Env) error {
				if e.State["cordoned"] == "" {
					if err := readyReplicas("render-worker", 2)(ctx, e); err != nil {
						return err
					}
					if err := e.w8cSetNodeUnschedulable(ctx, e.ClusterName("render-1"), true); err != nil {
						return err
					}
					e.State["cordoned"] = "yes"
				}
				if e.State["rolled"] == "" {
					if err := e.updateDeployment(ctx, "render-worker", func(d *appsv1.Deployment) {
						d.Spec.Template.Spec.Containers[0].Image = "registry.example/media/render-worker:3.4.0"
					}); err != nil {
						return err
					}
					e.State["rolled"] = "yes"
				}
				return podsWith(render, unschedulable("unschedulable"))(ctx, e)
			},
		},
		{
			// The node went away; the pods tolerate its loss for 15 s, so the taint manager
			// deletes the one there, but nothing confirms the deletion: it stays Terminating
			// and the StatefulSet will not start another pod with its name.
			Name: "rabbitmq-pod-stuck-terminating-lost-node", Covers: "rabbitmq has 2 of 3 ready replicas and no replacement appears: one pod is Terminating for good on node mq-c, which stopped reporting (Ready Unknown); a StatefulSet never recreates a pod whose deletion the kubelet has not confirmed",
			Source: w8cSrcForceDeleteSTS, Class: ClassRanking, Hops: 2, Slow: true,
			Problem: "rabbitmq has been running on two nodes for 20 minutes, one pod says Terminating and the StatefulSet does not bring up a new one",
			Target:  target("StatefulSet", "rabbitmq"),
			Want:    Want{Culprit: Ref{Kind: "Node", Name: "mq-c", Cluster: true}, Terms: []string{"Terminating"}},
			Setup: func(ctx context.Context, e *Env) error {
				mq := w8cLabels("app.kubernetes.io/name", "rabbitmq", "app.kubernetes.io/instance", "orders-mq")
				worker := w8cLabels("app.kubernetes.io/name", "order-worker", "app.kubernetes.io/instance", "orders")
				return steps(
					func() error {
						_, err := e.w8cNodeWithPool(ctx, "mq-a", false, "node-pool", "mq")
						return err
					},
					func() error {
						_, err := e.w8cNodeWithPool(ctx, "mq-b", false, "node-pool", "mq")
						return err
					},
					func() error {
						n, err := e.startSimNode(ctx, nodeSpec{name: "mq-c"})
						if err != nil {
							return err
						}
						return e.labelScenarioNode(ctx, n.Name, w8cLabels("node-pool", "mq"))
					},
					func() error {
						st := w8bStatefulSet("rabbitmq", "docker.io/bitnami/rabbitmq:3.13.7", "rabbitmq-headless", 3, mq, nil, "amqp", 5672)
						t := &st.Spec.Template
						e.w8cOnPool(t, "node-pool", "mq")
						w8cTolerateLoss(t, 15)
						t.Spec.TerminationGracePeriodSeconds = ptr.To[int64](120)
						t.Spec.Affinity = &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{
							LabelSelector: &metav1.LabelSelector{MatchLabels: mq}, TopologyKey: "kubernetes.io/hostname"}}}}
						w8bEnv(t, "RABBITMQ_CLUSTER_NODE_NAME", "rabbit@$(MY_POD_NAME).rabbitmq-headless", "K8S_SERVICE_NAME", "rabbitmq-headless", "RABBITMQ_FORCE_BOOT", "no")
						return e.createStatefulSet(ctx, st)
					},
					func() error { return e.createService(ctx, w8bHeadless("rabbitmq-headless", mq, "amqp", 5672)) },
					func() error { return e.createService(ctx, w8bService("rabbitmq", mq, "amqp", 5672)) },
					func() error {
						d := w8bDeployment("order-worker", "registry.example/orders/order-worker:8.2.0", 2, worker, nil, "", 0)
						w8bEnv(&d.Spec.Template, "AMQP_URL", "amqp://orders@rabbitmq:5672/orders")
						return e.createDeployment(ctx, d)
					},
					func() error { e.w8cForceDeletePods(); return nil },
				)
			},
			Wait: func(ctx context.Context, e *Env) error {
				if e.State["dead"] == "" {
					if err := w8cStatefulSetReady("rabbitmq", 3)(ctx, e); err != nil {
						return err
					}
					e.sim("mq-c").Stop()
					e.State["dead"] = "yes"
				}
				pods, err := e.w8cPodsOn(ctx, e.ClusterName("mq-c"))
				if err != nil {
					return err
				}
				for _, p := range pods {
					if p.DeletionTimestamp != nil {
						return nil
					}
				}
				return errors.New("no pod Terminating on mq-c yet")
			},
		},
		{
			// The budget was written as minAvailable: 3 for a 3-node ensemble, so it never
			// allows an eviction: the infra node's drain retries forever.
			Name: "zookeeper-drain-blocked-by-pdb", Covers: "draining the infra node hangs: every eviction of a zookeeper pod is refused with 429 ('would violate the pod's disruption budget'); zookeeper-pdb has minAvailable 3 for 3 replicas, so 0 disruptions are ever allowed",
			Source: w8cSrcAPIEviction, Class: ClassMechanism, Hops: 1,
			Problem: "kubectl drain of the infra node keeps retrying: Cannot evict pod as it would violate the pod's disruption budget (zookeeper)",
			Target:  target("StatefulSet", "zookeeper"),
			Want:    Want{Culprit: Ref{Kind: "PodDisruptionBudget", Name: "zookeeper-pdb"}, Terms: []string{"minAvailable"}},
			Setup: func(ctx context.Context, e *Env) error {
				zk := w8cLabels("app.kubernetes.io/name", "zookeeper", "app.kubernetes.io/instance", "kafka-platform", "app.kubernetes.io/component", "zookeeper")
				ui := w8cLabels("app.kubernetes.io/name", "kafka-ui", "app.kubernetes.io/instance", "kafka-platform")
				return steps(
					func() error {
						_, err := e.w8cNodeWithPool(ctx, "infra-2", false, "node-pool", "infra")
						return err
					},
					func() error {
						st := w8bStatefulSet("zookeeper", "docker.io/bitnami/zookeeper:3.9.2", "zookeeper-headless", 3, zk, nil, "client", 2181)
						e.w8cOnPool(&st.Spec.Template, "node-pool", "infra")
						w8bEnv(&st.Spec.Template, "ZOO_SERVERS", "zookeeper-0.zookeeper-headless:2888:3888::1 zookeeper-1.zookeeper-headless:2888:3888::2 zookeeper-2.zookeeper-headless:2888:3888::3")
						return e.createStatefulSet(ctx, st)
					},
					func() error { return e.createService(ctx, w8bHeadless("zookeeper-headless", zk, "client", 2181)) },
					func() error { return e.createService(ctx, w8bService("zookeeper", zk, "client", 2181)) },
					func() error { return e.createPDB(ctx, "zookeeper-pdb", 3, zk) },
					func() error {
						if err := e.createDeployment(ctx, w8bDeployment("kafka-ui", "docker.io/provectuslabs/kafka-ui:v0.7.2", 1, ui, nil, "http", 8080)); err != nil {
							return err
						}
						return e.createService(ctx, w8bService("kafka-ui", ui, "http", 80))
					},
				)
			},
			Wait: func(ctx context.Context, e *Env) error {
				if e.State["drained"] == "" {
					if err := w8cStatefulSetReady("zookeeper", 3)(ctx, e); err != nil {
						return err
					}
					pdb, err := e.Client.PolicyV1().PodDisruptionBudgets(e.Namespace).Get(ctx, "zookeeper-pdb", metav1.GetOptions{})
					if err != nil {
						return err
					}
					if pdb.Status.CurrentHealthy < 3 || pdb.Status.DesiredHealthy != 3 || pdb.Status.DisruptionsAllowed != 0 || pdb.Status.ObservedGeneration < pdb.Generation {
						return fmt.Errorf("zookeeper-pdb: %d healthy", pdb.Status.CurrentHealthy)
					}
					// kubectl drain: cordon, then evict each pod of the node.
					if err := e.w8cSetNodeUnschedulable(ctx, e.ClusterName("infra-2"), true); err != nil {
						return err
					}
					e.State["drained"] = "yes"
				}
				err := e.Client.PolicyV1().Evictions(e.Namespace).Evict(ctx, &policyv1.Eviction{ObjectMeta: metav1.ObjectMeta{Name: "zookeeper-0", Namespace: e.Namespace}})
				if apierrors.IsTooManyRequests(err) {
					return nil
				}
				return fmt.Errorf("eviction of zookeeper-0 not refused yet: %v", err)
			},
		},
	}
}
