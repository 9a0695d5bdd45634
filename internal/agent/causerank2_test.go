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

package agent_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubage/kubage/internal/agent"
	fx "github.com/kubage/kubage/test/fixtures"
)

// What the objects prove without a log stays the conclusion when the log is readable: an
// error line that names nothing the cluster knows (or names the symptom, not the cause) adds
// evidence, and the structural fault (an optional Secret that is missing, a provider scaled to
// zero, a migration Job that cannot start, a claim that cannot bind, a provider on a lost node
// or restarted by its liveness probe) stays the root.
func TestLogsDoNotPullAwayFromStructure(t *testing.T) {
	consumerTarget := func(c cluster) *agent.Target { return &agent.Target{Kind: "Deployment", Name: c.consumer} }
	runRankCases(t, []rankCase{
		{name: "optional Secret missing, the app says its setting is not set",
			objs: func(c cluster) []runtime.Object {
				return labelledApp(c.consumer, c.label, 1, func(s *corev1.PodSpec) {
					s.Containers[0].Env = []corev1.EnvVar{{Name: "DB_PASSWORD", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{
						LocalObjectReference: corev1.LocalObjectReference{Name: c.consumer + "-db"}, Key: "password", Optional: fx.Ptr(true)}}}}
				}, crashing)
			},
			logs: func(c cluster) logBook {
				return logBook{c.consumer + "-": "FATAL config: DB_PASSWORD is not set\n"}
			},
			want:   func(c cluster) string { return "config-value-missing on Secret/" + c.consumer + "-db" },
			target: consumerTarget},
		{name: "Ready consumer logs refused connections, the provider is scaled to zero",
			objs: func(c cluster) []runtime.Object {
				o := consumerApp(c, nil)
				p := providerApp(c, 0, nil, nil)
				d := p[0].(*appsv1.Deployment)
				d.Status = appsv1.DeploymentStatus{ObservedGeneration: 1}
				return append(o, p...)
			},
			logs: func(c cluster) logBook {
				l := fmt.Sprintf("E0101 10:00:00.000000 1 client.go:80] request failed: Get \"http://%s:%d/v1\": dial tcp %s:%d: connect: connection refused\n", c.provider, c.port, c.ip, c.port)
				return logBook{c.consumer + "-": strings.Repeat("I0101 10:00:00.000000 1 loop.go:10] tick\n"+l, 3)}
			},
			want:   func(c cluster) string { return "deployment-scaled-to-zero on Deployment/" + c.provider },
			target: consumerTarget},
		{name: "consumer says its table is missing, the migration Job misses its Secret",
			objs: func(c cluster) []runtime.Object {
				o := labelledApp(c.consumer, c.label, 1, nil, crashing)
				j := fx.Job(ns, c.consumer+"-migrate", "registry.example/"+c.consumer+":1")
				j.Spec.Template.Spec.Containers[0].Env = []corev1.EnvVar{{Name: "DB_URL", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: c.consumer + "-migrate-db"}, Key: "url"}}}}
				j.Status.Active = 1
				p := fx.Pod(ns, c.consumer+"-migrate-abcde", j.Spec.Template.Labels, j.Spec.Template.Spec, j, "Job")
				p.Spec.RestartPolicy = corev1.RestartPolicyNever
				fx.Waiting(p, "CreateContainerConfigError", `secret "`+c.consumer+`-migrate-db" not found`)
				return append(o, j, p)
			},
			logs: func(c cluster) logBook {
				return logBook{c.consumer + "-": "ERROR: relation \"orders\" does not exist at character 15\nSTATEMENT: SELECT * FROM orders\nFATAL: cannot start\n"}
			},
			want: func(c cluster) string { return "secret-missing on Secret/" + c.consumer + "-migrate-db" }},
		{name: "headless provider's claim waits for a StorageClass that does not exist",
			objs: func(c cluster) []runtime.Object {
				o := consumerApp(c, crashing)
				lbls := map[string]string{c.label: c.provider}
				s := statefulSet(c.provider, 1, 0, func(s *appsv1.StatefulSet) {
					s.Spec.Selector.MatchLabels, s.Spec.Template.Labels = lbls, lbls
					s.Spec.VolumeClaimTemplates = []corev1.PersistentVolumeClaim{{}}
					s.Spec.VolumeClaimTemplates[0].Name = "data"
					s.Spec.Template.Spec.Volumes = nil
				})
				svc := svcAt(c.provider, "None", lbls, c.port)
				class := "fast-ssd"
				pvc := fx.PVC(ns, "data-"+c.provider+"-0", &class, corev1.ClaimPending, corev1.ReadWriteOnce)
				p := fx.Pod(ns, c.provider+"-0", lbls, s.Spec.Template.Spec, s, "StatefulSet")
				p.Spec.Volumes = []corev1.Volume{{Name: "data", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: pvc.Name}}}}
				fx.Unschedulable(p, "0/1 nodes are available: pod has unbound immediate PersistentVolumeClaims. preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.")
				return append(o, s, svc, pvc, p)
			},
			logs: func(c cluster) logBook {
				return logBook{c.consumer + "-": fmt.Sprintf("panic: dial tcp: lookup %s-0.%s on 10.96.0.10:53: no such host\n\ngoroutine 1 [running]:\nmain.main()\n", c.provider, c.provider)}
			},
			want:   func(c cluster) string { return "pvc-storageclass-missing on StorageClass/fast-ssd" },
			target: consumerTarget},
		{name: "provider pods on a NotReady node",
			objs: func(c cluster) []runtime.Object {
				o := consumerApp(c, crashing)
				o = append(o, providerApp(c, 1, nil, func(p *corev1.Pod) { p.Spec.NodeName = "node-2"; fx.SetNotReady(p) })...)
				n := fx.Node("node-2")
				fx.SetNodeCondition(n, corev1.NodeReady, corev1.ConditionUnknown, "NodeStatusUnknown", "Kubelet stopped posting node status.")
				n.Spec.Taints = []corev1.Taint{{Key: "node.kubernetes.io/unreachable", Effect: corev1.TaintEffectNoExecute}}
				return append(o, n)
			},
			logs: func(c cluster) logBook {
				return logBook{c.consumer + "-": fmt.Sprintf("ERROR dial tcp %s:%d: i/o timeout\n", c.ip, c.port)}
			},
			want:   func(c cluster) string { return "node-not-ready on Node/node-2" },
			target: consumerTarget},
		{name: "provider restarted by its liveness probe",
			objs: func(c cluster) []runtime.Object {
				o := consumerApp(c, crashing)
				p := providerApp(c, 1, func(s *corev1.PodSpec) {
					s.Containers[0].LivenessProbe = &corev1.Probe{PeriodSeconds: 5, FailureThreshold: 1, TimeoutSeconds: 1}
				}, func(p *corev1.Pod) { fx.CrashLoop(p, 137, "Error", 9) })
				for _, x := range p {
					if pod, ok := x.(*corev1.Pod); ok {
						p = append(p, fx.Event(ns, "Pod", pod.Name, "Warning", "Unhealthy", "Liveness probe failed: Get \"http://10.244.1.7:8080/healthz\": context deadline exceeded (Client.Timeout exceeded while awaiting headers)", 30, time.Minute),
							fx.Event(ns, "Pod", pod.Name, "Normal", "Killing", "Container app failed liveness probe, will be restarted", 9, time.Minute))
					}
				}
				return append(o, p...)
			},
			logs: func(c cluster) logBook {
				return logBook{c.consumer + "-": fmt.Sprintf("ERROR upstream http://%s:%d: dial tcp %s:%d: connect: connection refused\n", c.provider, c.port, c.ip, c.port)}
			},
			want:   func(c cluster) string { return "liveness-probe-failing on Deployment/" + c.provider },
			target: consumerTarget},
	})
}
