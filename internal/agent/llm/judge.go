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
	"fmt"
	"strings"

	"github.com/kubage/kubage/internal/agent"
	"github.com/kubage/kubage/internal/text"
)

// Judge implements agent.Regulator: budgets first (no model call once they are used),
// then the model's judgement, merged with the rule engine's unexamined leads.
func (b *LLMBrain) Judge(ctx context.Context, s agent.Session, p agent.Progress) (agent.Verdict, error) {
	var fb agent.Verdict
	fbOK := false
	if b.fallback != nil {
		v, err := b.fallback.Judge(ctx, s, p)
		fb, fbOK = v, err == nil
	}
	if b.cfg.MaxIterations > 0 && p.Iteration >= b.cfg.MaxIterations {
		return agent.Verdict{Decision: agent.Conclude, Feedback: fmt.Sprintf("iteration budget of %d used", b.cfg.MaxIterations)}, nil
	}
	calls := 0
	for _, r := range p.Results {
		calls += len(r.ToolCalls)
	}
	if b.cfg.MaxToolCalls > 0 && calls >= b.cfg.MaxToolCalls {
		return agent.Verdict{Decision: agent.Conclude, Feedback: fmt.Sprintf("tool-call budget of %d used", b.cfg.MaxToolCalls)}, nil
	}
	ruleLeads := fbOK && fb.Decision == agent.Replan && len(fb.Next) > 0
	var out verdictOut
	var u strings.Builder
	u.WriteString(sessionText(s))
	fmt.Fprintf(&u, "Iteration: %d", max(p.Iteration, 1))
	if b.cfg.MaxIterations > 0 {
		fmt.Fprintf(&u, " of at most %d", b.cfg.MaxIterations)
	}
	u.WriteString("\n\nFindings so far:\n" + findingsText(p.Results, 20) + "\n\n")
	u.WriteString("Task results so far:\n" + resultsText(p.Results, 30) + "\n\n")
	if fbOK {
		u.WriteString("The rule engine's verdict: " + string(fb.Decision) + " — " + dataBlock("rule-engine verdict", "", fb.Feedback) + "\n\n")
	}
	items := evidenceItems(allEvidence(p.Results))
	budget := b.promptBudget() - ApproxTokens(u.String()) - ApproxTokens(systemPrompt(b.cfg.Mode, roleRegulator)) - 400
	u.WriteString("Evidence:\n" + packEvidence(items, budget) + "\n\n")
	u.WriteString("Decide: pass, refine (with next steps) or fail.")
	err := b.structured(ctx, b.verdict, systemPrompt(b.cfg.Mode, roleRegulator), u.String(), &out, func() error { return out.check(ruleLeads) })
	if err != nil {
		derr := b.degrade("Judge", err)
		if !fbOK {
			return agent.Verdict{}, noFallback("Judge", derr)
		}
		return fb, nil
	}
	feedback := oneLine(out.Feedback, 400)
	switch out.Decision {
	case "fail":
		return agent.Verdict{Decision: agent.Stop, Feedback: feedback}, nil
	case "pass":
		if ruleLeads {
			return agent.Verdict{Decision: agent.Replan, Next: fb.Next, Feedback: text.ClipMarked(feedback+"; following the rule engine's open leads first: "+fb.Feedback, 500)}, nil
		}
		return agent.Verdict{Decision: agent.Conclude, Feedback: feedback}, nil
	}
	v := agent.Verdict{Decision: agent.Replan, Feedback: feedback}
	if ruleLeads {
		v.Next = append(v.Next, fb.Next...)
	}
	for _, step := range out.NextSteps {
		v.Next = append(v.Next, agent.Task{Type: agent.TaskInvestigate, Description: oneLine(step, 300)})
	}
	if len(v.Next) == 0 {
		v.Decision = agent.Conclude
	}
	return v, nil
}

func allEvidence(results []agent.TaskResult) []agent.Evidence {
	var out []agent.Evidence
	for _, r := range results {
		out = append(out, r.Evidence...)
	}
	return out
}
