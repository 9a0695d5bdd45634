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
	"k8s.io/utils/ptr"
)

// A fifth batch from the Prometheus Operator runbooks, measured as written (no rule change
// before the first measurement).

const (
	srcRbDaemonSetRollout = "runbooks/kubernetes/KubeDaemonSetRolloutStuck.md"
	srcRbPodNotReady      = "runbooks/kubernetes/KubePodNotReady.md"
	srcRbEtcdMembers      = "runbooks/etcd/etcdInsufficientMembers.md"
)

func independentFifthScenarios() []*Scenario {
	return []*Scenario{
		{
			Name: "node-exporter-daemonset-tag-typo", Covers: "a node-exporter DaemonSet rollout is stuck: the new image tag does not exist on any node",
			Source: srcRbDaemonSetRollout, Class: ClassSingle, Hops: 1,
			Problem: "node-exporter rollout is stuck",
			Want:    Want{Culprit: Ref{Kind: "DaemonSet", Name: "node-exporter"}, Terms: []string{"v1.8.99-does-not-exist"}},
			Setup: func(ctx context.Context, e *Env) error {
				return e.createDaemonSet(ctx, "node-exporter", "quay.io/prometheus/node-exporter:v1.8.99-does-not-exist", nil, nil)
			},
			Wait: anyPod("node-exporter", waiting("ImagePullBackOff", "ErrImagePull")),
		},
		{
			Name: "status-page-readiness-path-404", Covers: "the status page Ingress has no endpoints: its pods' readiness probe asks /healthz, which the app answers 404 (it serves /health)",
			Source: srcRbPodNotReady, Class: ClassRanking, Hops: 2,
			Problem: "status.example.com shows 503",
			Want:    Want{Culprit: Ref{Kind: "Deployment", Name: "status-page"}, Terms: []string{"404"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						d := deployment("status-page", "registry.example/ops/status-page:4.1.0", 2, sim("readiness-fail", annMessage, "Readiness probe failed: HTTP probe failed with statuscode: 404"))
						d.Spec.Template.Spec.Containers[0].ReadinessProbe = httpProbe("/healthz")
						return e.createDeployment(ctx, d)
					},
					func() error {
						return e.createServiceOn(ctx, "status-page", "status-page", 80, intstr.FromString("http"))
					},
					func() error { return e.createIngress(ctx, ingress("status", "status-page", 80)) },
				)
			},
			Wait: all(anyPod("status-page", runningNotReady), podEvent("Unhealthy", "404")),
		},
		{
			Name: "etcd-members-pending-on-zone-affinity", Covers: "a config proxy crash-loops on etcd; the etcd StatefulSet's members are Pending on a node affinity for a zone no node is in",
			Source: srcRbEtcdMembers, Class: ClassRanking, Hops: 3,
			Problem: "config-proxy keeps crashing", Target: target("Deployment", "config-proxy"),
			Want: Want{Culprit: Ref{Kind: "StatefulSet", Name: "etcd"}, Terms: []string{"zone-d"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						st := plainStatefulSet("etcd", "quay.io/coreos/etcd:v3.5.13", 3, nil)
						st.Spec.PodManagementPolicy = appsv1.ParallelPodManagement
						st.Spec.Template.Spec.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{
							RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{
								MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "topology.kubernetes.io/zone", Operator: corev1.NodeSelectorOpIn, Values: []string{"zone-d"}}}}}}}}
						return e.createStatefulSet(ctx, st)
					},
					func() error { return e.createService(ctx, headless("etcd")) },
					func() error {
						s := service("etcd-client", map[string]string{"app": "etcd"}, intstr.FromString("http"))
						s.Spec.Ports[0].Port = 2379
						return e.createService(ctx, s)
					},
					func() error {
						d := deployment("config-proxy", "registry.example/platform/config-proxy:0.9.1", 1, crash("1", "", "etcd-proxy"))
						d.Spec.Template.Spec.Containers[0].Args = []string{"--etcd-endpoints=http://etcd-client:2379", "--dial-timeout=5s"}
						d.Spec.RevisionHistoryLimit = ptr.To[int32](3)
						return e.createDeployment(ctx, d)
					},
				)
			},
			Wait: all(anyPod("etcd", unschedulable("affinity")), anyPod("config-proxy", crashLooping(3))),
		},
	}
}
