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
	"errors"
	"testing"

	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/events"
	ctrl "sigs.k8s.io/controller-runtime"

	kubagev1alpha1 "github.com/kubage/kubage/api/v1alpha1"
	serror "github.com/kubage/kubage/internal/errors"
)

func newTroubleshoot(gen int64, phase kubagev1alpha1.TroubleshootPhase) *kubagev1alpha1.Troubleshoot {
	ts := &kubagev1alpha1.Troubleshoot{ObjectMeta: metav1.ObjectMeta{Name: "t", Namespace: "n", Generation: gen}}
	ts.Status.Phase = phase
	return ts
}

func TestSummarizeTroubleshoot(t *testing.T) {
	cases := []struct {
		name       string
		phase      kubagev1alpha1.TroubleshootPhase
		err        error
		wantStatus metav1.ConditionStatus
		wantReason string
		wantGen    int64
		wantStall  bool
	}{
		{"pending is progressing", kubagev1alpha1.PhasePending, nil, metav1.ConditionFalse, kubagev1alpha1.ProgressingReason, 3, false},
		{"completed without a root cause is ready", kubagev1alpha1.PhaseCompleted, nil, metav1.ConditionTrue, kubagev1alpha1.NoRootCauseReason, 3, false},
		{"failed is not ready", kubagev1alpha1.PhaseFailed, nil, metav1.ConditionFalse, kubagev1alpha1.FailedReason, 3, false},
		{"investigating is progressing", kubagev1alpha1.PhaseInvestigating, nil, metav1.ConditionFalse, kubagev1alpha1.ProgressingReason, 3, false},
		{"a transient error keeps the old observedGeneration", kubagev1alpha1.PhasePending, errors.New("etcd is slow"), metav1.ConditionFalse, kubagev1alpha1.FailedReason, 0, false},
		{"a stalled error names its reason", kubagev1alpha1.PhasePending, serror.NewStalling(kubagev1alpha1.ReferenceNotFoundReason, errors.New(`secret "llm" not found`)), metav1.ConditionFalse, kubagev1alpha1.ReferenceNotFoundReason, 0, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g := NewWithT(t)
			ts := newTroubleshoot(3, c.phase)
			summarizeTroubleshoot(ts, nil, c.err)
			ready := meta.FindStatusCondition(ts.Status.Conditions, kubagev1alpha1.ReadyCondition)
			g.Expect(ready).NotTo(BeNil())
			g.Expect(ready.Status).To(Equal(c.wantStatus))
			g.Expect(ready.Reason).To(Equal(c.wantReason))
			g.Expect(ready.ObservedGeneration).To(Equal(int64(3)))
			g.Expect(ts.Status.ObservedGeneration).To(Equal(c.wantGen))
			g.Expect(meta.IsStatusConditionTrue(ts.Status.Conditions, kubagev1alpha1.StalledCondition)).To(Equal(c.wantStall))
			g.Expect(ts.Status.Conditions[0].Type).To(Equal(kubagev1alpha1.ReadyCondition), "Ready comes first")
		})
	}
}

func TestStalledClearsOnSuccess(t *testing.T) {
	g := NewWithT(t)
	ks := &kubagev1alpha1.KnowledgeSource{ObjectMeta: metav1.ObjectMeta{Generation: 1}}
	summarizeKnowledgeSource(ks, serror.NewStalling(kubagev1alpha1.InvalidSpecReason, errors.New("bad")))
	g.Expect(meta.IsStatusConditionTrue(ks.Status.Conditions, kubagev1alpha1.StalledCondition)).To(BeTrue())
	summarizeKnowledgeSource(ks, nil)
	g.Expect(meta.FindStatusCondition(ks.Status.Conditions, kubagev1alpha1.StalledCondition)).To(BeNil())
	g.Expect(ks.Status.ObservedGeneration).To(Equal(int64(1)))
}

func TestResultForStalled(t *testing.T) {
	g := NewWithT(t)
	_, err := resultFor(ctrl.Result{}, serror.NewStalling(kubagev1alpha1.InvalidSpecReason, errors.New("bad")))
	g.Expect(err).NotTo(HaveOccurred(), "stalled objects wait for a spec change instead of backoff")
	_, err = resultFor(ctrl.Result{}, errors.New("transient"))
	g.Expect(err).To(HaveOccurred())
}

func TestReadyTransitionEmitsOneEvent(t *testing.T) {
	g := NewWithT(t)
	rec := events.NewFakeRecorder(10)
	ts := newTroubleshoot(1, kubagev1alpha1.PhasePending)

	// First reconcile: no condition before, Progressing after.
	before := ts.DeepCopy()
	summarizeTroubleshoot(ts, nil, nil)
	recordReadyTransition(rec, ts, before.Status.Conditions, ts.Status.Conditions)
	g.Expect(rec.Events).To(Receive(Equal("Normal Progressing The session is about to start")))

	// Second reconcile of a new generation: same status and reason, no Event.
	ts.Generation = 2
	before = ts.DeepCopy()
	summarizeTroubleshoot(ts, nil, nil)
	recordReadyTransition(rec, ts, before.Status.Conditions, ts.Status.Conditions)
	g.Expect(rec.Events).NotTo(Receive())

	// A failure is a transition and a Warning.
	before = ts.DeepCopy()
	summarizeTroubleshoot(ts, nil, errors.New("boom"))
	recordReadyTransition(rec, ts, before.Status.Conditions, ts.Status.Conditions)
	g.Expect(rec.Events).To(Receive(HavePrefix("Warning Failed boom")))
}

func TestTruncateKeepsUTF8(t *testing.T) {
	g := NewWithT(t)
	g.Expect(truncate("héllo", 2)).To(Equal("h"))
	g.Expect(truncate("héllo", 3)).To(Equal("hé"))
	g.Expect(truncate("abc", 10)).To(Equal("abc"))
}
