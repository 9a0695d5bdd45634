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

package agent

import (
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubage/kubage/internal/tools"
)

// The reason Kubernetes reports (an event's reason, a condition's reason: FailedGetScale,
// FailedMount, BackoffLimitExceeded, ProgressDeadlineExceeded) is the word a user greps
// for, in kubectl describe and in runbooks. Evidence that carries one remembers it; a
// finding collects the reasons of the evidence it cites; and the summary writer adds those
// its sentence does not say already, so no rule has to remember to quote them.

// maxReasons bounds the reasons a summary quotes.
const maxReasons = 2

// noteReason records that the evidence id rests on a reason Kubernetes reported.
func (e *env) noteReason(id, reason string) {
	reason = tools.Sanitize(reason, 80, true)
	if id == "" || !isReasonWord(reason) {
		return
	}
	if e.reasons == nil {
		e.reasons = map[string][]string{}
	}
	for _, r := range e.reasons[id] {
		if r == reason {
			return
		}
	}
	e.reasons[id] = append(e.reasons[id], reason)
}

// isReasonWord accepts the UpperCamelCase single words Kubernetes uses as reasons.
func isReasonWord(s string) bool {
	if len(s) < 3 || len(s) > 64 || s[0] < 'A' || s[0] > 'Z' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// reasonsOf lists the reasons behind the evidence ids, in citation order.
func (e *env) reasonsOf(ids []string) []string {
	var out []string
	for _, id := range ids {
		for _, r := range e.reasons[id] {
			if !containsStr(out, r) {
				out = append(out, r)
			}
		}
	}
	return out
}

// reasonNote is what the summary writer adds for the reasons a summary does not say yet:
// "" when it says them all.
func reasonNote(summary, reasons string) string {
	var missing []string
	for _, r := range strings.Split(reasons, ",") {
		r = strings.TrimSpace(r)
		if r != "" && !strings.Contains(summary, r) && len(missing) < maxReasons {
			missing = append(missing, r)
		}
	}
	if len(missing) == 0 {
		return ""
	}
	return " Kubernetes reports: " + strings.Join(missing, ", ") + "."
}

// quietReasons are states, not reasons worth quoting: every exit is an "Error", every
// container starts "ContainerCreating".
var quietReasons = map[string]bool{"Error": true, "Completed": true, "ContainerCreating": true, "PodInitializing": true}

// notePodReasons records the reasons the kubelet reports in a pod's status (its own reason,
// such as Evicted, and its containers' waiting and termination reasons) behind the evidence
// id of that status.
func (e *env) notePodReasons(id string, p *corev1.Pod) {
	e.noteReason(id, p.Status.Reason)
	for _, cs := range append(append([]corev1.ContainerStatus(nil), p.Status.InitContainerStatuses...), p.Status.ContainerStatuses...) {
		for _, st := range []corev1.ContainerState{cs.State, cs.LastTerminationState} {
			switch {
			case st.Waiting != nil && !quietReasons[st.Waiting.Reason]:
				e.noteReason(id, st.Waiting.Reason)
			case st.Terminated != nil && !quietReasons[st.Terminated.Reason]:
				e.noteReason(id, st.Terminated.Reason)
			}
		}
	}
}
