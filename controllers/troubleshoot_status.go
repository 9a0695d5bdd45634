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
	"fmt"
	"regexp"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/events"

	kubagev1alpha1 "github.com/kubage/kubage/api/v1alpha1"
	"github.com/kubage/kubage/internal/session"
)

// summarizeTroubleshoot computes the conditions and observedGeneration of obj from its
// status, the session checkpoint (nil when the step failed) and the outcome of the steps.
func summarizeTroubleshoot(obj *kubagev1alpha1.Troubleshoot, ck *session.Checkpoint, reconcileErr error) {
	gen := obj.Generation
	conds := &obj.Status.Conditions
	meta.SetStatusCondition(conds, troubleshootReady(obj, ck, reconcileErr))
	setOrRemove(conds, kubagev1alpha1.RootCauseFoundCondition, rootCauseFound(obj))
	if ck != nil {
		setOrRemove(conds, kubagev1alpha1.DegradedCondition, degraded(obj, ck))
		setOrRemove(conds, kubagev1alpha1.OutdatedCondition, outdated(obj, ck))
	}
	setOrRemove(conds, kubagev1alpha1.RemediationApprovedCondition, remediationApproved(obj))
	setOrRemove(conds, kubagev1alpha1.NotifiedCondition, notifiedCondition(obj.Spec.Notify != nil && obj.Status.Phase.IsTerminal(), obj.Status.Notifications, gen))
	setStalled(conds, reconcileErr, gen)
	if reconcileErr == nil {
		obj.Status.ObservedGeneration = gen
	}
}

func setOrRemove(conds *[]metav1.Condition, typ string, c *metav1.Condition) {
	if c == nil {
		meta.RemoveStatusCondition(conds, typ)
		return
	}
	c.Type = typ
	meta.SetStatusCondition(conds, *c)
}

// troubleshootReady is True once the session completed; its reason says how it ended
// (Succeeded, NoRootCause, BudgetExhausted, TimedOut) or why it has not (Progressing,
// AwaitingApproval, TargetNotFound, ...).
func troubleshootReady(obj *kubagev1alpha1.Troubleshoot, ck *session.Checkpoint, reconcileErr error) metav1.Condition {
	if c := readyFromError(reconcileErr, obj.Generation); c != nil {
		return *c
	}
	reason, msg := session.Outcome(&obj.Status, ck)
	status := metav1.ConditionFalse
	if obj.Status.Phase == kubagev1alpha1.PhaseCompleted {
		status = metav1.ConditionTrue
	}
	return metav1.Condition{
		Type: kubagev1alpha1.ReadyCondition, Status: status, Reason: reason,
		Message: truncate(msg, maxConditionMessage), ObservedGeneration: obj.Generation,
	}
}

// rootCauseFound appears once a session has concluded (or failed).
func rootCauseFound(obj *kubagev1alpha1.Troubleshoot) *metav1.Condition {
	rc := obj.Status.RootCause
	if rc == nil && !obj.Status.Phase.IsTerminal() {
		return nil
	}
	c := &metav1.Condition{Status: metav1.ConditionFalse, Reason: kubagev1alpha1.NoRootCauseReason,
		Message: "No root cause was named", ObservedGeneration: obj.Generation}
	if rc != nil {
		c.Message = truncate(rc.Summary, maxConditionMessage)
		if session.RootCauseFound(rc) {
			c.Status, c.Reason = metav1.ConditionTrue, rc.Category
		}
	}
	return c
}

// degraded is True when the loop stopped at a budget (the conclusion rests on less than
// the investigation wanted to look at) or when the brain fell back from the model to the
// rule engine; a budget stop is reported first.
func degraded(obj *kubagev1alpha1.Troubleshoot, ck *session.Checkpoint) *metav1.Condition {
	if ck.Stop != nil {
		switch ck.Stop.Reason {
		case kubagev1alpha1.BudgetExhaustedReason, kubagev1alpha1.TimedOutReason:
			return &metav1.Condition{Status: metav1.ConditionTrue, Reason: ck.Stop.Reason,
				Message: truncate(ck.Stop.Message, maxConditionMessage), ObservedGeneration: obj.Generation}
		}
	}
	if d := ck.Degraded; d != nil && conditionReason.MatchString(d.Reason) {
		return &metav1.Condition{Status: metav1.ConditionTrue, Reason: d.Reason,
			Message: truncate(d.Message, maxConditionMessage), ObservedGeneration: obj.Generation}
	}
	return nil
}

// conditionReason is the API server's rule for condition reasons.
var conditionReason = regexp.MustCompile(`^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$`)

// outdated is True on a finished session whose question changed since the run started.
func outdated(obj *kubagev1alpha1.Troubleshoot, ck *session.Checkpoint) *metav1.Condition {
	if !obj.Status.Phase.IsTerminal() || ck.SpecHash == "" || ck.SpecHash == session.SpecHash(obj.Spec) {
		return nil
	}
	return &metav1.Condition{Status: metav1.ConditionTrue, Reason: kubagev1alpha1.SpecChangedReason, ObservedGeneration: obj.Generation,
		Message: fmt.Sprintf("The result answers generation %d of the spec, which has changed since; set the annotation %s to a new value to investigate again", ck.Generation, session.RerunAnnotation)}
}

// remediationApproved says, in Remediate mode, whether every proposed action has a decision.
func remediationApproved(obj *kubagev1alpha1.Troubleshoot) *metav1.Condition {
	rem := obj.Status.Remediation
	if obj.Spec.Mode != kubagev1alpha1.ModeRemediate || rem == nil || len(rem.Actions) == 0 {
		return nil
	}
	decided := map[string]bool{}
	for _, d := range obj.Spec.Approvals {
		decided[d.ActionID] = d.DecidedBy == ""
	}
	pending, unrecorded := 0, []string{}
	for _, a := range rem.Actions {
		if a.Approval == kubagev1alpha1.ApprovalPending || a.Approval == "" {
			pending++
			// A decision the session did not apply lacks the webhook's record of who decided.
			if decided[a.ID] {
				unrecorded = append(unrecorded, a.ID)
			}
		}
	}
	if len(unrecorded) > 0 {
		return &metav1.Condition{Status: metav1.ConditionFalse, Reason: kubagev1alpha1.ApprovalNotRecordedReason, ObservedGeneration: obj.Generation,
			Message: fmt.Sprintf("The decision on %s carries no decidedBy, so the approval webhook never checked it; remove it and write it again", strings.Join(unrecorded, ", "))}
	}
	if pending > 0 {
		return &metav1.Condition{Status: metav1.ConditionFalse, Reason: kubagev1alpha1.AwaitingApprovalReason, ObservedGeneration: obj.Generation,
			Message: fmt.Sprintf("%d of %d action(s) await a decision in spec.approvals", pending, len(rem.Actions))}
	}
	return &metav1.Condition{Status: metav1.ConditionTrue, Reason: kubagev1alpha1.SucceededReason, ObservedGeneration: obj.Generation,
		Message: fmt.Sprintf("All %d action(s) have a decision", len(rem.Actions))}
}

// recordPhaseTransition emits an Event when the session enters a phase a person acts on or
// waits for, not at every step: it starts (Pending, also on a rerun), it found a root cause
// and awaits approval, it remediates, it ends (Completed, or Failed as a Warning). The note
// of the last two gives the outcome (the root cause) and the path of phases the run took,
// which the steps in between no longer announce one Event each. Stalled and Degraded get
// a Warning each time they begin. entered is what the session engine reports; a reconcile
// that ran more than one step entered more than one phase.
func recordPhaseTransition(rec events.EventRecorder, obj *kubagev1alpha1.Troubleshoot, before *kubagev1alpha1.Troubleshoot, ck *session.Checkpoint, entered []session.Mark) {
	if rec == nil {
		return
	}
	if obj.Status.Phase != before.Status.Phase && obj.Status.Phase != "" {
		if len(entered) == 0 || entered[len(entered)-1].Phase != string(obj.Status.Phase) {
			last := session.Mark{Phase: string(obj.Status.Phase)}
			if ck != nil && len(ck.Timeline) > 0 {
				last.Note = ck.Timeline[len(ck.Timeline)-1].Note
			}
			entered = []session.Mark{last}
		}
		for i, m := range entered {
			phase := kubagev1alpha1.TroubleshootPhase(m.Phase)
			if i == 0 && phase == before.Status.Phase || !announced(phase) {
				continue
			}
			eventType := "Normal"
			if phase == kubagev1alpha1.PhaseFailed {
				eventType = "Warning"
			}
			note := m.Note
			if i == len(entered)-1 && (phase.IsTerminal() || phase == kubagev1alpha1.PhaseAwaitingApproval) {
				note = outcomeNote(obj, ck)
			}
			if note == "" {
				note = "Phase " + string(phase)
			}
			rec.Eventf(obj, nil, eventType, string(phase), "Reconcile", "%s", truncate(note, maxConditionMessage))
		}
	}
	for _, typ := range []string{kubagev1alpha1.StalledCondition, kubagev1alpha1.DegradedCondition} {
		was := meta.FindStatusCondition(before.Status.Conditions, typ)
		now := meta.FindStatusCondition(obj.Status.Conditions, typ)
		if now != nil && now.Status == metav1.ConditionTrue && (was == nil || was.Status != now.Status || was.Reason != now.Reason) {
			rec.Eventf(obj, nil, "Warning", now.Reason, "Reconcile", "%s", now.Message)
		}
	}
}

// announced says whether entering phase is worth an Event: the start of a run, a wait for
// people, a change made to the cluster, the end. The loop's own steps (Planning,
// Investigating, Regulating, Summarizing) show in the status and the run's timeline.
func announced(phase kubagev1alpha1.TroubleshootPhase) bool {
	switch phase {
	case kubagev1alpha1.PhasePending, kubagev1alpha1.PhaseAwaitingApproval, kubagev1alpha1.PhaseRemediating,
		kubagev1alpha1.PhaseCompleted, kubagev1alpha1.PhaseFailed:
		return true
	}
	return false
}

// outcomeNote says how a session ended or why it waits for approval, with the root cause
// when one was found, then the phases of its run.
func outcomeNote(obj *kubagev1alpha1.Troubleshoot, ck *session.Checkpoint) string {
	_, note := session.Outcome(&obj.Status, ck)
	if rc := obj.Status.RootCause; obj.Status.Phase == kubagev1alpha1.PhaseAwaitingApproval && session.RootCauseFound(rc) {
		note = "Root cause: " + rc.Summary + "; " + note
	}
	if ck == nil || len(ck.Timeline) == 0 {
		return note
	}
	path := make([]string, 0, len(ck.Timeline))
	for _, m := range ck.Timeline {
		path = append(path, m.Phase)
	}
	// The path goes last and is shortened in its middle, so that the outcome survives
	// the note's bound and the path keeps its start and its end.
	const keep = 12
	if len(path) > 2*keep {
		path = append(append(path[:keep:keep], fmt.Sprintf("(%d more)", len(path)-2*keep)), path[len(path)-keep:]...)
	}
	suffix := " (phases: " + strings.Join(path, " → ") + ")"
	return truncate(note, maxConditionMessage-len(suffix)) + suffix
}

// recordWaitingEvent emits one Warning Event when a session starts waiting on something
// outside it (its other cluster, a Secret, the agent's bindings), not one per retry.
func recordWaitingEvent(rec events.EventRecorder, obj, before *kubagev1alpha1.Troubleshoot, err error) {
	f := failureOf(err)
	if rec == nil || f == nil || !f.waiting {
		return
	}
	if was := meta.FindStatusCondition(before.Status.Conditions, kubagev1alpha1.ReadyCondition); was != nil && was.Reason == f.reason {
		return
	}
	rec.Eventf(obj, nil, "Warning", f.reason, "Reconcile", "%s", f.message)
}
