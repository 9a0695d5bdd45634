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
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kubagev1alpha1 "github.com/kubage/kubage/api/v1alpha1"
)

// The kill matrix: the operator is SIGKILLed at random moments in every phase of sessions
// of both runners, and restarted at once. A control operator of its own shard, never
// killed, runs the same sessions on copies of the same apps; every killed session must end
// with the control's conclusion, no task Job may be created twice, every approved action
// must run exactly once with the control's result, and no approval may be lost.
// `make test` runs a few kills; `make test-kill` (Label "kill") runs the full matrix.
var _ = Describe("Kill matrix", Ordered, func() {
	BeforeAll(func(ctx SpecContext) { setupKubage(ctx) })

	It("resumes every session after a few kills", func(ctx SpecContext) {
		runKillMatrix(ctx, killPlan{
			quota: 1,
			want: map[kubagev1alpha1.TaskRunner][]kubagev1alpha1.TroubleshootPhase{
				kubagev1alpha1.TaskRunnerInProcess: {kubagev1alpha1.PhasePlanning, kubagev1alpha1.PhaseRemediating},
				kubagev1alpha1.TaskRunnerJob:       {kubagev1alpha1.PhaseInvestigating, kubagev1alpha1.PhaseAwaitingApproval},
			},
			diagnose: 1, remediate: 1, maxRounds: 3, minKills: 4,
		})
	}, SpecTimeout(6*time.Minute))

	It("resumes every session after kills in every phase of both runners", Label("kill"), func(ctx SpecContext) {
		all := []kubagev1alpha1.TroubleshootPhase{
			kubagev1alpha1.PhasePending, kubagev1alpha1.PhasePlanning, kubagev1alpha1.PhaseInvestigating,
			kubagev1alpha1.PhaseRegulating, kubagev1alpha1.PhaseSummarizing, kubagev1alpha1.PhaseAwaitingApproval,
			kubagev1alpha1.PhaseRemediating,
		}
		runKillMatrix(ctx, killPlan{
			quota: 2,
			want:  map[kubagev1alpha1.TaskRunner][]kubagev1alpha1.TroubleshootPhase{kubagev1alpha1.TaskRunnerInProcess: all, kubagev1alpha1.TaskRunnerJob: all},
			// Rounds of sessions follow one another until every phase had its kills.
			diagnose: 2, remediate: 1, maxRounds: 6, minKills: 20, everyPhase: true,
		})
	}, SpecTimeout(12*time.Minute))
})

// killPlan is how many kills each runner gets in each phase, over how many sessions.
type killPlan struct {
	quota               int
	want                map[kubagev1alpha1.TaskRunner][]kubagev1alpha1.TroubleshootPhase
	diagnose, remediate int // sessions of each kind per runner and round
	maxRounds           int
	minKills            int
	// everyPhase requires a kill in each wanted phase (the long matrix); the short one
	// asks for minKills kills wherever they land.
	everyPhase bool
}

// nextPhase is the phase a session usually enters after its current one: a kill shortly
// after a status write often lands there.
func nextPhase(ts *kubagev1alpha1.Troubleshoot) kubagev1alpha1.TroubleshootPhase {
	switch ts.Status.Phase {
	case "":
		return kubagev1alpha1.PhasePending
	case kubagev1alpha1.PhasePending:
		return kubagev1alpha1.PhasePlanning
	case kubagev1alpha1.PhasePlanning:
		return kubagev1alpha1.PhaseInvestigating
	case kubagev1alpha1.PhaseInvestigating:
		return kubagev1alpha1.PhaseRegulating
	case kubagev1alpha1.PhaseRegulating:
		return kubagev1alpha1.PhaseSummarizing
	case kubagev1alpha1.PhaseSummarizing:
		if ts.Spec.Mode == kubagev1alpha1.ModeRemediate {
			return kubagev1alpha1.PhaseAwaitingApproval
		}
	case kubagev1alpha1.PhaseAwaitingApproval:
		return kubagev1alpha1.PhaseRemediating
	}
	return kubagev1alpha1.PhaseCompleted
}

// Label values of the matrix's sessions.
const (
	killRoleLabel   = "e2e.kubage.io/kill-role"
	roleKilled      = "killed"
	roleControl     = "control"
	controlShardKey = "kill-control"
)

// killedSession is one session the matrix kills the operator under, and its control twin.
type killedSession struct {
	key, control    client.ObjectKey
	runner          kubagev1alpha1.TaskRunner
	remediate       bool
	pod, controlPod string // the evicted pods of Remediate sessions
	approvedAt      time.Time
}

// latest reads the session as it is now.
func (s *killedSession) latest(ctx context.Context) *kubagev1alpha1.Troubleshoot {
	GinkgoHelper()
	ts := &kubagev1alpha1.Troubleshoot{}
	Expect(kube.Get(ctx, s.key, ts)).To(Succeed())
	return ts
}

// killRecord is one kill: which session's phase triggered it and the phases of all sessions.
type killRecord struct {
	runner  kubagev1alpha1.TaskRunner
	phase   kubagev1alpha1.TroubleshootPhase
	session string
	delay   time.Duration
	others  []string
	checked string // what checkAfterKill found to hold while the operator was dead
}

func runKillMatrix(ctx context.Context, plan killPlan) {
	GinkgoHelper()
	startKubelet(ctx)
	base := []string{"--agent-image=" + agentImage, "--agent-start-timeout=5s"}
	startManager(append(base, "--watch-label-selector="+kubagev1alpha1.ShardingKeyLabel+"="+controlShardKey)...)
	killedArgs := append(base, "--watch-label-selector=!"+kubagev1alpha1.ShardingKeyLabel)
	op := startManager(killedArgs...)

	events := watchKillSessions(ctx)

	runners := make([]kubagev1alpha1.TaskRunner, 0, len(plan.want))
	for rn := range plan.want {
		runners = append(runners, rn)
	}
	sort.Slice(runners, func(i, j int) bool { return runners[i] < runners[j] })
	var sessions []*killedSession
	byKey := map[client.ObjectKey]*killedSession{}
	jobs := map[string]*jobWatch{}
	appNS := map[kubagev1alpha1.TaskRunner]string{}
	for _, rn := range runners {
		ns := newNamespace(ctx)
		jobs[ns], appNS[rn] = watchJobs(ctx, ns), ns
		brokenConfigApp(ctx, ns)
	}
	kills := map[kubagev1alpha1.TaskRunner]map[kubagev1alpha1.TroubleshootPhase]int{}
	for _, rn := range runners {
		kills[rn] = map[kubagev1alpha1.TroubleshootPhase]int{}
	}
	wanted := func(rn kubagev1alpha1.TaskRunner, p kubagev1alpha1.TroubleshootPhase) bool {
		for _, q := range plan.want[rn] {
			if q == p {
				return kills[rn][p] < plan.quota
			}
		}
		return false
	}
	missing := func() bool {
		for _, rn := range runners {
			for _, p := range plan.want[rn] {
				if wanted(rn, p) {
					return true
				}
			}
		}
		return false
	}

	// latest is the last state the watch showed of each session, killed or control. The
	// loop reads sessions from it, not from the API: a loop busy reading would see the
	// transitions it kills on late, and short steps would be over before its kill.
	latest := map[client.ObjectKey]*kubagev1alpha1.Troubleshoot{}
	observe := func(ts *kubagev1alpha1.Troubleshoot) { latest[client.ObjectKeyFromObject(ts)] = ts }

	// killNow kills the operator, records the phase the kill landed in, checks
	// what must hold while it is dead, and starts it again. A task lost with the killed
	// operator does not count as lost by itself; it declines (false) only while a kill
	// could end an in-process task's last allowed start: the engine fails a task started
	// maxTaskStarts times on purpose (a task that keeps crashing the operator must not
	// crash it forever), which is not what this matrix is about.
	var records []killRecord
	killNow := func(s *killedSession, delay time.Duration) bool {
		GinkgoHelper()
		if key, ok := wouldExhaustTask(latest); ok {
			GinkgoWriter.Printf("no kill now: a task of %s runs one of its last allowed starts\n", key)
			return false
		}
		time.Sleep(delay)
		op.Kill()
		// The kill counts for the phase the session was in when it landed: with the
		// operator dead, the persisted phase no longer moves.
		landed := &kubagev1alpha1.Troubleshoot{}
		Expect(kube.Get(ctx, s.key, landed)).To(Succeed())
		if landed.Status.Phase == "" {
			// Created but not yet admitted: the API's Pending before its first status write.
			landed.Status.Phase = kubagev1alpha1.PhasePending
		}
		rec := killRecord{runner: s.runner, phase: landed.Status.Phase, session: s.key.String(), delay: delay, others: phasesNow(ctx, sessions)}
		kills[s.runner][landed.Status.Phase]++
		GinkgoWriter.Printf("kill %d landed in %s (%s runner) of %s\n", len(records)+1, rec.phase, rec.runner, rec.session)
		rec.checked = checkAfterKill(ctx, jobs, sessions)
		records = append(records, rec)
		op = startManager(killedArgs...)
		// Events queued while the operator died describe steps already taken.
		for drained := false; !drained; {
			select {
			case ts := <-events:
				observe(ts)
			default:
				drained = true
			}
		}
		return true
	}
	// newRound prepares the apps of a round, then creates its sessions and twins at once.
	newRound := func(round int) {
		GinkgoHelper()
		var batch []*killedSession
		for _, rn := range runners {
			ns := appNS[rn]
			for i := 0; i < plan.diagnose; i++ {
				name := fmt.Sprintf("api-down-%d-%d", round, i)
				batch = append(batch, &killedSession{runner: rn, key: client.ObjectKey{Namespace: ns, Name: name}, control: client.ObjectKey{Namespace: ns, Name: "ctl-" + name}})
			}
			for i := 0; i < plan.remediate; i++ {
				killedNS, controlNS := newNamespace(ctx), newNamespace(ctx)
				jobs[killedNS], jobs[controlNS] = watchJobs(ctx, killedNS), watchJobs(ctx, controlNS)
				batch = append(batch, &killedSession{runner: rn, remediate: true,
					key: client.ObjectKey{Namespace: killedNS, Name: "evicted"}, control: client.ObjectKey{Namespace: controlNS, Name: "evicted"},
					pod: evictedPod(ctx, killedNS, "batch-7f9c").Name, controlPod: evictedPod(ctx, controlNS, "batch-7f9c").Name})
			}
		}
		for _, s := range batch {
			var pod, controlPod *string
			if s.remediate {
				pod, controlPod = &s.pod, &s.controlPod
			}
			byKey[s.key] = s
			sessions = append(sessions, s)
			createKillSession(ctx, s.key, roleKilled, s.runner, pod)
			switch {
			case wanted(s.runner, kubagev1alpha1.PhasePending):
				// Pending lasts one quick step, too short to catch from a watch event.
				killNow(s, time.Duration(rand.IntN(15))*time.Millisecond)
			case wanted(s.runner, kubagev1alpha1.PhasePlanning):
				// So does the first Planning of an in-process session: it plans and starts
				// its tasks in one step, often over before its watch event is seen. A kill
				// timed from the creation, a little later than Pending's, lands around it.
				killNow(s, time.Duration(5+rand.IntN(40))*time.Millisecond)
			}
			observe(s.latest(ctx))
			createKillSession(ctx, s.control, roleControl, s.runner, controlPod)
		}
	}

	By("killing the operator in the planned phases, round after round of sessions, until each phase had its kills")
	deadline := time.Now().Add(9 * time.Minute)
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	round := 0
	for {
		Expect(time.Now().Before(deadline)).To(BeTrue(), "the sessions did not finish; kills so far: %v", kills)
		var ts *kubagev1alpha1.Troubleshoot
		select {
		case ts = <-events:
		case <-tick.C:
		case <-ctx.Done():
			Fail("spec ended before the sessions finished")
		}
		if ts == nil {
			if allFinished(latest, sessions) {
				if !missing() || round >= plan.maxRounds {
					break
				}
				newRound(round)
				round++
			}
			approveWaiting(ctx, sessions, kills, latest)
			continue
		}
		prev := latest[client.ObjectKeyFromObject(ts)]
		observe(ts)
		s := byKey[client.ObjectKeyFromObject(ts)]
		if s == nil || ts.Status.Phase.IsTerminal() || !(wanted(s.runner, ts.Status.Phase) || wanted(s.runner, nextPhase(ts))) {
			continue
		}
		if prev != nil && prev.Status.Phase == ts.Status.Phase && prev.Generation == ts.Generation {
			// Kills follow transitions: a new phase, or a spec change such as an approval.
			// A write within the phase is no cue: after a kill, the resumed session writes
			// that it restarted its tasks, and killing on that would kill the same
			// in-process task again and again instead of reaching the next phase.
			continue
		}
		killNow(s, killDelay(ts, s.runner, kills[s.runner][ts.Status.Phase] == 0 && wanted(s.runner, ts.Status.Phase)))
	}

	By("comparing every session with its control twin")
	executed := 0
	for _, s := range sessions {
		executed += expectSameConclusion(ctx, s)
	}
	taskJobs := 0
	for ns, jw := range jobs {
		perTask := jw.createdPerTask()
		Expect(perTask).NotTo(ContainElement(BeNumerically(">", 1)), "namespace %s: one Job per task across all kills", ns)
		taskJobs += len(perTask)
	}

	GinkgoWriter.Printf("kill matrix: %d kills\n", len(records))
	for i, r := range records {
		GinkgoWriter.Printf("  kill %2d in %-16s (%s runner) of %s after %s; then held: %s; all sessions then: %s\n", i+1, r.phase, r.runner, r.session, r.delay, r.checked, strings.Join(r.others, " "))
	}
	printKillTable(runners, plan.want, kills)
	GinkgoWriter.Printf("checked after each kill, with the operator dead: no task Job created twice, no killed session Failed, no approval gone from an approved session's spec\n")
	GinkgoWriter.Printf("checked at the end: %d killed sessions Completed with their control twin's root cause (category, confidence, affected objects) and number of rounds; "+
		"%d task Jobs, each created once; %d approved pod deletions executed exactly once with the control's result, the other actions decided as the control's\n",
		len(sessions), taskJobs, executed)
	for _, rn := range runners {
		for _, p := range plan.want[rn] {
			if plan.everyPhase {
				Expect(kills[rn][p]).To(BeNumerically(">=", 1), "no kill in %s with the %s runner", p, rn)
			}
		}
	}
	Expect(len(records)).To(BeNumerically(">=", plan.minKills))
}

// maxTaskStarts is the engine's limit of starts of one task, whatever ended them (the
// API's maximum of status.plan.tasks[].attempts): a task lost after it fails.
const maxTaskStarts = 10

// wouldExhaustTask names a killed session whose in-process task, as last observed, is
// running one of its last two allowed starts: two more kills would fail it by design.
// The margin of one start covers a restart of the task the watch has not shown yet.
func wouldExhaustTask(latest map[client.ObjectKey]*kubagev1alpha1.Troubleshoot) (client.ObjectKey, bool) {
	for key, ts := range latest {
		if ts.Labels[killRoleLabel] != roleKilled || ts.Status.Phase != kubagev1alpha1.PhaseInvestigating || ts.Spec.TaskRunner == kubagev1alpha1.TaskRunnerJob {
			continue
		}
		for _, t := range ts.Status.Plan.Tasks {
			if t.State == kubagev1alpha1.TaskRunning && t.Attempts >= maxTaskStarts-1 {
				return key, true
			}
		}
	}
	return client.ObjectKey{}, false
}

// killDelay is how long after a session's status write the kill comes. The write is the
// end of one step; the next runs now. While the session's phase still lacks its first
// kill (first), the kill comes at once, driven by the observed transition: quick steps
// take a few API calls, and a random wait would let them finish. Otherwise the moment is
// random within the step's usual length: short for quick steps, longer for waiting ones.
func killDelay(ts *kubagev1alpha1.Troubleshoot, rn kubagev1alpha1.TaskRunner, first bool) time.Duration {
	window := 10
	switch {
	case first, ts.Status.Phase == "", ts.Status.Phase == kubagev1alpha1.PhasePending:
		return 0
	case ts.Status.Phase == kubagev1alpha1.PhaseAwaitingApproval && len(ts.Spec.Approvals) > 0:
		// Approved: the operator starts remediating within a few API calls.
		window = 20
	case ts.Status.Phase == kubagev1alpha1.PhaseAwaitingApproval || (ts.Status.Phase == kubagev1alpha1.PhaseInvestigating && rn == kubagev1alpha1.TaskRunnerJob):
		window = 400
	}
	return time.Duration(rand.IntN(window)) * time.Millisecond
}

// createKillSession creates a session of the matrix: a killed one for the main operator or
// a control one for the control shard; pod, when set, is the evicted pod of Remediate mode.
func createKillSession(ctx context.Context, key client.ObjectKey, role string, rn kubagev1alpha1.TaskRunner, pod *string) {
	GinkgoHelper()
	createTroubleshoot(ctx, key.Namespace, key.Name, func(ts *kubagev1alpha1.Troubleshoot) {
		ts.Labels = map[string]string{killRoleLabel: role}
		if role == roleControl {
			ts.Labels[kubagev1alpha1.ShardingKeyLabel] = controlShardKey
		}
		ts.Spec.TaskRunner = rn
		ts.Spec.Target = &kubagev1alpha1.TroubleshootTarget{Kind: "Deployment", Name: "api"}
		if pod != nil {
			ts.Spec.Problem = "A batch pod was killed"
			ts.Spec.Target = &kubagev1alpha1.TroubleshootTarget{Kind: "Pod", Name: *pod}
			ts.Spec.Mode = kubagev1alpha1.ModeRemediate
		}
	})
}

// watchKillSessions streams every change of the matrix's sessions, killed and control,
// watching again whenever the API server ends a watch (a new watch lists what exists).
func watchKillSessions(ctx context.Context) <-chan *kubagev1alpha1.Troubleshoot {
	GinkgoHelper()
	wc, err := client.NewWithWatch(cluster.RESTConfig, client.Options{Scheme: kube.Scheme()})
	Expect(err).NotTo(HaveOccurred())
	events := make(chan *kubagev1alpha1.Troubleshoot, 4096)
	wctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for wctx.Err() == nil {
			w, err := wc.Watch(wctx, &kubagev1alpha1.TroubleshootList{}, client.HasLabels{killRoleLabel})
			if err != nil {
				time.Sleep(100 * time.Millisecond)
				continue
			}
			for ev := range w.ResultChan() {
				ts, ok := ev.Object.(*kubagev1alpha1.Troubleshoot)
				if !ok || ev.Type == watch.Deleted {
					continue
				}
				select {
				case events <- ts:
				case <-wctx.Done():
				}
			}
			w.Stop()
		}
	}()
	DeferCleanup(func() {
		cancel()
		<-done
	})
	return events
}

// allFinished says whether every session and control twin is Completed or Failed, as the
// watch last showed them.
func allFinished(latest map[client.ObjectKey]*kubagev1alpha1.Troubleshoot, sessions []*killedSession) bool {
	for _, s := range sessions {
		for _, key := range []client.ObjectKey{s.key, s.control} {
			if ts, ok := latest[key]; !ok || !ts.Status.Phase.IsTerminal() {
				return false
			}
		}
	}
	return true
}

// phasesNow lists the phase of every killed session, for the kill's record.
func phasesNow(ctx context.Context, sessions []*killedSession) []string {
	var out []string
	for _, s := range sessions {
		ts := &kubagev1alpha1.Troubleshoot{}
		if err := kube.Get(ctx, s.key, ts); err == nil {
			out = append(out, fmt.Sprintf("%s/%s=%s", s.runner, s.key.Name, ts.Status.Phase))
		}
	}
	return out
}

// approveWaiting approves the pod deletion (and rejects the rest) of Remediate sessions in
// AwaitingApproval: controls at once, killed ones once they have waited through a kill or
// for two seconds, so that kills land both before and right after the approval.
func approveWaiting(ctx context.Context, sessions []*killedSession, kills map[kubagev1alpha1.TaskRunner]map[kubagev1alpha1.TroubleshootPhase]int, latest map[client.ObjectKey]*kubagev1alpha1.Troubleshoot) {
	GinkgoHelper()
	for _, s := range sessions {
		if !s.remediate {
			continue
		}
		for _, key := range []client.ObjectKey{s.control, s.key} {
			if ts, ok := latest[key]; !ok || ts.Status.Phase != kubagev1alpha1.PhaseAwaitingApproval || len(ts.Spec.Approvals) > 0 {
				continue
			}
			if key == s.key {
				if s.approvedAt.IsZero() {
					s.approvedAt = time.Now().Add(2 * time.Second)
				}
				if kills[s.runner][kubagev1alpha1.PhaseAwaitingApproval] == 0 && time.Now().Before(s.approvedAt) {
					continue
				}
			}
			// The approval is decided on the session as it is now (the watch may lag).
			ts := &kubagev1alpha1.Troubleshoot{}
			if err := kube.Get(ctx, key, ts); err != nil || ts.Status.Phase != kubagev1alpha1.PhaseAwaitingApproval || len(ts.Spec.Approvals) > 0 {
				continue
			}
			patch := client.MergeFrom(ts.DeepCopy())
			for _, a := range ts.Status.Remediation.Actions {
				d := kubagev1alpha1.DecisionRejected
				if strings.Contains(a.Command, "delete pod ") {
					d = kubagev1alpha1.DecisionApproved
				}
				ts.Spec.Approvals = append(ts.Spec.Approvals, kubagev1alpha1.ActionApproval{ActionID: a.ID, Decision: d})
			}
			Expect(kube.Patch(ctx, ts, patch)).To(Succeed())
		}
	}
}

// checkAfterKill is what must hold the moment the operator is dead: no Job created twice,
// no session Failed, no approval gone from a spec. It says what it checked.
func checkAfterKill(ctx context.Context, jobs map[string]*jobWatch, sessions []*killedSession) string {
	GinkgoHelper()
	taskJobs, approved := 0, 0
	for ns, jw := range jobs {
		perTask := jw.createdPerTask()
		Expect(perTask).NotTo(ContainElement(BeNumerically(">", 1)), "namespace %s: a task Job was created twice", ns)
		taskJobs += len(perTask)
	}
	for _, s := range sessions {
		ts := &kubagev1alpha1.Troubleshoot{}
		Expect(kube.Get(ctx, s.key, ts)).To(Succeed())
		Expect(ts.Status.Phase).NotTo(Equal(kubagev1alpha1.PhaseFailed), "%s: %v", s.key, ts.Status.Conditions)
		if !s.approvedAt.IsZero() && ts.Status.Phase != kubagev1alpha1.PhaseAwaitingApproval {
			Expect(ts.Spec.Approvals).NotTo(BeEmpty(), "%s lost its approvals", s.key)
			approved++
		}
	}
	return fmt.Sprintf("%d task Jobs each created once, %d sessions none Failed, %d approved sessions with their approvals", taskJobs, len(sessions), approved)
}

// printKillTable prints the kills per phase of each runner, the phases in the session's order.
func printKillTable(runners []kubagev1alpha1.TaskRunner, want map[kubagev1alpha1.TaskRunner][]kubagev1alpha1.TroubleshootPhase, kills map[kubagev1alpha1.TaskRunner]map[kubagev1alpha1.TroubleshootPhase]int) {
	phases := []kubagev1alpha1.TroubleshootPhase{
		kubagev1alpha1.PhasePending, kubagev1alpha1.PhasePlanning, kubagev1alpha1.PhaseInvestigating,
		kubagev1alpha1.PhaseRegulating, kubagev1alpha1.PhaseSummarizing, kubagev1alpha1.PhaseAwaitingApproval,
		kubagev1alpha1.PhaseRemediating,
	}
	var b strings.Builder
	fmt.Fprintf(&b, "kills per phase:\n  %-18s", "phase")
	for _, rn := range runners {
		fmt.Fprintf(&b, "%10s", rn)
	}
	b.WriteString("\n")
	totals := make([]int, len(runners))
	for _, p := range phases {
		fmt.Fprintf(&b, "  %-18s", p)
		for i, rn := range runners {
			mark := ""
			if !slices.Contains(want[rn], p) {
				mark = "-" // not planned in this spec
			}
			fmt.Fprintf(&b, "%10s", fmt.Sprintf("%d%s", kills[rn][p], mark))
			totals[i] += kills[rn][p]
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "  %-18s", "total")
	for _, n := range totals {
		fmt.Fprintf(&b, "%10d", n)
	}
	GinkgoWriter.Println(b.String())
}

// expectSameConclusion compares a killed session with its control twin: the same phase,
// root cause and proposed actions, and in Remediate mode the same decisions and results
// (a re-executed deletion would report the pod already gone). It returns how many approved
// actions it found executed once.
func expectSameConclusion(ctx context.Context, s *killedSession) int {
	GinkgoHelper()
	got, want := &kubagev1alpha1.Troubleshoot{}, &kubagev1alpha1.Troubleshoot{}
	Expect(kube.Get(ctx, s.key, got)).To(Succeed())
	Expect(kube.Get(ctx, s.control, want)).To(Succeed())
	Expect(got.Status.Phase).To(Equal(kubagev1alpha1.PhaseCompleted), "%s: %v", s.key, got.Status.Conditions)
	Expect(want.Status.Phase).To(Equal(kubagev1alpha1.PhaseCompleted), "control %s: %v", s.control, want.Status.Conditions)
	Expect(got.Status.RootCause).NotTo(BeNil())
	Expect(want.Status.RootCause).NotTo(BeNil())
	Expect(got.Status.RootCause.Category).To(Equal(want.Status.RootCause.Category), "%s", s.key)
	Expect(got.Status.RootCause.Confidence).To(Equal(want.Status.RootCause.Confidence), "%s", s.key)
	Expect(affected(got)).To(Equal(affected(want)), "%s", s.key)
	Expect(got.Status.Iteration).To(Equal(want.Status.Iteration), "%s: the same number of rounds", s.key)
	if !s.remediate {
		expectConfigMapMissing(ctx, got)
		return 0
	}
	Expect(got.Status.RootCause.Category).To(Equal("PodEvicted"))
	Expect(got.Status.Remediation.Actions).To(HaveLen(len(want.Status.Remediation.Actions)))
	executed := 0
	for i, a := range got.Status.Remediation.Actions {
		b := want.Status.Remediation.Actions[i]
		Expect(a.Approval).To(Equal(b.Approval), "%s action %s: %s", s.key, a.ID, a.Result)
		Expect(strings.ReplaceAll(a.Result, s.key.Namespace, "NS")).To(Equal(strings.ReplaceAll(b.Result, s.control.Namespace, "NS")), "%s action %s", s.key, a.ID)
		if strings.Contains(a.Command, "delete pod ") {
			Expect(a.Approval).To(Equal(kubagev1alpha1.ApprovalExecuted), "the approved deletion ran: %s", a.Result)
			executed++
		}
	}
	_, err := clients.CoreV1().Pods(s.key.Namespace).Get(ctx, s.pod, metav1.GetOptions{})
	Expect(err).To(HaveOccurred(), "the evicted pod was deleted")
	return executed
}

func affected(ts *kubagev1alpha1.Troubleshoot) []string {
	var out []string
	for _, o := range ts.Status.RootCause.AffectedObjects {
		out = append(out, o.Kind+"/"+o.Name)
	}
	return out
}
