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

package e2e

import (
	"context"
	"fmt"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
)

// Annotations of the kwok stage convention (hack/kwok/README.md).
const (
	annBehavior = "sim.kubage.io/behavior"
	annExitCode = "sim.kubage.io/exit-code"
	annMessage  = "sim.kubage.io/message"
)

var _ = Describe("Local cluster", func() {
	It("has Ready kwok nodes that advertise a kubelet endpoint", func(ctx SpecContext) {
		nodes, err := clients.CoreV1().Nodes().List(ctx, metav1.ListOptions{LabelSelector: "type=kwok"})
		Expect(err).NotTo(HaveOccurred())
		Expect(nodes.Items).To(HaveLen(3))
		zones := map[string]bool{}
		for _, n := range nodes.Items {
			Expect(nodeReady(&n)).To(BeTrue(), "node %s", n.Name)
			Expect(n.Spec.Taints).To(BeEmpty(), "node %s", n.Name)
			Expect(n.Status.DaemonEndpoints.KubeletEndpoint.Port).To(BeNumerically(">", 0))
			Expect(n.Status.Allocatable.Cpu().String()).To(Equal("4"))
			zones[n.Labels["topology.kubernetes.io/zone"]] = true
		}
		Expect(zones).To(HaveLen(3))
	})

	It("schedules pods with the real scheduler and leaves unschedulable ones Pending", func(ctx SpecContext) {
		ns := newNamespace(ctx)
		pod := simplePod("placed", "nginx:1.27", nil)
		unschedulable := simplePod("nowhere", "nginx:1.27", nil)
		unschedulable.Spec.NodeSelector = map[string]string{"disktype": "ssd"}
		for _, p := range []*corev1.Pod{pod, unschedulable} {
			_, err := clients.CoreV1().Pods(ns).Create(ctx, p, metav1.CreateOptions{})
			Expect(err).NotTo(HaveOccurred())
		}

		Eventually(func(g Gomega) {
			p := getPod(ctx, g, ns, "placed")
			g.Expect(p.Spec.NodeName).To(HavePrefix("kwok-node-"))
			g.Expect(p.Status.Phase).To(Equal(corev1.PodRunning))
			g.Expect(p.Status.PodIP).To(HavePrefix("10.244."))
		}).WithContext(ctx).Should(Succeed())
		Eventually(func(g Gomega) {
			p := getPod(ctx, g, ns, "nowhere")
			cond := podCondition(p, corev1.PodScheduled)
			g.Expect(cond).NotTo(BeNil())
			g.Expect(cond.Status).To(Equal(corev1.ConditionFalse))
			g.Expect(cond.Reason).To(Equal(corev1.PodReasonUnschedulable))
			g.Expect(cond.Message).To(ContainSubstring("node affinity/selector"))
		}).WithContext(ctx).Should(Succeed())
	})
})

var _ = Describe("Simulated kubelet stages", func() {
	It("runs a healthy Deployment, gives its Service endpoints and serves container logs", func(ctx SpecContext) {
		ns := newNamespace(ctx)
		createDeployment(ctx, ns, "web", "nginx:1.27", 2, nil)
		_, err := clients.CoreV1().Services(ns).Create(ctx, &corev1.Service{
			ObjectMeta: metav1.ObjectMeta{Name: "web"},
			Spec: corev1.ServiceSpec{
				Selector: map[string]string{"app": "web"},
				Ports:    []corev1.ServicePort{{Port: 80, TargetPort: intstr.FromInt32(8080)}},
			},
		}, metav1.CreateOptions{})
		Expect(err).NotTo(HaveOccurred())

		Eventually(func(g Gomega) {
			d, err := clients.AppsV1().Deployments(ns).Get(ctx, "web", metav1.GetOptions{})
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(d.Status.ReadyReplicas).To(BeEquivalentTo(2))
			g.Expect(d.Status.AvailableReplicas).To(BeEquivalentTo(2))
		}).WithContext(ctx).Should(Succeed())

		Eventually(func(g Gomega) {
			slices, err := clients.DiscoveryV1().EndpointSlices(ns).List(ctx, metav1.ListOptions{LabelSelector: discoveryv1.LabelServiceName + "=web"})
			g.Expect(err).NotTo(HaveOccurred())
			ready := 0
			for _, s := range slices.Items {
				for _, e := range s.Endpoints {
					if ptr.Deref(e.Conditions.Ready, false) {
						ready++
						g.Expect(e.Addresses[0]).To(HavePrefix("10.244."))
					}
				}
			}
			g.Expect(ready).To(Equal(2))
		}).WithContext(ctx).Should(Succeed())

		pod := podsOf(ctx, Default, ns, "web")[0]
		Eventually(func(g Gomega) {
			logs, err := clients.CoreV1().Pods(ns).GetLogs(pod.Name, &corev1.PodLogOptions{Container: "app"}).DoRaw(ctx)
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(string(logs)).To(ContainSubstring("listening address=:8080"))
		}).WithContext(ctx).Should(Succeed())
	})

	It("shows ErrImagePull then ImagePullBackOff for an image that does not exist", func(ctx SpecContext) {
		ns := newNamespace(ctx)
		createDeployment(ctx, ns, "badimage", "nginx:does-not-exist", 1, nil)

		Eventually(func(g Gomega) {
			cs := firstContainerStatus(ctx, g, ns, "badimage")
			g.Expect(cs.State.Waiting).NotTo(BeNil())
			g.Expect(cs.State.Waiting.Reason).To(Equal("ImagePullBackOff"))
			g.Expect(cs.State.Waiting.Message).To(ContainSubstring("nginx:does-not-exist: not found"))
		}).WithContext(ctx).Should(Succeed())
		expectEvent(ctx, ns, "Warning", "Failed", `Failed to pull image "nginx:does-not-exist"`)
	})

	It("shows an authentication failure for a private registry without pull secrets", func(ctx SpecContext) {
		ns := newNamespace(ctx)
		createDeployment(ctx, ns, "private", "registry.private.example/team/api:1.0", 1, nil)

		Eventually(func(g Gomega) {
			cs := firstContainerStatus(ctx, g, ns, "private")
			g.Expect(cs.State.Waiting).NotTo(BeNil())
			g.Expect(cs.State.Waiting.Reason).To(BeElementOf("ErrImagePull", "ImagePullBackOff"))
			g.Expect(cs.State.Waiting.Message).To(ContainSubstring("unauthorized: authentication required"))
		}).WithContext(ctx).Should(Succeed())
	})

	It("shows CrashLoopBackOff with restarts, the last exit code and the previous logs", func(ctx SpecContext) {
		ns := newNamespace(ctx)
		createDeployment(ctx, ns, "crasher", "example/api:2.1", 1, map[string]string{
			annBehavior: "crashloop", annExitCode: "3", annMessage: "cannot connect to database",
		})

		var podName string
		Eventually(func(g Gomega) {
			p := podsOf(ctx, g, ns, "crasher")[0]
			podName = p.Name
			cs := containerStatus(g, &p)
			g.Expect(cs.State.Waiting).NotTo(BeNil())
			g.Expect(cs.State.Waiting.Reason).To(Equal("CrashLoopBackOff"))
			g.Expect(cs.State.Waiting.Message).To(ContainSubstring("restarting failed container=app"))
			g.Expect(cs.RestartCount).To(BeNumerically(">", 0))
			g.Expect(cs.LastTerminationState.Terminated).NotTo(BeNil())
			g.Expect(cs.LastTerminationState.Terminated.ExitCode).To(BeEquivalentTo(3))
			g.Expect(cs.LastTerminationState.Terminated.Reason).To(Equal("Error"))
			g.Expect(cs.LastTerminationState.Terminated.Message).To(Equal("cannot connect to database"))
		}).WithContext(ctx).Should(Succeed())
		expectEvent(ctx, ns, "Warning", "BackOff", "Back-off restarting failed container app")

		logs, err := clients.CoreV1().Pods(ns).GetLogs(podName, &corev1.PodLogOptions{Container: "app", Previous: true}).DoRaw(ctx)
		Expect(err).NotTo(HaveOccurred())
		Expect(string(logs)).To(ContainSubstring("panic: failed to initialise storage"))
	})

	It("reports OOMKilled as the last termination state", func(ctx SpecContext) {
		ns := newNamespace(ctx)
		createDeployment(ctx, ns, "hungry", "example/worker:1.0", 1, map[string]string{annBehavior: "oomkill"})

		Eventually(func(g Gomega) {
			cs := firstContainerStatus(ctx, g, ns, "hungry")
			g.Expect(cs.RestartCount).To(BeNumerically(">", 0))
			g.Expect(cs.LastTerminationState.Terminated).NotTo(BeNil())
			g.Expect(cs.LastTerminationState.Terminated.Reason).To(Equal("OOMKilled"))
			g.Expect(cs.LastTerminationState.Terminated.ExitCode).To(BeEquivalentTo(137))
		}).WithContext(ctx).Should(Succeed())
	})

	It("completes a Job through the real Job controller", func(ctx SpecContext) {
		ns := newNamespace(ctx)
		createJob(ctx, ns, "report", nil, 2)

		Eventually(func(g Gomega) {
			j, err := clients.BatchV1().Jobs(ns).Get(ctx, "report", metav1.GetOptions{})
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(jobCondition(j, batchv1.JobComplete)).To(BeTrue())
			g.Expect(j.Status.Succeeded).To(BeEquivalentTo(1))
		}).WithContext(ctx).Should(Succeed())
	})

	It("fails a Job with BackoffLimitExceeded and the container's exit code", func(ctx SpecContext) {
		ns := newNamespace(ctx)
		createJob(ctx, ns, "export", map[string]string{annBehavior: "fail", annExitCode: "2"}, 0)

		Eventually(func(g Gomega) {
			j, err := clients.BatchV1().Jobs(ns).Get(ctx, "export", metav1.GetOptions{})
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(jobCondition(j, batchv1.JobFailed)).To(BeTrue())
			for _, c := range j.Status.Conditions {
				if c.Type == batchv1.JobFailed {
					g.Expect(c.Reason).To(Equal("BackoffLimitExceeded"))
				}
			}
		}).WithContext(ctx).Should(Succeed())
		pods, err := clients.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: "job-name=export"})
		Expect(err).NotTo(HaveOccurred())
		Expect(pods.Items).NotTo(BeEmpty())
		p := pods.Items[0]
		Expect(p.Status.Phase).To(Equal(corev1.PodFailed))
		Expect(p.Status.ContainerStatuses).To(HaveLen(1))
		Expect(p.Status.ContainerStatuses[0].State.Terminated).NotTo(BeNil())
		Expect(p.Status.ContainerStatuses[0].State.Terminated.ExitCode).To(BeEquivalentTo(2))
	})

	It("keeps pods unready with Unhealthy events when the readiness probe fails", func(ctx SpecContext) {
		ns := newNamespace(ctx)
		createDeployment(ctx, ns, "unready", "example/api:2.1", 1, map[string]string{annBehavior: "readiness-fail"})

		Eventually(func(g Gomega) {
			p := podsOf(ctx, g, ns, "unready")[0]
			g.Expect(p.Status.Phase).To(Equal(corev1.PodRunning))
			cs := containerStatus(g, &p)
			g.Expect(cs.State.Running).NotTo(BeNil())
			g.Expect(cs.Ready).To(BeFalse())
			g.Expect(podCondition(&p, corev1.PodReady).Status).To(Equal(corev1.ConditionFalse))
		}).WithContext(ctx).Should(Succeed())
		expectEvent(ctx, ns, "Warning", "Unhealthy", "Readiness probe failed: HTTP probe failed with statuscode: 503")
	})

	It("restarts containers whose liveness probe fails", func(ctx SpecContext) {
		ns := newNamespace(ctx)
		createDeployment(ctx, ns, "stuck", "example/api:2.1", 1, map[string]string{annBehavior: "liveness-fail"})

		Eventually(func(g Gomega) {
			cs := firstContainerStatus(ctx, g, ns, "stuck")
			g.Expect(cs.RestartCount).To(BeNumerically(">", 0))
			g.Expect(cs.State.Running).NotTo(BeNil())
			g.Expect(cs.LastTerminationState.Terminated).NotTo(BeNil())
			g.Expect(cs.LastTerminationState.Terminated.ExitCode).To(BeEquivalentTo(137))
		}).WithContext(ctx).Should(Succeed())
		expectEvent(ctx, ns, "Warning", "Unhealthy", "Liveness probe failed")
		expectEvent(ctx, ns, "Normal", "Killing", "failed liveness probe, will be restarted")
	})

	It("reports CreateContainerConfigError naming the missing ConfigMap", func(ctx SpecContext) {
		ns := newNamespace(ctx)
		d := deployment("noconfig", "example/api:2.1", 1, map[string]string{annBehavior: "create-config-error"})
		d.Spec.Template.Spec.Containers[0].EnvFrom = []corev1.EnvFromSource{{
			ConfigMapRef: &corev1.ConfigMapEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "app-settings"}},
		}}
		_, err := clients.AppsV1().Deployments(ns).Create(ctx, d, metav1.CreateOptions{})
		Expect(err).NotTo(HaveOccurred())

		Eventually(func(g Gomega) {
			cs := firstContainerStatus(ctx, g, ns, "noconfig")
			g.Expect(cs.State.Waiting).NotTo(BeNil())
			g.Expect(cs.State.Waiting.Reason).To(Equal("CreateContainerConfigError"))
			g.Expect(cs.State.Waiting.Message).To(Equal(`configmap "app-settings" not found`))
		}).WithContext(ctx).Should(Succeed())
	})
	It("keeps pods ContainerCreating with FailedMount events when a volume cannot be mounted", func(ctx SpecContext) {
		ns := newNamespace(ctx)
		d := deployment("nomount", "example/api:2.1", 1, map[string]string{annBehavior: "mount-fail"})
		d.Spec.Template.Spec.Volumes = []corev1.Volume{{
			Name: "config",
			VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
				LocalObjectReference: corev1.LocalObjectReference{Name: "app-files"},
			}},
		}}
		_, err := clients.AppsV1().Deployments(ns).Create(ctx, d, metav1.CreateOptions{})
		Expect(err).NotTo(HaveOccurred())

		Eventually(func(g Gomega) {
			p := podsOf(ctx, g, ns, "nomount")[0]
			g.Expect(p.Status.Phase).To(Equal(corev1.PodPending))
			cs := containerStatus(g, &p)
			g.Expect(cs.State.Waiting).NotTo(BeNil())
			g.Expect(cs.State.Waiting.Reason).To(Equal("ContainerCreating"))
		}).WithContext(ctx).Should(Succeed())
		expectEvent(ctx, ns, "Warning", "FailedMount", `MountVolume.SetUp failed for volume "config" : configmap "app-files" not found`)
	})

	It("restarts a Deployment container that exits 0 with a Completed last state", func(ctx SpecContext) {
		ns := newNamespace(ctx)
		createDeployment(ctx, ns, "oneshot", "example/migrate:1.0", 1, map[string]string{annBehavior: "complete"})

		Eventually(func(g Gomega) {
			cs := firstContainerStatus(ctx, g, ns, "oneshot")
			g.Expect(cs.RestartCount).To(BeNumerically(">", 0))
			g.Expect(cs.LastTerminationState.Terminated).NotTo(BeNil())
			g.Expect(cs.LastTerminationState.Terminated.Reason).To(Equal("Completed"))
			g.Expect(cs.LastTerminationState.Terminated.ExitCode).To(BeEquivalentTo(0))
		}).WithContext(ctx).Should(Succeed())
	})
})

// newNamespace creates a namespace for one spec, removed when the spec ends, and waits for its
// default ServiceAccount so pods can be admitted.
func newNamespace(ctx context.Context) string {
	GinkgoHelper()
	ns, err := clients.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{
		ObjectMeta: metav1.ObjectMeta{GenerateName: "e2e-"},
	}, metav1.CreateOptions{})
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(func(ctx SpecContext) {
		Expect(clients.CoreV1().Namespaces().Delete(ctx, ns.Name, metav1.DeleteOptions{})).To(Succeed())
	})
	Eventually(func() error {
		_, err := clients.CoreV1().ServiceAccounts(ns.Name).Get(ctx, "default", metav1.GetOptions{})
		return err
	}).WithContext(ctx).Should(Succeed())
	return ns.Name
}

func podTemplate(app, image string, annotations map[string]string) corev1.PodTemplateSpec {
	return corev1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": app}, Annotations: annotations},
		Spec: corev1.PodSpec{
			Containers: []corev1.Container{{Name: "app", Image: image}},
		},
	}
}

func simplePod(name, image string, annotations map[string]string) *corev1.Pod {
	t := podTemplate(name, image, annotations)
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: t.Labels, Annotations: t.Annotations}, Spec: t.Spec}
}

func deployment(name, image string, replicas int32, annotations map[string]string) *appsv1.Deployment {
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To(replicas),
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": name}},
			Template: podTemplate(name, image, annotations),
		},
	}
}

func createDeployment(ctx context.Context, ns, name, image string, replicas int32, annotations map[string]string) {
	GinkgoHelper()
	_, err := clients.AppsV1().Deployments(ns).Create(ctx, deployment(name, image, replicas, annotations), metav1.CreateOptions{})
	Expect(err).NotTo(HaveOccurred())
}

func createJob(ctx context.Context, ns, name string, annotations map[string]string, backoffLimit int32) {
	GinkgoHelper()
	t := podTemplate(name, "example/batch:1.0", annotations)
	t.Spec.RestartPolicy = corev1.RestartPolicyNever
	_, err := clients.BatchV1().Jobs(ns).Create(ctx, &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec:       batchv1.JobSpec{BackoffLimit: ptr.To(backoffLimit), Template: t},
	}, metav1.CreateOptions{})
	Expect(err).NotTo(HaveOccurred())
}

// podsOf lists the pods of an app, failing (the poll) when there are none.
func podsOf(ctx context.Context, g Gomega, ns, app string) []corev1.Pod {
	pods, err := clients.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: "app=" + app})
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(pods.Items).NotTo(BeEmpty(), "no pods of %s/%s yet", ns, app)
	return pods.Items
}

func getPod(ctx context.Context, g Gomega, ns, name string) *corev1.Pod {
	p, err := clients.CoreV1().Pods(ns).Get(ctx, name, metav1.GetOptions{})
	g.Expect(err).NotTo(HaveOccurred())
	return p
}

func firstContainerStatus(ctx context.Context, g Gomega, ns, app string) corev1.ContainerStatus {
	p := podsOf(ctx, g, ns, app)[0]
	return containerStatus(g, &p)
}

// containerStatus is the status of the pod's first container, failing (the poll) before the
// simulated kubelet has reported one.
func containerStatus(g Gomega, p *corev1.Pod) corev1.ContainerStatus {
	g.Expect(p.Status.ContainerStatuses).NotTo(BeEmpty(), "pod %s has no container statuses yet", p.Name)
	return p.Status.ContainerStatuses[0]
}

func podCondition(p *corev1.Pod, t corev1.PodConditionType) *corev1.PodCondition {
	for i := range p.Status.Conditions {
		if p.Status.Conditions[i].Type == t {
			return &p.Status.Conditions[i]
		}
	}
	return nil
}

func nodeReady(n *corev1.Node) bool {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

func jobCondition(j *batchv1.Job, t batchv1.JobConditionType) bool {
	for _, c := range j.Status.Conditions {
		if c.Type == t && c.Status == corev1.ConditionTrue {
			return true
		}
	}
	return false
}

// expectEvent waits for an event about a pod in ns with the given type and reason whose message
// contains text, emitted by the simulated kubelet.
func expectEvent(ctx context.Context, ns, eventType, reason, text string) {
	GinkgoHelper()
	Eventually(func(g Gomega) {
		events, err := clients.CoreV1().Events(ns).List(ctx, metav1.ListOptions{
			FieldSelector: fields.Set{"involvedObject.kind": "Pod", "type": eventType, "reason": reason}.String(),
		})
		g.Expect(err).NotTo(HaveOccurred())
		var seen []string
		for _, e := range events.Items {
			if strings.Contains(e.Message, text) {
				g.Expect(e.Source.Component).To(Equal("kubelet"))
				return
			}
			seen = append(seen, e.Message)
		}
		g.Expect(seen).To(ContainElement(ContainSubstring(text)), fmt.Sprintf("%s/%s events in %s", eventType, reason, ns))
	}).WithContext(ctx).Should(Succeed())
}
