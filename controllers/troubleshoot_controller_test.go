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

package controllers_test

import (
	"context"
	"fmt"
	"runtime/pprof"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	kubagev1alpha1 "github.com/kubage/kubage/api/v1alpha1"
	"github.com/kubage/kubage/controllers"
	"github.com/kubage/kubage/internal/agent"
	"github.com/kubage/kubage/internal/remediate"
	"github.com/kubage/kubage/internal/runner"
	"github.com/kubage/kubage/internal/session"
	fx "github.com/kubage/kubage/test/fixtures"
)

// These specs run their own managers (a custom brain, a runner they can kill) on their
// own shard: their Troubleshoots carry the shard label, which the suite's manager ignores.
var _ = Describe("Troubleshoot sessions", Ordered, func() {
	var cs kubernetes.Interface

	BeforeAll(func() {
		var err error
		cs, err = kubernetes.NewForConfig(cfg)
		Expect(err).NotTo(HaveOccurred())
	})

	It("investigates a crash-looping Deployment through every phase to its root cause, read-only", func(ctx SpecContext) {
		ns := newNamespace(ctx, "crashloop")
		createCrashLoopApp(ctx, ns)
		depBefore := &appsv1.Deployment{}
		Expect(k8sClient.Get(ctx, client.ObjectKey{Namespace: ns, Name: "web"}, depBefore)).To(Succeed())
		startManager(ctx, controllers.Options{Clientset: cs, TaskPollInterval: 200 * time.Millisecond})

		ts := newSession(ns, "web-restarts", func(ts *kubagev1alpha1.Troubleshoot) {
			ts.Spec.Target = &kubagev1alpha1.TroubleshootTarget{Kind: "Deployment", Name: "web"}
		})
		Expect(k8sClient.Create(ctx, ts)).To(Succeed())
		waitForPhase(ctx, ts, kubagev1alpha1.PhaseCompleted)

		By("naming the crash loop of Deployment web with evidence")
		Expect(ts.Status.RootCause).NotTo(BeNil())
		Expect(ts.Status.RootCause.Category).To(Equal("CrashLoopBackOff"))
		Expect(ts.Status.RootCause.AffectedObjects).To(ContainElement(kubagev1alpha1.ObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Namespace: ns, Name: "web"}))
		Expect(ts.Status.Evidence).NotTo(BeEmpty())
		Expect(ts.Status.Usage.ToolCalls).To(BeNumerically(">", 0))
		Expect(ts.Status.ObservedGeneration).To(Equal(ts.Generation))
		ready := meta.FindStatusCondition(ts.Status.Conditions, kubagev1alpha1.ReadyCondition)
		Expect(ready.Status).To(Equal(metav1.ConditionTrue))
		Expect(ready.Reason).To(Equal(kubagev1alpha1.SucceededReason))
		Expect(meta.IsStatusConditionTrue(ts.Status.Conditions, kubagev1alpha1.RootCauseFoundCondition)).To(BeTrue())
		Expect(meta.FindStatusCondition(ts.Status.Conditions, kubagev1alpha1.DegradedCondition)).To(BeNil())

		By("emitting an Event when it starts and one when it ends, with the root cause and every phase it went through")
		Eventually(func(g Gomega) {
			g.Expect(eventReasons(ctx, ns, ts.Name)).To(Equal([]string{"Pending", "Completed"}))
		}).Should(Succeed())
		Expect(eventNote(ctx, ns, ts.Name, "Completed")).To(Equal(ts.Status.RootCause.Summary +
			" (phases: Pending → Planning → Investigating → Regulating → Planning → Investigating → Regulating → Summarizing → Completed)"))

		By("writing a report ConfigMap and task results, all owned by the Troubleshoot")
		Expect(ts.Status.ReportRef).NotTo(BeNil())
		report := &corev1.ConfigMap{}
		Expect(k8sClient.Get(ctx, client.ObjectKey{Namespace: ns, Name: ts.Status.ReportRef.Name}, report)).To(Succeed())
		Expect(report.Name).To(Equal("web-restarts-report"))
		Expect(report.Data[kubagev1alpha1.ReportMarkdownKey]).To(ContainSubstring("## Root cause"))
		Expect(report.Data[kubagev1alpha1.ReportJSONKey]).To(ContainSubstring(`"category": "CrashLoopBackOff"`))
		cms := &corev1.ConfigMapList{}
		Expect(k8sClient.List(ctx, cms, client.InNamespace(ns), client.MatchingLabels{runner.LabelTroubleshoot: ts.Name})).To(Succeed())
		Expect(len(cms.Items)).To(BeNumerically(">=", 3), "results, the checkpoint and the report")
		for _, cm := range cms.Items {
			Expect(cm.OwnerReferences).To(ConsistOf(HaveField("UID", ts.UID)), "ConfigMap %s goes away with the Troubleshoot", cm.Name)
		}

		By("changing nothing else in Diagnose mode")
		depAfter := &appsv1.Deployment{}
		Expect(k8sClient.Get(ctx, client.ObjectKey{Namespace: ns, Name: "web"}, depAfter)).To(Succeed())
		Expect(depAfter.ResourceVersion).To(Equal(depBefore.ResourceVersion))
		pods := &corev1.PodList{}
		Expect(k8sClient.List(ctx, pods, client.InNamespace(ns))).To(Succeed())
		Expect(pods.Items).To(HaveLen(2))

		By("counting tasks and sessions in the kubage_ metrics")
		mfs, err := ctrlmetrics.Registry.Gather()
		Expect(err).NotTo(HaveOccurred())
		names := map[string]bool{}
		for _, mf := range mfs {
			names[mf.GetName()] = true
		}
		Expect(names).To(HaveKey("kubage_troubleshoot_tasks_total"))
		Expect(names).To(HaveKey("kubage_troubleshoot_sessions"))
		Expect(names).To(HaveKey("kubage_troubleshoot_time_to_root_cause_seconds"))
		Expect(names).To(HaveKey("kubage_tool_calls_total"))
	})

	It("resumes after the operator dies mid-Investigating without launching a finished task again", func(ctx SpecContext) {
		ns := newNamespace(ctx, "resume")
		createCrashLoopApp(ctx, ns)

		// The first operator finishes i2-t1 but is killed while i2-t2 still runs.
		first := newCountingInvestigator(cs, "i2-t2")
		firstRunner := runner.NewInProcess(cs, first, runner.InProcessOptions{})
		stop := startManager(ctx, controllers.Options{Clientset: cs, TaskPollInterval: 200 * time.Millisecond,
			TaskRunners: map[kubagev1alpha1.TaskRunner]runner.Runner{kubagev1alpha1.TaskRunnerInProcess: firstRunner}})
		ts := newSession(ns, "resume", func(ts *kubagev1alpha1.Troubleshoot) {
			ts.Spec.Target = &kubagev1alpha1.TroubleshootTarget{Kind: "Deployment", Name: "web"}
		})
		Expect(k8sClient.Create(ctx, ts)).To(Succeed())
		Eventually(func(g Gomega) {
			g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(ts), ts)).To(Succeed())
			g.Expect(ts.Status.Phase).To(Equal(kubagev1alpha1.PhaseInvestigating))
			g.Expect(ts.Status.Iteration).To(Equal(int32(2)))
			g.Expect(first.count("i2-t2")).To(Equal(1))
			g.Expect(resultExists(ctx, ns, "resume-i2-t1")).To(BeTrue())
		}).Should(Succeed())
		stop()
		firstRunner.Stop()
		Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(ts), ts)).To(Succeed())
		Expect(ts.Status.Phase).To(Equal(kubagev1alpha1.PhaseInvestigating), "killed mid-Investigating")
		Expect(resultExists(ctx, ns, "resume-i2-t2")).To(BeFalse(), "the killed task left no result")

		second := newCountingInvestigator(cs)
		secondRunner := runner.NewInProcess(cs, second, runner.InProcessOptions{})
		DeferCleanup(secondRunner.Stop)
		startManager(ctx, controllers.Options{Clientset: cs, TaskPollInterval: 200 * time.Millisecond,
			TaskRunners: map[kubagev1alpha1.TaskRunner]runner.Runner{kubagev1alpha1.TaskRunnerInProcess: secondRunner}})
		waitForPhase(ctx, ts, kubagev1alpha1.PhaseCompleted)

		Expect(ts.Status.RootCause.Category).To(Equal("CrashLoopBackOff"))
		Expect(first.all()).To(Equal(map[string]int{"i1-t1": 1, "i2-t1": 1, "i2-t2": 1}), "the first operator ran each task once")
		Expect(second.all()).To(Equal(map[string]int{"i2-t2": 1}), "the second operator only reran the task that was killed")
		for _, t := range ts.Status.Plan.Tasks {
			Expect(t.State).To(Equal(kubagev1alpha1.TaskSucceeded), t.ID)
		}
	})

	It("stops at the tool-call budget and still concludes from what it found", func(ctx SpecContext) {
		ns := newNamespace(ctx, "budget")
		createCrashLoopApp(ctx, ns)
		startManager(ctx, controllers.Options{Clientset: cs, TaskPollInterval: 200 * time.Millisecond})
		ts := newSession(ns, "budget", func(ts *kubagev1alpha1.Troubleshoot) {
			ts.Spec.Target = &kubagev1alpha1.TroubleshootTarget{Kind: "Deployment", Name: "web"}
			ts.Spec.Budget.MaxToolCalls = 1
		})
		Expect(k8sClient.Create(ctx, ts)).To(Succeed())
		waitForPhase(ctx, ts, kubagev1alpha1.PhaseCompleted)
		ready := meta.FindStatusCondition(ts.Status.Conditions, kubagev1alpha1.ReadyCondition)
		Expect(ready.Reason).To(Equal(kubagev1alpha1.BudgetExhaustedReason))
		Expect(ready.Message).To(ContainSubstring("tool-call budget of 1 used"))
		degraded := meta.FindStatusCondition(ts.Status.Conditions, kubagev1alpha1.DegradedCondition)
		Expect(degraded).NotTo(BeNil())
		Expect(degraded.Status).To(Equal(metav1.ConditionTrue))
		Expect(ts.Status.RootCause).NotTo(BeNil(), "what was found is summarized")
		Expect(ts.Status.Iteration).To(Equal(int32(1)))
	})

	It("leaves Troubleshoots of another shard alone", func(ctx SpecContext) {
		ns := newNamespace(ctx, "shard")
		startManager(ctx, controllers.Options{Clientset: cs})
		ts := newSession(ns, "elsewhere", func(ts *kubagev1alpha1.Troubleshoot) { ts.Labels[kubagev1alpha1.ShardingKeyLabel] = "elsewhere" })
		Expect(k8sClient.Create(ctx, ts)).To(Succeed())
		Consistently(func(g Gomega) {
			g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(ts), ts)).To(Succeed())
			g.Expect(ts.Status.Phase).To(BeEmpty())
		}).WithTimeout(time.Second).Should(Succeed())
	})

	It("rejects zero budgets at the API", func(ctx SpecContext) {
		ns := newNamespace(ctx, "zero")
		for _, field := range []string{"maxIterations", "maxToolCalls", "maxTokens", "parallelism"} {
			obj := object("Troubleshoot", "zero", ns, "problem: p\nbudget:\n  "+field+": 0")
			err := k8sClient.Create(ctx, obj)
			Expect(apierrors.IsInvalid(err)).To(BeTrue(), "%s: 0 was accepted: %v", field, err)
			Expect(err.Error()).To(ContainSubstring("spec.budget." + field))
		}
	})

	It("waits, stalled, for a runner the operator does not have, and goes on when the spec changes", func(ctx SpecContext) {
		ns := newNamespace(ctx, "runner")
		createCrashLoopApp(ctx, ns)
		startManager(ctx, controllers.Options{Clientset: cs, TaskPollInterval: 200 * time.Millisecond})
		ts := newSession(ns, "job", func(ts *kubagev1alpha1.Troubleshoot) { ts.Spec.TaskRunner = kubagev1alpha1.TaskRunnerJob })
		Expect(k8sClient.Create(ctx, ts)).To(Succeed())
		Eventually(func(g Gomega) {
			g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(ts), ts)).To(Succeed())
			stalled := meta.FindStatusCondition(ts.Status.Conditions, kubagev1alpha1.StalledCondition)
			g.Expect(stalled).NotTo(BeNil())
			g.Expect(stalled.Reason).To(Equal(kubagev1alpha1.RunnerUnavailableReason))
			g.Expect(ts.Status.Phase).To(Equal(kubagev1alpha1.PhasePending))
		}).Should(Succeed())

		patch := client.MergeFrom(ts.DeepCopy())
		ts.Spec.TaskRunner = kubagev1alpha1.TaskRunnerInProcess
		Expect(k8sClient.Patch(ctx, ts, patch)).To(Succeed())
		waitForPhase(ctx, ts, kubagev1alpha1.PhaseCompleted)
		Expect(meta.FindStatusCondition(ts.Status.Conditions, kubagev1alpha1.StalledCondition)).To(BeNil())
	})

	It("does not rerun on a spec change but reruns on the annotation, removing the old run", func(ctx SpecContext) {
		ns := newNamespace(ctx, "rerun")
		createCrashLoopApp(ctx, ns)
		counting := newCountingInvestigator(cs)
		rn := runner.NewInProcess(cs, counting, runner.InProcessOptions{})
		DeferCleanup(rn.Stop)
		startManager(ctx, controllers.Options{Clientset: cs, TaskPollInterval: 200 * time.Millisecond,
			TaskRunners: map[kubagev1alpha1.TaskRunner]runner.Runner{kubagev1alpha1.TaskRunnerInProcess: rn}})
		ts := newSession(ns, "rerun", func(ts *kubagev1alpha1.Troubleshoot) {
			ts.Spec.Target = &kubagev1alpha1.TroubleshootTarget{Kind: "Deployment", Name: "web"}
		})
		Expect(k8sClient.Create(ctx, ts)).To(Succeed())
		waitForPhase(ctx, ts, kubagev1alpha1.PhaseCompleted)
		firstRun := counting.all()
		completedAt := ts.Status.CompletionTime

		By("recording a spec change without rerunning")
		patch := client.MergeFrom(ts.DeepCopy())
		ts.Spec.Problem = "web answers 500 since noon"
		Expect(k8sClient.Patch(ctx, ts, patch)).To(Succeed())
		Eventually(func(g Gomega) {
			g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(ts), ts)).To(Succeed())
			g.Expect(ts.Status.ObservedGeneration).To(Equal(int64(2)))
			outdated := meta.FindStatusCondition(ts.Status.Conditions, kubagev1alpha1.OutdatedCondition)
			g.Expect(outdated).NotTo(BeNil())
			g.Expect(outdated.Status).To(Equal(metav1.ConditionTrue))
			g.Expect(outdated.Message).To(ContainSubstring(session.RerunAnnotation))
		}).Should(Succeed())
		Expect(ts.Status.Phase).To(Equal(kubagev1alpha1.PhaseCompleted))
		Expect(ts.Status.CompletionTime).To(Equal(completedAt))
		Expect(counting.all()).To(Equal(firstRun), "no task ran again")

		By("rerunning on a new annotation value")
		patch = client.MergeFrom(ts.DeepCopy())
		ts.Annotations = map[string]string{session.RerunAnnotation: "1"}
		Expect(k8sClient.Patch(ctx, ts, patch)).To(Succeed())
		Eventually(func(g Gomega) {
			g.Expect(eventReasons(ctx, ns, ts.Name)).To(ContainElement("Pending"))
			g.Expect(counting.count("i1-t1")).To(Equal(2))
		}).Should(Succeed())
		waitForPhase(ctx, ts, kubagev1alpha1.PhaseCompleted)
		Expect(meta.FindStatusCondition(ts.Status.Conditions, kubagev1alpha1.OutdatedCondition)).To(BeNil())
		Expect(ts.Status.CompletionTime.Time).To(BeTemporally(">=", completedAt.Time))
		cms := &corev1.ConfigMapList{}
		Expect(k8sClient.List(ctx, cms, client.InNamespace(ns), client.MatchingLabels{runner.LabelComponent: runner.ComponentTaskResult})).To(Succeed())
		Expect(cms.Items).NotTo(BeEmpty())
		for _, cm := range cms.Items {
			Expect(cm.Labels).To(HaveKeyWithValue(runner.LabelRun, runner.RunToken("1")), "only the new run's results are left: %s", cm.Name)
		}
	})

	It("runs an approved low-risk action in Remediate mode and nothing else", func(ctx SpecContext) {
		ns := newNamespace(ctx, "remediate")
		createCrashLoopApp(ctx, ns)
		brain := &proposingBrain{Brain: agent.NewRuleEngine(cs), actions: []agent.Action{
			{ID: "restart", Description: "Restart the rollout", Command: "kubectl -n " + ns + " rollout restart deployment/web", Risk: agent.RiskLow},
			{ID: "scale", Description: "Stop the pods", Command: "kubectl -n " + ns + " scale deployment/web --replicas=0", Risk: agent.RiskLow},
			{ID: "undo", Description: "Roll back", Command: "kubectl -n " + ns + " rollout undo deployment/web", Risk: agent.RiskMedium},
		}}
		startManager(ctx, controllers.Options{Clientset: cs, TaskPollInterval: 200 * time.Millisecond,
			Brains: func(context.Context, *kubagev1alpha1.Troubleshoot) (agent.Brain, error) { return brain, nil }})

		By("proposing without acting in Diagnose mode")
		diag := newSession(ns, "diagnose", nil)
		Expect(k8sClient.Create(ctx, diag)).To(Succeed())
		waitForPhase(ctx, diag, kubagev1alpha1.PhaseCompleted)
		Expect(diag.Status.Remediation.Actions).To(HaveLen(3))
		Expect(diag.Status.Remediation.Actions).To(HaveEach(HaveField("Approval", kubagev1alpha1.ApprovalPending)))
		dep := &appsv1.Deployment{}
		Expect(k8sClient.Get(ctx, client.ObjectKey{Namespace: ns, Name: "web"}, dep)).To(Succeed())
		Expect(dep.Spec.Template.Annotations).NotTo(HaveKey(remediate.RestartAnnotation))

		By("waiting for decisions in Remediate mode")
		ts := newSession(ns, "remediate", func(ts *kubagev1alpha1.Troubleshoot) { ts.Spec.Mode = kubagev1alpha1.ModeRemediate })
		Expect(k8sClient.Create(ctx, ts)).To(Succeed())
		waitForPhase(ctx, ts, kubagev1alpha1.PhaseAwaitingApproval)
		actions := ts.Status.Remediation.Actions
		Expect(actions).To(HaveLen(3))
		Expect(meta.FindStatusCondition(ts.Status.Conditions, kubagev1alpha1.RemediationApprovedCondition).Status).To(Equal(metav1.ConditionFalse))
		Expect(meta.FindStatusCondition(ts.Status.Conditions, kubagev1alpha1.ReadyCondition).Reason).To(Equal(kubagev1alpha1.AwaitingApprovalReason))

		By("executing the approved low-risk action only")
		patch := client.MergeFrom(ts.DeepCopy())
		ts.Spec.Approvals = []kubagev1alpha1.ActionApproval{
			{ActionID: actions[0].ID, Decision: kubagev1alpha1.DecisionApproved},
			{ActionID: actions[1].ID, Decision: kubagev1alpha1.DecisionRejected},
			{ActionID: actions[2].ID, Decision: kubagev1alpha1.DecisionApproved},
		}
		Expect(k8sClient.Patch(ctx, ts, patch)).To(Succeed())
		waitForPhase(ctx, ts, kubagev1alpha1.PhaseCompleted)
		actions = ts.Status.Remediation.Actions
		Expect(actions[0].Approval).To(Equal(kubagev1alpha1.ApprovalExecuted))
		Expect(actions[0].Result).To(ContainSubstring("Restarted the rollout of Deployment/web"))
		Expect(actions[1].Approval).To(Equal(kubagev1alpha1.ApprovalRejected))
		Expect(actions[2].Approval).To(Equal(kubagev1alpha1.ApprovalApproved))
		Expect(actions[2].Result).To(ContainSubstring("only Low-risk actions are executed"))
		Expect(meta.IsStatusConditionTrue(ts.Status.Conditions, kubagev1alpha1.RemediationApprovedCondition)).To(BeTrue())
		Expect(meta.FindStatusCondition(ts.Status.Conditions, kubagev1alpha1.OutdatedCondition)).To(BeNil(), "approvals do not make the result outdated")

		Expect(k8sClient.Get(ctx, client.ObjectKey{Namespace: ns, Name: "web"}, dep)).To(Succeed())
		Expect(dep.Spec.Template.Annotations).To(HaveKeyWithValue(remediate.RestartAnnotation, string(ts.UID)+"/"+actions[0].ID))
		Expect(*dep.Spec.Replicas).To(Equal(int32(2)), "the rejected scale did not run")
		Expect(eventReasons(ctx, ns, ts.Name)).To(ContainElements("AwaitingApproval", "Remediating", "Completed"))
		Expect(eventNote(ctx, ns, ts.Name, "AwaitingApproval")).To(HavePrefix("Root cause: " + ts.Status.RootCause.Summary + "; 3 remediation action(s) await a decision"))
	})
})

func newManager() ctrl.Manager {
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme:                 k8sClient.Scheme(),
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		// The suite's manager and these run controllers of the same names in one process.
		Controller: config.Controller{SkipNameValidation: ptr.To(true)},
	})
	Expect(err).NotTo(HaveOccurred())
	return mgr
}

// stopTimeout bounds a manager's stop in these specs.
const stopTimeout = 20 * time.Second

// runManager starts mgr until the spec ends or stop is called.
func runManager(mgr ctrl.Manager) (stop func()) {
	mctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		defer GinkgoRecover()
		done <- mgr.Start(mctx)
	}()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			cancel()
			select {
			case err := <-done:
				Expect(err).NotTo(HaveOccurred())
			case <-time.After(stopTimeout):
				// Name the runnable that ignores cancel: every goroutine's stack, before failing.
				Expect(pprof.Lookup("goroutine").WriteTo(GinkgoWriter, 2)).To(Succeed())
				Fail(fmt.Sprintf("the manager did not stop within %s of its cancel (goroutine stacks above)", stopTimeout))
			}
		})
	}
	DeferCleanup(stop)
	return stop
}

// testShard is the shard of the managers these specs start.
const testShard = "troubleshoot-specs"

// startManager runs a Troubleshoot manager with opts on testShard until the spec ends or
// stop is called.
func startManager(ctx context.Context, opts controllers.Options) (stop func()) {
	mgr := newManager()
	opts.MaxConcurrentReconciles = 2
	opts.WatchSelector = labels.SelectorFromSet(labels.Set{kubagev1alpha1.ShardingKeyLabel: testShard})
	Expect(controllers.SetupTroubleshoot(mgr, opts)).To(Succeed())
	return runManager(mgr)
}

func newSession(ns, name string, mutate func(*kubagev1alpha1.Troubleshoot)) *kubagev1alpha1.Troubleshoot {
	ts := &kubagev1alpha1.Troubleshoot{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: map[string]string{kubagev1alpha1.ShardingKeyLabel: testShard}},
		Spec:       kubagev1alpha1.TroubleshootSpec{Problem: "Pods of web keep restarting"},
	}
	if mutate != nil {
		mutate(ts)
	}
	return ts
}

func waitForPhase(ctx context.Context, ts *kubagev1alpha1.Troubleshoot, phase kubagev1alpha1.TroubleshootPhase) {
	GinkgoHelper()
	Eventually(func(g Gomega) {
		g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(ts), ts)).To(Succeed())
		g.Expect(ts.Status.Phase).To(Equal(phase), "conditions: %v", ts.Status.Conditions)
		g.Expect(ts.Status.ObservedGeneration).To(Equal(ts.Generation))
	}).Should(Succeed())
}

// eventReasons lists the reasons of the Events about a Troubleshoot in creation order.
func eventReasons(ctx context.Context, ns, name string) []string {
	list := &eventsv1.EventList{}
	Expect(k8sClient.List(ctx, list, client.InNamespace(ns))).To(Succeed())
	var evs []eventsv1.Event
	for _, e := range list.Items {
		if e.Regarding.Kind == "Troubleshoot" && e.Regarding.Name == name {
			evs = append(evs, e)
		}
	}
	sortEvents(evs)
	out := make([]string, len(evs))
	for i, e := range evs {
		out[i] = e.Reason
	}
	return out
}

// eventNote is the note of the Event of a reason about a Troubleshoot ("" when none).
func eventNote(ctx context.Context, ns, name, reason string) string {
	list := &eventsv1.EventList{}
	Expect(k8sClient.List(ctx, list, client.InNamespace(ns))).To(Succeed())
	for _, e := range list.Items {
		if e.Regarding.Kind == "Troubleshoot" && e.Regarding.Name == name && e.Reason == reason {
			return e.Note
		}
	}
	return ""
}

func sortEvents(evs []eventsv1.Event) {
	for i := 1; i < len(evs); i++ {
		for j := i; j > 0 && evs[j].EventTime.Before(&evs[j-1].EventTime); j-- {
			evs[j], evs[j-1] = evs[j-1], evs[j]
		}
	}
}

func resultExists(ctx context.Context, ns, name string) bool {
	err := k8sClient.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, &corev1.ConfigMap{})
	return err == nil
}

// createCrashLoopApp creates a Deployment web whose two pods crash in a loop, with the
// statuses a kubelet and the controllers would write (envtest runs neither).
func createCrashLoopApp(ctx context.Context, ns string) {
	GinkgoHelper()
	node := fx.Node("node-1")
	scrub(&node.ObjectMeta)
	if err := k8sClient.Create(ctx, node); err != nil && !apierrors.IsAlreadyExists(err) {
		Expect(err).NotTo(HaveOccurred())
	}

	d := fx.Deployment(ns, "web", 2, "registry.example/web:1.1")
	status := d.Status
	scrub(&d.ObjectMeta)
	Expect(k8sClient.Create(ctx, d)).To(Succeed())
	d.Status = status
	d.Status.ObservedGeneration = d.Generation
	d.Status.ReadyReplicas, d.Status.AvailableReplicas, d.Status.UnavailableReplicas = 0, 0, 2
	Expect(k8sClient.Status().Update(ctx, d)).To(Succeed())

	rs := fx.ReplicaSet(d, 1, 2, "registry.example/web:1.1")
	rsStatus := rs.Status
	scrub(&rs.ObjectMeta)
	Expect(k8sClient.Create(ctx, rs)).To(Succeed())
	rs.Status = rsStatus
	rs.Status.ObservedGeneration = rs.Generation
	rs.Status.ReadyReplicas, rs.Status.AvailableReplicas = 0, 0
	Expect(k8sClient.Status().Update(ctx, rs)).To(Succeed())

	for i := 0; i < 2; i++ {
		p := fx.PodFor(rs, fmt.Sprintf("p%d", i))
		fx.CrashLoop(p, 1, "Error", 7)
		podStatus := p.Status
		scrub(&p.ObjectMeta)
		Expect(k8sClient.Create(ctx, p)).To(Succeed())
		p.Status = podStatus
		Expect(k8sClient.Status().Update(ctx, p)).To(Succeed())
	}
}

// scrub clears what the API server sets itself.
func scrub(m *metav1.ObjectMeta) {
	m.UID, m.ResourceVersion, m.CreationTimestamp = "", "", metav1.Time{}
}

// countingInvestigator runs the rule engine, counting runs per task; tasks named in
// block wait until their context ends (the operator dies).
type countingInvestigator struct {
	inner agent.Investigator
	block map[string]bool
	mu    sync.Mutex
	runs  map[string]int
}

func newCountingInvestigator(cs kubernetes.Interface, block ...string) *countingInvestigator {
	c := &countingInvestigator{inner: agent.NewRuleEngine(cs), block: map[string]bool{}, runs: map[string]int{}}
	for _, b := range block {
		c.block[b] = true
	}
	return c
}

func (c *countingInvestigator) Investigate(ctx context.Context, s agent.Session, t agent.Task) (agent.TaskResult, error) {
	c.mu.Lock()
	c.runs[t.ID]++
	c.mu.Unlock()
	if c.block[t.ID] {
		<-ctx.Done()
		return agent.TaskResult{}, ctx.Err()
	}
	return c.inner.Investigate(ctx, s, t)
}

func (c *countingInvestigator) count(id string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.runs[id]
}

func (c *countingInvestigator) all() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make(map[string]int, len(c.runs))
	for k, v := range c.runs {
		out[k] = v
	}
	return out
}

// proposingBrain is the rule engine with fixed remediation actions.
type proposingBrain struct {
	agent.Brain
	actions []agent.Action
}

func (p *proposingBrain) Summarize(ctx context.Context, s agent.Session, pr agent.Progress) (agent.Conclusion, error) {
	c, err := p.Brain.Summarize(ctx, s, pr)
	c.Remediation.Actions = p.actions
	return c, err
}
