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

	"k8s.io/apimachinery/pkg/types"

	kubagev1alpha1 "github.com/kubage/kubage/api/v1alpha1"
	"github.com/kubage/kubage/internal/agent"
	"github.com/kubage/kubage/internal/remediate"
)

// awaitApproval applies the decisions in spec.approvals.
func awaitApproval(ctx context.Context, w *work) (time.Duration, error) {
	if w.st.Remediation == nil || len(w.st.Remediation.Actions) == 0 || w.ts.Spec.Mode != kubagev1alpha1.ModeRemediate {
		// Switching to Diagnose (which the API allows only without approvals) ends the wait.
		return w.complete(ctx)
	}
	decisions := map[string]kubagev1alpha1.ActionApproval{}
	for _, a := range w.ts.Spec.Approvals {
		if a.DecidedBy == "" && w.e.ApprovalsNeedDecidedBy {
			// Defence in depth: a decision the approval webhook did not see never
			// passed the authorizer, so it counts as no decision at all.
			continue
		}
		decisions[a.ActionID] = a
	}
	runnable, undecided, changed := 0, 0, false
	for i := range w.st.Remediation.Actions {
		a := &w.st.Remediation.Actions[i]
		if a.Approval == kubagev1alpha1.ApprovalExecuted || a.Approval == kubagev1alpha1.ApprovalFailed || a.Approval == kubagev1alpha1.ApprovalRejected {
			continue
		}
		d, ok := decisions[a.ID]
		if !ok {
			if a.Approval != kubagev1alpha1.ApprovalApproved {
				undecided++
			}
			continue
		}
		before := *a
		a.DecidedBy = d.DecidedBy
		if d.Decision == kubagev1alpha1.DecisionRejected {
			a.Approval, a.Result = kubagev1alpha1.ApprovalRejected, "Rejected; not executed."
		} else {
			a.Approval = kubagev1alpha1.ApprovalApproved
			if _, why := w.executable(a); why != "" {
				a.Result = clean("Approved, but not executed by the operator: "+why+". Run it yourself if it still applies.", 1024)
			} else {
				a.Result = ""
				runnable++
			}
		}
		changed = changed || before != *a
	}
	if runnable > 0 {
		w.enter(kubagev1alpha1.PhaseRemediating, fmt.Sprintf("%d approved action(s) to execute", runnable))
		return soon, nil
	}
	if undecided == 0 {
		return w.complete(ctx)
	}
	if changed {
		return 0, w.writeReport(ctx)
	}
	return 0, nil
}

// executable says whether the operator may run an approved action itself, or why not.
// Only Low-risk actions of a Remediate session that parse into a supported operation in
// the session's namespace run; everything else stays advice for a human.
func (w *work) executable(a *kubagev1alpha1.RemediationAction) (remediate.Op, string) {
	if w.ts.Spec.Mode != kubagev1alpha1.ModeRemediate {
		return remediate.Op{}, "Diagnose mode never changes the cluster"
	}
	// The stored risk is rechecked against the structure: status is not proof of anything.
	if risk := ActionRisk(w.ts.Namespace, a, agent.Risk(a.Risk)); risk != kubagev1alpha1.RiskLow {
		return remediate.Op{}, "only Low-risk actions are executed, this one is " + string(risk) + " risk"
	}
	var op remediate.Op
	var err error
	switch {
	case a.Patch != nil:
		p := a.Patch
		op, err = remediate.ParsePatch(w.ts.Namespace, p.Target.Kind, p.Target.Namespace, p.Target.Name, string(p.Type), p.Patch)
	case a.Command != "":
		op, err = remediate.ParseCommand(w.ts.Namespace, a.Command)
	default:
		return remediate.Op{}, "the action has no command or patch"
	}
	if err != nil {
		return remediate.Op{}, err.Error()
	}
	return op, ""
}

// intend records, before an action runs, that it is about to run and which object it is
// pinned to, and saves the checkpoint at once; an action already recorded is resumed with
// its pin. The status write after the action may be lost to a crash; this record is not.
func (w *work) intend(ctx context.Context, op remediate.Op, action string) (remediate.Op, error) {
	for _, in := range w.ck.Executing {
		if in.Action == action {
			op.UID, op.Resumed = types.UID(in.UID), true
			return op, nil
		}
	}
	uid, err := w.executor().Pin(ctx, op)
	if err != nil {
		return op, err
	}
	w.ck.Executing = append(w.ck.Executing, Intent{Action: action, UID: string(uid)})
	if err := w.e.saveCheckpoint(ctx, w.owner, w.ck); err != nil {
		return op, err
	}
	op.UID = uid
	return op, nil
}

// executeApproved executes the approved, executable actions.
func executeApproved(ctx context.Context, w *work) (time.Duration, error) {
	if w.st.Remediation == nil {
		return w.complete(ctx)
	}
	undecided := 0
	for i := range w.st.Remediation.Actions {
		a := &w.st.Remediation.Actions[i]
		switch {
		case a.Approval == kubagev1alpha1.ApprovalPending || a.Approval == "":
			undecided++
			continue
		case a.Approval != kubagev1alpha1.ApprovalApproved || a.Result != "":
			continue
		}
		if w.e.ApprovalsNeedDecidedBy && a.DecidedBy == "" {
			a.Result = clean("Approved, but not executed: the approval webhook did not record who approved it ("+kubagev1alpha1.ApprovalNotRecordedReason+").", 1024)
			continue
		}
		op, why := w.executable(a)
		if why != "" {
			a.Result = clean("Approved, but not executed by the operator: "+why+".", 1024)
			continue
		}
		var err error
		if op, err = w.intend(ctx, op, a.ID); err != nil {
			return 0, err
		}
		res, err := w.executor().Execute(ctx, op, string(w.owner.UID)+"/"+a.ID)
		if err != nil {
			a.Approval, a.Result = kubagev1alpha1.ApprovalFailed, clean(err.Error(), 1024)
		} else {
			a.Approval, a.Result = kubagev1alpha1.ApprovalExecuted, clean(res, 1024)
		}
		w.ck.mark(string(kubagev1alpha1.PhaseRemediating), w.ck.Iteration, w.now, a.ID+": "+a.Result)
	}
	if undecided > 0 {
		w.enter(kubagev1alpha1.PhaseAwaitingApproval, fmt.Sprintf("%d action(s) still await a decision", undecided))
		return 0, w.writeReport(ctx)
	}
	return w.complete(ctx)
}
