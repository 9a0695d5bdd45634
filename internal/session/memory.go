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
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	kubagev1alpha1 "github.com/kubage/kubage/api/v1alpha1"
	"github.com/kubage/kubage/internal/agent"
	"github.com/kubage/kubage/internal/memory"
)

// Fingerprint is the incident-memory fingerprint of a conclusion and the findings behind
// it. The root is the conclusion's category with the culprit's kind; each finding adds
// "rule:object-kind>culprit-kind". Names are left out on purpose: the pod of a recurring
// fault has a new name every time, its kinds and rules do not.
func Fingerprint(rc agent.RootCause, results []agent.TaskResult) memory.Fingerprint {
	if rc.Category == "" {
		return memory.Fingerprint{}
	}
	root := rc.Category + "@" + rc.Culprit.Kind
	var signals []string
	if rc.Rule != "" {
		signals = append(signals, "rule:"+rc.Rule)
	}
	for _, r := range results {
		for _, f := range r.Findings {
			signals = append(signals, f.Rule+":"+f.Object.Kind+">"+f.Culprit.Kind)
		}
	}
	return memory.NewFingerprint(root, signals...)
}

// recall looks the conclusion's fingerprint up in the namespace's memory and cites the
// best earlier match in status. The memory is advice: when it cannot be read the session
// goes on without it and says so on its timeline.
func (w *work) recall(ctx context.Context, rc agent.RootCause, results []agent.TaskResult) {
	w.st.SeenBefore = nil
	w.ck.Fingerprint = nil
	if w.e.Memory == nil || !RootCauseFound(w.st.RootCause) {
		return
	}
	fp := Fingerprint(rc, results)
	if fp.IsZero() {
		return
	}
	w.ck.Fingerprint = &fp
	m, err := w.e.Memory.Find(ctx, w.ts.Namespace, fp, string(w.ts.UID), w.owner.Run)
	if err != nil {
		w.ck.mark(string(w.st.Phase), w.ck.Iteration, w.now, clean("incident memory not read: "+err.Error(), 512))
		return
	}
	if m == nil {
		return
	}
	at := metav1.NewTime(m.Entry.At)
	w.st.SeenBefore = &kubagev1alpha1.SeenBefore{
		Session: m.Entry.Session, ConcludedAt: &at,
		Similarity: int32(m.Similarity), Occurrences: int32(m.Occurrences),
		RootCause: clean(m.Entry.RootCause, 1024), Culprit: clean(m.Entry.Culprit, 320), Fix: clean(m.Entry.Fix, 1024),
	}
}

// remember records a concluded session in the namespace's memory, once it is Completed
// with a root cause. Recording is idempotent (keyed by the session's UID and run), so a
// step redone after a lost status write does not add a second entry.
func (w *work) remember(ctx context.Context) {
	if w.e.Memory == nil || w.ck.Fingerprint == nil || w.st.Phase != kubagev1alpha1.PhaseCompleted || !RootCauseFound(w.st.RootCause) {
		return
	}
	reason, _ := Outcome(w.st, w.ck)
	e := memory.Entry{
		Session: w.ts.Name, UID: string(w.ts.UID), Run: w.owner.Run, At: w.now,
		Fingerprint: *w.ck.Fingerprint, RootCause: w.st.RootCause.Summary, Category: w.st.RootCause.Category,
		Fix: fixText(w.st.Remediation), Outcome: reason,
	}
	if len(w.st.RootCause.AffectedObjects) > 0 {
		c := w.st.RootCause.AffectedObjects[0]
		e.Culprit = c.Kind + "/" + c.Name
	}
	if err := w.e.Memory.Record(ctx, w.ts.Namespace, e); err != nil {
		w.ck.mark(string(w.st.Phase), w.ck.Iteration, w.now, clean("incident memory not written: "+err.Error(), 512))
	}
}

// fixText is the proposal as a person reads it: each action with its command, then how to check.
func fixText(r *kubagev1alpha1.Remediation) string {
	if r == nil {
		return ""
	}
	var parts []string
	for _, a := range r.Actions {
		p := a.Description
		if a.Command != "" {
			p += " (" + a.Command + ")"
		} else if a.Patch != nil {
			p += fmt.Sprintf(" (patch %s/%s)", a.Patch.Target.Kind, a.Patch.Target.Name)
		}
		parts = append(parts, p)
	}
	if len(parts) == 0 && len(r.ValidationSteps) > 0 {
		parts = append(parts, "check: "+r.ValidationSteps[0])
	}
	return strings.Join(parts, "; ")
}
