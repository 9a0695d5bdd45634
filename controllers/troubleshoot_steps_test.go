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

package controllers

import (
	"context"
	"errors"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"

	kubagev1alpha1 "github.com/kubage/kubage/api/v1alpha1"
	"github.com/kubage/kubage/internal/agent"
	serror "github.com/kubage/kubage/internal/errors"
	"github.com/kubage/kubage/internal/runner"
	"github.com/kubage/kubage/internal/session"
)

// idleRunner runs nothing and records which owners it was asked to clean up.
type idleRunner struct{ cleaned []runner.Owner }

func (r *idleRunner) Start(context.Context, runner.Owner, agent.TaskRequest) error { return nil }
func (r *idleRunner) Check(context.Context, runner.Owner, string) (runner.Outcome, error) {
	return runner.Outcome{State: runner.StateMissing}, nil
}
func (r *idleRunner) Cleanup(_ context.Context, o runner.Owner) error {
	r.cleaned = append(r.cleaned, o)
	return nil
}

func stepReconciler(rn *idleRunner, selector string) *TroubleshootReconciler {
	sel, err := ParseWatchSelector(selector)
	if err != nil {
		panic(err)
	}
	return &TroubleshootReconciler{WatchSelector: sel, Engine: &session.Engine{
		Client:        fake.NewClientset(),
		Runners:       map[kubagev1alpha1.TaskRunner]runner.Runner{kubagev1alpha1.TaskRunnerInProcess: rn},
		DefaultRunner: kubagev1alpha1.TaskRunnerInProcess,
	}}
}

func TestAdmitLeavesDeletedAndForeignSessionsAlone(t *testing.T) {
	g := NewWithT(t)
	rn := &idleRunner{}
	r := stepReconciler(rn, kubagev1alpha1.ShardingKeyLabel+"=blue")

	ts := newTroubleshoot(1, kubagev1alpha1.PhaseInvestigating)
	ts.Labels = map[string]string{kubagev1alpha1.ShardingKeyLabel: "blue"}
	g.Expect(r.admit(context.Background(), ts)).To(BeTrue())
	g.Expect(rn.cleaned).To(BeEmpty())

	ts.Labels[kubagev1alpha1.ShardingKeyLabel] = "green"
	g.Expect(r.admit(context.Background(), ts)).To(BeFalse(), "another shard's session")
	delete(ts.Labels, kubagev1alpha1.ShardingKeyLabel)
	g.Expect(r.admit(context.Background(), ts)).To(BeFalse(), "an unlabelled session belongs to the main shard")
	g.Expect(rn.cleaned).To(BeEmpty(), "a foreign session's tasks are not ours to stop")

	ts.Labels = map[string]string{kubagev1alpha1.ShardingKeyLabel: "blue"}
	now := metav1.NewTime(time.Now())
	ts.DeletionTimestamp = &now
	g.Expect(r.admit(context.Background(), ts)).To(BeFalse(), "a session being deleted is not advanced")
	g.Expect(rn.cleaned).To(ConsistOf(runner.Owner{Namespace: "n", Name: "t"}), "its in-process tasks are stopped")
}

func TestWatchSelectorSplitsObjectsBetweenShards(t *testing.T) {
	g := NewWithT(t)
	main, blue, all := stepReconciler(&idleRunner{}, "!"+kubagev1alpha1.ShardingKeyLabel),
		stepReconciler(&idleRunner{}, kubagev1alpha1.ShardingKeyLabel+"=blue"), stepReconciler(&idleRunner{}, "")
	ts := newTroubleshoot(1, kubagev1alpha1.PhasePending)
	g.Expect([]bool{main.admit(context.Background(), ts), blue.admit(context.Background(), ts), all.admit(context.Background(), ts)}).
		To(Equal([]bool{true, false, true}), "an unlabelled session")
	ts.Labels = map[string]string{kubagev1alpha1.ShardingKeyLabel: "blue"}
	g.Expect([]bool{main.admit(context.Background(), ts), blue.admit(context.Background(), ts), all.admit(context.Background(), ts)}).
		To(Equal([]bool{false, true, true}), "a session of shard blue")

	_, err := ParseWatchSelector("sharding.kubage.io/key in (")
	g.Expect(err).To(HaveOccurred())
	g.Expect(WatchCacheOptions(all.WatchSelector)).To(BeNil(), "no selector, no narrowed cache")
	g.Expect(WatchCacheOptions(blue.WatchSelector)).To(HaveLen(4), "the reconciled kinds are cached by shard")
}

func TestAdvanceSessionStepKeepsTheCheckpointOrTheError(t *testing.T) {
	g := NewWithT(t)
	run := &troubleshootRun{r: stepReconciler(&idleRunner{}, "")}
	ts := newTroubleshoot(1, "")
	ts.UID, ts.Spec.Problem = "uid-1", "web restarts"

	res, err := run.advanceSession(context.Background(), ts)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(ts.Status.Phase).To(Equal(kubagev1alpha1.PhasePlanning), "a new session is recorded Pending and checked in one step")
	g.Expect(run.entered).NotTo(BeEmpty(), "the phases it entered are kept for their Events")
	g.Expect(res.RequeueAfter).To(BeNumerically(">", 0), "the next step follows at once")
	g.Expect(run.ck).NotTo(BeNil())

	// A new session asking for a runner this operator lacks.
	ts = newTroubleshoot(1, "")
	ts.Name, ts.UID, ts.Spec.Problem = "t2", "uid-2", "web restarts"
	ts.Spec.TaskRunner = kubagev1alpha1.TaskRunnerJob
	run = &troubleshootRun{r: run.r}
	_, err = run.advanceSession(context.Background(), ts)
	g.Expect(err).NotTo(HaveOccurred(), "the check chained to recording the session waits for the next step")
	g.Expect(ts.Status.Phase).To(Equal(kubagev1alpha1.PhasePending))

	before := ts.Status.DeepCopy()
	run = &troubleshootRun{r: run.r}
	_, err = run.advanceSession(context.Background(), ts)
	var stalling *serror.Stalling
	g.Expect(errors.As(err, &stalling)).To(BeTrue())
	g.Expect(stalling.Reason).To(Equal(kubagev1alpha1.RunnerUnavailableReason))
	g.Expect(run.ck).To(BeNil(), "a failed step has no checkpoint to derive conditions from")
	g.Expect(ts.Status).To(Equal(*before), "a failed step leaves the status as it was")
}
