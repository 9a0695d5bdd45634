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

package session

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"

	kubagev1alpha1 "github.com/kubage/kubage/api/v1alpha1"
	"github.com/kubage/kubage/internal/agent"
	"github.com/kubage/kubage/internal/remediate"
	"github.com/kubage/kubage/internal/runner"
	fx "github.com/kubage/kubage/test/fixtures"
)

const ns = "payments"

// crashLoopApp is a Deployment web whose two pods crash in a loop.
func crashLoopApp() []runtime.Object {
	d := fx.Deployment(ns, "web", 2, "registry.example/web:1.1")
	rs := fx.ReplicaSet(d, 1, 2, "registry.example/web:1.1")
	objs := []runtime.Object{d, rs, fx.Node("node-1")}
	for i := 0; i < 2; i++ {
		p := fx.PodFor(rs, fmt.Sprintf("p%d", i))
		fx.CrashLoop(p, 1, "Error", 7)
		objs = append(objs, p)
	}
	d.Status.ReadyReplicas, d.Status.AvailableReplicas, d.Status.UnavailableReplicas = 0, 0, 2
	return objs
}

type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

type harness struct {
	cs     *fake.Clientset
	engine *Engine
	inproc *runner.InProcess
	clock  *clock
	brain  agent.Brain
}

func newHarness(t *testing.T, objs ...runtime.Object) *harness {
	cs := fake.NewClientset(objs...)
	re := agent.NewRuleEngine(cs)
	re.Now = func() time.Time { return fx.Now }
	h := &harness{cs: cs, clock: &clock{t: fx.Now}, brain: re}
	h.inproc = runner.NewInProcess(cs, re, runner.InProcessOptions{})
	t.Cleanup(h.inproc.Stop)
	h.engine = &Engine{
		Client:        cs,
		Brains:        func(context.Context, *kubagev1alpha1.Troubleshoot) (agent.Brain, error) { return h.brain, nil },
		Runners:       map[kubagev1alpha1.TaskRunner]runner.Runner{kubagev1alpha1.TaskRunnerInProcess: h.inproc},
		DefaultRunner: kubagev1alpha1.TaskRunnerInProcess,
		Executor:      &remediate.Executor{Client: cs},
		Now:           h.clock.Now,
		PollInterval:  time.Millisecond,
	}
	return h
}

func troubleshoot(target *kubagev1alpha1.TroubleshootTarget) *kubagev1alpha1.Troubleshoot {
	return &kubagev1alpha1.Troubleshoot{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web-restarts", UID: "ts-uid-1", Generation: 1},
		Spec: kubagev1alpha1.TroubleshootSpec{
			Problem: "web keeps restarting", Target: target,
			Budget: kubagev1alpha1.Budget{MaxIterations: 5, MaxToolCalls: 100, MaxTokens: 1000, Parallelism: 2, Timeout: &metav1.Duration{Duration: 5 * time.Minute}},
		},
	}
}

var webTarget = &kubagev1alpha1.TroubleshootTarget{Kind: "Deployment", Name: "web"}

// drive advances the session until it reaches a phase in until, recording the phases.
func (h *harness) drive(g Gomega, ts *kubagev1alpha1.Troubleshoot, until ...kubagev1alpha1.TroubleshootPhase) []kubagev1alpha1.TroubleshootPhase {
	var phases []kubagev1alpha1.TroubleshootPhase
	ctx := context.Background()
	g.Eventually(func(g Gomega) {
		_, err := h.engine.Advance(ctx, ts)
		g.Expect(err).NotTo(HaveOccurred())
		if len(phases) == 0 || phases[len(phases)-1] != ts.Status.Phase {
			phases = append(phases, ts.Status.Phase)
		}
		g.Expect(until).To(ContainElement(ts.Status.Phase))
	}).WithTimeout(10 * time.Second).WithPolling(time.Millisecond).Should(Succeed())
	return phases
}

func TestCrashLoopSessionCompletes(t *testing.T) {
	g := NewWithT(t)
	h := newHarness(t, crashLoopApp()...)
	ts := troubleshoot(webTarget)
	phases := h.drive(g, ts, kubagev1alpha1.PhaseCompleted, kubagev1alpha1.PhaseFailed)

	// The rule engine follows the Deployment to its pods in a second round. A new session
	// is recorded as Pending and checked in one step, and the verdict to look further plans
	// the second round and starts it in one step, so the first Pending and the second
	// Planning are on the timeline only.
	g.Expect(phases).To(Equal([]kubagev1alpha1.TroubleshootPhase{"Planning", "Investigating", "Regulating", "Investigating", "Regulating", "Summarizing", "Completed"}))
	ck, _, err := loadCheckpoint(context.Background(), h.cs, runner.Owner{Namespace: ts.Namespace, Name: ts.Name, UID: ts.UID})
	g.Expect(err).NotTo(HaveOccurred())
	var timeline []string
	for _, m := range ck.Timeline {
		timeline = append(timeline, m.Phase)
	}
	g.Expect(timeline).To(Equal([]string{"Pending", "Planning", "Investigating", "Regulating", "Planning", "Investigating", "Regulating", "Summarizing", "Completed"}))
	st := ts.Status
	g.Expect(st.RootCause).NotTo(BeNil())
	g.Expect(st.RootCause.Category).To(Equal("CrashLoopBackOff"))
	g.Expect(st.RootCause.AffectedObjects[0]).To(Equal(kubagev1alpha1.ObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Namespace: ns, Name: "web"}))
	g.Expect(st.RootCause.EvidenceIDs).NotTo(BeEmpty())
	g.Expect(st.Evidence).NotTo(BeEmpty())
	g.Expect(len(st.Evidence)).To(BeNumerically("<=", MaxStatusEvidence))
	g.Expect(st.Usage.ToolCalls).To(BeNumerically(">", 0))
	g.Expect(st.Plan.Tasks).To(HaveEach(HaveField("State", kubagev1alpha1.TaskSucceeded)))
	g.Expect(st.StartTime).NotTo(BeNil())
	g.Expect(st.CompletionTime).NotTo(BeNil())
	reason, _ := Outcome(&st, nil)
	g.Expect(reason).To(Equal(kubagev1alpha1.SucceededReason))

	By := "the report ConfigMap is owned and names the culprit"
	cm, err := h.cs.CoreV1().ConfigMaps(ns).Get(context.Background(), "web-restarts-report", metav1.GetOptions{})
	g.Expect(err).NotTo(HaveOccurred(), By)
	g.Expect(st.ReportRef.Name).To(Equal(cm.Name))
	g.Expect(cm.OwnerReferences).To(ConsistOf(HaveField("UID", ts.UID)))
	g.Expect(cm.Data[kubagev1alpha1.ReportMarkdownKey]).To(ContainSubstring("Deployment/payments/web"))
	g.Expect(cm.Data[kubagev1alpha1.ReportMarkdownKey]).To(ContainSubstring("Investigating"))
	g.Expect(cm.Data[kubagev1alpha1.ReportJSONKey]).To(ContainSubstring(`"category": "CrashLoopBackOff"`))
	By = "the report lists the evidence of every task result, which the session never lists ConfigMaps to find"
	for _, a := range h.cs.Actions() {
		g.Expect(a.GetVerb() == "list" && a.GetResource().Resource == "configmaps").To(BeFalse(), By)
	}
	results, err := runner.ReadResults(context.Background(), h.cs, runner.Owner{Namespace: ts.Namespace, Name: ts.Name, UID: ts.UID})
	g.Expect(err).NotTo(HaveOccurred(), By)
	g.Expect(results).NotTo(BeEmpty(), By)
	for _, r := range results {
		g.Expect(r.Evidence).NotTo(BeEmpty(), By)
		for _, ev := range r.Evidence {
			g.Expect(cm.Data[kubagev1alpha1.ReportJSONKey]).To(ContainSubstring(fmt.Sprintf("%q", ev.ID)), By)
		}
	}

	By = "Diagnose mode leaves the Deployment and pods as they were"
	d, err := h.cs.AppsV1().Deployments(ns).Get(context.Background(), "web", metav1.GetOptions{})
	g.Expect(err).NotTo(HaveOccurred(), By)
	g.Expect(d.Spec.Template.Annotations).NotTo(HaveKey(remediate.RestartAnnotation))
	for _, a := range h.cs.Actions() {
		if a.GetVerb() == "get" || a.GetVerb() == "list" || a.GetVerb() == "watch" {
			continue
		}
		g.Expect(a.GetResource().Resource).To(Equal("configmaps"), "a %s of %s in Diagnose mode", a.GetVerb(), a.GetResource().Resource)
	}

	By = "a finished session stays finished"
	res, err := h.engine.Advance(context.Background(), ts)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(res.RequeueAfter).To(BeZero())
	g.Expect(ts.Status.Phase).To(Equal(kubagev1alpha1.PhaseCompleted))
}

func TestRerunAnnotationRestarts(t *testing.T) {
	g := NewWithT(t)
	h := newHarness(t, crashLoopApp()...)
	ts := troubleshoot(webTarget)
	h.drive(g, ts, kubagev1alpha1.PhaseCompleted)
	ctx := context.Background()
	before, err := h.cs.CoreV1().ConfigMaps(ns).List(ctx, metav1.ListOptions{LabelSelector: runner.LabelTaskID})
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(before.Items).NotTo(BeEmpty())

	ts.Annotations = map[string]string{RerunAnnotation: "1"}
	_, err = h.engine.Advance(ctx, ts)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(ts.Status.Phase).To(Equal(kubagev1alpha1.PhasePending))
	g.Expect(ts.Status.RootCause).To(BeNil())
	after, err := h.cs.CoreV1().ConfigMaps(ns).List(ctx, metav1.ListOptions{LabelSelector: runner.LabelTaskID})
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(after.Items).To(BeEmpty(), "the previous run's results are gone")

	h.drive(g, ts, kubagev1alpha1.PhaseCompleted)
	g.Expect(ts.Status.RootCause.Category).To(Equal("CrashLoopBackOff"))
	results, err := h.cs.CoreV1().ConfigMaps(ns).List(ctx, metav1.ListOptions{LabelSelector: runner.LabelRun + "=" + runner.RunToken("1")})
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(results.Items).NotTo(BeEmpty(), "the new run's results carry its token")

	By := "the same value again changes nothing"
	_, err = h.engine.Advance(ctx, ts)
	g.Expect(err).NotTo(HaveOccurred(), By)
	g.Expect(ts.Status.Phase).To(Equal(kubagev1alpha1.PhaseCompleted))
}
