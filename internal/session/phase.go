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
	"time"

	"go.opentelemetry.io/otel/attribute"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	kubagev1alpha1 "github.com/kubage/kubage/api/v1alpha1"
	"github.com/kubage/kubage/internal/metrics"
	"github.com/kubage/kubage/internal/runner"
	"github.com/kubage/kubage/internal/telemetry"
)

// phaseStep is one step of the phase machine: it changes the step's status copy and
// checkpoint (never the cluster twice for the same step) and says when it wants the next
// step; zero waits for a change of the object or means the session is finished.
type phaseStep func(ctx context.Context, w *work) (time.Duration, error)

// phaseSteps is the step each phase takes. Completed and Failed have none: a finished
// session only moves again through the rerun annotation.
var phaseSteps = map[kubagev1alpha1.TroubleshootPhase]phaseStep{
	"":                                   created,
	kubagev1alpha1.PhasePending:          pending,
	kubagev1alpha1.PhasePlanning:         plan,
	kubagev1alpha1.PhaseInvestigating:    investigate,
	kubagev1alpha1.PhaseRegulating:       regulate,
	kubagev1alpha1.PhaseSummarizing:      summarize,
	kubagev1alpha1.PhaseAwaitingApproval: awaitApproval,
	kubagev1alpha1.PhaseRemediating:      executeApproved,
}

// steps runs the step of the session's phase and, where that is safe, the steps that
// follow it in the same Advance (chains), so that fewer steps are persisted and fewer
// reconciles are needed:
//   - a new session is recorded as Pending and checked at once (a kill before the status
//     write leaves it new, and the next Advance does both again);
//   - planned tasks start in the step that planned them, once the checkpoint holding
//     their definitions is saved (a kill before the status write leaves it Planning, and
//     plan takes the saved tasks again instead of asking the brain anew);
//   - a verdict to look further plans the next round and starts its tasks at once, once
//     the checkpoint holding the verdict and the tasks is saved (a kill before the status
//     write leaves it Regulating: regulate takes the saved verdict, plan the saved tasks).
//
// Every phase is still persisted by some step of a session (Planning in its first round,
// Regulating after each round, Summarizing before the end), so each shows in the status.
// A chained step that fails is undone; the next Advance runs it alone.
func (w *work) steps(ctx context.Context) (time.Duration, error) {
	chain := chains[w.st.Phase]
	after, err := w.step(ctx)
	for _, next := range chain {
		if err != nil || after != soon || w.st.Phase != next {
			break
		}
		if next == kubagev1alpha1.PhaseInvestigating {
			// Tasks start only once the checkpoint holding their definitions is saved.
			if err := w.e.saveCheckpoint(ctx, w.owner, w.ck); err != nil {
				return 0, err
			}
		}
		st, entered, deferSave := w.st.DeepCopy(), len(w.entered), w.deferSave
		saved := *w.ck
		saved.Timeline, saved.Rounds = append([]Mark(nil), w.ck.Timeline...), append([]Round(nil), w.ck.Rounds...)
		if after, err = w.step(ctx); err != nil {
			// The checkpoint's other slices are replaced, never changed in place, by the
			// steps that may chain.
			*w.st, *w.ck, w.entered, w.deferSave = *st, saved, w.entered[:entered], deferSave
			return soon, nil
		}
	}
	return after, err
}

// chains lists, by the phase an Advance starts in, the phases whose steps may follow the
// first step in the same Advance, in order; the chain ends at the first step that enters
// another phase, wants to wait, or fails.
var chains = map[kubagev1alpha1.TroubleshootPhase][]kubagev1alpha1.TroubleshootPhase{
	"":                             {kubagev1alpha1.PhasePending},
	kubagev1alpha1.PhasePlanning:   {kubagev1alpha1.PhaseInvestigating},
	kubagev1alpha1.PhaseRegulating: {kubagev1alpha1.PhasePlanning, kubagev1alpha1.PhaseInvestigating},
}

// step runs the step of the session's current phase.
func (w *work) step(ctx context.Context) (time.Duration, error) {
	run, ok := phaseSteps[w.st.Phase]
	if !ok {
		return 0, nil
	}
	phase := string(w.st.Phase)
	if phase == "" {
		phase = "New"
	}
	ctx, span := telemetry.StartPhase(ctx, string(w.owner.UID), phase,
		attribute.String("k8s.namespace.name", w.owner.Namespace), attribute.String("kubage.troubleshoot", w.owner.Name),
		attribute.Int("kubage.iteration", int(w.st.Iteration)))
	after, err := run(ctx, w)
	if w.st.Phase != kubagev1alpha1.TroubleshootPhase(phase) {
		span.SetAttributes(attribute.String("kubage.next_phase", string(w.st.Phase)))
	}
	telemetry.Fail(span, err)
	span.End()
	return after, err
}

// created records a new session as Pending. A checkpoint found for a session that is
// still new was written by an attempt whose status write was lost: its marks go.
func created(_ context.Context, w *work) (time.Duration, error) {
	w.ck.Timeline = nil
	w.enter(kubagev1alpha1.PhasePending, "session created")
	return soon, nil
}

// complete ends the session in Completed.
func (w *work) complete(ctx context.Context) (time.Duration, error) {
	return w.finish(ctx, kubagev1alpha1.PhaseCompleted, "")
}

// fail ends the session in Failed with a reason.
func (w *work) fail(ctx context.Context, reason, message string) (time.Duration, error) {
	w.ck.Stop = &Stop{Reason: reason, Message: clean(message, 1000), Failed: true}
	return w.finish(ctx, kubagev1alpha1.PhaseFailed, message)
}

// finish ends the session in phase: it stops what still runs and writes the report.
func (w *work) finish(ctx context.Context, phase kubagev1alpha1.TroubleshootPhase, note string) (time.Duration, error) {
	// Only this run's runner has anything to stop: a rerun cleaned up after the others.
	all := runner.Owner{Namespace: w.owner.Namespace, Name: w.owner.Name, UID: w.owner.UID}
	for name, r := range w.e.Runners {
		if w.ck.Runner != "" && string(name) != w.ck.Runner {
			continue
		}
		if err := r.Cleanup(ctx, all); err != nil {
			return 0, fmt.Errorf("cleaning up after the session (%s runner): %w", name, err)
		}
	}
	now := metav1.NewTime(w.now)
	w.st.CompletionTime = &now
	w.enter(phase, note)
	w.remember(ctx)
	if err := w.writeReport(ctx); err != nil {
		return 0, err
	}
	reason, _ := Outcome(w.st, w.ck)
	metrics.SessionsFinishedTotal.WithLabelValues(string(phase), reason).Inc()
	if d := w.ck.Degraded; d != nil {
		metrics.SessionsDegradedTotal.WithLabelValues(d.Reason).Inc()
	}
	start := w.ts.CreationTimestamp.Time
	if start.IsZero() {
		start = w.now
	}
	telemetry.EndSession(ctx, string(w.owner.UID), start, w.now, phase == kubagev1alpha1.PhaseFailed,
		attribute.String("k8s.namespace.name", w.owner.Namespace), attribute.String("kubage.troubleshoot", w.owner.Name),
		attribute.String("kubage.outcome", reason), attribute.String("kubage.phase", string(phase)))
	return 0, nil
}
