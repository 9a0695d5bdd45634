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
	"strings"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kubagev1alpha1 "github.com/kubage/kubage/api/v1alpha1"
	"github.com/kubage/kubage/internal/runner"
)

// Troubleshoot sessions end to end: the real operator binary (`kubage manager`) against the
// local control plane, with the rule engine, both task runners and the kubelet harness.
var _ = Describe("Troubleshoot sessions", Ordered, func() {
	// Every spec runs its own manager; this is how they all start it.
	managerArgs := func(image string) []string {
		return []string{"--agent-image=" + image, "--agent-start-timeout=5s"}
	}

	BeforeAll(func(ctx SpecContext) { setupKubage(ctx) })

	It("finds the root cause with the InProcess runner", func(ctx SpecContext) {
		ns := newNamespace(ctx)
		brokenConfigApp(ctx, ns)
		startManager(managerArgs(agentImage)...)

		ts := createTroubleshoot(ctx, ns, "api-down", func(ts *kubagev1alpha1.Troubleshoot) {
			ts.Spec.Target = &kubagev1alpha1.TroubleshootTarget{Kind: "Deployment", Name: "api"}
			ts.Spec.TaskRunner = kubagev1alpha1.TaskRunnerInProcess
		})
		ts = waitForTerminal(ctx, ts)
		expectConfigMapMissing(ctx, ts)
	})

	It("finds the root cause with the Job runner: every task a Job run by the harness", func(ctx SpecContext) {
		ns := newNamespace(ctx)
		brokenConfigApp(ctx, ns)
		kubelet := startKubelet(ctx)
		jobs := watchJobs(ctx, ns)
		startManager(managerArgs(agentImage)...)

		ts := createTroubleshoot(ctx, ns, "api-down", func(ts *kubagev1alpha1.Troubleshoot) {
			ts.Spec.Target = &kubagev1alpha1.TroubleshootTarget{Kind: "Deployment", Name: "api"}
			ts.Spec.TaskRunner = kubagev1alpha1.TaskRunnerJob
		})
		ts = waitForTerminal(ctx, ts)
		expectConfigMapMissing(ctx, ts)
		for _, t := range ts.Status.Plan.Tasks {
			Expect(t.JobName).NotTo(BeEmpty(), "task %s names its Job", t.ID)
		}

		created := jobs.createdPerTask()
		Expect(created).NotTo(BeEmpty())
		Expect(created).To(HaveEach(1), "one Job per task")
		var ran int
		for _, run := range kubelet.Runs() {
			if run.Namespace == ns {
				ran++
				Expect(run.Reason).To(Equal("Completed"), "pod %s output:\n%s", run.Name, run.Output)
			}
		}
		Expect(ran).To(Equal(len(created)), "the harness ran each task's pod once")
		expectNothingLeftRunning(ctx, ns)
	})

	It("resumes after the operator is killed mid-Investigating, with no duplicate Job", func(ctx SpecContext) {
		ns := newNamespace(ctx)
		brokenConfigApp(ctx, ns)
		jobs := watchJobs(ctx, ns)
		// No kubelet harness yet: the task Jobs' pods stay Pending, so the session is held in
		// Investigating with its Jobs running.
		first := startManager(managerArgs(agentImage)...)
		ts := createTroubleshoot(ctx, ns, "api-down", func(ts *kubagev1alpha1.Troubleshoot) {
			ts.Spec.Target = &kubagev1alpha1.TroubleshootTarget{Kind: "Deployment", Name: "api"}
			ts.Spec.TaskRunner = kubagev1alpha1.TaskRunnerJob
		})
		Eventually(func(g Gomega) {
			g.Expect(kube.Get(ctx, client.ObjectKeyFromObject(ts), ts)).To(Succeed())
			g.Expect(ts.Status.Phase).To(Equal(kubagev1alpha1.PhaseInvestigating))
			g.Expect(jobs.createdPerTask()).NotTo(BeEmpty())
			g.Expect(agentPods(ctx, g, ns)).NotTo(BeEmpty())
		}).WithContext(ctx).Should(Succeed())

		By("killing the operator while its Jobs run")
		first.Kill()
		before := jobs.createdPerTask()

		By("starting the harness and a new operator")
		startKubelet(ctx)
		startManager(managerArgs(agentImage)...)
		ts = waitForTerminal(ctx, ts)
		expectConfigMapMissing(ctx, ts)

		after := jobs.createdPerTask()
		for task, n := range before {
			Expect(after).To(HaveKeyWithValue(task, n), "task %s was not started again", task)
		}
		Expect(after).To(HaveEach(1), "one Job per task across the restart")
		for _, t := range ts.Status.Plan.Tasks {
			Expect(t.Attempts).To(BeNumerically("<=", 1), "task %s", t.ID)
		}
		expectNothingLeftRunning(ctx, ns)
	})

	It("ends in a clear state when the agent image does not exist", func(ctx SpecContext) {
		ns := newNamespace(ctx)
		brokenConfigApp(ctx, ns)
		startKubelet(ctx)
		startManager(managerArgs("kubage:does-not-exist")...)

		ts := createTroubleshoot(ctx, ns, "api-down", func(ts *kubagev1alpha1.Troubleshoot) {
			ts.Spec.Target = &kubagev1alpha1.TroubleshootTarget{Kind: "Deployment", Name: "api"}
			ts.Spec.TaskRunner = kubagev1alpha1.TaskRunnerJob
		})
		ts = waitForTerminal(ctx, ts)
		Expect(ts.Status.Plan).NotTo(BeNil())
		var failed []string
		for _, t := range ts.Status.Plan.Tasks {
			if t.State == kubagev1alpha1.TaskFailed {
				failed = append(failed, t.Summary)
			}
		}
		Expect(failed).NotTo(BeEmpty(), "the task whose pod never started failed")
		Expect(failed[0]).To(And(ContainSubstring("cannot start its pod"), ContainSubstring("ImagePullBackOff")))
		Expect(ts.Status.Conditions).NotTo(BeEmpty())
		Expect(ts.Status.Conditions[0].Type).To(Equal(kubagev1alpha1.ReadyCondition))
		GinkgoWriter.Printf("session with a missing agent image ended %s: %s\n", ts.Status.Phase, ts.Status.Conditions[0].Message)
		expectNothingLeftRunning(ctx, ns)
	})

	It("waits for approval in Remediate mode and runs only the approved low-risk action", func(ctx SpecContext) {
		ns := newNamespace(ctx)
		pod := evictedPod(ctx, ns, "batch-7f9c")
		startManager(managerArgs(agentImage)...)

		ts := createTroubleshoot(ctx, ns, "evicted", func(ts *kubagev1alpha1.Troubleshoot) {
			ts.Spec.Problem = "A batch pod was killed"
			ts.Spec.Target = &kubagev1alpha1.TroubleshootTarget{Kind: "Pod", Name: pod.Name}
			ts.Spec.Mode = kubagev1alpha1.ModeRemediate
			ts.Spec.TaskRunner = kubagev1alpha1.TaskRunnerInProcess
		})
		Eventually(func(g Gomega) {
			g.Expect(kube.Get(ctx, client.ObjectKeyFromObject(ts), ts)).To(Succeed())
			g.Expect(ts.Status.Phase).To(Equal(kubagev1alpha1.PhaseAwaitingApproval))
		}).WithContext(ctx).WithTimeout(time.Minute).Should(Succeed())
		Expect(ts.Status.RootCause).NotTo(BeNil())
		Expect(ts.Status.RootCause.Category).To(Equal("PodEvicted"))
		var deleteID string
		for _, a := range ts.Status.Remediation.Actions {
			Expect(a.Approval).To(Equal(kubagev1alpha1.ApprovalPending))
			if strings.Contains(a.Command, "delete pod "+pod.Name) {
				deleteID = a.ID
			}
		}
		Expect(deleteID).NotTo(BeEmpty(), "actions: %+v", ts.Status.Remediation.Actions)
		Consistently(func(g Gomega) {
			_, err := clients.CoreV1().Pods(ns).Get(ctx, pod.Name, metav1.GetOptions{})
			g.Expect(err).NotTo(HaveOccurred())
		}).WithContext(ctx).WithTimeout(2*time.Second).Should(Succeed(), "nothing runs before approval")

		By("approving the deletion and rejecting the rest")
		patch := client.MergeFrom(ts.DeepCopy())
		ts.Spec.Approvals = nil
		for _, a := range ts.Status.Remediation.Actions {
			decision := kubagev1alpha1.DecisionRejected
			if a.ID == deleteID {
				decision = kubagev1alpha1.DecisionApproved
			}
			ts.Spec.Approvals = append(ts.Spec.Approvals, kubagev1alpha1.ActionApproval{ActionID: a.ID, Decision: decision})
		}
		Expect(kube.Patch(ctx, ts, patch)).To(Succeed())
		ts = waitForTerminal(ctx, ts)
		Expect(ts.Status.Phase).To(Equal(kubagev1alpha1.PhaseCompleted))
		for _, a := range ts.Status.Remediation.Actions {
			if a.ID == deleteID {
				Expect(a.Approval).To(Equal(kubagev1alpha1.ApprovalExecuted), "result: %s", a.Result)
			} else {
				Expect(a.Approval).To(Equal(kubagev1alpha1.ApprovalRejected), "action %s", a.ID)
			}
		}
		Eventually(func() bool {
			_, err := clients.CoreV1().Pods(ns).Get(ctx, pod.Name, metav1.GetOptions{})
			return err != nil
		}).WithContext(ctx).Should(BeTrue(), "the approved deletion ran")
	})
})

// brokenConfigApp creates Deployment api whose config-reloader sidecar reads a ConfigMap that
// does not exist, and waits until the pods show it.
func brokenConfigApp(ctx context.Context, ns string) {
	GinkgoHelper()
	d := deployment("api", "example/api:2.1", 1, map[string]string{
		annBehavior: "create-config-error", "sim.kubage.io/container": "config-reloader",
	})
	d.Spec.Template.Spec.Containers = append(d.Spec.Template.Spec.Containers, corev1.Container{
		Name: "config-reloader", Image: "example/config-reloader:1.2",
		EnvFrom: []corev1.EnvFromSource{{ConfigMapRef: &corev1.ConfigMapEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "api-flags"}}}},
	})
	_, err := clients.AppsV1().Deployments(ns).Create(ctx, d, metav1.CreateOptions{})
	Expect(err).NotTo(HaveOccurred())
	Eventually(func(g Gomega) {
		pods := podsOf(ctx, g, ns, "api")
		g.Expect(pods).NotTo(BeEmpty())
		var reasons []string
		for _, cs := range pods[0].Status.ContainerStatuses {
			if cs.State.Waiting != nil {
				reasons = append(reasons, cs.State.Waiting.Reason)
			}
		}
		g.Expect(reasons).To(ContainElement("CreateContainerConfigError"))
	}).WithContext(ctx).Should(Succeed())
}

// waitForTerminal waits for Completed or Failed and prints how long the session took.
func waitForTerminal(ctx context.Context, ts *kubagev1alpha1.Troubleshoot) *kubagev1alpha1.Troubleshoot {
	GinkgoHelper()
	Eventually(func(g Gomega) {
		g.Expect(kube.Get(ctx, client.ObjectKeyFromObject(ts), ts)).To(Succeed())
		g.Expect(ts.Status.Phase.IsTerminal()).To(BeTrue(), "phase %q", ts.Status.Phase)
	}).WithContext(ctx).WithTimeout(90 * time.Second).Should(Succeed())
	if ts.Status.CompletionTime != nil {
		GinkgoWriter.Printf("session %s/%s (runner %s): created → %s in %s\n", ts.Namespace, ts.Name, ts.Spec.TaskRunner,
			ts.Status.Phase, ts.Status.CompletionTime.Sub(ts.CreationTimestamp.Time))
	}
	return ts
}

// expectConfigMapMissing checks the conclusion about brokenConfigApp and its report.
func expectConfigMapMissing(ctx context.Context, ts *kubagev1alpha1.Troubleshoot) {
	GinkgoHelper()
	Expect(ts.Status.Phase).To(Equal(kubagev1alpha1.PhaseCompleted))
	Expect(ts.Status.RootCause).NotTo(BeNil())
	Expect(ts.Status.RootCause.Category).To(Equal("ConfigMapMissing"), "summary: %s", ts.Status.RootCause.Summary)
	Expect(ts.Status.RootCause.AffectedObjects).NotTo(BeEmpty())
	culprit := ts.Status.RootCause.AffectedObjects[0]
	Expect(culprit.Kind + "/" + culprit.Name).To(Equal("ConfigMap/api-flags"))
	Expect(ts.Status.RootCause.Confidence).To(BeNumerically(">=", 80))
	Expect(ts.Status.ReportRef).NotTo(BeNil())
	cm, err := clients.CoreV1().ConfigMaps(ts.Namespace).Get(ctx, ts.Status.ReportRef.Name, metav1.GetOptions{})
	Expect(err).NotTo(HaveOccurred())
	Expect(cm.Data[kubagev1alpha1.ReportMarkdownKey]).To(ContainSubstring("ConfigMapMissing"))
}

// expectNothingLeftRunning checks that a finished session left no Job or agent pod behind.
func expectNothingLeftRunning(ctx context.Context, ns string) {
	GinkgoHelper()
	Eventually(func(g Gomega) {
		jobs, err := clients.BatchV1().Jobs(ns).List(ctx, metav1.ListOptions{})
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(jobs.Items).To(BeEmpty())
		g.Expect(agentPods(ctx, g, ns)).To(BeEmpty())
	}).WithContext(ctx).Should(Succeed())
}

// jobWatch counts the task Jobs created in a namespace, by task id, for the whole spec.
type jobWatch struct {
	mu      sync.Mutex
	created map[string]map[string]bool // session/run/task id → Job UIDs
}

func watchJobs(ctx context.Context, ns string) *jobWatch {
	GinkgoHelper()
	w, err := clients.BatchV1().Jobs(ns).Watch(ctx, metav1.ListOptions{
		LabelSelector:  labels.Set{runner.LabelAgent: runner.ComponentAgent}.String(),
		TimeoutSeconds: ptr.To[int64](600),
	})
	Expect(err).NotTo(HaveOccurred())
	jw := &jobWatch{created: map[string]map[string]bool{}}
	done := make(chan struct{})
	go func() {
		defer GinkgoRecover()
		defer close(done)
		for ev := range w.ResultChan() {
			job, ok := ev.Object.(*batchv1.Job)
			if !ok || ev.Type != watch.Added {
				continue
			}
			key := job.Labels[runner.LabelTroubleshoot] + "/" + job.Labels[runner.LabelRun] + "/" + job.Labels[runner.LabelTaskID]
			jw.mu.Lock()
			if jw.created[key] == nil {
				jw.created[key] = map[string]bool{}
			}
			jw.created[key][string(job.UID)] = true
			jw.mu.Unlock()
		}
	}()
	DeferCleanup(func() {
		w.Stop()
		<-done
	})
	return jw
}

// createdPerTask is the number of distinct Jobs created for each (session, run, task id).
func (jw *jobWatch) createdPerTask() map[string]int {
	jw.mu.Lock()
	defer jw.mu.Unlock()
	out := make(map[string]int, len(jw.created))
	for k, uids := range jw.created {
		out[k] = len(uids)
	}
	return out
}

// evictedPod creates a pod that the kubelet evicted for memory pressure, on a node of its own
// that kwok does not manage (so nothing rewrites the pod's status) and the scheduler avoids.
func evictedPod(ctx context.Context, ns, name string) *corev1.Pod {
	GinkgoHelper()
	node := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: "batch-" + ns},
		Spec:       corev1.NodeSpec{Taints: []corev1.Taint{{Key: "kubage.io/e2e-batch", Effect: corev1.TaintEffectNoSchedule}}},
	}
	node, err := clients.CoreV1().Nodes().Create(ctx, node, metav1.CreateOptions{})
	Expect(err).NotTo(HaveOccurred())
	// Healthy by now: the memory pressure that caused the eviction has passed. The node
	// controller may touch the new node at the same time, hence the retry.
	Expect(retry.RetryOnConflict(retry.DefaultRetry, func() error {
		cur, err := clients.CoreV1().Nodes().Get(ctx, node.Name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		now := metav1.Now()
		cur.Status.Conditions = []corev1.NodeCondition{
			{Type: corev1.NodeReady, Status: corev1.ConditionTrue, Reason: "KubeletReady", LastHeartbeatTime: now, LastTransitionTime: now},
			{Type: corev1.NodeMemoryPressure, Status: corev1.ConditionFalse, Reason: "KubeletHasSufficientMemory", LastHeartbeatTime: now, LastTransitionTime: now},
		}
		_, err = clients.CoreV1().Nodes().UpdateStatus(ctx, cur, metav1.UpdateOptions{})
		return err
	})).To(Succeed())
	DeferCleanup(func(ctx SpecContext) {
		Expect(clients.CoreV1().Nodes().Delete(ctx, node.Name, metav1.DeleteOptions{})).To(Succeed())
	})
	pod := simplePod(name, "example/batch:1.0", nil)
	pod.Spec.NodeName = node.Name
	pod, err = clients.CoreV1().Pods(ns).Create(ctx, pod, metav1.CreateOptions{})
	Expect(err).NotTo(HaveOccurred())
	pod.Status = corev1.PodStatus{
		Phase:   corev1.PodFailed,
		Reason:  "Evicted",
		Message: "The node was low on resource: memory. Threshold quantity: 100Mi, available: 42Mi. Container batch was using 1450Mi, request is 512Mi, has larger consumption of memory.",
	}
	_, err = clients.CoreV1().Pods(ns).UpdateStatus(ctx, pod, metav1.UpdateOptions{})
	Expect(err).NotTo(HaveOccurred())
	return pod
}
