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

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Wave 10b, the scheduler's side: spread constraints, priority and extended resources, on
// nodes of the scenario's own pool (zones, taints and capacities of its own).

func wave10bSchedulingScenarios() []*Scenario {
	return []*Scenario{
		{
			// nodeTaintsPolicy defaults to Ignore: the tainted ML node of zone c still counts
			// as a zone with zero ledger pods, so with maxSkew 1 only one pod fits in each of
			// zones a and b and the other four wait.
			Name: "ledger-spread-counts-tainted-zone", Covers: "ledger-api runs 2 of 6 replicas; the rest are Pending with '2 node(s) didn't match pod topology spread constraints, 1 node(s) had untolerated taint': zone c has only a tainted ML node, which the zone spread (maxSkew 1, DoNotSchedule, nodeTaintsPolicy Ignore by default) still counts as an empty domain",
			Source: w10bSrcTopologySpread, Class: ClassMechanism, Hops: 2,
			Problem: "ledger-api only runs 2 of its 6 replicas since zone c's general nodes were retired; the others stay Pending although the nodes are nearly empty",
			Target:  target("Deployment", "ledger-api"),
			Want:    Want{Culprit: Ref{Kind: "Deployment", Name: "ledger-api"}, Terms: []string{"topology spread", "taint"}},
			Setup: func(ctx context.Context, e *Env) error {
				zone := func(z string) map[string]string {
					return map[string]string{"topology.kubernetes.io/zone": "eu-central-1" + z, "topology.kubernetes.io/region": "eu-central-1", "node.kubernetes.io/instance-type": "m6i.xlarge"}
				}
				ml := zone("c")
				ml["node.kubernetes.io/instance-type"], ml["workload.example.com/class"] = "g5.xlarge", "ml"
				api := w8cLabels("app.kubernetes.io/name", "ledger-api", "app.kubernetes.io/part-of", "ledger", "app.kubernetes.io/version", "9.3.1")
				worker := w8cLabels("app.kubernetes.io/name", "ledger-worker", "app.kubernetes.io/part-of", "ledger", "app.kubernetes.io/version", "9.3.1")
				return steps(
					func() error { _, err := e.w10bNode(ctx, "general-a", zone("a")); return err },
					func() error { _, err := e.w10bNode(ctx, "general-b", zone("b")); return err },
					func() error {
						_, err := e.w10bNode(ctx, "ml-c", ml, corev1.Taint{Key: "workload.example.com/ml", Value: "true", Effect: corev1.TaintEffectNoSchedule})
						return err
					},
					func() error {
						d := w8bDeployment("ledger-worker", "registry.example/ledger/worker:9.3.1", 1, worker, nil, "", 0)
						e.pin(&d.Spec.Template)
						return e.createDeployment(ctx, d)
					},
					func() error {
						d := w8bDeployment("ledger-api", "registry.example/ledger/api:9.3.1", 6, api, nil, "http", 8080)
						w10bCPU(&d.Spec.Template, "250m", "512Mi")
						d.Spec.Template.Spec.TopologySpreadConstraints = []corev1.TopologySpreadConstraint{{
							MaxSkew: 1, TopologyKey: "topology.kubernetes.io/zone", WhenUnsatisfiable: corev1.DoNotSchedule,
							LabelSelector: &metav1.LabelSelector{MatchLabels: w8cLabels("app.kubernetes.io/name", "ledger-api")},
						}}
						e.pin(&d.Spec.Template)
						return e.createDeployment(ctx, d)
					},
					func() error {
						return e.createService(ctx, w8bService("ledger-api", w8cLabels("app.kubernetes.io/name", "ledger-api"), "http", 80))
					},
				)
			},
			Wait: all(readyReplicas("ledger-api", 2), podsWith(w8cLabels("app.kubernetes.io/name", "ledger-api"), unschedulable("topology spread"))),
		},
		{
			// The docs' example of a non-preempting class (preemptionPolicy: Never) was copied
			// for the checkout path: its pods jump the queue but never evict the batch pods
			// that hold the pool's CPU, so the scale-up stays Pending.
			Name: "checkout-priorityclass-never-preempts", Covers: "checkout-api scaled to 3 runs 1 pod; 2 are Pending on 'Insufficient cpu ... preemption: not eligible due to preemptionPolicy=Never' while recommendations-batch (a much lower priority) holds 3.6 of the node's 4 CPUs: the PriorityClass checkout-critical has preemptionPolicy Never",
			Source: w10bSrcPriority, Class: ClassMechanism, Hops: 2,
			Problem: "checkout-api was scaled to 3 for the sale but 2 pods stay Pending; it has the highest priority class in the cluster, the recommendations batch keeps running",
			Target:  target("Deployment", "checkout-api"),
			Want:    Want{Culprit: Ref{Kind: "PriorityClass", Name: "checkout-critical", Cluster: true}, Terms: []string{"preemptionPolicy"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						_, err := e.w10bNode(ctx, "shared", map[string]string{"node.kubernetes.io/instance-type": "c6i.xlarge"})
						return err
					},
					func() error {
						return e.w10bPriorityClass(ctx, "batch-low", 1000, corev1.PreemptLowerPriority, "recommendation and reporting batch; may be preempted")
					},
					func() error {
						return e.w10bPriorityClass(ctx, "checkout-critical", 1000000, corev1.PreemptNever, "checkout request path; must never wait behind batch work")
					},
					func() error {
						lbl := w8cLabels("app", "recommendations-batch", "team", "personalisation")
						d := w8bDeployment("recommendations-batch", "registry.example/personalisation/recs-batch:12.0.4", 3, lbl, nil, "", 0)
						w10bCPU(&d.Spec.Template, "1200m", "2Gi")
						d.Spec.Template.Spec.PriorityClassName = e.ClusterName("batch-low")
						e.pin(&d.Spec.Template)
						return e.createDeployment(ctx, d)
					},
				)
			},
			Wait: func(ctx context.Context, e *Env) error {
				if e.State["checkout"] == "" {
					if err := readyReplicas("recommendations-batch", 3)(ctx, e); err != nil {
						return err
					}
					lbl := w8cLabels("app", "checkout-api", "team", "checkout")
					d := w8bDeployment("checkout-api", "registry.example/checkout/api:11.2.0", 3, lbl, nil, "http", 8080)
					w10bCPU(&d.Spec.Template, "300m", "512Mi")
					d.Spec.Template.Spec.PriorityClassName = e.ClusterName("checkout-critical")
					e.pin(&d.Spec.Template)
					if err := steps(func() error { return e.createDeployment(ctx, d) },
						func() error { return e.createService(ctx, w8bService("checkout-api", lbl, "http", 80)) }); err != nil {
						return err
					}
					e.State["checkout"] = "yes"
				}
				return all(readyReplicas("checkout-api", 1), podsWith(w8cLabels("app", "checkout-api"), unschedulable("Insufficient cpu")))(ctx, e)
			},
		},
		{
			// The GPU node group was rebuilt on an image without the NVIDIA container runtime:
			// the device plugin finds no NVML, logs it, and then waits quietly, so the node
			// advertises no nvidia.com/gpu and the inference pods cannot be scheduled.
			Name: "llm-inference-gpu-plugin-no-devices", Covers: "llm-inference has no running pod: both are Pending on '1 Insufficient nvidia.com/gpu'; the GPU node has no nvidia.com/gpu allocatable because the Running nvidia-device-plugin pod on it logged 'Incompatible platform detected ... did you configure the NVIDIA Container Toolkit?' and then 'No devices found. Waiting indefinitely.'",
			Source: w10bSrcExtendedRes, Class: ClassClue, Hops: 3,
			Problem: "the chat assistant is down: llm-inference has had no running pod since the GPU node group was rebuilt yesterday",
			Target:  target("Deployment", "llm-inference"),
			Want:    Want{Culprit: Ref{Kind: "DaemonSet", Name: "nvidia-device-plugin"}, Terms: []string{"nvidia.com/gpu"}},
			Setup: func(ctx context.Context, e *Env) error {
				gpuPool := []string{"nvidia.com/gpu.present", "true"}
				gpuTaint := corev1.Toleration{Key: "nvidia.com/gpu", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}
				plugin := w8cLabels("app.kubernetes.io/name", "nvidia-device-plugin", "app.kubernetes.io/instance", "nvdp")
				return steps(
					func() error {
						_, err := e.w10bNode(ctx, "gpu-a10g", map[string]string{"nvidia.com/gpu.present": "true", "nvidia.com/gpu.product": "NVIDIA-A10G",
							"node.kubernetes.io/instance-type": "g5.2xlarge", "eks.amazonaws.com/nodegroup": "gpu-a10g-v2"},
							corev1.Taint{Key: "nvidia.com/gpu", Value: "present", Effect: corev1.TaintEffectNoSchedule})
						return err
					},
					func() error {
						_, err := e.w10bNode(ctx, "general", map[string]string{"node.kubernetes.io/instance-type": "m6i.large", "eks.amazonaws.com/nodegroup": "general-v7"})
						return err
					},
					func() error {
						t := template("nvidia-device-plugin", "nvcr.io/nvidia/k8s-device-plugin:v0.16.2", running("w10b-nvidia-device-plugin-no-devices"))
						t.Labels = plugin
						t.Spec.Containers[0].Name = "nvidia-device-plugin-ctr"
						t.Spec.Containers[0].Ports = nil
						w8bEnv(&t, "FAIL_ON_INIT_ERROR", "false", "DEVICE_LIST_STRATEGY", "envvar", "MIG_STRATEGY", "none")
						e.w8cOnPool(&t, gpuPool...)
						t.Spec.Tolerations = append(t.Spec.Tolerations, gpuTaint)
						_, err := e.Client.AppsV1().DaemonSets(e.Namespace).Create(ctx, w10bDaemonSet("nvidia-device-plugin", plugin, t), metav1.CreateOptions{})
						return wrap("DaemonSet", "nvidia-device-plugin", err)
					},
					func() error {
						lbl := w8cLabels("app.kubernetes.io/name", "llm-inference", "app.kubernetes.io/component", "model-server", "app.kubernetes.io/part-of", "assistant")
						d := w8bDeployment("llm-inference", "registry.example/ai/vllm-server:0.6.3", 2, lbl, nil, "http", 8000)
						w8cArgs(&d.Spec.Template, "--model", "/models/llama-3.1-8b-instruct", "--gpu-memory-utilization", "0.90", "--max-model-len", "8192")
						d.Spec.Template.Spec.Containers[0].Resources = corev1.ResourceRequirements{
							Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2"), corev1.ResourceMemory: resource.MustParse("12Gi")},
							Limits:   corev1.ResourceList{"nvidia.com/gpu": resource.MustParse("1"), corev1.ResourceMemory: resource.MustParse("12Gi")},
						}
						e.w8cOnPool(&d.Spec.Template, gpuPool...)
						d.Spec.Template.Spec.Tolerations = append(d.Spec.Template.Spec.Tolerations, gpuTaint)
						return e.createDeployment(ctx, d)
					},
					func() error {
						return e.createService(ctx, w8bService("llm-inference", w8cLabels("app.kubernetes.io/name", "llm-inference"), "http", 8000))
					},
					func() error {
						lbl := w8cLabels("app.kubernetes.io/name", "chat-gateway", "app.kubernetes.io/component", "gateway", "app.kubernetes.io/part-of", "assistant")
						d := w8bDeployment("chat-gateway", "registry.example/ai/chat-gateway:1.12.0", 2, lbl, nil, "http", 8080)
						w8bEnv(&d.Spec.Template, "INFERENCE_URL", "http://llm-inference:8000/v1", "MODEL_NAME", "llama-3.1-8b-instruct")
						e.w8cOnPool(&d.Spec.Template, "eks.amazonaws.com/nodegroup", "general-v7")
						return e.createDeployment(ctx, d)
					},
				)
			},
			Wait: all(readyReplicas("chat-gateway", 2), podsWith(w8cLabels("app.kubernetes.io/name", "nvidia-device-plugin"), runningReady),
				podsWith(w8cLabels("app.kubernetes.io/name", "llm-inference"), unschedulable("nvidia.com/gpu"))),
		},
	}
}
