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
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"

	kubagev1alpha1 "github.com/kubage/kubage/api/v1alpha1"
)

// SpecHash identifies what a run answers: the spec without the approvals (which change
// during a Remediate session without asking a new question).
func SpecHash(spec kubagev1alpha1.TroubleshootSpec) string {
	spec.Approvals = nil
	raw, _ := json.Marshal(spec)
	sum := sha256.Sum256(raw)
	return hex.EncodeToString(sum[:8])
}

// RootCauseFound reports whether a root cause names an actual cause.
func RootCauseFound(rc *kubagev1alpha1.RootCause) bool {
	if rc == nil {
		return false
	}
	switch rc.Category {
	case "", kubagev1alpha1.CategoryUnknown, "NoProblemFound", "Inconclusive":
		return false
	}
	return true
}

// Outcome is the condition reason and message that describe where a session stands.
func Outcome(st *kubagev1alpha1.TroubleshootStatus, ck *Checkpoint) (string, string) {
	var stop *Stop
	if ck != nil {
		stop = ck.Stop
	}
	summary := ""
	if st.RootCause != nil {
		summary = st.RootCause.Summary
	}
	switch st.Phase {
	case kubagev1alpha1.PhaseFailed:
		if stop != nil && stop.Reason != "" {
			return stop.Reason, stop.Message
		}
		return kubagev1alpha1.FailedReason, "The investigation failed"
	case kubagev1alpha1.PhaseCompleted:
		switch {
		case stop != nil && stop.Reason != "":
			return stop.Reason, clean("Stopped early ("+stop.Message+"); concluded from what was found: "+orNone(summary), 1024)
		case RootCauseFound(st.RootCause):
			return kubagev1alpha1.SucceededReason, summary
		default:
			return kubagev1alpha1.NoRootCauseReason, orNone(summary)
		}
	case kubagev1alpha1.PhaseAwaitingApproval:
		n := 0
		if st.Remediation != nil {
			for _, a := range st.Remediation.Actions {
				if a.Approval == kubagev1alpha1.ApprovalPending || a.Approval == "" {
					n++
				}
			}
		}
		return kubagev1alpha1.AwaitingApprovalReason, fmt.Sprintf("%d remediation action(s) await a decision in spec.approvals", n)
	case "", kubagev1alpha1.PhasePending:
		return kubagev1alpha1.ProgressingReason, "The session is about to start"
	}
	msg := "Session in phase " + string(st.Phase)
	if st.Iteration > 0 {
		msg += fmt.Sprintf(", iteration %d", st.Iteration)
	}
	if st.Phase == kubagev1alpha1.PhaseInvestigating && st.Plan != nil {
		done := 0
		for _, t := range st.Plan.Tasks {
			if t.State.IsDone() {
				done++
			}
		}
		msg += fmt.Sprintf(", %d of %d task(s) done", done, len(st.Plan.Tasks))
	}
	return kubagev1alpha1.ProgressingReason, msg
}

func orNone(s string) string {
	if s == "" {
		return "no root cause named"
	}
	return s
}
