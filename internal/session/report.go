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

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	kubagev1alpha1 "github.com/kubage/kubage/api/v1alpha1"
	"github.com/kubage/kubage/internal/agent"
	"github.com/kubage/kubage/internal/redact"
	"github.com/kubage/kubage/internal/report"
	"github.com/kubage/kubage/internal/runner"
	"github.com/kubage/kubage/internal/telemetry"
)

// maxReportEvidence bounds the evidence listed in a report (the status keeps 64).
const maxReportEvidence = 200

// writeReport renders the report and stores it in the report ConfigMap.
func (w *work) writeReport(ctx context.Context) error {
	r := BuildReport(w.ts, w.st, w.ck, w.allEvidence(ctx))
	// The report quotes evidence (log lines, messages): credentials go before rendering.
	if err := redact.Default().RedactJSONInto(&r); err != nil {
		return fmt.Errorf("redacting the report: %w", err)
	}
	md := report.Markdown(r)
	js, err := report.JSON(r)
	if err != nil {
		return err
	}
	lbls := w.owner.Labels()
	lbls[runner.LabelComponent] = ComponentReport
	cm := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{
			Name: ReportName(w.ts.Name), Namespace: w.ts.Namespace, Labels: lbls,
			OwnerReferences: []metav1.OwnerReference{w.owner.Reference()},
		},
		Data: map[string]string{kubagev1alpha1.ReportMarkdownKey: md, kubagev1alpha1.ReportJSONKey: string(js)},
	}
	cms := w.e.Client.CoreV1().ConfigMaps(w.ts.Namespace)
	_, err = cms.Create(ctx, cm, metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) {
		var old *corev1.ConfigMap
		if old, err = cms.Get(ctx, cm.Name, metav1.GetOptions{}); err == nil {
			if err = runner.CheckManaged(old, ComponentReport); err == nil {
				old.Labels, old.OwnerReferences, old.Data = cm.Labels, cm.OwnerReferences, cm.Data
				_, err = cms.Update(ctx, old, metav1.UpdateOptions{})
			}
		}
	}
	if err != nil {
		return fmt.Errorf("writing the report: %w", err)
	}
	w.st.ReportRef = &kubagev1alpha1.LocalConfigMapReference{Name: cm.Name}
	return nil
}

// allEvidence is the evidence the report lists: what the conclusion cites, then every
// result's evidence with its raw excerpt, from the results the step worked from (read
// only when it has none). Unreadable results only shorten the report.
func (w *work) allEvidence(ctx context.Context) []agent.Evidence {
	var out []agent.Evidence
	if w.ck.Conclusion != nil {
		out = append(out, w.ck.Conclusion.Evidence...)
	}
	results, err := w.runResults(ctx)
	if err != nil {
		return out
	}
	for _, r := range results {
		out = append(out, r.Evidence...)
	}
	return out
}

// BuildReport gathers what the report says from the status and the checkpoint.
func BuildReport(ts *kubagev1alpha1.Troubleshoot, st *kubagev1alpha1.TroubleshootStatus, ck *Checkpoint, evidence []agent.Evidence) report.Report {
	reason, _ := Outcome(st, ck)
	r := report.Report{
		Name: ts.Name, Namespace: ts.Namespace, Problem: ts.Spec.Problem,
		Mode: string(ts.Spec.Mode), Phase: string(st.Phase), Outcome: reason,
		Usage: report.Usage{ToolCalls: st.Usage.ToolCalls, LLMCalls: st.Usage.LLMCalls, PromptTokens: st.Usage.PromptTokens, CompletionTokens: st.Usage.CompletionTokens},
	}
	if r.Mode == "" {
		r.Mode = string(kubagev1alpha1.ModeDiagnose)
	}
	if telemetry.Enabled() {
		r.TraceID = telemetry.SessionTraceID(string(ts.UID)).String()
	}
	if t := ts.Spec.Target; t != nil {
		switch {
		case t.Name != "":
			r.Target = t.Kind + "/" + t.Name
		case t.Selector != nil:
			r.Target = metav1.FormatLabelSelector(t.Selector)
			if t.Kind != "" {
				r.Target = t.Kind + " " + r.Target
			}
		}
	}
	if st.StartTime != nil {
		r.StartTime = st.StartTime.Time
	}
	if st.CompletionTime != nil {
		r.EndTime = st.CompletionTime.Time
	}
	for _, m := range ck.Timeline {
		r.Timeline = append(r.Timeline, report.Mark{Phase: m.Phase, Iteration: m.Iteration, At: m.At, Note: m.Note})
	}
	for _, round := range ck.Rounds {
		it := report.Iteration{Number: round.Iteration, Verdict: round.Verdict}
		for _, t := range round.Tasks {
			it.Tasks = append(it.Tasks, report.Task{ID: t.ID, Description: t.Description, State: t.State, Summary: t.Summary})
		}
		r.Iterations = append(r.Iterations, it)
	}
	if c := ck.Conclusion; c != nil {
		rc := reportRootCause(c.RootCause)
		if st.RootCause != nil {
			rc.Summary, rc.Category, rc.Evidence = st.RootCause.Summary, st.RootCause.Category, st.RootCause.EvidenceIDs
		}
		r.RootCause = &rc
		for _, a := range c.Alternatives {
			r.Alternatives = append(r.Alternatives, reportRootCause(a))
		}
	} else if st.RootCause != nil {
		r.RootCause = &report.RootCause{Summary: st.RootCause.Summary, Category: st.RootCause.Category, Confidence: int(st.RootCause.Confidence), Evidence: st.RootCause.EvidenceIDs}
	}
	if sb := st.SeenBefore; sb != nil {
		r.SeenBefore = &report.SeenBefore{Session: sb.Session, Similarity: int(sb.Similarity), Occurrences: int(sb.Occurrences),
			RootCause: sb.RootCause, Culprit: sb.Culprit, Fix: sb.Fix}
		if sb.ConcludedAt != nil {
			r.SeenBefore.ConcludedAt = sb.ConcludedAt.Time
		}
	}
	seen := map[string]bool{}
	for _, ev := range evidence {
		id := EvidenceID(ev.ID)
		if seen[id] || len(r.Evidence) >= maxReportEvidence {
			continue
		}
		seen[id] = true
		src := string(ev.Source.Kind)
		if ev.Source.Object != nil {
			src += " " + ev.Source.Object.String()
		}
		if ev.Source.Tool != "" {
			src += " via " + ev.Source.Tool
		}
		if ev.Source.Query != "" {
			src += " (" + ev.Source.Query + ")"
		}
		r.Evidence = append(r.Evidence, report.Evidence{ID: id, Summary: ev.Summary, Source: src, TaskID: ev.TaskID, Data: ev.Data})
	}
	if rem := st.Remediation; rem != nil {
		for _, a := range rem.Actions {
			cmd := a.Command
			if a.Patch != nil {
				cmd = fmt.Sprintf("patch %s/%s (%s): %s", a.Patch.Target.Kind, a.Patch.Target.Name, a.Patch.Type, a.Patch.Patch)
			}
			r.Actions = append(r.Actions, report.Action{ID: a.ID, Description: a.Description, Command: cmd, Risk: string(a.Risk), Approval: string(a.Approval), Result: a.Result})
		}
		r.Validation = rem.ValidationSteps
	}
	return r
}

func reportRootCause(rc agent.RootCause) report.RootCause {
	out := report.RootCause{Summary: rc.Summary, Category: rc.Category, Confidence: rc.Confidence, Chain: rc.Chain, Evidence: rc.EvidenceIDs}
	if !rc.Culprit.IsZero() {
		out.Culprit = rc.Culprit.String()
	}
	for _, a := range rc.AffectedObjects {
		out.Affected = append(out.Affected, a.String())
	}
	return out
}
