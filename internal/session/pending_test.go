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
	"testing"

	. "github.com/onsi/gomega"

	kubagev1alpha1 "github.com/kubage/kubage/api/v1alpha1"
	serror "github.com/kubage/kubage/internal/errors"
)

func TestMissingTargetFails(t *testing.T) {
	g := NewWithT(t)
	h := newHarness(t)
	ts := troubleshoot(webTarget)
	h.drive(g, ts, kubagev1alpha1.PhaseCompleted, kubagev1alpha1.PhaseFailed)
	g.Expect(ts.Status.Phase).To(Equal(kubagev1alpha1.PhaseFailed))
	step, err := h.engine.Advance(context.Background(), ts)
	g.Expect(err).NotTo(HaveOccurred())
	reason, msg := Outcome(&ts.Status, step.Checkpoint)
	g.Expect(reason).To(Equal(kubagev1alpha1.TargetNotFoundReason))
	g.Expect(msg).To(ContainSubstring("no such Deployment web in payments"))
	g.Expect(ts.Status.ReportRef).NotTo(BeNil(), "a failed session still has a report")
}

func TestUnavailableRunnerStalls(t *testing.T) {
	g := NewWithT(t)
	h := newHarness(t, crashLoopApp()...)
	ts := troubleshoot(webTarget)
	ts.Spec.TaskRunner = kubagev1alpha1.TaskRunnerJob
	_, err := h.engine.Advance(context.Background(), ts)
	g.Expect(err).NotTo(HaveOccurred())
	_, err = h.engine.Advance(context.Background(), ts)
	var se *serror.Stalling
	g.Expect(err).To(BeAssignableToTypeOf(se))
	g.Expect(err.Error()).To(ContainSubstring(`task runner "Job" is not available`))
	g.Expect(ts.Status.Phase).To(Equal(kubagev1alpha1.PhasePending))
}
