package session

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"

	kubagev1alpha1 "github.com/kubage/kubage/api/v1alpha1"
	"github.com/kubage/kubage/internal/agent"
	"github.com/kubage/kubage/internal/knowledge"
	"github.com/kubage/kubage/internal/remediate"
	"github.com/kubage/kubage/internal/runner"
	fx "github.com/kubage/kubage/internal/tools/fixtures"
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

	// The rule engine follows the Deployment to its pods in a second round.
	g.Expect(phases).To(Equal([]kubagev1alpha1.TroubleshootPhase{"Pending", "Planning", "Investigating", "Regulating", "Planning", "Investigating", "Regulating", "Summarizing", "Completed"}))
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

func TestMissingTargetFails(t *testing.T) {
	g := NewWithT(t)
	h := newHarness(t)
	ts := troubleshoot(webTarget)
	h.drive(g, ts, kubagev1alpha1.PhaseCompleted, kubagev1alpha1.PhaseFailed)
	g.Expect(ts.Status.Phase).To(Equal(kubagev1alpha1.PhaseFailed))
	step, err := h.engine.Advance(context.Background(), ts)
	g.Expect(err).NotTo(HaveOccurred())
	reason, msg := Outcome(&ts.Status, step.Checkpoint)
	g.Expect(reason).To(Equal(ReasonTargetNotFound))
	g.Expect(msg).To(ContainSubstring("no such Deployment web in payments"))
	g.Expect(ts.Status.ReportRef).NotTo(BeNil(), "a failed session still has a report")
}

func TestUnavailableRunnerIsASpecError(t *testing.T) {
	g := NewWithT(t)
	h := newHarness(t, crashLoopApp()...)
	ts := troubleshoot(webTarget)
	ts.Spec.TaskRunner = kubagev1alpha1.TaskRunnerJob
	_, err := h.engine.Advance(context.Background(), ts)
	g.Expect(err).NotTo(HaveOccurred())
	_, err = h.engine.Advance(context.Background(), ts)
	var se *SpecError
	g.Expect(err).To(BeAssignableToTypeOf(se))
	g.Expect(err.Error()).To(ContainSubstring(`task runner "Job" is not available`))
	g.Expect(ts.Status.Phase).To(Equal(kubagev1alpha1.PhasePending))
}

func TestToolCallBudgetStopsAndStillConcludes(t *testing.T) {
	g := NewWithT(t)
	h := newHarness(t, crashLoopApp()...)
	ts := troubleshoot(nil) // the namespace scan plans follow-ups
	ts.Spec.Budget.MaxToolCalls = 1
	h.drive(g, ts, kubagev1alpha1.PhaseCompleted)
	step, err := h.engine.Advance(context.Background(), ts)
	g.Expect(err).NotTo(HaveOccurred())
	reason, msg := Outcome(&ts.Status, step.Checkpoint)
	g.Expect(reason).To(Equal(kubagev1alpha1.BudgetExhaustedReason))
	g.Expect(msg).To(ContainSubstring("tool-call budget of 1 used"))
	g.Expect(ts.Status.RootCause).NotTo(BeNil(), "what was found is still summarized")
}

func TestIterationBudget(t *testing.T) {
	g := NewWithT(t)
	h := newHarness(t, crashLoopApp()...)
	h.brain = &replanForever{Brain: h.brain}
	ts := troubleshoot(webTarget)
	ts.Spec.Budget.MaxIterations = 2
	ts.Spec.Budget.MaxTokens = 1000000
	h.drive(g, ts, kubagev1alpha1.PhaseCompleted)
	g.Expect(ts.Status.Iteration).To(Equal(int32(2)))
	step, _ := h.engine.Advance(context.Background(), ts)
	reason, msg := Outcome(&ts.Status, step.Checkpoint)
	g.Expect(reason).To(Equal(kubagev1alpha1.BudgetExhaustedReason))
	g.Expect(msg).To(ContainSubstring("iteration budget of 2 used"))
	g.Expect(step.Checkpoint.Rounds).To(HaveLen(2))
	g.Expect(step.Checkpoint.Rounds[1].Tasks[0].ID).To(Equal("i2-t1"), "ids are unique per iteration")
}

// replanForever always wants another round and reports model usage.
type replanForever struct{ agent.Brain }

func (r *replanForever) Judge(context.Context, agent.Session, agent.Progress) (agent.Verdict, error) {
	return agent.Verdict{Decision: agent.Replan, Feedback: "look again", Next: []agent.Task{{Type: agent.TaskAnalyze, Tool: "namespace", Description: "scan again", Args: map[string]string{"kind": "Namespace", "name": ns}}}}, nil
}

func (r *replanForever) Plan(ctx context.Context, s agent.Session, p agent.Progress) ([]agent.Task, error) {
	if p.Verdict != nil {
		return p.Verdict.Next, nil
	}
	return r.Brain.Plan(ctx, s, p)
}

func (r *replanForever) TakeUsage() Usage {
	return Usage{LLMCalls: 1, PromptTokens: 300, CompletionTokens: 100}
}

func TestTokenBudget(t *testing.T) {
	g := NewWithT(t)
	h := newHarness(t, crashLoopApp()...)
	h.brain = &replanForever{Brain: h.brain}
	ts := troubleshoot(webTarget)
	ts.Spec.Budget.MaxTokens = 1000
	ts.Spec.Budget.MaxIterations = 20
	h.drive(g, ts, kubagev1alpha1.PhaseCompleted)
	step, _ := h.engine.Advance(context.Background(), ts)
	reason, msg := Outcome(&ts.Status, step.Checkpoint)
	g.Expect(reason).To(Equal(kubagev1alpha1.BudgetExhaustedReason))
	g.Expect(msg).To(ContainSubstring("token budget of 1000 used"))
	g.Expect(ts.Status.Usage.LLMCalls).To(BeNumerically(">=", 3))
}

func TestTimeout(t *testing.T) {
	g := NewWithT(t)
	h := newHarness(t, crashLoopApp()...)
	gate := make(chan struct{})
	defer close(gate)
	blocking := &blockingInvestigator{gate: gate}
	h.inproc = runner.NewInProcess(h.cs, blocking, runner.InProcessOptions{})
	t.Cleanup(h.inproc.Stop)
	h.engine.Runners[kubagev1alpha1.TaskRunnerInProcess] = h.inproc
	ts := troubleshoot(webTarget)
	h.drive(g, ts, kubagev1alpha1.PhaseInvestigating)
	h.clock.Add(6 * time.Minute)
	h.drive(g, ts, kubagev1alpha1.PhaseCompleted)
	step, _ := h.engine.Advance(context.Background(), ts)
	reason, _ := Outcome(&ts.Status, step.Checkpoint)
	g.Expect(reason).To(Equal(kubagev1alpha1.TimedOutReason))
	g.Expect(ts.Status.Plan.Tasks).To(HaveEach(HaveField("State", kubagev1alpha1.TaskSkipped)))
	g.Eventually(h.inproc.Running).Should(BeZero(), "the running task was cancelled")
}

type blockingInvestigator struct{ gate chan struct{} }

func (b *blockingInvestigator) Investigate(ctx context.Context, _ agent.Session, t agent.Task) (agent.TaskResult, error) {
	select {
	case <-b.gate:
	case <-ctx.Done():
	}
	return agent.TaskResult{TaskID: t.ID, Summary: "blocked"}, ctx.Err()
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

// proposer concludes with fixed remediation actions.
type proposer struct {
	agent.Brain
	actions []agent.Action
}

func (p *proposer) Summarize(ctx context.Context, s agent.Session, pr agent.Progress) (agent.Conclusion, error) {
	c, err := p.Brain.Summarize(ctx, s, pr)
	c.Remediation.Actions = p.actions
	return c, err
}

func TestRemediateApprovalPath(t *testing.T) {
	g := NewWithT(t)
	h := newHarness(t, crashLoopApp()...)
	h.brain = &proposer{Brain: h.brain, actions: []agent.Action{
		{ID: "a1", Description: "restart", Command: "kubectl -n payments rollout restart deployment/web", Risk: agent.RiskLow},
		{ID: "a2", Description: "scale down", Command: "kubectl -n payments scale deployment/web --replicas=0", Risk: agent.RiskLow},
		{ID: "a3", Description: "roll back", Command: "kubectl -n payments rollout undo deployment/web", Risk: agent.RiskMedium},
	}}
	ts := troubleshoot(webTarget)
	ts.Spec.Mode = kubagev1alpha1.ModeRemediate
	h.drive(g, ts, kubagev1alpha1.PhaseAwaitingApproval)
	acts := ts.Status.Remediation.Actions
	g.Expect(acts).To(HaveLen(3))
	g.Expect(acts).To(HaveEach(HaveField("Approval", kubagev1alpha1.ApprovalPending)))
	g.Expect(acts[0].ID).To(MatchRegexp(`^a1-[0-9a-f]{6}$`))

	ctx := context.Background()
	_, err := h.engine.Advance(ctx, ts)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(ts.Status.Phase).To(Equal(kubagev1alpha1.PhaseAwaitingApproval), "nothing happens without a decision")

	ts.Spec.Approvals = []kubagev1alpha1.ActionApproval{
		{ActionID: acts[0].ID, Decision: kubagev1alpha1.DecisionApproved},
		{ActionID: acts[1].ID, Decision: kubagev1alpha1.DecisionRejected},
		{ActionID: acts[2].ID, Decision: kubagev1alpha1.DecisionApproved},
	}
	h.drive(g, ts, kubagev1alpha1.PhaseCompleted)
	acts = ts.Status.Remediation.Actions
	g.Expect(acts[0].Approval).To(Equal(kubagev1alpha1.ApprovalExecuted))
	g.Expect(acts[0].Result).To(ContainSubstring("Restarted the rollout of Deployment/web"))
	g.Expect(acts[1].Approval).To(Equal(kubagev1alpha1.ApprovalRejected))
	g.Expect(acts[2].Approval).To(Equal(kubagev1alpha1.ApprovalApproved))
	g.Expect(acts[2].Result).To(ContainSubstring("only Low-risk actions are executed"))

	d, err := h.cs.AppsV1().Deployments(ns).Get(ctx, "web", metav1.GetOptions{})
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(d.Spec.Template.Annotations).To(HaveKeyWithValue(remediate.RestartAnnotation, string(ts.UID)+"/"+acts[0].ID))
	g.Expect(*d.Spec.Replicas).To(Equal(int32(2)), "the rejected scale did not run")
	cm, err := h.cs.CoreV1().ConfigMaps(ns).Get(ctx, ts.Status.ReportRef.Name, metav1.GetOptions{})
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(cm.Data[kubagev1alpha1.ReportMarkdownKey]).To(ContainSubstring("Executed"))
}

func TestRestartResumesWithoutRelaunchingFinishedTasks(t *testing.T) {
	g := NewWithT(t)
	h := newHarness(t, crashLoopApp()...)
	ts := troubleshoot(nil)
	h.drive(g, ts, kubagev1alpha1.PhaseInvestigating)
	_, err := h.engine.Advance(context.Background(), ts)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(ts.Status.Plan.Tasks[0].State).To(Equal(kubagev1alpha1.TaskRunning))
	// The first runner finishes the task but the operator dies before collecting it.
	g.Eventually(func() int { return h.inproc.Running() }).Should(BeZero())
	h.inproc.Stop()

	counting := &countingInvestigator{inner: h.brain, runs: map[string]int{}}
	fresh := runner.NewInProcess(h.cs, counting, runner.InProcessOptions{})
	t.Cleanup(fresh.Stop)
	h.engine.Runners[kubagev1alpha1.TaskRunnerInProcess] = fresh
	h.drive(g, ts, kubagev1alpha1.PhaseCompleted)
	g.Expect(counting.runs).NotTo(HaveKey("i1-t1"), "the finished task's result was collected, not recomputed")
	for id, n := range counting.runs {
		g.Expect(n).To(Equal(1), "task %s ran once", id)
	}
}

type countingInvestigator struct {
	inner agent.Investigator
	mu    sync.Mutex
	runs  map[string]int
}

func (c *countingInvestigator) Investigate(ctx context.Context, s agent.Session, t agent.Task) (agent.TaskResult, error) {
	c.mu.Lock()
	c.runs[t.ID]++
	c.mu.Unlock()
	return c.inner.Investigate(ctx, s, t)
}

func TestNormalizeTasks(t *testing.T) {
	g := NewWithT(t)
	out := NormalizeTasks(2, []agent.Task{{ID: "x"}, {ID: "y", DependsOn: []string{"x", "nope", "y"}}})
	g.Expect(out[0].ID).To(Equal("i2-t1"))
	g.Expect(out[1].DependsOn).To(Equal([]string{"i2-t1"}))
	many := make([]agent.Task, 50)
	g.Expect(NormalizeTasks(1, many)).To(HaveLen(MaxPlanTasks))
}

func TestConvertBoundsUntrustedOutput(t *testing.T) {
	g := NewWithT(t)
	long := string(make([]byte, 5000))
	rc := RootCause(agent.RootCause{Summary: long, Category: "not camel", Confidence: 250, EvidenceIDs: []string{"E_1", "missing"}}, map[string]bool{"e-1": true})
	g.Expect(len(rc.Summary)).To(BeNumerically("<=", 1024))
	g.Expect(rc.Category).To(Equal(kubagev1alpha1.CategoryUnknown))
	g.Expect(rc.Confidence).To(Equal(int32(100)))
	g.Expect(rc.EvidenceIDs).To(Equal([]string{"e-1"}))
	ev := Evidence(nil, []agent.Evidence{{ID: "a", Summary: "s", Source: agent.Source{Kind: agent.SourceObject}}}, metav1.Now())
	g.Expect(ev[0].Source.Kind).To(Equal(kubagev1alpha1.EvidenceFromQuery), "an Object source without an object is downgraded")
	rem := Remediation(agent.Remediation{Actions: []agent.Action{{ID: "A 1", Description: "d", Risk: "Catastrophic"}}})
	g.Expect(rem.Actions[0].ID).To(Equal("a1"))
	g.Expect(rem.Actions[0].Risk).To(Equal(kubagev1alpha1.RiskHigh))
}

// scriptedRunner reports what the test tells it, like a Job runner whose Jobs fail or vanish.
type scriptedRunner struct {
	mu      sync.Mutex
	starts  map[string]int
	outcome func(taskID string, starts int) runner.Outcome
}

func (s *scriptedRunner) Start(_ context.Context, _ runner.Owner, req agent.TaskRequest) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.starts[req.Task.ID]++
	return nil
}

func (s *scriptedRunner) Check(_ context.Context, _ runner.Owner, id string) (runner.Outcome, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.outcome(id, s.starts[id]), nil
}

func (s *scriptedRunner) Cleanup(context.Context, runner.Owner) error { return nil }

func (s *scriptedRunner) TaskObjectName(o runner.Owner, id string) string {
	return runner.ObjectName(o.Name, id)
}

func TestFailedAndLostTasksReachTheRegulator(t *testing.T) {
	g := NewWithT(t)
	h := newHarness(t, crashLoopApp()...)
	sr := &scriptedRunner{starts: map[string]int{}, outcome: func(id string, starts int) runner.Outcome {
		if id == "i1-t1" {
			return runner.Outcome{State: runner.StateFailed, Reason: "Job web-restarts-i1-t1 exceeded its deadline"}
		}
		return runner.Outcome{State: runner.StateMissing}
	}}
	h.engine.Runners = map[kubagev1alpha1.TaskRunner]runner.Runner{kubagev1alpha1.TaskRunnerJob: sr}
	h.engine.DefaultRunner = kubagev1alpha1.TaskRunnerJob
	ts := troubleshoot(nil)
	h.drive(g, ts, kubagev1alpha1.PhaseCompleted)

	task := ts.Status.Plan.Tasks[0]
	g.Expect(task.State).To(Equal(kubagev1alpha1.TaskFailed))
	g.Expect(task.Summary).To(ContainSubstring("exceeded its deadline"))
	g.Expect(task.JobName).To(Equal("web-restarts-i1-t1"))
	g.Expect(sr.starts["i1-t1"]).To(Equal(1), "a failed task is not restarted by the engine")
	g.Expect(ts.Status.RootCause.Category).To(Equal("Inconclusive"), "the regulator stops when every task failed and says so")
	res, err := runner.ReadResult(context.Background(), h.cs, runner.Owner{Namespace: ns, Name: ts.Name, UID: ts.UID}, "i1-t1")
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(res.Error).To(ContainSubstring("exceeded its deadline"), "the failure is kept as a result for later steps")

	By := "a task that keeps vanishing is started at most MaxAttempts times"
	h2 := newHarness(t, crashLoopApp()...)
	lost := &scriptedRunner{starts: map[string]int{}, outcome: func(string, int) runner.Outcome { return runner.Outcome{State: runner.StateMissing} }}
	h2.engine.Runners = map[kubagev1alpha1.TaskRunner]runner.Runner{kubagev1alpha1.TaskRunnerInProcess: lost}
	ts2 := troubleshoot(nil)
	h2.drive(g, ts2, kubagev1alpha1.PhaseCompleted)
	g.Expect(lost.starts["i1-t1"]).To(Equal(3), By)
	g.Expect(ts2.Status.Plan.Tasks[0].Summary).To(ContainSubstring("lost 3 times"))
}

func TestForeignConfigMapsAreNeverOverwritten(t *testing.T) {
	g := NewWithT(t)
	mine := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web-restarts-session"}, Data: map[string]string{"k": "user data"}}
	h := newHarness(t, append(crashLoopApp(), mine)...)
	ts := troubleshoot(webTarget)
	_, err := h.engine.Advance(context.Background(), ts)
	g.Expect(err).To(MatchError(ContainSubstring("is not a KubAge session")))
	var se *SpecError
	g.Expect(errors.As(err, &se)).To(BeTrue())
	g.Expect(se.Reason).To(Equal(ReasonNameConflict))
	cm, err := h.cs.CoreV1().ConfigMaps(ns).Get(context.Background(), "web-restarts-session", metav1.GetOptions{})
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(cm.Data).To(Equal(map[string]string{"k": "user data"}))
}

func TestLostStatusWritesAreRedoneNotRepeated(t *testing.T) {
	g := NewWithT(t)
	h := newHarness(t, crashLoopApp()...)
	judged := &countingJudge{Brain: h.brain}
	h.brain = judged
	ts := troubleshoot(webTarget)
	ctx := context.Background()
	// Every step runs twice from the same status, as when the status write of the first
	// attempt is lost (or a reconcile reads a stale cache).
	g.Eventually(func(g Gomega) {
		stale := ts.DeepCopy()
		_, err := h.engine.Advance(ctx, stale)
		g.Expect(err).NotTo(HaveOccurred())
		_, err = h.engine.Advance(ctx, ts)
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(ts.Status.Phase).To(Equal(kubagev1alpha1.PhaseCompleted))
	}).WithTimeout(10 * time.Second).WithPolling(time.Millisecond).Should(Succeed())
	g.Expect(ts.Status.Iteration).To(Equal(int32(2)), "no round is skipped")
	g.Expect(judged.calls).To(Equal(2), "each round is judged once")
	step, err := h.engine.Advance(ctx, ts)
	g.Expect(err).NotTo(HaveOccurred())
	var phases []string
	for _, m := range step.Checkpoint.Timeline {
		phases = append(phases, m.Phase)
	}
	g.Expect(phases).To(Equal([]string{"Pending", "Planning", "Investigating", "Regulating", "Planning", "Investigating", "Regulating", "Summarizing", "Completed"}))
}

type countingJudge struct {
	agent.Brain
	calls int
}

func (c *countingJudge) Judge(ctx context.Context, s agent.Session, p agent.Progress) (agent.Verdict, error) {
	c.calls++
	return c.Brain.Judge(ctx, s, p)
}

// citer is a knowledge service that always finds the same runbook.
type citer struct{ asked []string }

func (c *citer) CiteForConclusion(_ context.Context, namespace string, _ *metav1.LabelSelector, summary, category string) []knowledge.Citation {
	c.asked = append(c.asked, namespace+"|"+category+"|"+summary)
	return []knowledge.Citation{{
		Namespace: namespace, Source: "runbooks", Path: "kubernetes/KubePodCrashLooping.md",
		Anchor: "mitigation", HeadingPath: []string{"KubePodCrashLooping", "Mitigation"}, ChunkID: "c1", TrustLevel: 4,
	}}
}

func TestRootCauseCitesRunbooks(t *testing.T) {
	g := NewWithT(t)
	h := newHarness(t, crashLoopApp()...)
	kb := &citer{}
	h.engine.Knowledge = kb
	ts := troubleshoot(webTarget)
	h.drive(g, ts, kubagev1alpha1.PhaseCompleted, kubagev1alpha1.PhaseFailed)

	g.Expect(kb.asked).To(ConsistOf(HavePrefix(ns + "|CrashLoopBackOff|")))
	st := ts.Status
	g.Expect(st.RootCause.EvidenceIDs).To(ContainElement("kb-1"))
	var cited *kubagev1alpha1.Evidence
	for i := range st.Evidence {
		if st.Evidence[i].ID == "kb-1" {
			cited = &st.Evidence[i]
		}
	}
	g.Expect(cited).NotTo(BeNil(), "the citation is in the status evidence")
	g.Expect(cited.Source.Kind).To(Equal(kubagev1alpha1.EvidenceFromKnowledge))
	g.Expect(cited.Source.Knowledge).NotTo(BeNil())
	g.Expect(cited.Source.Knowledge.Source).To(Equal("runbooks"))
	g.Expect(cited.Source.Knowledge.Document).To(Equal("kubernetes/KubePodCrashLooping.md"))

	cm, err := h.cs.CoreV1().ConfigMaps(ns).Get(context.Background(), "web-restarts-report", metav1.GetOptions{})
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(cm.Data[kubagev1alpha1.ReportMarkdownKey]).To(ContainSubstring("Source: Knowledge (runbooks:kubernetes/KubePodCrashLooping.md"))
	g.Expect(cm.Data[kubagev1alpha1.ReportJSONKey]).To(ContainSubstring("runbooks:kubernetes/KubePodCrashLooping.md#mitigation"))
}
