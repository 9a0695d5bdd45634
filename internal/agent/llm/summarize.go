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

package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/kubage/kubage/internal/agent"
	"github.com/kubage/kubage/internal/text"
	"github.com/kubage/kubage/internal/tools"
)

// Summarize implements agent.Summarizer. The fallback's conclusion is shown as the
// rule engine's candidate and is the answer when the model fails.
func (b *LLMBrain) Summarize(ctx context.Context, s agent.Session, p agent.Progress) (agent.Conclusion, error) {
	var fb agent.Conclusion
	fbErr := errors.New("no fallback brain")
	if b.fallback != nil {
		fb, fbErr = b.fallback.Summarize(ctx, s, p)
	}
	evidence := allEvidence(p.Results)
	known := map[string]bool{}
	for _, e := range evidence {
		known[e.ID] = true
	}
	for _, e := range fb.Evidence {
		if !known[e.ID] {
			known[e.ID] = true
			evidence = append(evidence, e)
		}
	}
	query := s.Problem
	if fbErr == nil && fb.RootCause.Summary != "" {
		query += "\n" + fb.RootCause.Summary
	}
	snips := b.searchKnowledge(ctx, query)
	citations := map[string]bool{}
	for _, sn := range snips {
		citations[sn.Citation] = true
	}
	user := b.summaryPrompt(s, p, fb, fbErr == nil, evidence, snips)
	var out conclusionOut
	err := b.structured(ctx, b.conclusion, systemPrompt(b.cfg.Mode, roleSummarizer), user, &out, func() error { return out.check(known, citations) })
	if err != nil {
		derr := b.degrade("Summarize", err)
		if fbErr != nil {
			return agent.Conclusion{}, noFallback("Summarize", derr)
		}
		return fb, nil
	}
	return b.conclusionFrom(s, out, evidence, snips, fb, fbErr == nil), nil
}

func (b *LLMBrain) summaryPrompt(s agent.Session, p agent.Progress, fb agent.Conclusion, fbOK bool, evidence []agent.Evidence, snips []Snippet) string {
	var u strings.Builder
	u.WriteString(sessionText(s))
	if p.StopReason != "" {
		u.WriteString("The investigation stopped early: " + oneLine(p.StopReason, 300) + "\n")
	}
	u.WriteString("\nFindings:\n" + findingsText(p.Results, 20) + "\n\n")
	u.WriteString("Task results:\n" + resultsText(p.Results, 30) + "\n\n")
	if fbOK {
		u.WriteString("The rule engine's candidate conclusion:\n" + dataBlock("rule-engine", "candidate", candidateJSON(fb)) + "\n\n")
	}
	u.WriteString("Knowledge (cite by the id attribute):\n" + knowledgeText(snips) + "\n\n")
	// Evidence cited by the rule engine first: it is what the candidate rests on.
	cited := map[string]bool{}
	for _, id := range fb.RootCause.EvidenceIDs {
		cited[id] = true
	}
	ordered := append([]agent.Evidence(nil), evidence...)
	sort.SliceStable(ordered, func(i, j int) bool { return cited[ordered[i].ID] && !cited[ordered[j].ID] })
	tail := "Write the conclusion. Cite only evidence ids and knowledge citations shown above."
	budget := b.promptBudget() - ApproxTokens(u.String()) - ApproxTokens(systemPrompt(b.cfg.Mode, roleSummarizer)) - ApproxTokens(tail) - 200
	u.WriteString("Evidence (cite by the id attribute):\n" + packEvidence(evidenceItems(ordered), budget) + "\n\n")
	u.WriteString(tail)
	return u.String()
}

// candidateJSON is the part of a rule-engine conclusion the model needs.
func candidateJSON(c agent.Conclusion) string {
	rc := c.RootCause
	v := map[string]any{
		"summary": rc.Summary, "category": rc.Category, "confidence": rc.Confidence,
		"culprit": map[string]string{"kind": rc.Culprit.Kind, "name": rc.Culprit.Name}, "evidenceIds": rc.EvidenceIDs,
	}
	if rc.Rule != "" {
		v["rule"] = rc.Rule
	}
	if len(rc.Chain) > 0 {
		v["chain"] = rc.Chain
	}
	raw, _ := json.Marshal(v)
	return string(raw)
}

func (b *LLMBrain) conclusionFrom(s agent.Session, out conclusionOut, evidence []agent.Evidence, snips []Snippet, fb agent.Conclusion, fbOK bool) agent.Conclusion {
	ref := func(r refOut) agent.ObjectRef {
		o := agent.ObjectRef{Kind: oneLine(r.Kind, 63), Name: oneLine(r.Name, 253)}
		if o.Name == "" {
			return agent.ObjectRef{}
		}
		if k, err := tools.ResolveKind(o.Kind); err == nil {
			o.Kind = k.Kind
			if k.Namespaced {
				o.Namespace = s.Namespace
			}
		} else {
			o.Namespace = s.Namespace
		}
		return o
	}
	rc := agent.RootCause{
		Summary: text.ClipMarked(out.Summary, agent.MaxRootSummary), Category: out.Category,
		Confidence: min(max(out.Confidence, 0), 100), Culprit: ref(out.Culprit),
	}
	for _, a := range out.AffectedObjects {
		if r := ref(a); !r.IsZero() && len(rc.AffectedObjects) < agent.MaxAffected {
			rc.AffectedObjects = append(rc.AffectedObjects, r)
		}
	}
	for _, c := range out.Chain {
		if len(rc.Chain) < 8 {
			rc.Chain = append(rc.Chain, oneLine(c, 200))
		}
	}
	byID := map[string]agent.Evidence{}
	for _, e := range evidence {
		byID[e.ID] = e
	}
	c := agent.Conclusion{}
	for _, id := range out.EvidenceIDs {
		if e, ok := byID[id]; ok && len(rc.EvidenceIDs) < agent.MaxEvidenceIDs {
			rc.EvidenceIDs = append(rc.EvidenceIDs, id)
			c.Evidence = append(c.Evidence, e)
			delete(byID, id)
		}
	}
	bySnip := map[string]Snippet{}
	for _, sn := range snips {
		bySnip[sn.Citation] = sn
	}
	for i, cit := range out.KnowledgeCitations {
		sn, ok := bySnip[cit]
		if !ok || len(rc.EvidenceIDs) >= agent.MaxEvidenceIDs {
			continue
		}
		id := fmt.Sprintf("kb-%d", i+1)
		rc.EvidenceIDs = append(rc.EvidenceIDs, id)
		summary := cit
		if sn.Title != "" {
			summary = sn.Title + " (" + cit + ")"
		}
		c.Evidence = append(c.Evidence, agent.Evidence{ID: id, Summary: oneLine(summary, agent.MaxEvidenceSummary),
			Source: agent.Source{Kind: agent.SourceKnowledge, Tool: "knowledge", Query: oneLine(cit, 300)},
			Data:   text.ClipMarked(b.red.Redact(sn.Text), agent.MaxEvidenceData)})
		delete(bySnip, cit)
	}
	c.RootCause = rc
	for i, a := range out.Remediation.Actions {
		if i == agent.MaxActions {
			break
		}
		c.Remediation.Actions = append(c.Remediation.Actions, agent.Action{
			ID: fmt.Sprintf("llm-a%d", i+1), Description: oneLine(a.Description, 500),
			// No Risk: the model's estimate is not trusted; the session derives it from
			// the action's structure.
			Command: text.ClipMarked(a.Command, 1000),
		})
	}
	for i, v := range out.Remediation.ValidationSteps {
		if i == agent.MaxValidationSteps {
			break
		}
		c.Remediation.ValidationSteps = append(c.Remediation.ValidationSteps, oneLine(v, 300))
	}
	if fbOK && fb.RootCause.Category != "" && (fb.RootCause.Category != rc.Category || fb.RootCause.Culprit.Key() != rc.Culprit.Key()) {
		c.Alternatives = append(c.Alternatives, fb.RootCause)
	}
	if fbOK {
		for _, alt := range fb.Alternatives {
			if len(c.Alternatives) >= 3 {
				break
			}
			if alt.Category != rc.Category || alt.Culprit.Key() != rc.Culprit.Key() {
				c.Alternatives = append(c.Alternatives, alt)
			}
		}
		// Evidence the alternatives cite, so their ids resolve in the status.
		for _, alt := range c.Alternatives {
			for _, id := range alt.EvidenceIDs {
				if e, ok := byID[id]; ok {
					c.Evidence = append(c.Evidence, e)
					delete(byID, id)
				}
			}
		}
	}
	return c
}
