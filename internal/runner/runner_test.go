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

package runner

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/kubage/kubage/internal/agent"
)

var owner = Owner{Namespace: "shop", Name: "checkout", UID: "uid-1"}

func TestObjectNameIsDeterministicAndDNSSafe(t *testing.T) {
	g := NewWithT(t)
	g.Expect(ObjectName("checkout", "i1-t2")).To(Equal("checkout-i1-t2"))
	long := strings.Repeat("a", 200) + ".example"
	n := ObjectName(long, "i12-t31")
	g.Expect(n).To(HaveLen(MaxNameLength))
	g.Expect(validation.IsDNS1123Label(n)).To(BeEmpty())
	g.Expect(n).To(HaveSuffix("-i12-t31"))
	g.Expect(ObjectName(long, "i12-t31")).To(Equal(n), "deterministic")
	g.Expect(ObjectName(long+"b", "i12-t31")).NotTo(Equal(n), "a different name hashes differently")
	g.Expect(ObjectName("web.v2", "report")).To(MatchRegexp(`^web-v2-[0-9a-f]{10}-report$`))
	g.Expect(validation.IsDNS1123Label(ObjectName("x", strings.Repeat("s", 70)))).To(BeEmpty())
}

func TestLabelValue(t *testing.T) {
	g := NewWithT(t)
	g.Expect(LabelValue("checkout")).To(Equal("checkout"))
	v := LabelValue(strings.Repeat("b", 100))
	g.Expect(validation.IsValidLabelValue(v)).To(BeEmpty())
	g.Expect(RunToken("")).To(BeEmpty())
	g.Expect(validation.IsValidLabelValue(RunToken("2026-01-01T00:00:00Z please"))).To(BeEmpty())
}

func TestOwnerEnvRoundTrip(t *testing.T) {
	g := NewWithT(t)
	o := owner
	o.Run = RunToken("again")
	env := o.Env()
	got, err := OwnerFromEnv(func(k string) string { return env[k] })
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(got).To(Equal(o))
	_, err = OwnerFromEnv(func(string) string { return "" })
	g.Expect(err).To(HaveOccurred())
}

func TestWriteAndReadResults(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	cs := fake.NewClientset()
	res := agent.TaskResult{TaskID: "i1-t1", Summary: "Deployment/web: crash-loop", ToolCalls: []agent.ToolCall{{Tool: "k8s_get"}}}
	g.Expect(WriteResult(ctx, cs, owner, res)).To(Succeed())
	g.Expect(WriteResult(ctx, cs, owner, res)).To(Succeed(), "writing twice replaces")

	cm, err := cs.CoreV1().ConfigMaps("shop").Get(ctx, "checkout-i1-t1", metav1.GetOptions{})
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(cm.Labels).To(HaveKeyWithValue(LabelTroubleshoot, "checkout"))
	g.Expect(cm.Labels).To(HaveKeyWithValue(LabelTaskID, "i1-t1"))
	g.Expect(cm.OwnerReferences).To(ConsistOf(HaveField("UID", owner.UID)))
	g.Expect(cm.OwnerReferences[0].Kind).To(Equal("Troubleshoot"))
	g.Expect(cm.OwnerReferences[0].APIVersion).To(Equal("kubage.io/v1alpha1"))

	got, err := ReadResult(ctx, cs, owner, "i1-t1")
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(got.Summary).To(Equal(res.Summary))
	missing, err := ReadResult(ctx, cs, owner, "i1-t2")
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(missing).To(BeNil())

	// Results of another run or of another UID are not ours.
	other := owner
	other.Run = RunToken("rerun-1")
	got, err = ReadResult(ctx, cs, other, "i1-t1")
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(got).To(BeNil())
	all, err := ReadResults(ctx, cs, Owner{Namespace: "shop", Name: "checkout", UID: "uid-2"})
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(all).To(BeEmpty())

	g.Expect(WriteResult(ctx, cs, owner, agent.TaskResult{TaskID: "i1-t2", Summary: "two"})).To(Succeed())
	all, err = ReadResults(ctx, cs, owner)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(all).To(HaveLen(2))
	g.Expect(all).To(HaveKey("i1-t2"))

	g.Expect(WriteResult(ctx, cs, owner, agent.TaskResult{TaskID: "Bad_ID"})).NotTo(Succeed())
}

func TestMalformedResultIsAnError(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	lbls := owner.Labels()
	lbls[LabelTaskID] = "i1-t1"
	lbls[LabelComponent] = ComponentTaskResult
	cs := fake.NewClientset(&corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: "checkout-i1-t1", Namespace: "shop", Labels: lbls,
			OwnerReferences: []metav1.OwnerReference{owner.Reference()}},
		Data: map[string]string{ResultKey: "{not json"},
	})
	_, err := ReadResult(ctx, cs, owner, "i1-t1")
	g.Expect(err).To(MatchError(ErrMalformedResult))
	all, err := ReadResults(ctx, cs, owner)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(all).To(BeEmpty())
}

func TestBoundResultTrimsToFit(t *testing.T) {
	g := NewWithT(t)
	res := agent.TaskResult{TaskID: "i1-t1", Summary: "big"}
	for i := 0; i < 400; i++ {
		res.Evidence = append(res.Evidence, agent.Evidence{ID: "e", Summary: strings.Repeat("s", 500), Data: strings.Repeat("d", 2048)})
		res.Findings = append(res.Findings, agent.Finding{Rule: "r", Confidence: i % 100, Summary: strings.Repeat("f", 1000)})
	}
	raw, err := boundResult(res)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(len(raw)).To(BeNumerically("<=", MaxResultBytes))
	var got agent.TaskResult
	g.Expect(json.Unmarshal(raw, &got)).To(Succeed())
	g.Expect(got.Summary).To(ContainSubstring("trimmed"))
	g.Expect(got.Findings).NotTo(BeEmpty())
	g.Expect(got.Findings[0].Confidence).To(Equal(99), "the most confident findings are kept")
	small, err := boundResult(agent.TaskResult{TaskID: "x", Summary: "s"})
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(string(small)).NotTo(ContainSubstring("trimmed"))
}

// gatedInvestigator counts runs per task and blocks until released.
type gatedInvestigator struct {
	mu    sync.Mutex
	runs  map[string]int
	gate  chan struct{}
	calls atomic.Int32
}

func (g *gatedInvestigator) Investigate(ctx context.Context, _ agent.Session, t agent.Task) (agent.TaskResult, error) {
	g.mu.Lock()
	g.runs[t.ID]++
	g.mu.Unlock()
	g.calls.Add(1)
	select {
	case <-g.gate:
	case <-ctx.Done():
		return agent.TaskResult{}, ctx.Err()
	}
	return agent.TaskResult{Summary: "done " + t.ID}, nil
}

func TestInProcessRunsOnceAndReports(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	cs := fake.NewClientset()
	inv := &gatedInvestigator{runs: map[string]int{}, gate: make(chan struct{})}
	r := NewInProcess(cs, inv, InProcessOptions{MaxConcurrent: 2})
	defer r.Stop()
	req := agent.TaskRequest{Session: agent.Session{Namespace: "shop"}, Task: agent.Task{ID: "i1-t1", Type: agent.TaskAnalyze}}

	out, err := r.Check(ctx, owner, "i1-t1")
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(out.State).To(Equal(StateMissing))
	g.Expect(out.Orphaned).To(BeTrue(), "this process never started the task")

	g.Expect(r.Start(ctx, owner, req)).To(Succeed())
	g.Expect(r.Start(ctx, owner, req)).To(Succeed(), "a second Start is a no-op")
	out, err = r.Check(ctx, owner, "i1-t1")
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(out.State).To(Equal(StateRunning))

	close(inv.gate)
	g.Eventually(r.Finished()).Should(Receive(Equal(owner)))
	out, err = r.Check(ctx, owner, "i1-t1")
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(out.State).To(Equal(StateDone))
	g.Expect(out.Result.Summary).To(Equal("done i1-t1"))

	g.Expect(r.Start(ctx, owner, req)).To(Succeed())
	g.Expect(r.Running()).To(BeZero(), "a task with a result is not started again")
	g.Expect(inv.runs["i1-t1"]).To(Equal(1))
}

// The runner hands a result it wrote over from memory, also when the task was the last
// one of its session to run (whose end releases the session's scope).
func TestInProcessHandsOverItsResultWithoutReadingIt(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	cs := fake.NewClientset()
	inv := &gatedInvestigator{runs: map[string]int{}, gate: make(chan struct{})}
	r := NewInProcess(cs, inv, InProcessOptions{})
	defer r.Stop()
	g.Expect(r.Start(ctx, owner, agent.TaskRequest{Task: agent.Task{ID: "i1-t1"}})).To(Succeed())
	close(inv.gate)
	g.Eventually(r.Finished()).Should(Receive(Equal(owner)))
	reads := 0
	for _, a := range cs.Actions() {
		if a.GetVerb() == "get" || a.GetVerb() == "list" {
			reads++
		}
	}
	out, err := r.Check(ctx, owner, "i1-t1")
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(out.State).To(Equal(StateDone))
	g.Expect(out.Result.Summary).To(Equal("done i1-t1"))
	after := 0
	for _, a := range cs.Actions() {
		if a.GetVerb() == "get" || a.GetVerb() == "list" {
			after++
		}
	}
	g.Expect(after).To(Equal(reads), "Check read the result it had written")
	g.Expect(inv.runs["i1-t1"]).To(Equal(1))
}

func TestInProcessCleanupCancels(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	cs := fake.NewClientset()
	inv := &gatedInvestigator{runs: map[string]int{}, gate: make(chan struct{})}
	r := NewInProcess(cs, inv, InProcessOptions{MaxConcurrent: 1})
	defer r.Stop()
	for _, id := range []string{"i1-t1", "i1-t2"} {
		g.Expect(r.Start(ctx, owner, agent.TaskRequest{Task: agent.Task{ID: id}})).To(Succeed())
	}
	g.Eventually(inv.calls.Load).Should(Equal(int32(1)), "the second task waits for a slot")
	g.Expect(r.Cleanup(ctx, Owner{Namespace: owner.Namespace, Name: owner.Name})).To(Succeed())
	g.Eventually(r.Running).Should(BeZero())
	for _, id := range []string{"i1-t1", "i1-t2"} {
		out, err := r.Check(ctx, owner, id)
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(out.State).To(Equal(StateMissing), id)
	}
	list, err := cs.CoreV1().ConfigMaps("shop").List(ctx, metav1.ListOptions{})
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(list.Items).To(BeEmpty(), "a cancelled task writes no result")
}

// A task lost while this process runs (here its failure was handed over, and then it is
// asked about again) is Missing without being Orphaned: the loss is the task's own. After
// a restart, the new process's runner knows nothing of it: Orphaned.
func TestInProcessTellsItsOwnLossesFromARestart(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	cs := fake.NewClientset()
	inv := &gatedInvestigator{runs: map[string]int{}, gate: make(chan struct{})}
	r := NewInProcess(cs, inv, InProcessOptions{TaskTimeout: time.Second})
	req := agent.TaskRequest{Task: agent.Task{ID: "i1-t1"}}
	g.Expect(r.Start(ctx, owner, req)).To(Succeed())
	g.Eventually(inv.calls.Load).Should(Equal(int32(1)))

	restarted := NewInProcess(cs, inv, InProcessOptions{})
	defer restarted.Stop()
	out, err := restarted.Check(ctx, owner, "i1-t1")
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(out).To(Equal(Outcome{State: StateMissing, Orphaned: true}), "started by another process")

	// The first process fails to store the result (the task was cancelled under it).
	r.stop()
	r.wg.Wait()
	out, err = r.Check(ctx, owner, "i1-t1")
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(out.State).To(Equal(StateFailed))
	out, err = r.Check(ctx, owner, "i1-t1")
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(out).To(Equal(Outcome{State: StateMissing}), "lost by the process that started it")

	g.Expect(r.Cleanup(ctx, owner)).To(Succeed())
	g.Expect(r.started).To(BeEmpty(), "a cleaned-up owner's tasks are forgotten")
}

func TestInProcessTimeoutBecomesAFailedResult(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	cs := fake.NewClientset()
	inv := &gatedInvestigator{runs: map[string]int{}, gate: make(chan struct{})}
	r := NewInProcess(cs, inv, InProcessOptions{TaskTimeout: 50 * time.Millisecond})
	defer r.Stop()
	g.Expect(r.Start(ctx, owner, agent.TaskRequest{Task: agent.Task{ID: "i1-t1"}})).To(Succeed())
	g.Eventually(func() State {
		out, _ := r.Check(ctx, owner, "i1-t1")
		return out.State
	}).Should(Equal(StateDone))
	out, _ := r.Check(ctx, owner, "i1-t1")
	g.Expect(out.Result.Error).NotTo(BeEmpty())
}
