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
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	kubagev1alpha1 "github.com/kubage/kubage/api/v1alpha1"
	"github.com/kubage/kubage/internal/agent"
	"github.com/kubage/kubage/internal/knowledge"
	"github.com/kubage/kubage/internal/metrics"
)

// summarize writes the conclusion, the evidence and the report.
func summarize(ctx context.Context, w *work) (time.Duration, error) {
	brain, results, err := w.brainAndResults(ctx)
	if err != nil {
		return 0, err
	}
	p := agent.Progress{Iteration: w.ck.Iteration, Results: results, Verdict: w.ck.Verdict}
	if w.ck.Stop != nil {
		p.StopReason = w.ck.Stop.Message
	}
	sctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	c, err := brain.Summarize(sctx, w.ck.Session, p)
	w.account(brain)
	if err != nil {
		if w.now.After(w.deadline().Add(summarizeGrace)) {
			return w.fail(ctx, kubagev1alpha1.SummarizeFailedReason, "No conclusion could be written: "+err.Error())
		}
		return 0, fmt.Errorf("summarizing: %w", err)
	}
	cited := w.cite(ctx, &c)
	w.ck.Conclusion = &c
	var all []agent.Evidence
	for _, r := range results {
		all = append(all, r.Evidence...)
	}
	w.st.Evidence = Evidence(c.Evidence, all, metav1.NewTime(w.now))
	for i := range w.st.Evidence {
		if ev, ok := cited[w.st.Evidence[i].ID]; ok {
			w.st.Evidence[i] = ev
		}
	}
	known := make(map[string]bool, len(w.st.Evidence))
	for _, ev := range w.st.Evidence {
		known[ev.ID] = true
	}
	w.st.RootCause = RootCause(c.RootCause, known)
	w.recall(ctx, c.RootCause, results)
	w.st.Remediation = Remediation(w.ts.Namespace, c.Remediation)
	if w.st.Remediation != nil {
		for i := range w.st.Remediation.Actions {
			w.st.Remediation.Actions[i].ID = w.actionID(w.st.Remediation.Actions[i].ID)
		}
	}
	if RootCauseFound(w.st.RootCause) && w.st.StartTime != nil {
		metrics.TimeToRootCause.Observe(w.now.Sub(w.st.StartTime.Time).Seconds())
	}
	if w.ts.Spec.Mode == kubagev1alpha1.ModeRemediate && w.st.Remediation != nil && len(w.st.Remediation.Actions) > 0 {
		w.enter(kubagev1alpha1.PhaseAwaitingApproval, fmt.Sprintf("%d action(s) proposed", len(w.st.Remediation.Actions)))
		if err := w.writeReport(ctx); err != nil {
			return 0, err
		}
		return soon, nil
	}
	return w.complete(ctx)
}

// maxCitations bounds the runbook citations added to a conclusion.
const maxCitations = 3

// cite adds the runbooks that match the root cause to the conclusion (so the report lists
// them) and returns their status form by evidence id, with the full knowledge citation.
func (w *work) cite(ctx context.Context, c *agent.Conclusion) map[string]kubagev1alpha1.Evidence {
	rc := c.RootCause
	if w.e.Knowledge == nil || rc.Summary == "" || rc.Category == "" || rc.Category == kubagev1alpha1.CategoryUnknown {
		return nil
	}
	cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	at := metav1.NewTime(w.now)
	out := map[string]kubagev1alpha1.Evidence{}
	for i, cit := range w.e.Knowledge.CiteForConclusion(cctx, w.ts.Namespace, w.ts.Spec.KnowledgeSources, knowledge.ScopesOf(w.ts.Spec.Knowledge), rc.Summary, rc.Category) {
		if i >= maxCitations || len(c.RootCause.EvidenceIDs) >= agent.MaxEvidenceIDs {
			break
		}
		ev := cit.Evidence(fmt.Sprintf("kb-%d", i+1), &at)
		out[ev.ID] = ev
		c.Evidence = append(c.Evidence, agent.Evidence{
			ID: ev.ID, Summary: ev.Summary,
			Source: agent.Source{Kind: agent.SourceKnowledge, Query: cit.String()},
		})
		c.RootCause.EvidenceIDs = append(c.RootCause.EvidenceIDs, ev.ID)
	}
	return out
}

// actionID makes a brain's action id unique to this run, so that approvals written for
// an earlier run (still in spec.approvals) never approve a new run's actions.
func (w *work) actionID(id string) string {
	sum := sha256.Sum256([]byte(string(w.owner.UID) + "/" + w.owner.Run + "/" + strconv.FormatInt(w.ck.Generation, 10)))
	suffix := hex.EncodeToString(sum[:])[:6]
	if len(id) > 63-7 {
		id = strings.Trim(id[:63-7], "-")
	}
	return id + "-" + suffix
}
